"""An append-only session log: every committed message, once, before anything rewrites it (chapter 05).

Compaction rewrites the history the model sees; it never touches this log.
A compaction appends one record of its own, so a resumed session can replay
it (chapter 06). Records are JSON lines ``{"seq", "kind", ...}`` with kind
``message`` or ``compaction``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..core.messages import Message


class SessionLog:
    def __init__(self, path: str | Path, *, fsync: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        data = self.path.read_bytes() if self.path.exists() else b""
        torn = bool(data) and not data.endswith(b"\n")  # a crash cut the last write short
        self.seq = data.count(b"\n") + torn  # the number of lines, a torn last one included
        self._synced = 0  # how many messages of the live history are already logged
        if torn:
            self._close_torn_tail(data.rsplit(b"\n", 1)[-1])

    def _close_torn_tail(self, last_line: bytes) -> None:
        """A crash mid-write left a line without its newline: end it, and record it if it is not whole (chapter 06)."""
        with self.path.open("a", encoding="utf-8") as f:
            f.write("\n")
        try:
            json.loads(last_line)
        except ValueError:
            self.append("torn", line=self.seq)

    def mark_logged(self, messages: list[Message]) -> None:
        """Continue a resumed session: ``messages``, replayed from this log, are logged already (chapter 06)."""
        self._synced = len(messages)

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append one record and flush it to disk."""
        self.seq += 1
        record = {"seq": self.seq, "kind": kind, **fields}
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            f.flush()
            if self.fsync:
                os.fsync(f.fileno())
        return record

    def sync(self, messages: list[Message]) -> int:
        """Log the messages committed since the last sync; returns how many were new."""
        new = messages[self._synced:]
        for message in new:
            self.append("message", message=message)
        self._synced = len(messages)
        return len(new)

    def compacted(self, messages: list[Message], **fields: Any) -> dict[str, Any]:
        """Record a compaction that left ``messages`` as the live history."""
        self._synced = len(messages)
        return self.append("compaction", **fields)

    def records(self) -> list[dict[str, Any]]:
        with self.path.open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
