"""Sweeps on every core: the same results as one job after another (harness/labs/parallel.py)."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from harness import CompactionConfig
from harness.fake import FakeModel, fake_client
from harness.labs import parallel
from harness.labs.parallel import run_all, workers
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.tuning import Lab, Setting


def where_am_i(tag: str) -> tuple[str, str, int]:
    """The job's tag, its working folder and its process."""
    return tag, os.getcwd(), os.getpid()


def write_and_read(name: str) -> str:
    """Write a file under one relative path shared by every job, and read it back."""
    folder = Path("shared")
    folder.mkdir(exist_ok=True)
    (folder / "note.txt").write_text(name)
    return (folder / "note.txt").read_text()


def test_results_come_back_in_order_from_workers_in_the_kernels_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    results = run_all(where_am_i, [(str(n),) for n in range(6)], desc="test", progress=False)
    assert [tag for tag, _, _ in results] == [str(n) for n in range(6)]
    assert {folder for _, folder, _ in results} == {str(tmp_path)}
    assert os.getpid() not in {pid for *_, pid in results}, "the jobs ran in worker processes"


def test_private_jobs_write_the_same_relative_path_without_meeting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    names = [f"job {n}" for n in range(8)]
    assert run_all(write_and_read, [(n,) for n in names], desc="test", private=True, progress=False) == names
    assert not (tmp_path / "shared").exists(), "private jobs work elsewhere, and their folders go"


def test_one_worker_runs_everything_in_the_kernel(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_WORKERS", "1")
    results = run_all(where_am_i, [("a",), ("b",)], desc="test", progress=False)
    assert {pid for *_, pid in results} == {os.getpid()}
    assert run_all(where_am_i, [("a",), ("b",)], desc="test", progress=False, parallel=False)[0][2] == os.getpid()


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_bad_worker_count_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv("HARNESS_WORKERS", value)
    with pytest.raises(ValueError, match="HARNESS_WORKERS must be a whole number"):
        workers()


def test_without_the_variable_every_core_works(monkeypatch):
    monkeypatch.delenv("HARNESS_WORKERS", raising=False)
    assert workers() == parallel.cpu_count() >= 1


def test_a_fake_client_pickles_as_a_new_client_of_the_same_fake():
    client = FakeModel(window=60_000).client()
    client.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
    copy = pickle.loads(pickle.dumps(client))
    assert copy is not client and copy.fake.window == 60_000 and copy.fake.requests == ["agent"]
    reply = copy.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
    assert reply.content[0].text.startswith("Hello!")  # a greeting gets a greeting
    with pytest.raises(TypeError, match="only a client made by FakeModel.client"):
        pickle.dumps(fake_client().with_options(timeout=5))


def test_a_session_from_a_worker_is_the_session_a_serial_run_makes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    config = CompactionConfig(threshold=10_000)
    here = run_scenario(TWELVE_FILES, config, "run")
    there = run_all(run_scenario, [(TWELVE_FILES, config, "run")] * 2, desc="test", private=True, progress=False)
    for session in there:  # the same relative folder, so the summaries name the same transcripts
        assert session.answers == here.answers and session.trace == here.trace and session.events == here.events
        assert session.messages == here.messages and session.tool_calls == here.tool_calls


def test_a_parallel_lab_sweep_equals_a_serial_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = [Setting(1, 20_000), Setting(3, 50_000), Setting(keep_recent=0, s06_count=True),
                Setting(micro=False, auto=False)]
    monkeypatch.setenv("HARNESS_WORKERS", "2")
    together = Lab(Path("lab")).sweep(settings, progress=False)
    monkeypatch.setenv("HARNESS_WORKERS", "1")
    alone = Lab(Path("lab")).sweep(settings, progress=False)
    assert together == alone
    assert [o.spiral is not None for o in together] == [False, False, True, False]
