"""Chapter 09's cache model (``labs.cost.PromptCache``) against the ``usage`` the fake reports, on the same runs.

Both model the API's automatic caching: one breakpoint on the last block of every request. The first
tests run sessions with the top-level ``cache_control`` on every request and compare each call; the
last ones pin where the two differ, and why.
"""
from __future__ import annotations

import pytest

from harness import CompactionConfig, assistant, text, tool_result, tool_use, user
from harness.fake import FakeModel
from harness.fake.caching import min_cacheable
from harness.labs.cost import (SESSION_PRICES, AutomaticCaching, PromptCache, cache_recorder, cost_of,
                               request_segments)
from harness.labs.micro_lab import LAB_MAX_TURNS, micro_layer
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.core.config import DEFAULT_MODEL
from harness.core.micro import micro_compact
from harness.strategies.three_layers import ThreeLayers

AUTOMATIC = AutomaticCaching.MARK


def both(scenario, config, root, **options) -> list[tuple[str, tuple[int, int, int], tuple[int, int, int]]]:
    """Each call of one run: (kind, the fake's (read, write, uncached), the cache model's)."""
    client = AutomaticCaching(FakeModel().client())
    recorder = cache_recorder(client)
    session = run_scenario(scenario, config, root, client=recorder, **options)
    report = cost_of(session.trace, recorder.records, SESSION_PRICES)
    return [(call.kind, (u.cache_read_input_tokens, u.cache_creation_input_tokens, u.input_tokens),
             (call.cache_read, call.cache_write, call.uncached)) for call, u in zip(report.calls, client.usages)]


def test_the_session_prices_minimum_is_the_fakes_for_the_session_model():
    assert SESSION_PRICES.min_cacheable == min_cacheable(DEFAULT_MODEL) == 4_096


@pytest.mark.parametrize("micro", [False, True], ids=["no compaction", "micro_compact, nothing preserved"])
def test_the_twelve_file_task_costs_the_same_call_by_call(tmp_path, micro):
    if micro:
        config = CompactionConfig(keep_recent=3, preserve_tools=frozenset(), auto=False, max_turns=LAB_MAX_TURNS)
        calls = both(TWELVE_FILES, config, tmp_path, compactor=ThreeLayers(micro=micro_layer(micro_compact)))
    else:
        calls = both(TWELVE_FILES, CompactionConfig(micro=False, auto=False), tmp_path)
    assert [fake for _, fake, _ in calls] == [model for _, _, model in calls]
    reads = sum(fake[0] for _, fake, _ in calls)
    # with parallel calls the task is three calls: the one prefix long enough to cache is written on the last, so
    # nothing is read; with micro every rewrite costs the whole prefix (chapter 02's figures)
    assert reads == 0


def test_the_long_session_agrees_on_every_agent_call_and_the_summaries_differ_by_choice(tmp_path):
    calls = both(LONG_SESSION, CompactionConfig(), tmp_path)
    agents = [(fake, model) for kind, fake, model in calls if kind == "agent"]
    summaries = [(fake, model) for kind, fake, model in calls if kind == "summary"]
    differ = [(fake, model) for fake, model in agents if fake != model]
    assert len(agents) > 150 and len(differ) == 2
    # each right after a turn of twelve parallel reads: for the API the run of calls and the run of results are
    # one position each, so the fake reads the prefix; the model counts 24 blocks, past its 20-block lookback
    assert all(fake[0] > 0 == model[0] and fake[0] + fake[1] == model[1] for fake, model in differ)
    # cost_of prices a summary call uncached (one-off); sent with cache_control, the API writes it
    assert summaries and all(fake == (0, model[2], 0) and model[:2] == (0, 0) for fake, model in summaries)


# --- where the two differ -------------------------------------------------------------------------

def side_by_side(requests: list[list[dict]], pause: int = 0) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Each request's (read, write) from the fake (automatic caching; ``pause`` seconds before each
    request after the first) and from ``PromptCache``."""
    fake, model = FakeModel(), PromptCache()
    client, out = fake.client(), []
    for n, messages in enumerate(requests):
        if n:
            fake.prompt_cache.advance(pause)
        usage = client.messages.create(model=DEFAULT_MODEL, max_tokens=100, messages=messages,
                                       cache_control=AUTOMATIC).usage
        out.append(((usage.cache_read_input_tokens, usage.cache_creation_input_tokens),
                    model.send(request_segments(messages))))
    return out


BIG = "a" + " a" * 4_999


def test_the_lookback_the_cache_model_checks_21_boundaries_the_api_20_positions():
    """cost.py reads "about 20 blocks before" the breakpoint as 20 more boundaries; today's page: "at most 20
    positions per breakpoint, counting the breakpoint itself as the first"."""
    turns = [user(BIG)] + [assistant(f"r{k}") if k % 2 == 0 else user(f"n{k}") for k in range(20)]
    (fake_first, model_first), (fake, model) = side_by_side([turns[:1], turns])
    assert fake_first == model_first == (0, 5_004)   # the first request writes its whole prefix in both
    assert model[0] == 5_004 and fake[0] == 0        # 20 positions back: found by the model, not by the fake


def test_a_run_of_parallel_calls_is_one_position_for_the_api_and_each_block_for_the_model():
    calls = [tool_use(f"t{k}", "read_file", {"path": f"f{k}.py"}) for k in range(12)]
    results = [tool_result(f"t{k}", f"line {k}") for k in range(12)]
    (_, _), (fake, model) = side_by_side([[user(BIG)], [user(BIG), assistant(calls), user(results)]])
    assert fake[0] == 5_004 and model[0] == 0


def test_entries_expire_in_the_fake_and_never_in_the_model():
    conversation = [user(BIG), assistant("ok"), user([text("go on")])]
    (_, _), (fake, model) = side_by_side([conversation[:1], conversation], pause=300)
    assert fake[0] == 0 and model[0] == 5_004
