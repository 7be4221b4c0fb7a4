"""An append-only session log: every committed message, once, before anything rewrites it (chapter 05).

Compaction rewrites the history the model sees; it never touches this log.
A compaction appends one record of its own, so a resumed session can replay
it (chapter 06). The record format and its reader are in ``records``.

Crash safety (chapter 07). The scheme:

- every record is one line written with one ``write`` call to a file opened
  for appending, so a crash can only cut the *last* line short;
- with ``fsync=True`` (the default) the file is flushed to the disk after each
  round and each compaction, so a machine crash loses at most the round in
  progress;
- opening a log repairs a torn last line in one step: a line that lost only its
  newline gets it back (one 1-byte write); any other torn line is cut off
  (one truncate back to the end of the last complete record).

The guarantee: a crash at any byte of opening, repairing or appending leaves
a file that the next ``SessionLog`` opens and ``read_log`` reads, holding every
record whose write completed. Each repair step either happened or did not,
and doing it again is harmless. A torn line never held a committed record, so
cutting it loses nothing.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.messages import Message, check_sendable
from .records import NOT_JSON, parse_line, record_problem


@dataclass(frozen=True)
class Repair:
    """What opening a log did to a torn last line: ``"newline"`` added, or the line ``"cut"``."""
    action: str
    line: int
    size: int   # bytes of the torn line


class SessionLog:
    def __init__(self, path: str | Path, *, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self.repair = repair_torn_tail(self.path)
        self.seq = self.path.read_bytes().count(b"\n") if self.path.exists() else 0
        self._synced = 0  # how many messages of the live history are already logged

    def mark_logged(self, messages: list[Message]) -> None:
        """Continue a resumed session: ``messages``, replayed from this log, are logged already (chapter 06)."""
        self._synced = len(messages)

    def append(self, kind: str, *, durable: bool = True, **fields: Any) -> dict[str, Any]:
        """Append one record in one write; flush it to the disk unless ``durable`` is False.
        A record the reader would refuse is a ValueError, and nothing is written."""
        record = {"seq": self.seq + 1, "kind": kind, **fields}
        check_sendable(record, "record")  # InvalidHistory (a ValueError) for a value JSON cannot carry
        problem = record_problem(record, record["seq"])
        if problem:
            raise ValueError(f"{self.path.name}: refusing to write record {record['seq']}: {problem}")
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
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


def write_all(fd: int, data: bytes) -> None:
    """One write call for the whole line (a regular file takes it whole unless the disk is full)."""
    while data:
        data = data[os.write(fd, data):]


def repair_torn_tail(path: Path) -> Repair | None:
    """End a last line that lost only its newline, or cut off a torn one; None if nothing was torn."""
    if not path.exists():
        return None
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    tail, line = data[start:], data.count(b"\n") + 1
    if parse_line(tail, line)[0] is not NOT_JSON:  # a whole record that lost its newline
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            write_all(fd, b"\n")
        finally:
            os.close(fd)
        return Repair("newline", line, len(tail))
    os.truncate(path, start)
    return Repair("cut", line, len(tail))
