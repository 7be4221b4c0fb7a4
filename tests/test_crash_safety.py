"""A session log crashed at every byte still opens, resumes and goes on (chapter 07).

A session with tool calls, an auto-compaction and recalls runs once on the
fake. Every record is one append, so the file after a crash at any byte of
any write is a prefix of the finished log: the tests cut it at every byte,
then reopen (repair), resume, and send the next request through the real SDK
to the fake, which refuses any history the API would refuse. A crash inside
the repair, or inside the ``interrupted`` record a resume writes, is tested
the same way.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from harness import (
    CompactionConfig,
    Workspace,
    iter_tool_results,
    iter_tool_uses,
    user,
    validate_messages,
)
from harness.fake import fake_client
from harness.labs.scenarios import AGENT_FILES, python_module
from harness.session.log import SessionLog
from harness.session.records import CorruptLog, read_log
from harness.session.resume import INTERRUPTED, reopen, replay, resume
from harness.session.runner import Session
from harness.strategies.recall import (
    RecallToolbox,
    ReversibleLayers,
    recalls,
    reversible_micro_compact,
)

REQUESTS = (
    "Read every .py file under agents/ and summarise what each does.",
    "What is VERSION_TAG in agents/s01_agent_loop.py?",
    'In agents/s02_tool_use.py, change VERSION_TAG to "v2-x".',
    "What is VERSION_TAG in agents/s01_agent_loop.py?",
    "Read every .py file under agents/ and summarise what each does.",
    "What is VERSION_TAG in agents/s03_todo_write.py?",
)
NEXT = "What is VERSION_TAG in agents/s03_todo_write.py?"


def small_workspace(root: Path) -> Workspace:
    workspace = Workspace(root)
    for index, (stem, purpose) in enumerate(list(AGENT_FILES.items())[:3], start=1):
        workspace.write_file(f"agents/{stem}.py", python_module(stem, purpose, index, lines=14))
    return workspace


def config(root: Path) -> CompactionConfig:
    return CompactionConfig(threshold=1_000, keep_recent=1, preserve_tools=frozenset(), min_chars=50,
                            transcript_dir=root / "transcripts")


def finished_session(root: Path) -> tuple[bytes, list]:
    """The log of the whole session, and the live history at its end."""
    log = SessionLog(root / "session.jsonl", fsync=False)
    session = Session(fake_client(), RecallToolbox(small_workspace(root / "workspace"), log), config(root),
                      ReversibleLayers(), log=log)
    for request in REQUESTS:
        session.ask(request)
    assert recalls(session) >= 2 and session.stats.compactions.get("auto", 0) >= 1  # the session has it all
    return (root / "session.jsonl").read_bytes(), session.messages


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return finished_session(tmp_path_factory.mktemp("finished"))


def line_ends(data: bytes) -> list[int]:
    """The byte offset just past every line: the crash points between two writes."""
    return [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]


def continue_session(path: Path, workspace_root: Path) -> Session:
    """Reopen the log, resume, and send the next request to the fake (which refuses invalid histories)."""
    log, resumed = reopen(path, fsync=False)
    session = Session(fake_client(), RecallToolbox(Workspace(workspace_root), log), config(path.parent),
                      ReversibleLayers(), log=log, messages=resumed.messages)
    session.ask(NEXT)
    return session


def test_the_whole_log_resumes_to_the_live_history(finished, tmp_path):
    data, live = finished
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    resumed = resume(path).messages
    assert resumed != live  # the log holds tool results as they were before micro-compaction cleared them
    assert same_after_micro(resumed, live)


def same_after_micro(a: list, b: list) -> bool:
    """Equal once the next call's micro pass has run on both (the log keeps results it cleared)."""
    a, b = copy.deepcopy(a), copy.deepcopy(b)
    for history in (a, b):
        reversible_micro_compact(history, 1, frozenset(), 50)
    return a == b


def test_a_crash_at_every_byte_repairs_to_the_last_complete_record(finished, tmp_path):
    data, _ = finished
    ends = [0] + line_ends(data)
    path = tmp_path / "session.jsonl"
    expected_records = {}
    for cut in range(len(data) + 1):
        path.write_bytes(data[:cut])
        complete = max(end for end in ends if end <= cut)
        whole_but_newline = cut + 1 in ends
        expected = data[:cut + 1] if whole_but_newline else data[:complete]
        if len(expected) not in expected_records:
            expected_records[len(expected)] = read_log_bytes(expected, tmp_path)
        assert read_log(path).records == expected_records[len(expected)], cut  # only the torn write is skipped
        with SessionLog(path, fsync=False) as log:
            assert path.read_bytes() == expected, cut
            assert (log.repair is None) == (cut in ends), cut
            assert log.seq == expected.count(b"\n")


def read_log_bytes(data: bytes, folder: Path) -> list:
    copy_path = folder / "copy.jsonl"
    copy_path.write_bytes(data)
    return read_log(copy_path).records


def test_every_crash_point_between_writes_resumes_and_continues(finished, tmp_path):
    """Each distinct state a crash can leave (after the repair above): resume, continue, recall."""
    data, _ = finished
    workspace_root = tmp_path / "workspace"
    small_workspace(workspace_root)
    interrupted = 0
    for end in [0] + line_ends(data):
        path = tmp_path / f"crash_{end}" / "session.jsonl"
        path.parent.mkdir()
        path.write_bytes(data[:end])
        records = read_log(path).records
        resumed = resume(path)
        validate_messages(resumed.messages + [user(NEXT)])
        interrupted += resumed.interrupted is not None
        session = continue_session(path, workspace_root)
        assert session.answers[-1], end
        after = read_log(path).records
        assert after[:len(records)] == records  # nothing complete was lost or changed
        assert same_after_micro(resume(path).messages, session.messages), end
        logged = {b["tool_use_id"]: b["content"] for r in records if r["kind"] != "compaction"
                  for _, _, b in iter_tool_results([r["message"]])}
        for tool_id, content in logged.items():  # recall answers for everything logged before the crash
            assert session.toolbox.run("recall", {"id": tool_id}).content == content
    assert interrupted >= 5  # a crash between a tool_use and its result is common: it is tested


def test_a_crash_inside_the_interrupted_record_is_repaired_too(finished, tmp_path):
    data, _ = finished
    open_rounds = [end for end in line_ends(data)
                   if resume_bytes(data[:end], tmp_path).interrupted is not None]
    assert open_rounds
    for end in open_rounds:
        path = tmp_path / f"open_{end}" / "session.jsonl"
        path.parent.mkdir()
        path.write_bytes(data[:end])
        reopen(path, fsync=False)[0].close()
        written = path.read_bytes()[end:]  # the interrupted record, one write
        assert json.loads(written)["kind"] == "interrupted"
        for cut in range(len(written)):
            path.write_bytes(data[:end] + written[:cut])
            log, resumed = reopen(path, fsync=False)
            log.close()
            assert path.read_bytes() == data[:end] + written, (end, cut)
            assert resumed.messages == resume(path).messages and resumed.messages[-1]["content"][0]["content"] == INTERRUPTED


def resume_bytes(data: bytes, folder: Path):
    path = folder / "probe.jsonl"
    path.write_bytes(data)
    return resume(path)


def test_an_interrupted_round_is_answered_and_recorded(finished, tmp_path):
    data, _ = finished
    records = [json.loads(line) for line in data.splitlines()]
    first_use = next(i for i, r in enumerate(records) if r["kind"] == "message"
                     and list(iter_tool_uses([r["message"]])))
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in data.splitlines()[:first_use + 1]))
    before = path.read_bytes()
    resumed = resume(path)
    assert path.read_bytes() == before  # resume only reads
    ids = [b["id"] for _, b in iter_tool_uses([records[first_use]["message"]])]
    assert resumed.interrupted == user([{"type": "tool_result", "tool_use_id": i, "content": INTERRUPTED,
                                         "is_error": True} for i in ids])
    _, again = reopen(path, fsync=False)
    assert again.messages == resumed.messages and again.interrupted is None
    assert read_log(path).records[-1] == {"seq": first_use + 2, "kind": "interrupted",
                                          "message": resumed.interrupted}
    assert replay(read_log(path).records) == resumed.messages  # replay is a pure function of the log


# --- records that are JSON but wrong --------------------------------------------------------

GOOD = {"seq": 1, "kind": "message", "message": user("hello")}


@pytest.mark.parametrize("record, problem", [
    ({"seq": 2, "kind": "message"}, "a message record needs a message"),
    ({"seq": 3, "kind": "message", "message": user("x")}, "seq must be 2 (its line number), not 3"),
    ({"seq": True, "kind": "message", "message": user("x")}, "seq must be 2 (its line number), not True"),
    ({"seq": 2, "kind": "message", "message": "hello"}, "its message is malformed: role"),
    ({"seq": 2, "kind": "message", "message": {"role": "user", "content": [{"type": "tool_result"}]}},
     "its message is malformed: block_fields"),
    ({"seq": 2, "kind": "message", "message": {"role": "robot", "content": "x"}}, "malformed: role"),
    ({"seq": 2, "kind": "torn", "line": 3}, "unknown kind 'torn'"),
    ({"seq": 2}, "unknown kind None"),
    ({"seq": 2, "kind": "compaction", "summary": "s"}, "budget_chars >= 0, not None"),
    ({"seq": 2, "kind": "compaction", "summary": "s", "budget_chars": -1}, "budget_chars >= 0, not -1"),
    ({"seq": 2, "kind": "compaction", "summary": 5, "budget_chars": 1}, "needs a message, or a summary"),
    ({"seq": 2, "kind": "compaction", "message": {"role": "user"}}, "malformed: non_empty_content"),
    ({"seq": 2, "kind": "interrupted", "message": user("x")}, "tool_result blocks only"),
    ([1, 2], "a record is a JSON object, not list"),
])
def test_a_wrong_record_is_a_corrupt_log_naming_file_line_and_problem(tmp_path, record, problem):
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(CorruptLog) as caught:
        read_log(path)
    assert caught.value.line == 2 and str(caught.value).startswith("session.jsonl, line 2: ")
    assert problem in caught.value.detail
    with pytest.raises(CorruptLog):
        resume(path)


def test_records_that_replay_to_an_invalid_history_name_the_line(tmp_path):
    path = tmp_path / "session.jsonl"
    answer = user([{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}])
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({"seq": 2, "kind": "message", "message": answer}) + "\n")
    with pytest.raises(CorruptLog, match="line 2: replays to an invalid history: tool_result_answers_previous"):
        resume(path)


def test_the_writer_refuses_a_record_the_reader_would_refuse(tmp_path):
    log = SessionLog(tmp_path / "session.jsonl", fsync=False)
    for kind, fields in (("mystery", {}), ("message", {"message": {"role": "user"}}),
                         ("compaction", {"summary": "s"})):
        with pytest.raises(ValueError, match="refusing to write record 1"):
            log.append(kind, **fields)
    assert not (tmp_path / "session.jsonl").exists() or (tmp_path / "session.jsonl").read_bytes() == b""
    assert log.seq == 0


def test_a_resumed_history_is_a_copy_the_session_may_change(finished, tmp_path):
    data, _ = finished
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    resumed = resume(path).messages
    snapshot = copy.deepcopy(resumed)
    resumed[0]["content"] = "changed"
    assert resume(path).messages == snapshot
