"""own_scratch: every notebook run works in a new folder of its own, under the same relative paths."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.labs import scratch
from harness.labs.scratch import own_scratch


@pytest.fixture
def cleanups(monkeypatch, tmp_path) -> list[Callable[[], None]]:
    """Start in tmp_path and collect what own_scratch registers for exit instead of registering it."""
    registered: list[Callable[[], None]] = []
    monkeypatch.setattr(scratch.atexit, "register", registered.append)
    monkeypatch.chdir(tmp_path)
    return registered


def test_own_scratch_moves_into_a_new_folder_and_returns_the_old_relative_path(cleanups, tmp_path):
    root = own_scratch("04")
    here = Path.cwd()
    assert root == Path("_work/04") and not root.is_absolute()
    assert here.parent == (tmp_path / "_work").resolve() and here.name.startswith("04-")
    (root / "transcripts").mkdir(parents=True)
    assert (here / "_work" / "04" / "transcripts").is_dir() and not (tmp_path / "_work" / "04").exists()


def test_two_calls_give_two_folders_side_by_side(cleanups, tmp_path):
    own_scratch("02_micro_compact")
    first = Path.cwd()
    assert own_scratch("02_micro_compact") == Path("_work/02_micro_compact")
    second = Path.cwd()
    assert first != second and first.parent == second.parent == (tmp_path / "_work").resolve()
    assert first.is_dir() and len(cleanups) == 2


def test_the_registered_cleanup_removes_the_folder_and_goes_back(cleanups, tmp_path):
    own_scratch("00")
    folder = Path.cwd()
    Path("_work/00").mkdir(parents=True)
    Path("_work/00/file.txt").write_text("x", encoding="utf-8")
    (cleanup,) = cleanups
    cleanup()
    assert not folder.exists() and Path.cwd() == tmp_path.resolve()


def test_a_finished_process_leaves_no_folder_behind(tmp_path):
    probe = ("from harness.labs.scratch import own_scratch; import os; root = own_scratch('01');"
             " (root / 'twelve').mkdir(parents=True); (root / 'twelve' / 'a.txt').write_text('a');"
             " print(os.getcwd())")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    used = Path(done.stdout.strip())
    assert used.parent == (tmp_path / "_work").resolve() and not used.exists()
    assert os.listdir(tmp_path / "_work") == [] and done.stderr == ""


def test_the_next_run_removes_a_killed_runs_folder_but_not_a_live_ones(cleanups, tmp_path):
    start = ("import os, sys; from harness.labs.scratch import own_scratch; own_scratch('03');"
             " print(os.getcwd(), flush=True); {}")
    live = subprocess.Popen([sys.executable, "-c", start.format("sys.stdin.read()")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    running = Path(live.stdout.readline().strip())
    killed = subprocess.run([sys.executable, "-c", start.format("os.kill(os.getpid(), 9)")],
                            capture_output=True, text=True, cwd=tmp_path, check=False)
    left = Path(killed.stdout.strip())
    assert left.is_dir() and running.is_dir()
    own_scratch("03")
    assert not left.exists() and running.is_dir()
    live.communicate("")
    assert not running.exists()
