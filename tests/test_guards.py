"""Guards (chapter 08): a broken compaction is undone, a too-big one reported, a loop stopped."""
from __future__ import annotations

import anthropic
import pytest

from harness import CompactionConfig, Event, InvalidHistory, RunContext, assistant, tool_result, tool_use, user
from harness.fake import fake_client
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.strategies.base import Compactor
from harness.strategies.guards import Guarded, check_next_request, copy_history
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.server_side import ServerToolClearing
from harness.strategies.three_layers import ThreeLayers


class DropOldest(Compactor):
    """A naive trim: forget the oldest messages once there are more than ``keep``. Breaks tool pairs."""
    name = "drop_oldest"

    def __init__(self, keep: int = 5):  # odd: the oldest kept message is a tool_result without its tool_use
        self.keep = keep

    def before_call(self, run: RunContext) -> list[str]:
        if len(run.messages) <= self.keep:
            return []
        before = len(run.messages)
        del run.messages[: before - self.keep]
        run.emit(Event("drop_oldest", run.call, before, len(run.messages)))
        return ["drop_oldest"]


def run_twelve(tmp_path, compactor, **config):
    """The twelve-file task, one read per turn: the loops and trims these tests show act between reads."""
    return run_scenario(TWELVE_FILES, CompactionConfig(**config), tmp_path, compactor=OneCallPerTurn(compactor))


def test_copy_history_is_independent_down_to_the_blocks():
    history = [user("go"), assistant([tool_use("t1", "bash", {"command": "ls"})]),
               user([tool_result("t1", "a" * 200)])]
    copied = copy_history(history)
    history[2]["content"][0]["content"] = "[Previous: used bash]"
    history[1]["content"].append({"type": "text", "text": "more"})
    assert copied[2]["content"][0]["content"] == "a" * 200 and len(copied[1]["content"]) == 1


def test_check_next_request_accepts_a_finished_turn_and_refuses_a_dangling_tool_use():
    check_next_request([user("hi"), assistant("hello")])
    with pytest.raises(InvalidHistory):
        check_next_request([user("hi"), assistant([tool_use("t1", "bash", {"command": "ls"})])])
    with pytest.raises(InvalidHistory):
        check_next_request([])


def test_a_naive_trim_breaks_the_api_and_the_guard_undoes_it(tmp_path):
    with pytest.raises(anthropic.BadRequestError):
        run_twelve(tmp_path / "bare", DropOldest())
    session = run_twelve(tmp_path / "guarded", Guarded(DropOldest()))
    invalid = [e for e in session.events if e.kind == "guard_invalid"]
    assert invalid and invalid[0].detail["rule"] in ("tool_result_answers_previous", "tool_use_answered")
    assert invalid[0].detail["by"] == ["drop_oldest"]
    assert session.answers[-1].startswith("Plan for agents/") or "What each file" in session.answers[-1]


def test_a_compaction_loop_is_stopped(tmp_path):
    bare = run_twelve(tmp_path / "bare", ThreeLayers(), threshold=1_000)
    assert bare.stats.compactions.get("max_turns") == 1 and bare.stats.summary_calls > 90
    guarded = run_twelve(tmp_path / "guarded", Guarded(ThreeLayers()), threshold=1_000)
    loops = [e for e in guarded.events if e.kind == "compaction_loop"]
    assert len(loops) == 1 and loops[0].call - loops[0].detail["previous_call"] < 3
    assert guarded.stats.summary_calls == 2 and "max_turns" not in guarded.stats.compactions
    assert "What each file under agents/ does" in guarded.answers[-1]


def test_a_compaction_that_leaves_too_much_is_reported(tmp_path):
    session = run_twelve(tmp_path, Guarded(ThreeLayers()), threshold=100)
    too_big = [e for e in session.events if e.kind == "guard_too_big"]
    assert too_big and all(e.detail["size"] > e.detail["limit"] == 50 for e in too_big)


def test_a_healthy_strategy_runs_exactly_as_without_the_guard(tmp_path):
    bare = run_twelve(tmp_path, ThreeLayers(), threshold=5_000)  # one root: the same transcript paths
    guarded = run_twelve(tmp_path, Guarded(ThreeLayers()), threshold=5_000)
    assert guarded.stats == bare.stats and guarded.messages == bare.messages
    assert not [e for e in guarded.events if e.kind.startswith(("guard", "compaction_loop"))]


def test_a_stopped_guard_passes_nothing_on(tmp_path):
    calls = []

    class Spy(Compactor):
        def before_call(self, run):
            calls.append("before")
            return []

        def after_round(self, run, usage):
            calls.append("after")

        def on_compact(self, run, focus):
            calls.append("compact")

    guard = Guarded(Spy())
    run = RunContext(fake_client(), [user("hi")], CompactionConfig(transcript_dir=tmp_path), "", [], None,
                     lambda e: None, lambda t: None)
    guard.before_call(run), guard.after_round(run, None), guard.on_compact(run, None)
    guard.stopped = True
    assert guard.before_call(run) == [] and guard.after_round(run, None) is None
    guard.on_compact(run, None)
    assert calls == ["before", "after", "compact"]


def test_the_guard_passes_the_inner_request_options_until_it_stops(tmp_path):
    clearing = ServerToolClearing(trigger=8_000, keep=2)
    guard = Guarded(clearing)
    run = RunContext(fake_client(), [user("hi")], CompactionConfig(transcript_dir=tmp_path), "", [], None,
                     lambda e: None, lambda t: None)
    assert guard.request_options(run) == clearing.request_options(run) and "betas" in guard.request_options(run)
    guard.stopped = True
    assert guard.request_options(run) == {}
    plain = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path / "plain", compactor=clearing)
    guarded = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path / "guarded",
                           compactor=Guarded(ServerToolClearing(trigger=8_000, keep=2)))
    assert guarded.trace == plain.trace and any(e.kind == clearing.name for e in guarded.events)


def test_the_guard_validates_its_knobs():
    for bad in ({"threshold": 0}, {"min_gap": 0}, {"max_fraction": 0.0}, {"max_fraction": 2.0}):
        with pytest.raises(ValueError):
            Guarded(Compactor(), **bad)
