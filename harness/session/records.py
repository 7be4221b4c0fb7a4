"""The session log's records, and the one reader every part of the course uses (chapter 06).

A log is JSON lines. Each line is one record ``{"seq": n, "kind": ..., ...}``
with ``seq`` counting lines from 1 and one of three kinds:

- ``message``: ``{"message": <a message>}``, a message the session committed;
- ``compaction``: either ``{"summary": str, "budget_chars": int}`` (the
  usage-triggered strategy of chapter 06, replayed by ``replace_history``) or
  ``{"message": <the summary message>}`` (chapter 03's auto and manual layers),
  plus free fields such as ``reason`` or ``transcript``;
- ``interrupted``: ``{"message": <a user message of error tool_results>}``,
  written when a resumed session answers the tool calls a crash left open
  (chapter 07).

``read_log`` is the only reader: resume, recall and the labs all use it. It
validates every record against its kind and raises ``CorruptLog`` naming the
file, the line and the problem. The one thing it forgives is a torn last
line (a write a crash cut short): it is reported, not read (chapter 07).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.messages import InvalidHistory, check_message

Record = dict[str, Any]
KINDS = ("message", "compaction", "interrupted")


class CorruptLog(ValueError):
    """A line of the log that is not a valid record (and not a torn last write); ``line`` is 1-based."""

    def __init__(self, path: Path, line: int, detail: str):
        super().__init__(f"{path.name}, line {line}: {detail}")
        self.path, self.line, self.detail = path, line, detail


@dataclass(frozen=True)
class TornLine:
    """The last line of a log a crash cut short: its number and how many bytes reached the disk."""
    line: int
    size: int


@dataclass(frozen=True)
class Cursor:
    """A place in a log: the byte offset where a line starts, and that line's number."""
    offset: int = 0
    line: int = 1


@dataclass
class LogContents:
    records: list[Record] = field(default_factory=list)
    torn: TornLine | None = None
    end: Cursor = Cursor()  # just past the last complete line: where the next read starts


def record_problem(record: Any, line: int) -> str | None:
    """What is wrong with the record on line ``line``, or None if it is a valid record."""
    if not isinstance(record, dict):
        return f"a record is a JSON object, not {type(record).__name__}"
    if record.get("seq") != line or isinstance(record.get("seq"), bool):
        return f"seq must be {line} (its line number), not {record.get('seq')!r}"
    kind = record.get("kind")
    if kind not in KINDS:
        return f"unknown kind {kind!r}; a record is one of {', '.join(KINDS)}"
    if kind in ("message", "interrupted") or "message" in record:
        if "message" not in record:
            return f"a {kind} record needs a message"
        try:
            check_message(record["message"], 0)
        except InvalidHistory as error:
            return f"its message is malformed: {error}"
    if kind == "interrupted" and not _answers_only(record["message"]):
        return "an interrupted record holds a user message of tool_result blocks only"
    if kind == "compaction" and "message" not in record:
        if not isinstance(record.get("summary"), str):
            return "a compaction record needs a message, or a summary string with budget_chars"
        budget = record.get("budget_chars")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
            return f"a compaction record with a summary needs budget_chars >= 0, not {budget!r}"
    return None


def _answers_only(message: dict[str, Any]) -> bool:
    content = message["content"]
    return (message["role"] == "user" and isinstance(content, list)
            and all(block["type"] == "tool_result" for block in content))


def parse_line(raw: bytes, line: int) -> tuple[Any, str | None]:
    """The JSON value on one line and what is wrong with it as a record (None if nothing).
    The value is ``NOT_JSON`` when the line does not parse."""
    try:
        value = json.loads(raw)
    except ValueError:  # bad JSON or bad UTF-8
        return NOT_JSON, f"not JSON: {raw[:60].decode('utf-8', 'replace')!r}"
    return value, record_problem(value, line)


NOT_JSON = object()


def read_log(path: str | Path, since: Cursor = Cursor()) -> LogContents:
    """Every record from ``since`` on, validated; a torn last line is reported and left out.

    A record is written as one line in one write, so a crash can only cut the last
    line short. No proper prefix of a JSON object is JSON, so a last line without
    its newline that does not parse is such a torn write; one that does parse lost
    only its newline and is read (reopening the log adds the newline back).
    Anything else that is not a valid record raises CorruptLog.
    """
    path = Path(path)
    with path.open("rb") as f:
        f.seek(since.offset)
        data = f.read()
    contents = LogContents(end=since)
    offset, line = since.offset, since.line
    for raw in data.split(b"\n")[:-1]:  # complete lines only
        record, problem = parse_line(raw, line)
        if problem:
            raise CorruptLog(path, line, problem)
        contents.records.append(record)
        offset, line = offset + len(raw) + 1, line + 1
    contents.end = Cursor(offset, line)
    tail = data[offset - since.offset:]
    if tail:
        record, problem = parse_line(tail, line)
        if record is NOT_JSON:  # no prefix of a record is JSON: this write was cut short
            contents.torn = TornLine(line, len(tail))
        elif problem:
            raise CorruptLog(path, line, problem)
        else:
            contents.records.append(record)
    return contents
