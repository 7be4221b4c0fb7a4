"""Resume a session from its append-only log by replaying every compaction (chapter 06).

The log holds every message ever committed and one record per compaction;
nothing in it is rewritten. The history the model sees is derived from it:
start empty, append each message record, and at each compaction record do
again what the running session did. A usage-triggered record holds its
summary and budget, so ``replace_history`` (a pure function) is replayed and
gives the same history back; a chapter 03 record (auto or manual) holds the
summary message that replaced everything. Reading back only the message
records is the silent failure seed 000 describes: the compacted session
comes back uncompacted (``resume_naive``, kept to show it).

A crash in the middle of a write leaves a last line without its newline: it
is reported and everything before it is recovered (``SessionLog`` ends such
a line and records it when it reopens the file). Any other line that is not
a record is corruption, and the error names the line.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.messages import Message
from .replacement import replace_history

Record = dict[str, Any]


class CorruptLog(ValueError):
    """A line of the log that is not a record and not a torn last write; ``line`` is 1-based."""

    def __init__(self, path: Path, line: int, detail: str):
        super().__init__(f"{path.name}, line {line}: {detail}")
        self.line = line


@dataclass(frozen=True)
class TornLine:
    """A write cut short by a crash: its line number and how many bytes reached the disk."""
    line: int
    size: int


@dataclass
class LogContents:
    records: list[Record] = field(default_factory=list)
    torn: list[TornLine] = field(default_factory=list)


def parse_record(raw: bytes) -> Record | None:
    """The record on one line, or None if the line is not a JSON object with a kind."""
    try:
        record = json.loads(raw)
    except ValueError:  # bad JSON or bad UTF-8
        return None
    return record if isinstance(record, dict) and isinstance(record.get("kind"), str) else None


def read_log(path: str | Path) -> LogContents:
    """Every record in order; torn writes reported; CorruptLog for any other bad line."""
    path = Path(path)
    data = path.read_bytes()
    unterminated = bool(data) and not data.endswith(b"\n")
    lines = data.split(b"\n")
    if not unterminated:
        lines.pop()  # the empty text after the last newline
    parsed = [parse_record(raw) for raw in lines]
    contents = LogContents()
    for number, (raw, record) in enumerate(zip(lines, parsed), start=1):
        if record is not None:
            contents.records.append(record)
            continue
        following = parsed[number] if number < len(lines) else None
        closed_on_reopen = following is not None and following["kind"] == "torn" and following.get("line") == number
        if (number == len(lines) and unterminated) or closed_on_reopen:
            contents.torn.append(TornLine(number, len(raw)))
        else:
            raise CorruptLog(path, number, f"not a valid record: {raw[:60].decode('utf-8', 'replace')!r}")
    return contents


def replay(records: list[Record]) -> list[Message]:
    """The live history at the end of these records: messages appended, compactions replayed."""
    history: list[Message] = []
    for record in records:
        if record["kind"] == "message":
            history.append(record["message"])
        elif record["kind"] == "compaction":
            history = replay_compaction(history, record)
        elif record["kind"] != "torn":
            raise ValueError(f"record {record.get('seq')}: unknown kind {record['kind']!r}")
    return history


def replay_compaction(history: list[Message], record: Record) -> list[Message]:
    """What one compaction record did to the history."""
    if "summary" in record:    # usage-triggered (this chapter): replay the pure replacement
        return replace_history(history, record["summary"], record["budget_chars"])
    if "message" in record:    # auto or manual (chapter 03): one summary message replaced everything
        return [record["message"]]
    raise ValueError(f"record {record.get('seq')}: a compaction record needs a summary or a message")


@dataclass
class Resumed:
    messages: list[Message]
    records: int
    compactions: int
    torn: list[TornLine]


def resume(path: str | Path) -> Resumed:
    """Rebuild the live history from the log at ``path``, replaying every compaction."""
    contents = read_log(path)
    return Resumed(replay(contents.records), len(contents.records),
                   sum(r["kind"] == "compaction" for r in contents.records), contents.torn)


def resume_naive(path: str | Path) -> list[Message]:
    """The bug seed 000 fixed: every logged message back, as if no compaction had happened."""
    return [r["message"] for r in read_log(path).records if r["kind"] == "message"]
