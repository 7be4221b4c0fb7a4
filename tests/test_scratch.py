"""own_scratch: every notebook run works in a new folder of its own, under the same relative paths, and sweeps
only the folders of dead runs whose marker names them; fresh_folder deletes only a folder its marker names."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.labs import scratch
from harness.labs.runs import MARKER, NotAScratchFolder, fresh_folder
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


LEAVE = ("import os; from harness.labs.scratch import own_scratch; own_scratch('05');"
         " print(os.getcwd(), flush=True); os._exit(0)")  # ends without any cleanup, as a killed kernel
STAY = ("import os, sys; from harness.labs.scratch import own_scratch; own_scratch('05');"
        " print(os.getcwd(), flush=True); sys.stdin.read()")


def left_behind(tmp_path: Path) -> Path:
    done = subprocess.run([sys.executable, "-c", LEAVE], capture_output=True, text=True, cwd=tmp_path, check=True)
    folder = Path(done.stdout.strip())
    assert folder.is_dir() and (folder / scratch.LOCK).is_file()
    return folder


def test_a_copy_of_a_dead_runs_folder_lock_included_is_kept_and_the_dead_one_swept(cleanups, tmp_path):
    dead = left_behind(tmp_path)
    copy = tmp_path / "_work" / "05-my-results"
    shutil.copytree(dead, copy)
    (copy / "results.csv").write_text("a,b\n")
    own_scratch("05")
    assert not dead.exists() and (copy / "results.csv").read_text() == "a,b\n" and (copy / scratch.LOCK).is_file()


@pytest.mark.parametrize("new_name", ["05-renamed", "06-{id}"], ids=["another name", "the same id"])
def test_a_renamed_dead_runs_folder_is_kept(cleanups, tmp_path, new_name):
    dead = left_behind(tmp_path)
    moved = dead.with_name(new_name.format(id=dead.name.rpartition("-")[2]))
    dead.rename(moved)
    own_scratch("05")
    assert moved.is_dir() and (moved / scratch.LOCK).is_file()


def test_a_marker_that_names_its_folder_but_not_its_id_is_kept(cleanups, tmp_path):
    dead = left_behind(tmp_path)
    (dead / scratch.LOCK).write_text(scratch.marker_text(dead, "another-id"))
    own_scratch("05")
    assert dead.is_dir()


def test_two_live_runs_side_by_side_never_delete_each_others_folders(cleanups, tmp_path):
    runs = [subprocess.Popen([sys.executable, "-c", STAY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             cwd=tmp_path) for _ in range(2)]
    folders = [Path(run.stdout.readline().strip()) for run in runs]  # the second swept while the first lived
    own_scratch("05")
    assert len(set(folders)) == 2 and all(folder.is_dir() for folder in folders)
    for run in runs:
        run.communicate("")
    assert not any(folder.exists() for folder in folders)


def test_fresh_folder_rebuilds_its_own_folder_and_refuses_a_copy_or_a_moved_one(tmp_path):
    root = fresh_folder(tmp_path / "run")
    (root / "old.txt").write_text("x")
    assert fresh_folder(tmp_path / "run") == root and sorted(os.listdir(root)) == [MARKER]
    (root / "results.csv").write_text("a,b\n")
    shutil.copytree(root, tmp_path / "copy")
    root.rename(tmp_path / "moved")
    for folder in (tmp_path / "copy", tmp_path / "moved"):
        with pytest.raises(NotAScratchFolder, match="refusing to delete"):
            fresh_folder(folder)
        assert (folder / "results.csv").read_text() == "a,b\n"
