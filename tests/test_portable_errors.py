"""Errors that cross a worker as themselves, and sweeps that fail and stop cleanly (chapter 04).

harness/core/errors.py and harness/labs/parallel.py."""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anthropic
import pytest

from harness import InvalidHistory
from harness.fake.context_management import EditRejected
from harness.fake.request import RequestRejected
from harness.labs.parallel import run_all
from harness.session.log import LogInUse
from harness.session.records import CorruptLog
from harness.session.retry import RetriesExhausted

REPO = Path(__file__).resolve().parent.parent


def sdk_error() -> anthropic.APIStatusError:
    from harness.fake import fake_client
    try:
        fake_client().messages.create(model="no-such-model", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    except anthropic.APIStatusError as error:
        return error
    raise AssertionError("the fake accepted an unknown model")


ERRORS = {
    "InvalidHistory": lambda: InvalidHistory("tool_result_order", 3, "a detail", "toolu_1", 0, path="messages.3"),
    "RequestRejected": lambda: RequestRejected(400, "invalid_request_error", "model: bad"),
    "EditRejected": lambda: EditRejected("context_management.edits.0: bad"),
    "CorruptLog": lambda: CorruptLog(Path("/tmp/session.jsonl"), 4, "not a record"),
    "LogInUse": lambda: LogInUse(Path("/tmp/session.jsonl"), 1234),
    "RetriesExhausted": lambda: RetriesExhausted(3, sdk_error()),
}


@pytest.mark.parametrize("name", ERRORS)
def test_each_error_pickles_as_itself(name):
    error = ERRORS[name]()
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error) and back.args == error.args
    assert {k: str(v) for k, v in vars(back).items()} == {k: str(v) for k, v in vars(error).items()}


def invalid_history(tag: str) -> None:
    raise InvalidHistory("duplicate_id", 2, f"job {tag}", f"toolu_{tag}")


def fails_in_order(tag: str, delay: float) -> str:
    time.sleep(delay)
    if tag != "ok":
        raise InvalidHistory("duplicate_id", 2, f"job {tag}")
    return tag


class Unpicklable(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a}-{b}")


def unpicklable(tag: str) -> None:
    raise Unpicklable(tag, "x")


def test_a_workers_error_reaches_the_kernel_as_itself(monkeypatch):
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    with pytest.raises(InvalidHistory) as caught:
        run_all(invalid_history, [("a",), ("b",)], desc="test", progress=False)
    assert caught.value.rule == "duplicate_id" and caught.value.tool_id == "toolu_a"
    assert "invalid_history" in str(caught.value.__cause__)  # the worker's traceback


def test_the_first_failing_job_in_order_is_reported_not_the_first_in_time(monkeypatch):
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    with pytest.raises(InvalidHistory, match="job first"):
        run_all(fails_in_order, [("ok", 0.0), ("first", 1.0), ("second", 0.0)], desc="test", progress=False)


def test_an_error_that_does_not_pickle_arrives_named(monkeypatch):
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    with pytest.raises(RuntimeError, match="Unpicklable: a-x"):
        run_all(unpicklable, [("a",), ("b",)], desc="test", progress=False)


def test_a_private_sweep_leaves_no_folders_when_it_ends_or_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    for count in ("1", "2"):
        monkeypatch.setenv("HARNESS_WORKERS", count)
        with pytest.raises(InvalidHistory):
            run_all(invalid_history, [("a",), ("b",)], desc="test", private=True, progress=False)
        assert not list(tmp_path.glob("job-*")), count


INTERRUPTED = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from harness.labs.parallel import run_all

    def slow(n):
        Path("started").write_text("yes")
        time.sleep(60)

    print("go", flush=True)
    run_all(slow, [(n,) for n in range(4)], desc="t", private=True, progress=False)
""")


def test_an_interrupted_private_sweep_removes_its_folders(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "HARNESS_WORKERS": "2", "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not list(scratch.glob("job-*/started")):
            assert child.poll() is None and time.monotonic() < deadline, child.communicate()
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        assert "KeyboardInterrupt" in err
    finally:
        child.kill()
    assert not list(scratch.glob("job-*"))
