"""Resume by replay (chapter 06): the log gives back exactly the history that was live.

Random sessions commit messages through a SessionLog and compact several
times (the usage-triggered design's replacement and chapter 03's summary message, mixed); a
crash can stop them anywhere, even in the middle of a write (chapter 07).
"""
import copy
import itertools
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from histories import sentence

from harness import CompactionConfig, Toolbox, assistant, compressed_message, micro_compact, tool_result, tool_use, user
from harness.fake import FakeModel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.session.log import SessionLog
from harness.session.replacement import replace_history
from harness.session.records import CorruptLog, read_log
from harness.session.resume import resume, resume_naive
from harness.session.retry import RetryPolicy
from harness.session.runner import Session
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.three_layers import ThreeLayers
from harness.strategies.usage_triggered import UsageTriggered

# --- random sessions ---------------------------------------------------------------------

ask = st.tuples(st.just("ask"), st.one_of(sentence, st.integers(1, 30_000).map(lambda n: "w" * n)))
work = st.tuples(st.just("work"), st.lists(sentence, min_size=1, max_size=3))
answer = st.tuples(st.just("answer"), sentence)
usage_compaction = st.tuples(st.just("replace"), st.tuples(sentence, st.integers(0, 40_000)))
summary_compaction = st.tuples(st.just("summarise"), sentence)
steps = st.lists(st.one_of(ask, ask, work, work, answer, usage_compaction, summary_compaction), max_size=40)


TOOL_IDS = itertools.count()  # unique across drivers: a resumed session goes on with the ids of the first


class Driver:
    """Plays steps the way the loop does: append to the live history, then log what was committed."""

    def __init__(self, path: Path, history: list | None = None):
        path.touch()  # an empty log is a session with no message yet
        self.log = SessionLog(path)
        self.history = history if history is not None else []
        self.log.mark_logged(self.history)
        self.logged: list = []  # every message committed, in order

    def play(self, steps) -> list:
        for kind, value in steps:
            if kind == "ask":
                self.commit(user(value))
            elif kind == "answer":
                self.commit(assistant(value))
            elif kind == "work":
                ids = [f"toolu_{next(TOOL_IDS)}" for _ in value]
                self.commit(assistant([tool_use(i, "read_file", {"path": v}) for i, v in zip(ids, value)]),
                            user([tool_result(i, v * 20) for i, v in zip(ids, value)]))
            elif kind == "replace":
                summary, budget = value
                self.history[:] = replace_history(self.history, summary, budget)
                self.log.compacted(self.history, strategy="usage_triggered", summary=summary, budget_chars=budget)
            else:  # chapter 03's auto or manual compaction: one summary message replaces everything
                self.history[:] = [compressed_message(Path("transcripts/t.jsonl"), value)]
                self.log.compacted(self.history, layer="auto", message=self.history[0], transcript="t.jsonl")
        return self.history

    def commit(self, *messages) -> None:
        self.history += messages
        self.logged += messages
        self.log.sync(self.history)


@given(steps)
@settings(max_examples=150, deadline=None)
def test_resume_gives_back_the_live_history_at_the_crash(session_steps):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        driver = Driver(path)
        live = driver.play(session_steps)
        resumed = resume(path)
        assert resumed.messages == live and resumed.torn is None
        assert resumed.compactions == sum(kind in ("replace", "summarise") for kind, _ in session_steps)
        assert resume_naive(path) == driver.logged  # the log keeps everything, for audit


@given(steps, steps, st.data())
@settings(max_examples=100, deadline=None)
def test_a_torn_last_write_is_reported_and_everything_before_it_recovered(first, second, data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        live = Driver(path).play(first)
        lines = path.read_bytes().count(b"\n") + 1
        record = json.dumps({"seq": lines, "kind": "message", "message": user("cut short")}).encode()
        with path.open("ab") as f:
            f.write(record[:data.draw(st.integers(1, len(record) - 1))])
        resumed = resume(path)
        assert resumed.messages == live and resumed.torn.line == lines

        driver = Driver(path, copy.deepcopy(resumed.messages))  # reopening cuts the torn line off
        assert driver.log.repair.action == "cut" and driver.log.repair.line == lines
        live = driver.play(second)
        resumed = resume(path)
        assert resumed.messages == live and resumed.torn is None


def test_a_complete_last_record_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "session.jsonl"
    Driver(path).play([("ask", "hello")])
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    assert resume(path).messages == [user("hello")] and resume(path).torn is None
    Driver(path, [user("hello")]).play([("ask", "again")])
    assert resume(path).messages == [user("hello"), user("again")]


def test_a_corrupt_line_in_the_middle_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "session.jsonl"
    Driver(path).play([("ask", "one"), ("answer", "two"), ("ask", "three")])
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1][:20] + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CorruptLog, match="line 2") as caught:
        resume(path)
    assert caught.value.line == 2


def test_a_bad_last_line_that_ends_with_a_newline_is_corruption_not_a_torn_write(tmp_path):
    path = tmp_path / "session.jsonl"
    Driver(path).play([("ask", "one")])
    with path.open("a", encoding="utf-8") as f:
        f.write('{"seq": 2, "kind": "mess\n')
    with pytest.raises(CorruptLog, match="line 2"):
        resume(path)


@pytest.mark.parametrize("line", ['[1, 2]', '{"seq": 2}', '"text"'])
def test_json_that_is_not_a_record_is_corruption(tmp_path, line):
    path = tmp_path / "session.jsonl"
    Driver(path).play([("ask", "one")])
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    with pytest.raises(CorruptLog, match="line 2"):
        read_log(path)


def test_unknown_records_are_refused_and_an_empty_log_is_an_empty_history(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    assert resume(path).messages == [] and resume(path).records == 0
    path.write_text('{"seq": 1, "kind": "mystery"}\n')
    with pytest.raises(CorruptLog, match="unknown kind 'mystery'"):
        resume(path)
    path.write_text('{"seq": 1, "kind": "compaction", "layer": "auto"}\n')
    with pytest.raises(CorruptLog, match="needs a message, or a summary string with budget_chars"):
        resume(path)


# --- real sessions on the fake ---------------------------------------------------------------

class Crash(Exception):
    """The process died."""


class CrashingModel(FakeModel):
    """A fake whose process dies on its ``crash_at``-th agent call."""

    def __init__(self, crash_at: int):
        super().__init__()
        self.crash_at = crash_at

    def reply(self, body, request_id):
        if body.get("tools") and self.requests.count("agent") + 1 == self.crash_at:
            raise Crash()
        return super().reply(body, request_id)


@pytest.mark.parametrize("crash_at", [5, 23, 37])
def test_a_session_that_crashes_resumes_to_its_last_committed_history(tmp_path, crash_at):
    workspace = LONG_SESSION.build(tmp_path / "workspace")
    session = Session(CrashingModel(crash_at).client(), Toolbox(workspace), CompactionConfig(),
                      log=SessionLog(tmp_path / "session.jsonl"),
                      compactor=UsageTriggered(retry=RetryPolicy(sleep=lambda s: None)))
    with pytest.raises(Exception):
        for request in LONG_SESSION.requests:
            session.ask(request)
    assert resume(tmp_path / "session.jsonl").messages == session.messages


def test_a_resumed_session_continues_and_still_replays(tmp_path):
    first = run_scenario(LONG_SESSION, CompactionConfig(), tmp_path, requests=LONG_SESSION.requests[:6], log=True,
                         compactor=UsageTriggered(retry=RetryPolicy(sleep=lambda s: None)))
    path = tmp_path / "session.jsonl"
    resumed = resume(path).messages
    assert resumed == first.messages
    logged_before = len(resume_naive(path))
    first.log.close()  # the first session is done: its log lets another writer in
    log = SessionLog(path)
    log.mark_logged(resumed)
    session = Session(FakeModel().client(), first.toolbox, CompactionConfig(), log=log,
                      compactor=UsageTriggered(), messages=resumed)
    session.ask("What did I tell you about tools/?")
    assert session.answers[-1] == 'You told me: "From now on, never edit anything under tools/; it is vendored code."'
    assert resume(path).messages == session.messages
    added = resume_naive(path)[logged_before:]  # only the new messages: the resumed ones are not logged twice
    assert added == [user("What did I tell you about tools/?"), session.messages[-1]]


def test_resume_replays_the_three_layer_strategy_too(tmp_path):
    config = CompactionConfig(threshold=12_000)
    session = run_scenario(LONG_SESSION, config, tmp_path, requests=LONG_SESSION.requests[:8], log=True,
                           compact_policy=6_000, compactor=OneCallPerTurn(ThreeLayers()))  # both layers fire
    kinds = {r.get("layer") for r in read_log(tmp_path / "session.jsonl").records if r["kind"] == "compaction"}
    assert kinds == {"auto", "manual"}
    resumed = resume(tmp_path / "session.jsonl").messages
    live = copy.deepcopy(session.messages)
    # micro-compaction edits the live history in place after logging; the next call redoes it from scratch
    for history in (resumed, live):
        micro_compact(history, config.keep_recent, config.preserve_tools, config.min_chars)
    assert resumed == live
