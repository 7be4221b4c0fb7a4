"""The session log refuses what the API would refuse, and guards its one writer (chapter 07).

A damaged record is a CorruptLog naming its line, never a silent loss; a
complete last record is never cut as a torn write; the writer refuses, before
writing a byte, every record the reader would refuse; and a second writer of
an open log, in this process or another, is refused instead of repairing
what the first is still writing.
"""
from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from anthropic import BadRequestError
from hypothesis import given, settings
from hypothesis import strategies as st
from histories import sentence

from harness import CompactionConfig, assistant, tool_result, tool_use, user
from harness.fake import fake_client
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.session.log import LogInUse, SessionLog, lock_path
from harness.session.records import CorruptLog, read_log
from harness.session.resume import replay, reopen, resume
from harness.session.runner import SYSTEM_PROMPT, Session

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Session:
    """A short real session on the fake, with tool rounds; its log closed."""
    root = tmp_path_factory.mktemp("logged")
    session = run_scenario(LONG_SESSION, CompactionConfig(), root, requests=LONG_SESSION.requests[:2],
                           log=True, fsync=False)
    session.log.close()
    return session


@pytest.fixture(scope="module")
def logged(session) -> bytes:
    return session.log.path.read_bytes()


def result_lines(data: bytes) -> list[int]:
    """The 1-based lines that log a tool_result."""
    return [n for n, raw in enumerate(data.splitlines(), start=1) if b'"type": "tool_result"' in raw]


# --- a damaged record is refused, naming its line ------------------------------------------------

def test_every_bit_flip_in_a_results_content_key_is_a_corrupt_log_naming_its_line(session, logged, tmp_path):
    """Depends on check_message refusing unknown block fields (core/messages.py)."""
    line = result_lines(logged)[0]
    lines = logged.splitlines(keepends=True)
    key = lines[line - 1].index(b'"content": ', lines[line - 1].index(b'"tool_use_id"'))  # the block's key
    path = tmp_path / "session.jsonl"
    for bit in range(8 * len(b'"content"')):
        damaged = bytearray(lines[line - 1])
        damaged[key + bit // 8] ^= 1 << bit % 8
        path.write_bytes(b"".join(lines[:line - 1]) + bytes(damaged) + b"".join(lines[line:]))
        if bit == 8:  # "bontent": the history the raw records replay to gets a 400, through the real SDK
            with pytest.raises(BadRequestError, match="bontent"):
                send(session, [json.loads(raw) for raw in path.read_bytes().splitlines()[:line]])
        with pytest.raises(CorruptLog) as caught:
            resume(path)
        assert caught.value.line == line, bit
        with pytest.raises(CorruptLog):
            reopen(path, fsync=False)
    send(session, read_log(session.log.path).records[:line])  # undamaged, the same request is accepted


def send(session: Session, records: list) -> None:
    fake_client().messages.create(model=CompactionConfig().model, max_tokens=100, system=SYSTEM_PROMPT,
                                  tools=session.toolbox.schemas, messages=replay(records) + [user("next")])


GOOD = {"seq": 1, "kind": "message", "message": user("hello")}
DEEP = '{"seq": 2, "kind": "message", "message": {"role": "assistant", "content": [{"type": "tool_use", ' \
       '"id": "t", "name": "bash", "input": {"x": ' + "[" * 100_000 + "]" * 100_000 + '}}]}}'


@pytest.mark.parametrize("line, problem", [
    (json.dumps({"seq": 2, "kind": "message", "message": user("x"), "note": 1}), "unknown field 'note'"),
    (json.dumps({"seq": 2.0, "kind": "message", "message": user("x")}), "seq must be 2"),
    (json.dumps({"seq": 2, "kind": "interrupted", "message": user([tool_result("t", "x")]), "why": "x"}),
     "unknown field 'why'"),
    (json.dumps({"seq": 2, "kind": "compaction", "summary": "s", "budget_chars": 1, "reasno": "x"}),
     "unknown field 'reasno'"),
    (json.dumps({"seq": 2, "kind": "compaction", "summary": "s", "budget_chars": 1, "reason": 5}),
     "reason is a string"),
    (json.dumps({"seq": 2, "kind": "compaction", "summary": "s", "budget_chars": 1, "threshold": "8000"}),
     "threshold is an integer >= 0 or null"),
    (json.dumps({"seq": 2, "kind": "compaction", "summary": "   ", "budget_chars": 1}),
     "summary cannot be replayed: a summary must have some text"),
    (json.dumps({"seq": 2, "kind": "compaction", "summary": "s", "budget_chars": 1, "message": user("s")}),
     "not both"),
    (json.dumps({"seq": 2, "kind": "message", "message": assistant([tool_use("t", "bash", {"x": math.nan})])}),
     "not strict JSON (NaN"),
    (json.dumps({"seq": 2, "kind": "message", "message": user("x" + "\ud800")}), "a lone surrogate"),
    (DEEP, "nested too deep"),
    ('{"seq": 2, "kind": "message", "message": {"role": "user", "content": "\xff"}}', "not UTF-8"),
], ids=lambda value: value if len(value) < 40 else None)
def test_a_record_the_api_or_replay_would_refuse_is_a_corrupt_log(tmp_path, line, problem):
    path = tmp_path / "session.jsonl"
    raw = line.encode("utf-8") if "\xff" not in line else line.encode("latin-1")
    path.write_bytes(json.dumps(GOOD).encode() + b"\n" + raw + b"\n")
    for read in (read_log, resume):
        with pytest.raises(CorruptLog) as caught:
            read(path)
        assert caught.value.line == 2 and problem in caught.value.detail, caught.value.detail


# --- a complete last record is never cut ----------------------------------------------------------

@pytest.mark.parametrize("byte", [b for b in range(256) if b != ord("\n")])
def test_a_damaged_final_newline_never_cuts_the_complete_record_before_it(logged, tmp_path, byte):
    path = tmp_path / "session.jsonl"
    damaged = logged[:-1] + bytes([byte])
    path.write_bytes(damaged)
    last = logged.count(b"\n")
    try:
        log = SessionLog(path, fsync=False)
    except CorruptLog as error:  # damage: named, and nothing changed
        assert error.line == last and path.read_bytes() == damaged
        with pytest.raises(CorruptLog, match=f"line {last}: "):
            read_log(path)
    else:
        log.close()
        assert log.repair.action == "newline"
        if byte == 0:  # a zero fill after the record (a power loss): the zero is cut, the newline added
            assert path.read_bytes() == logged
        else:  # JSON whitespace after the record: the record is whole, the newline goes after the byte
            assert chr(byte) in " \t\r" and path.read_bytes() == damaged + b"\n"
    assert lock_path(path).exists()
    try:  # the failed open released its lock: opening again meets the same damage, not LogInUse
        SessionLog(path, fsync=False).close()
    except CorruptLog:
        pass


def test_a_line_that_does_not_start_as_a_record_is_damage_not_a_torn_write(logged, tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(logged + b'{"seq": 1, "kind": "mess')  # a seq that is not the line's
    with pytest.raises(CorruptLog, match="not a torn write"):
        read_log(path)
    with pytest.raises(CorruptLog):
        SessionLog(path, fsync=False)
    assert path.read_bytes().endswith(b'"mess')


# --- the writer refuses what the reader refuses ---------------------------------------------------

@pytest.mark.parametrize("kind, fields, problem", [
    ("compaction", {"summary": "   ", "budget_chars": 100}, "a summary must have some text"),
    ("compaction", {"summary": "s", "budget_chars": 100, "reasno": "x"}, "unknown field 'reasno'"),
    ("message", {"message": user("x"), "note": "x"}, "unknown field 'note'"),
    ("message", {"message": assistant([tool_use("t", "bash", {"x": math.inf})])}, "inf is not a JSON number"),
    ("message", {"message": assistant([tool_use("t", "bash", {"x": b"bytes"})])}, "bytes is not a JSON value"),
    ("message", {"message": assistant([tool_use("t", "bash", {"x": {1, 2}})])}, "set is not a JSON value"),
    ("message", {"message": user("half a pair \ud800")}, "surrogate"),
    ("message", {"message": assistant([tool_use("t", "bash", {"x": (1, 2)})])}, "tuple is not a JSON value"),
    ("message", {"message": assistant([tool_use("t", "bash", {1: "x"})])}, "keys are strings"),
])
def test_the_writer_refuses_before_writing_a_byte(tmp_path, kind, fields, problem):
    path = tmp_path / "session.jsonl"
    with SessionLog(path, fsync=False) as log:
        log.append("message", message=user("first"))
        before = path.read_bytes()
        with pytest.raises(ValueError, match="refusing to write record 2") as caught:
            log.append(kind, **fields)
        assert problem in str(caught.value) and path.read_bytes() == before and log.seq == 1
        log.append("message", message=user("then"))
    assert [r["seq"] for r in read_log(path).records] == [1, 2]


def test_a_deep_value_is_refused_by_the_writer(tmp_path):
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with SessionLog(tmp_path / "session.jsonl", fsync=False) as log:
        with pytest.raises(ValueError, match="refusing to write record 1"):
            log.append("message", message=assistant([tool_use("t", "bash", {"x": deep})]))
    assert (tmp_path / "session.jsonl").read_bytes() == b""  # the open made it (the lock is its own); nothing written


junk = st.sampled_from([math.nan, math.inf, "\ud800", "  ", b"raw", frozenset({1}), (1, 2)])
leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=False, allow_infinity=False),
                 sentence, junk)
json_value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=3) | st.integers(0, 3), inner, max_size=3), max_leaves=5)
message = st.one_of(st.builds(user, sentence | junk),
                    st.builds(lambda tool_input: assistant([tool_use("t", "bash", tool_input)]),
                              st.dictionaries(st.text(max_size=3), json_value, max_size=3)),
                    st.builds(lambda content: user([tool_result("t", content)]), sentence | junk))
summary_fields = st.fixed_dictionaries({"summary": sentence | junk, "budget_chars": st.integers(-1, 10**5) | junk})
extra_fields = st.dictionaries(st.sampled_from(["reason", "layer", "transcript", "threshold", "reported_tokens",
                                                "strategy", "note", "message"]),
                               sentence | st.integers(-2, 10**6) | st.none() | junk | message, max_size=2)


@st.composite
def record_fields(draw: st.DrawFn) -> tuple[str, dict]:
    """A kind and its fields: mostly a record the reader takes, sometimes one it must refuse."""
    kind = draw(st.sampled_from(["message", "compaction", "interrupted", "mystery"]))
    body = draw(summary_fields) if kind == "compaction" and draw(st.booleans()) else {"message": draw(message)}
    return kind, {**body, **(draw(extra_fields) if draw(st.integers(0, 3)) == 0 else {})}


@given(record_fields())
@settings(max_examples=100, deadline=None)
def test_what_the_writer_writes_the_reader_reads_back_and_resume_never_raises_a_bare_error(kind_and_fields):
    kind, fields = kind_and_fields
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        with SessionLog(path, fsync=False) as log:
            try:
                record = log.append(kind, **fields)
            except ValueError as error:
                assert "refusing to write record 1" in str(error)
                assert path.read_bytes() == b""
                return
        assert read_log(path).records == [record]
        try:
            resume(path)
        except CorruptLog as error:  # a record that does not fit the history before it: named
            assert error.line == 1 and "replays to an invalid history" in error.detail


# --- one writer at a time -------------------------------------------------------------------------

def test_a_second_writer_in_this_process_is_refused_until_the_first_is_closed(tmp_path):
    path = tmp_path / "session.jsonl"
    first = SessionLog(path, fsync=False)
    first.append("message", message=user("one"))
    with path.open("ab") as f:
        f.write(b'{"seq": 2, "kind": "mess')  # a write in progress (or torn): not the second opener's to cut
    for open_again in (lambda: SessionLog(path), lambda: reopen(path)):
        with pytest.raises(LogInUse, match="already open for writing by this process") as caught:
            open_again()
        assert caught.value.holder == os.getpid()
    assert path.read_bytes().endswith(b'"mess')
    first.close()
    first.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="the log is closed"):
        first.append("message", message=user("two"))
    with SessionLog(path, fsync=False) as second:
        assert second.repair.action == "cut" and second.seq == 1


def test_a_log_that_is_garbage_collected_lets_the_next_writer_in(tmp_path):
    path = tmp_path / "session.jsonl"
    SessionLog(path).append("message", message=user("one"))
    log, resumed = reopen(path)  # the first log object is gone: its lock went with it
    assert resumed.messages == [user("one")]
    del log
    SessionLog(path).close()


def test_a_pickled_log_arrives_closed_and_the_lock_stays_with_the_original(tmp_path):
    """A sweep's session comes back from its worker by pickle (chapter 04)."""
    with SessionLog(tmp_path / "session.jsonl", fsync=False) as log:
        log.append("message", message=user("one"))
        copy = pickle.loads(pickle.dumps(log))
        assert copy.closed and not log.closed and (copy.path, copy.seq) == (log.path, 1)
        with pytest.raises(ValueError, match="the log is closed"):
            copy.append("message", message=user("two"))
        copy.close()  # closing a copy does not release the original's lock
        with pytest.raises(LogInUse):
            SessionLog(log.path)
        log.append("message", message=user("two"))
    assert len(read_log(log.path).records) == 2


def test_reopen_closes_the_log_again_when_resuming_fails(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({"seq": 2, "kind": "message",
                                                          "message": user([tool_result("nobody", "x")])}) + "\n")
    with pytest.raises(CorruptLog, match="line 2") as caught:
        reopen(path)
    SessionLog(path).close()  # although the traceback in ``caught`` still holds reopen's frame
    assert caught.value.line == 2


WRITER = textwrap.dedent("""
    import sys
    from harness.core.messages import user
    from harness.session import log as session_log

    whole_write = session_log.write_all

    def slow_write(fd, data):  # the big record in two parts, the second only when the test says so
        half = len(data) // 2
        whole_write(fd, data[:half])
        print("half written", flush=True)
        sys.stdin.readline()
        whole_write(fd, data[half:])

    log = session_log.SessionLog(sys.argv[1], fsync=False)
    log.append("message", message=user("small"))
    session_log.write_all = slow_write
    log.append("message", message=user("x" * int(sys.argv[2])))
    print("appended", flush=True)
    sys.stdin.readline()
    log.close()
    print("closed", flush=True)
    sys.stdin.readline()
""")


def start_writer(path: Path, size: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(size)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})


def go_on(process: subprocess.Popen) -> None:
    process.stdin.write("\n")
    process.stdin.flush()


def wait_for(process: subprocess.Popen, report: str) -> None:
    assert process.stdout.readline().strip() == report


def test_another_process_cannot_open_a_log_while_its_writer_appends_a_large_record(tmp_path):
    path = tmp_path / "session.jsonl"
    size = 4_000_000
    writer = start_writer(path, size)
    try:
        wait_for(writer, "half written")  # the writer is in the middle of its large append
        during = path.read_bytes()
        for open_again in (lambda: SessionLog(path), lambda: reopen(path)):
            with pytest.raises(LogInUse, match=f"already open for writing by process {writer.pid}") as caught:
                open_again()
            assert caught.value.holder == writer.pid
        assert path.read_bytes() == during  # nothing cut
        assert read_log(path).torn is not None  # a reader sees a write in progress, and only reports it
        go_on(writer)
        wait_for(writer, "appended")
        with pytest.raises(LogInUse):  # the append returned, but the writer still has the log open
            SessionLog(path)
        go_on(writer)
        wait_for(writer, "closed")
        with SessionLog(path) as log:
            assert log.repair is None and log.seq == 2
        records = read_log(path).records
        assert [len(r["message"]["content"]) for r in records] == [len("small"), size]
        go_on(writer)
        assert writer.wait(timeout=10) == 0
    finally:
        writer.kill()
        writer.wait()


def test_a_writer_that_dies_holding_the_log_leaves_no_stale_lock(tmp_path):
    path = tmp_path / "session.jsonl"
    writer = start_writer(path, 1_000_000)
    try:
        wait_for(writer, "half written")
    finally:
        writer.kill()
        writer.wait()
    with SessionLog(path) as log:  # the kernel dropped the lock: the torn write is a crash's, and is cut
        assert log.repair.action == "cut" and log.seq == 1
    assert [r["message"] for r in read_log(path).records] == [user("small")]
