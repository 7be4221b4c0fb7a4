"""Resume a session from its append-only log by replaying every compaction (chapter 06).

The log holds every message ever committed and one record per compaction;
nothing in it is rewritten. The history the model sees is derived from it:
start empty, append each message record, and at each compaction record do
again what the running session did. A usage-triggered record holds its
summary and budget, so ``replace_history`` (a pure function) is replayed and
gives the same history back; a chapter 03 record (auto or manual) holds the
summary message that replaced everything. Reading back only the message
records is the silent failure the usage-triggered design describes: the compacted session
comes back uncompacted (``resume_naive``, kept to show it).

A crash between the assistant's ``tool_use`` record and the ``tool_result``
record that answers it (chapter 07) leaves calls without results, and the
API refuses such a history. Resuming answers each open call with an error
result that says the run was interrupted (``interruption``); the usage-triggered design says
its resume normalises unanswered calls without saying how, and Codex
answers them "aborted" (codex-rs/core/src/context_manager/normalize.rs,
``ensure_call_outputs_present``). The round is kept, so the model
sees what it had asked for and decides whether to ask again. ``reopen``
writes that answer to the log as an ``interrupted`` record before the
session goes on, so replay stays a pure function of the log: resuming
before and after the record gives the same history.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.messages import (
    InvalidHistory,
    Message,
    blocks,
    tool_result,
    user,
    validate_messages,
)
from .log import SessionLog
from .records import CorruptLog, Record, TornLine, read_log
from .replacement import replace_history

INTERRUPTED = ("Error: the run was interrupted before this tool's result was recorded. "
               "Whatever the tool did may or may not have happened; check before doing it again.")
NEXT_REQUEST = user("(the next request)")  # stands in for what a resumed session sends next


def interruption(history: list[Message]) -> Message | None:
    """The user message answering the tool calls a history ends with, or None if none is open."""
    if not history or history[-1]["role"] != "assistant":
        return None
    open_ids = [b["id"] for b in blocks(history[-1]) if b.get("type") == "tool_use"]
    if not open_ids:
        return None
    return user([tool_result(tool_id, INTERRUPTED, is_error=True) for tool_id in open_ids])


def replay(records: list[Record]) -> list[Message]:
    """The live history at the end of these records: messages appended, compactions replayed."""
    history: list[Message] = []
    for record in records:
        if record["kind"] in ("message", "interrupted"):
            history.append(record["message"])
        elif "summary" in record:  # a usage-triggered compaction (this chapter): replay the replacement
            history = replace_history(history, record["summary"], record["budget_chars"])
        else:                      # chapter 03's auto or manual layer: one summary message replaced everything
            history = [record["message"]]
    return history


@dataclass
class Resumed:
    messages: list[Message]
    records: int
    compactions: int
    torn: TornLine | None          # a torn last line, left out
    interrupted: Message | None    # the answer to calls a crash left open, when the log does not hold it yet


def resume(path: str | Path) -> Resumed:
    """Rebuild the live history from the log at ``path``; read only, never writes.

    The history is one the next request can be sent with: open tool calls at the
    end get their ``interruption`` answer. CorruptLog if a record is invalid or
    the records replay to a history the API would refuse.
    """
    path = Path(path)
    contents = read_log(path)
    history = replay(contents.records)
    answer = interruption(history)
    if answer:
        history.append(answer)
    try:
        validate_messages(history + [NEXT_REQUEST])
    except InvalidHistory as error:
        raise CorruptLog(path, _line_of(contents.records, error.index), f"replays to an invalid history: {error}")
    return Resumed(history, len(contents.records), sum(r["kind"] == "compaction" for r in contents.records),
                   contents.torn, answer)


def _line_of(records: list[Record], index: int) -> int:
    """The line of the record that put message ``index`` into the replayed history (for error messages)."""
    lines: list[int] = []
    for line, record in enumerate(records, start=1):
        if record["kind"] == "compaction":
            lines = [line] * len(replay(records[:line]))  # everything now traces back to this record
        else:
            lines.append(line)
    return lines[index] if index < len(lines) else len(records)


def reopen(path: str | Path, *, fsync: bool = True) -> tuple[SessionLog, Resumed]:
    """Open a log to continue its session: repair a torn tail, resume, and record any interruption.

    The log stays open (and locked: ``SessionLog``) for the caller to go on with; if resuming
    fails (CorruptLog), it is closed again before the error is raised."""
    log = SessionLog(path, fsync=fsync)
    try:
        resumed = resume(path)
        if resumed.interrupted:
            log.append("interrupted", message=resumed.interrupted)
            resumed.interrupted = None
    except BaseException:
        log.close()
        raise
    log.mark_logged(resumed.messages)
    return log, resumed


def resume_naive(path: str | Path) -> list[Message]:
    """The bug the usage-triggered design fixed: every logged message back, as if no compaction had happened."""
    return [r["message"] for r in read_log(path).records if r["kind"] == "message"]

