"""A scratch folder of its own for every notebook run (chapter 00).

The notebooks write workspaces, transcripts and logs under relative paths such
as ``_work/04/transcripts``, and those paths end up in summary messages, so in
token counts and printed outputs. ``own_scratch`` keeps the strings and changes
where they lead: it moves the kernel into a new folder ``_work/<chapter>-<id>``
(``id``: random hex) and returns the relative path the chapter always used. Two
runs of one notebook at the same time then never touch each other's files.
The folder goes when the kernel stops. A kernel that is killed (nbval does
that) cannot remove it, so the next ``own_scratch`` sweeps such folders, and
only them. A folder is swept when all of these hold:

- its lock file (``.own_scratch.lock``) is a marker that names that very
  folder: its real path, device and inode as they were at creation, and the id
  its name ends with (``marker_text`` / ``marks_itself``);
- no live process holds the lock (``flock``; the system drops it when its
  process ends, however it ends).

A copy of a run's folder (a student's ``_work/05-my-results``, lock included)
has another path and inode, and a renamed one another path, so neither is ever
taken for a dead run's folder. Limits: a run killed between making its folder
and naming its lock (a few system calls) leaves an empty folder no sweep
removes; a folder deleted and copied back to the very path a run had is kept
(another inode). ``scratch_folder`` is the same move for the length of a
``with`` block (the benchmarks use it). ``harness.labs.runs.fresh_folder`` uses
the same marker rule.
"""
from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK = ".own_scratch.lock"   # in each folder; locked while its process lives, and its marker
_ENTERED: set[Path] = set()  # folders own_scratch has moved this process into


@contextlib.contextmanager
def scratch_folder(root: Path, parent: Path | None = None, prefix: str | None = None) -> Iterator[Path]:
    """Work in a new temporary folder (under ``parent``) and yield ``root``, the relative path to write
    under. On exit the old working directory comes back and the folder is removed."""
    with tempfile.TemporaryDirectory(prefix=prefix, dir=parent) as tmp, contextlib.chdir(tmp):
        yield root


def marker_text(folder: Path, run_id: str | None = None) -> str:
    """What a marker file in ``folder`` holds: the folder's real path, device and inode (and ``run_id``)."""
    info = os.stat(folder)
    fields = {"path": os.path.realpath(folder), "device": info.st_dev, "inode": info.st_ino}
    return json.dumps(fields | ({"id": run_id} if run_id is not None else {})) + "\n"


def marks_itself(folder: Path, marker: Path, run_id: str | None = None) -> bool:
    """Whether ``marker`` was written for this very folder (its real path, device and inode, and ``run_id``
    when given); False for a marker that is missing or cannot be read."""
    try:
        return json.loads(marker.read_text(encoding="utf-8")) == json.loads(marker_text(folder, run_id))
    except (OSError, ValueError):
        return False


def own_scratch(chapter: str) -> Path:
    """Move into a new folder under ``_work/`` until the process exits, and return ``_work/<chapter>``.

    First it removes the folders of runs that were killed (see the module docstring for which).
    Called again in the same process (the cell run twice), the new folder goes beside the last one.
    """
    here = Path.cwd()
    parent = here.parent if here in _ENTERED else here / "_work"
    parent.mkdir(exist_ok=True)
    for lock in parent.glob(f"*/{LOCK}"):
        if _dead_run(lock.parent):
            shutil.rmtree(lock.parent, ignore_errors=True)
    run_id = secrets.token_hex(6)
    folder = parent / f"{chapter}-{run_id}"
    folder.mkdir()
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    stack.callback(shutil.rmtree, folder, ignore_errors=True)  # last: after the way back
    _hold(folder / LOCK, marker_text(folder, run_id))
    stack.enter_context(contextlib.chdir(folder))
    _ENTERED.add(Path.cwd())
    return Path("_work") / chapter


def _dead_run(folder: Path) -> bool:
    """Whether ``folder`` is the folder of a run that is over: its marker names it, and no one holds it."""
    run_id = folder.name.rpartition("-")[2]
    return marks_itself(folder, folder / LOCK, run_id) and _abandoned(folder / LOCK)


def _hold(lock: Path, text: str) -> None:
    """Create ``lock`` holding ``text``, locked; the descriptor stays open, so the system drops the lock
    when the process ends, however it ends. It is locked and written before it gets its name, so no
    sweep sees it unlocked or half-written."""
    unnamed = lock.with_name(f"{lock.name}.new")
    descriptor = os.open(unnamed, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    os.write(descriptor, text.encode("utf-8"))
    unnamed.rename(lock)


def _abandoned(lock: Path) -> bool:
    """Whether no live process holds ``lock`` (tried without waiting)."""
    try:
        descriptor = os.open(lock, os.O_WRONLY)
    except FileNotFoundError:
        return False  # its process has just removed the folder
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(descriptor)
    return True
