"""The session log's records, and the one reader every part of the course uses (chapter 06).

A log is JSON lines, UTF-8. Each line is one record ``{"seq": n, "kind": ..., ...}``
with ``seq`` counting lines from 1 and one of three kinds, each with a closed
set of fields (any other field is damage, not an extension):

- ``message``: ``{"message": <a message>}``, a message the session committed;
- ``compaction``: either ``{"summary": str, "budget_chars": int}`` (the
  usage-triggered strategy of chapter 06, replayed by ``replace_history``) or
  ``{"message": <the summary message>}`` (chapter 03's auto and manual layers),
  never both, plus the describing fields of ``COMPACTION_FIELDS``
  (``strategy``, ``reason``, ``layer``, ``transcript``: strings;
  ``reported_tokens``, ``threshold``: an int >= 0 or null);
- ``interrupted``: ``{"message": <a user message of error tool_results>}``,
  written when a resumed session answers the tool calls a crash left open
  (chapter 07).

Every message is checked with ``check_message``, the rule every request
uses, so a record whose message the API would refuse (a flipped bit that
turns ``content`` into ``bontent``, say) is refused here, naming its line. A
summary is checked by ``summary_message``, the function replay calls, so a
record that passes cannot make the replay fail.

Strict JSON only: the line must be UTF-8; ``NaN`` and ``Infinity`` (which
Python's ``json`` reads by default), lone surrogates (``"\\ud800"``, which
no request can encode) and nesting past Python's recursion limit are refused.
Two limits: a duplicated key inside an object is not detected (``json`` keeps
the last one); the nesting limit is the interpreter's, not the API's.

``read_log`` is the only reader: resume, recall and the labs all use it. It
raises ``CorruptLog`` naming the file, the line and the problem. The one thing
it forgives is a torn last line (a write a crash cut short), reported, not
read (chapter 07). A last line without its newline is torn only when no
complete JSON value can be read from its start and it begins as every record
the writer writes begins (``{"seq": <its line>, ``); anything else there is
damage. Damage that breaks the JSON structure of a last line without a
newline (a quote flipped to another byte, say) cannot be told from a torn
write, and is reported as torn.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import Portable
from ..core.messages import InvalidHistory, check_message
from .replacement import summary_message

Record = dict[str, Any]
KINDS = ("message", "compaction", "interrupted")
RECORD_FIELDS = {"seq", "kind"}
COMPACTION_FIELDS = {"strategy": str, "reason": str, "layer": str, "transcript": str,
                     "reported_tokens": int, "threshold": int}  # each optional; the ints may be null


class CorruptLog(Portable, ValueError):
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
    seq = record.get("seq")
    if seq != line or type(seq) is not int:
        return f"seq must be {line} (its line number), not {seq!r}"
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
    if kind == "compaction":
        return _compaction_problem(record)
    unknown = sorted(set(record) - RECORD_FIELDS - {"message"})
    if unknown:
        return f"unknown field {unknown[0]!r} in a {kind} record (it holds seq, kind and message only)"
    if kind == "interrupted" and not _answers_only(record["message"]):
        return "an interrupted record holds a user message of tool_result blocks only"
    return None


def _compaction_problem(record: Record) -> str | None:
    if "message" in record and ("summary" in record or "budget_chars" in record):
        return "a compaction record holds a message or a summary with budget_chars, not both"
    if "message" not in record:
        if not isinstance(record.get("summary"), str):
            return "a compaction record needs a message, or a summary string with budget_chars"
        try:
            summary_message(record["summary"])  # what replay builds from it
        except ValueError as error:
            return f"its summary cannot be replayed: {error}"
        budget = record.get("budget_chars")
        if type(budget) is not int or budget < 0:
            return f"a compaction record with a summary needs budget_chars >= 0, not {budget!r}"
    for name in sorted(set(record) - RECORD_FIELDS - {"message", "summary", "budget_chars"}):
        if name not in COMPACTION_FIELDS:
            return (f"unknown field {name!r} in a compaction record "
                    f"(besides its message or summary it may hold {', '.join(COMPACTION_FIELDS)})")
        value, wanted = record[name], COMPACTION_FIELDS[name]
        if wanted is str and not isinstance(value, str):
            return f"a compaction record's {name} is a string, not {value!r}"
        if wanted is int and value is not None and (type(value) is not int or value < 0):
            return f"a compaction record's {name} is an integer >= 0 or null, not {value!r}"
    return None


def _answers_only(message: dict[str, Any]) -> bool:
    content = message["content"]
    return (message["role"] == "user" and isinstance(content, list)
            and all(block["type"] == "tool_result" for block in content))


class _NotStrict(ValueError):
    """JSON that Python's ``json`` reads but a request cannot carry."""


def _refuse_constant(name: str) -> None:
    raise _NotStrict(f"{name} is not a JSON number")


_STRICT = json.JSONDecoder(parse_constant=_refuse_constant)
_LENIENT = json.JSONDecoder(strict=False)


def parse_line(raw: bytes, line: int) -> tuple[Any, str | None]:
    """The JSON value on one line and what is wrong with it as a record (None if nothing).
    The value is ``NOT_JSON`` when the line is not strict JSON in UTF-8."""
    try:
        value = _STRICT.decode(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        return NOT_JSON, f"not UTF-8 (byte {error.start}): {_show(raw)}"
    except _NotStrict as error:
        return NOT_JSON, f"not strict JSON ({error}): {_show(raw)}"
    except json.JSONDecodeError as error:
        return NOT_JSON, f"not JSON ({error.msg} at character {error.pos}): {_show(raw)}"
    except RecursionError:
        return NOT_JSON, f"not JSON a request can carry (nested too deep): {_show(raw)}"
    if b"\\ud" in raw.lower() and _has_lone_surrogate(value):
        return NOT_JSON, f"not JSON a request can carry (a lone surrogate escape): {_show(raw)}"
    return value, record_problem(value, line)


def _has_lone_surrogate(value: Any) -> bool:
    """A string escape such as ``\\ud800`` that is half of a pair: it has no UTF-8 form."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _show(raw: bytes) -> str:
    return repr(raw[:60].decode("utf-8", "replace"))


NOT_JSON = object()
TORN = object()


def parse_last_line(raw: bytes, line: int) -> tuple[Any, str | None]:
    """``parse_line`` for a last line that has no newline: ``TORN`` (no problem) if it is a write a crash
    cut short, that is, a start of a record that holds no complete JSON value.

    NUL bytes at its end are left out first: after a power loss a file can be longer than the data
    that reached the disk, the rest read as zeros. No record ends in a NUL (each ends in ``}``), so
    a zero-filled tail alone, or after the start of a record, is ``TORN``; after a whole record, the
    record is read (opening the log cuts the zeros and adds the newline)."""
    body = raw.rstrip(b"\0")
    if body.startswith(record_start(line)[:len(body)]) and not _holds_a_value(body):
        return TORN, None
    value, problem = parse_line(body, line)
    if problem:
        return value, f"{problem} (a last line without its newline, but not a torn write)"
    return value, None


def record_start(line: int) -> bytes:
    """How the writer's line for record ``line`` begins (``json.dumps`` puts ``seq`` first)."""
    return b'{"seq": %d, ' % line


def _holds_a_value(raw: bytes) -> bool:
    """Whether a complete JSON value can be read from the start of ``raw`` (what follows it is not read).
    Lenient (control characters, NaN, bad UTF-8 allowed), so damage inside a finished record is not
    taken for a torn write."""
    try:
        _LENIENT.raw_decode(raw.decode("utf-8", "surrogateescape"))
    except json.JSONDecodeError:
        return False
    except RecursionError:
        return True  # deeper than a record may be: not a torn record
    return True


def read_log(path: str | Path, since: Cursor = Cursor()) -> LogContents:
    """Every record from ``since`` on, validated; a torn last line is reported and left out.

    A record is written as one line in one write, so a crash can only cut the last
    line short: such a line has no newline and holds no complete JSON value
    (``parse_last_line``). A last line that lost only its newline is read (reopening
    the log adds the newline back). Anything else that is not a valid record raises
    CorruptLog. Read only: it never repairs.
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
        record, problem = parse_last_line(tail, line)
        if record is TORN:
            contents.torn = TornLine(line, len(tail))
        elif problem:
            raise CorruptLog(path, line, problem)
        else:
            contents.records.append(record)
    return contents
