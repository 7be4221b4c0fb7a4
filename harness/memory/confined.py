"""Files under one folder, reached through folder descriptors and never through a symlink (chapter 11).

A path that is checked and then used as a string can change in between: a
folder inside swapped for a symlink to an outside folder sends the use
outside. So the memory store (``harness.memory.store``) never uses a path
string below its folder. A ``Walk`` opens the folder once (``O_DIRECTORY |
O_NOFOLLOW``), then each step of a path relative to the descriptor of the
step before, with the same flags; a symlink at any step is refused
(``ELOOP``), whenever it appeared. Every use then goes through a held
descriptor: reading (``O_NOFOLLOW``, and only a regular file), writing,
renaming (``src_dir_fd``/``dst_dir_fd``), unlinking and removing a folder tree
(``remove_tree``, which opens every folder the same way). A
swap after a step was opened cannot lead out: the descriptor still names the
real folder.

Writes are atomic: the new text goes to a hidden temporary file in the same
folder, which then replaces the name (``os.replace``). A name that was a hard
link to an outside file is then a new file; the outside file keeps its text.
The new file gets the default mode, not the old file's. The temporary file is
not flushed to the disk (``fsync``): a crash may lose the last write, never
leave half of it under the name.

Listing and removing a tree keep a stack instead of recursing, so a tree of any
depth is walked (Python's recursion limit is about 1,000 levels); they hold one
descriptor per level they are in. The store itself never makes a path deeper
than its limit (``harness.memory.store.MAX_STEPS``).

A Walk that ends in an error removes the folders it made (emptied ones only,
newest first), so a refused command leaves the folder as it found it.

Limits: a folder that someone moves out of the store while a command holds
its descriptor is still written in (the move, not the command, took it out);
a rename's destination that appears between its check and the move is
replaced (inside the store). Linux and macOS only (``dir_fd`` support).
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

from ..core.tools import PathEscape

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO is refused, not waited on
TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
SYMLINK_ERRORS = (errno.ELOOP, errno.EMLINK)  # what O_NOFOLLOW gives on a symlink (EMLINK: FreeBSD)
Kind = Literal["folder", "file", "symlink", "other"]


class Walk:
    """One command's way into the folder ``root`` for the model's ``path`` (named in errors).

    Use it as a context manager: the descriptors it opened close at the end, and on an error the
    folders it made are removed again."""

    def __init__(self, root: Path, path: str):
        self.root, self.path = root, path
        self.made: list[tuple[int, str]] = []  # (descriptor of the parent, name) of each folder made
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Walk:
        self.top = self._open(os.fspath(self.root), FOLDER_FLAGS, None)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is not None:
            for parent, name in reversed(self.made):
                with contextlib.suppress(OSError):  # no longer empty, or gone: leave it as it is
                    os.rmdir(name, dir_fd=parent)
        self._stack.close()

    def symlink_refused(self) -> PathEscape:
        return PathEscape(f"The path {self.path} goes through a symlink, which the memory store does not follow")

    def folder(self, parts: Sequence[str], make: bool = False, start: int | None = None) -> int:
        """The descriptor of the folder ``parts`` name, from the store's folder (or from ``start``);
        FileNotFoundError if one is missing (unless ``make``: then it is made), NotADirectoryError if
        one is a file, PathEscape if one is a symlink."""
        descriptor = self.top if start is None else start
        for name in parts:
            try:
                descriptor = self._open(name, FOLDER_FLAGS, descriptor)
            except FileNotFoundError:
                if not make:
                    raise
                os.mkdir(name, dir_fd=descriptor)
                self.made.append((descriptor, name))
                descriptor = self._open(name, FOLDER_FLAGS, descriptor)
        return descriptor

    def kind(self, folder: int, name: str) -> Kind | None:
        """What ``name`` is in ``folder``, the name itself, not what a symlink points to (None: nothing)."""
        try:
            mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(mode):
            return "symlink"
        return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"

    def read(self, folder: int, name: str) -> bytes:
        """The bytes of the regular file ``name``; IsADirectoryError for anything else."""
        descriptor = self._open(name, READ_FLAGS, folder)
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise IsADirectoryError(errno.EISDIR, "not a regular file")
        with os.fdopen(os.dup(descriptor), "rb") as file:
            return file.read()

    def write(self, folder: int, name: str, data: bytes) -> None:
        """``name`` in ``folder`` holds ``data``, written whole to a temporary file that then replaces it."""
        temporary = f".tmp-{os.getpid()}-{uuid.uuid4().hex}"
        try:
            with os.fdopen(os.open(temporary, TEMP_FLAGS, 0o666, dir_fd=folder), "wb") as file:
                file.write(data)
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=folder)
            raise

    def remove(self, folder: int, name: str, kind: Kind) -> None:
        """Remove the file, or the folder and all under it (symlinks inside are removed, never followed)."""
        if kind == "folder":
            remove_tree(folder, name)
        else:
            os.unlink(name, dir_fd=folder)

    def _open(self, name: str, flags: int, folder: int | None) -> int:
        try:
            descriptor = os.open(name, flags, dir_fd=folder)
        except OSError as error:
            # O_NOFOLLOW on a symlink gives ELOOP, with O_DIRECTORY ENOTDIR (Linux): look at the name itself
            if error.errno in SYMLINK_ERRORS or (error.errno == errno.ENOTDIR and folder is not None
                                                 and self.kind(folder, name) == "symlink"):
                raise self.symlink_refused() from None
            raise
        self._stack.callback(os.close, descriptor)
        return descriptor


Row = tuple[str, int]  # a name relative to the listed folder ("notes/a.md", "notes/") and its size


@dataclass
class _Level:
    """One open folder of a walk down a tree: its descriptor and what is left to look at in it."""
    descriptor: int
    entries: Iterator[os.DirEntry[str]]
    prefix: str = ""          # its path relative to the top, with a trailing slash
    levels: int = 0           # how many levels below it are still listed
    listed: bool = True       # whether its entries may be listed at all (not under a hidden folder)
    row: int | None = None    # its own row in the listing, to get its size when the walk leaves it
    size: int = 0             # the regular files under it so far


def tree(folder: int, levels: int) -> tuple[int, list[Row]]:
    """The total size of the regular files under ``folder`` (hidden ones too, at any depth), and the
    files and folders ``levels`` deep, sorted, hidden ones and symlinks left out (a folder's size is
    the total under it). An entry that vanishes or becomes a symlink meanwhile is skipped.

    The walk keeps a stack, not a recursion, so a tree of any depth is walked (it holds one open
    descriptor per level of the folder it is in)."""
    rows: list[Row] = []
    top = _Level(folder, _sorted_entries(folder), levels=levels)
    stack = [top]
    try:
        while stack:
            level = stack[-1]
            entry = next(level.entries, None)
            if entry is None:
                stack.pop()
                if level is not top:
                    os.close(level.descriptor)
                    stack[-1].size += level.size
                if level.row is not None:
                    rows[level.row] = (rows[level.row][0], level.size)
                continue
            listed = level.listed and level.levels > 0 and not entry.name.startswith(".")
            try:
                if entry.is_dir(follow_symlinks=False):
                    inner = os.open(entry.name, FOLDER_FLAGS, dir_fd=level.descriptor)
                    try:
                        entries = _sorted_entries(inner)
                    except BaseException:
                        os.close(inner)
                        raise
                    name = level.prefix + entry.name + "/"
                    if listed:
                        rows.append((name, 0))
                    stack.append(_Level(inner, entries, name, level.levels - 1, listed,
                                        len(rows) - 1 if listed else None))
                elif entry.is_file(follow_symlinks=False):
                    size = entry.stat(follow_symlinks=False).st_size
                    if listed:
                        rows.append((level.prefix + entry.name, size))
                    level.size += size
            except OSError as error:
                if not _vanished(error):
                    raise
    finally:
        for level in stack[1:]:
            os.close(level.descriptor)
    return top.size, rows


def remove_tree(folder: int, name: str) -> None:
    """Remove the folder ``name`` in ``folder`` and everything under it, without recursion and without
    following a symlink (one inside is removed as a name). Holds one descriptor per level it is in."""
    stack = [(folder, name, os.open(name, FOLDER_FLAGS, dir_fd=folder))]
    pending: list[list[str]] = [_clear_files(stack[0][2])]
    try:
        while stack:
            parent, own, descriptor = stack[-1]
            if pending[-1]:
                inner = pending[-1].pop()
                try:
                    stack.append((descriptor, inner, os.open(inner, FOLDER_FLAGS, dir_fd=descriptor)))
                except OSError as error:
                    if error.errno in SYMLINK_ERRORS or error.errno == errno.ENOTDIR:
                        os.unlink(inner, dir_fd=descriptor)  # it became a link or a file meanwhile
                    elif not isinstance(error, FileNotFoundError):
                        raise
                    continue
                pending.append(_clear_files(stack[-1][2]))
                continue
            os.close(descriptor)
            stack.pop()
            pending.pop()
            os.rmdir(own, dir_fd=parent)
    finally:
        for _, _, descriptor in stack:
            os.close(descriptor)


def height(folder: int, name: str) -> int:
    """How many steps the longest path below the folder ``name`` (in ``folder``) has, the last
    step's name included: 0 for an empty folder, 1 for one that holds only files. Without recursion
    and without following a symlink; a folder that vanishes meanwhile is skipped."""
    deepest = 0
    stack = [(os.open(name, FOLDER_FLAGS, dir_fd=folder), 0)]
    pending: list[list[str]] = []
    try:
        while stack:
            descriptor, depth = stack[-1]
            if len(pending) < len(stack):  # a folder just entered: look at what it holds
                with os.scandir(descriptor) as scan:
                    entries = list(scan)
                if entries:
                    deepest = max(deepest, depth + 1)
                pending.append([entry.name for entry in entries if entry.is_dir(follow_symlinks=False)])
            if not pending[-1]:
                os.close(descriptor)
                stack.pop()
                pending.pop()
                continue
            inner = pending[-1].pop()
            try:
                stack.append((os.open(inner, FOLDER_FLAGS, dir_fd=descriptor), depth + 1))
            except OSError as error:
                if not _vanished(error):
                    raise
    finally:
        for descriptor, _ in stack:
            os.close(descriptor)
    return deepest


def _sorted_entries(folder: int) -> Iterator[os.DirEntry[str]]:
    with os.scandir(folder) as scan:
        return iter(sorted(scan, key=lambda entry: entry.name))


def _clear_files(folder: int) -> list[str]:
    """Unlink everything in ``folder`` that is not a folder (symlinks included); the folders' names."""
    folders = []
    with os.scandir(folder) as scan:
        for entry in scan:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.name, dir_fd=folder)
    return folders


def _vanished(error: OSError) -> bool:
    """Whether ``error`` says an entry went away or became a symlink while it was looked at."""
    return isinstance(error, (FileNotFoundError, NotADirectoryError)) or error.errno in SYMLINK_ERRORS
