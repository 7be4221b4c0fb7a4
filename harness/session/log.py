"""An append-only session log: every committed message, once, before anything rewrites it (chapter 05).

Compaction rewrites the history the model sees; it never touches this log.
A compaction appends one record of its own, so a resumed session can replay
it (chapter 06). The record format and its reader are in ``records``.

The writer refuses what the reader refuses (chapter 07). ``append`` builds the
record, serialises it strictly (``allow_nan=False``, UTF-8, so bytes, sets,
NaN, infinities, lone surrogates and nesting too deep for ``json`` are
refused), reads those very bytes back with the reader's ``parse_line`` and
checks they give the record back unchanged (a tuple would come back a list, an
int key a string). Any refusal is a ValueError naming the record, raised
before a byte is written. The check is the record's own: whether a message
fits the history before it (a tool_result answering the tool_use just before)
is checked by ``resume``, which names the line that breaks the history.

Crash safety (chapter 07). The scheme:

- every record is one line written with one ``write`` call to a file opened
  for appending, so a crash can only cut the *last* line short;
- with ``fsync=True`` (the default) the file is flushed to the disk after each
  round and each compaction, so a machine crash loses at most the round in
  progress;
- opening a log repairs a torn last line in one step: a last line that is a
  whole record without its newline gets the newline back (one 1-byte write);
  a line cut short (``records.parse_last_line``: the start of a record, with
  no complete JSON value in it) is cut off (one truncate back to the end of
  the last complete record), and so is a zero-filled tail a power loss left
  (zeros after a whole record are cut, then the newline is added). A last line that holds a complete JSON value but
  is not a whole record (a record followed by a stray byte where its newline
  should be, say) is damage, not a crash: opening raises ``CorruptLog`` naming
  the line and changes nothing. We do not guess that the stray byte was the
  newline: only the reader's rule decides, and it never cuts a complete value.

The guarantee: a crash at any byte of opening, repairing or appending leaves
a file that the next ``SessionLog`` opens and ``read_log`` reads, holding every
record whose write completed. Each repair step either happened or did not,
and doing it again is harmless. A torn line never held a committed record, so
cutting it loses nothing.

One writer at a time. An open ``SessionLog`` holds an exclusive ``fcntl.flock``
on a descriptor of the log file itself, so the lock belongs to the file (its
device and inode), not to a name: the same log opened through a symlink or a
hard link meets the same lock. A second ``SessionLog`` of the same log, in
another process or in this one, raises ``LogInUse``, before it reads or repairs
anything, so it never cuts a record another writer is still writing. The holder
writes its pid in a sidecar, ``<log name>.lock`` next to the log's real path
(symlinks resolved), so ``LogInUse`` can name it; the sidecar is opened with
``O_NOFOLLOW`` and must be a regular file with no other name, so a sidecar that
is a symlink or a hard link (to the log, or to any other file) is refused with a
ValueError, and nothing is written through it. The lock is released by
``close()``, by leaving a ``with`` block, when the log object is garbage
collected, and by the kernel when the process dies (so a crash leaves no stale
lock; the pid in a sidecar nobody holds is not read). ``flock`` locks belong to
one open file, so two opens in one process exclude each other, whereas POSIX
``fcntl``/``lockf`` locks belong to the process and are dropped when it closes
*any* descriptor of the file. Limits: the lock is advisory (only ``SessionLog``
takes it; ``read_log`` and ``resume`` only read, take no lock and never repair);
it is Unix only; on network file systems ``flock`` may not exclude other
machines; a process that forks while holding a log shares the lock with its
child until both close it; opened through a hard link in another folder, the
holder's pid is not found (``LogInUse`` says "a process"); a log pickled or
copied (a sweep's session sent back from a worker) arrives closed, for reading
only.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import Portable
from ..core.messages import Message, check_sendable
from .records import TORN, CorruptLog, parse_last_line, parse_line


@dataclass(frozen=True)
class Repair:
    """What opening a log did to a torn last line: ``"newline"`` added, or the line ``"cut"``."""
    action: str
    line: int
    size: int   # bytes of the torn line


class LogInUse(Portable, RuntimeError):
    """The log is open in another ``SessionLog`` (chapter 07); ``holder`` is its pid, if it could be read."""

    def __init__(self, path: Path, holder: int | None):
        who = "this process" if holder == os.getpid() else f"process {holder}" if holder else "a process"
        super().__init__(f"{path.name} is already open for writing by {who}; "
                         "close that SessionLog first (close() or a with block)")
        self.path, self.holder = path, holder


class SessionLog:
    def __init__(self, path: str | Path, *, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._release: weakref.finalize | None = weakref.finalize(self, os.close, take_lock(self.path))
        try:
            self.repair = repair_torn_tail(self.path)
        except BaseException:
            self.close()
            raise
        self.seq = self.path.read_bytes().count(b"\n") if self.path.exists() else 0
        self._synced = 0  # how many messages of the live history are already logged

    def close(self) -> None:
        """Release the lock; appending afterwards is an error. Closing twice is harmless."""
        if self._release:
            self._release()

    @property
    def closed(self) -> bool:
        return self._release is None or not self._release.alive

    def __getstate__(self) -> dict[str, Any]:
        """A log pickled to another process (a sweep's result, chapter 04) arrives closed: the lock
        belongs to the process that opened the log, and goes when that copy does."""
        return {**self.__dict__, "_release": None}

    def __enter__(self) -> SessionLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def mark_logged(self, messages: list[Message]) -> None:
        """Continue a resumed session: ``messages``, replayed from this log, are logged already (chapter 06)."""
        self._synced = len(messages)

    def append(self, kind: str, *, durable: bool = True, **fields: Any) -> dict[str, Any]:
        """Append one record in one write; flush it to the disk unless ``durable`` is False.
        A record the reader would refuse is a ValueError, and nothing is written."""
        if self.closed:
            raise ValueError(f"{self.path.name}: the log is closed")
        record = {"seq": self.seq + 1, "kind": kind, **fields}
        check_sendable(record, "record",  # InvalidHistory (a ValueError) for a value JSON cannot carry
                       where=f"refusing to write record {record['seq']} of {self.path.name}")
        line = encode_record(record, self.seq + 1, self.path)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            write_all(fd, line)
            if durable and self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        self.seq += 1
        return record

    def sync(self, messages: list[Message]) -> int:
        """Log the messages committed since the last sync (one round); returns how many were new."""
        new = messages[self._synced:]
        for i, message in enumerate(new, start=1):
            self.append("message", message=message, durable=i == len(new))
        self._synced = len(messages)
        return len(new)

    def compacted(self, messages: list[Message], **fields: Any) -> dict[str, Any]:
        """Record a compaction that left ``messages`` as the live history."""
        self._synced = len(messages)
        return self.append("compaction", **fields)


def encode_record(record: dict[str, Any], line: int, path: Path) -> bytes:
    """The record's line, newline included, if the reader reads it back unchanged; else ValueError."""
    try:
        raw = json.dumps(record, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:  # UnicodeEncodeError is a ValueError
        problem: str | None = f"not JSON a request can carry: {error}"
    else:
        value, problem = parse_line(raw, line)
        if not problem and value != record:
            problem = "it would not read back as written (a tuple, or a key that is not a string?)"
    if problem:
        raise ValueError(f"{path.name}: refusing to write record {line}: {problem}")
    return raw + b"\n"


def lock_path(path: Path) -> Path:
    """The sidecar that names the process holding ``path`` open: next to the log's real path."""
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + ".lock")


def take_lock(path: Path) -> int:
    """Lock the log file ``path`` (made if missing) and write this pid in its sidecar; the descriptor
    holds the lock until closed. LogInUse, naming the holder, if another open file holds it;
    ValueError if the log is not a regular file or the sidecar is a link."""
    fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path.name} is not a regular file, so it cannot be a session log")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LogInUse(path, _holder(lock_path(path))) from None
        _write_holder(lock_path(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


SIDECAR_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _write_holder(sidecar: Path) -> None:
    """Write this pid in ``sidecar``, if it is a plain file of its own (or does not exist yet)."""
    try:
        fd = os.open(sidecar, os.O_RDWR | os.O_CREAT | SIDECAR_FLAGS, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ValueError(f"{sidecar.name} is a symlink; the log's lock sidecar must be a plain file "
                             "(remove it)") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise ValueError(f"{sidecar.name} is a hard link or not a regular file; the log's lock sidecar "
                             "must be a plain file of its own (remove it)")
        os.pwrite(fd, b"%-20d\n" % os.getpid(), 0)  # one width for every pid: it overwrites the last one whole
    finally:
        os.close(fd)


def _holder(sidecar: Path) -> int | None:
    """The pid in ``sidecar``, if there is one to read (never through a symlink)."""
    try:
        fd = os.open(sidecar, os.O_RDONLY | SIDECAR_FLAGS)
    except OSError:
        return None
    try:
        holder = os.pread(fd, 32, 0).strip() if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)
    return int(holder) if holder.isdigit() else None


def write_all(fd: int, data: bytes) -> None:
    """One write call for the whole line (a regular file takes it whole unless the disk is full)."""
    while data:
        data = data[os.write(fd, data):]


def repair_torn_tail(path: Path) -> Repair | None:
    """End a last line that lost only its newline, or cut off a torn one; None if nothing was torn.
    CorruptLog, with nothing changed, if the last line is neither."""
    if not path.exists():
        return None
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    tail, line = data[start:], data.count(b"\n") + 1
    record, problem = parse_last_line(tail, line)
    if record is TORN:
        os.truncate(path, start)
        return Repair("cut", line, len(tail))
    if problem:
        raise CorruptLog(path, line, problem)
    whole = start + len(tail.rstrip(b"\0"))
    if whole < len(data):
        os.truncate(path, whole)  # the zeros a power loss left after a whole record
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # a whole record that lost its newline
    try:
        write_all(fd, b"\n")
    finally:
        os.close(fd)
    return Repair("newline", line, len(tail))
