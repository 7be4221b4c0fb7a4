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

from .messages import Message


class SessionLog:
    def __init__(self, path: str | Path, *, fsync: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self.seq = sum(1 for _ in self.path.open(encoding="utf-8")) if self.path.exists() else 0
        self._synced = 0  # how many messages of the live history are already logged

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
