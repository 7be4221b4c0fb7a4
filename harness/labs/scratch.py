"""A scratch folder of its own for every notebook run (chapter 00).

The notebooks write workspaces, transcripts and logs under relative paths such
as ``_work/04/transcripts``, and those paths end up in summary messages, so in
token counts and printed outputs. ``own_scratch`` keeps the strings and changes
where they lead: it moves the kernel into a new, uniquely named folder under
``_work/`` and returns the relative path the chapter always used. Two runs of
one notebook at the same time then never touch each other's files. The folder
goes when the kernel stops; a kernel that is killed (nbval does that) cannot
remove it, so the next ``own_scratch`` removes every folder whose lock no live
process holds. ``scratch_folder`` is the same move for the length of a
``with`` block (the benchmarks use it).
"""
from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK = ".own_scratch.lock"   # in each folder; locked while its process lives
_ENTERED: set[Path] = set()  # folders own_scratch has moved this process into


@contextlib.contextmanager
def scratch_folder(root: Path, parent: Path | None = None, prefix: str | None = None) -> Iterator[Path]:
    """Work in a new temporary folder (under ``parent``) and yield ``root``, the relative path to write
    under. On exit the old working directory comes back and the folder is removed."""
    with tempfile.TemporaryDirectory(prefix=prefix, dir=parent) as tmp, contextlib.chdir(tmp):
        yield root


def own_scratch(chapter: str) -> Path:
    """Move into a new folder under ``_work/`` until the process exits, and return ``_work/<chapter>``.

    First it removes the folders of processes that were killed (no live process holds their lock).
    Called again in the same process (the cell run twice), the new folder goes beside the last one.
    """
    here = Path.cwd()
    parent = here.parent if here in _ENTERED else here / "_work"
    parent.mkdir(exist_ok=True)
    for lock in parent.glob(f"*/{LOCK}"):
        if _abandoned(lock):
            shutil.rmtree(lock.parent, ignore_errors=True)
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    root = stack.enter_context(scratch_folder(Path("_work") / chapter, parent, f"{chapter}-"))
    _hold(Path(LOCK))
    _ENTERED.add(Path.cwd())
    return root


def _hold(lock: Path) -> None:
    """Create ``lock`` locked; the descriptor stays open, so the system drops the lock when the process
    ends, however it ends. It is locked before it gets its name, so no sweep sees it unlocked."""
    unnamed = lock.with_name(f"{lock.name}.new")
    descriptor = os.open(unnamed, os.O_CREAT | os.O_WRONLY)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
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
