"""Every registered strategy runs the whole long session, and every request it sends is one the API accepts."""
from __future__ import annotations

import anthropic
import pytest

from harness import CompactionConfig, validate_messages
from harness.fake import fake_client
from harness.labs.recording import RecordingClient
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.strategies.base import Compactor
from harness.strategies.guards import check_next_request
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.registry import PRETEND_WINDOW, all_strategies, control_strategies

STRATEGIES = all_strategies() + control_strategies()


def test_the_registry_names_each_strategy_once_with_its_story():
    keys = [s.key for s in STRATEGIES]
    assert len(set(keys)) == len(keys) and keys[0] == "none"
    for strategy in STRATEGIES:
        assert strategy.title and strategy.modelled_on and strategy.fires and strategy.simplified
        assert isinstance(strategy.make(), Compactor)


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.key)
def test_a_registered_strategy_runs_the_long_session_validly_within_the_pretend_window(strategy, tmp_path):
    """The fake refuses any call over PRETEND_WINDOW, summaries included; the baseline runs on the real window.
    One call per turn: with parallel calls twelve reads arrive in one turn (next test)."""
    fake = fake_client(window=None if strategy.key == "none" else PRETEND_WINDOW)
    checked = RecordingClient(fake, lambda request: validate_messages(request["messages"]) or True)
    config = CompactionConfig(model=strategy.model) if strategy.model else CompactionConfig()
    session = run_scenario(LONG_SESSION, config, tmp_path, client=checked, compactor=OneCallPerTurn(strategy.make()))
    assert len(session.answers) == len(LONG_SESSION.requests) and all(session.answers)
    on_server = [t for t in session.trace if t.layers == ("compact_20260112",)]  # steps inside another call
    assert len(checked.records) == len(session.trace) - len(on_server)  # every call was checked first
    assert (strategy.key == "compaction") == bool(on_server)
    check_next_request(session.messages)


def test_with_parallel_calls_a_strategy_that_decides_on_the_last_reported_usage_overshoots_the_window(tmp_path):
    """Usage-triggered compaction (the usage-triggered design's) decides between rounds from the usage the API
    reported for the round's call, before its results came back: twelve reads answered in one turn (about 25,000
    tokens) take the next request past the 60,000-token window, and the API refuses it."""
    usage = next(s for s in STRATEGIES if s.key == "usage")
    with pytest.raises(anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 60000 maximum"):
        run_scenario(LONG_SESSION, CompactionConfig(), tmp_path, client=fake_client(window=PRETEND_WINDOW),
                     compactor=usage.make())
