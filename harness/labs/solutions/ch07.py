"""Chapter 07's steps: the answer a resumed session gives to the tool calls a crash left open; exercise 1's
tear; and exercise 2's answer, which statuses are tried again.

The cases: the chapter's session (its first 8 long-session requests, usage-
triggered, logged) replayed up to each of its logged records, so every crash
point between a tool call and its result is one, the chapter's own among them;
200 random valid histories, each whole and cut just before its last message
(which leaves open calls, several in one message, between text blocks); and
the edges a hand-written version gets wrong: an empty history, a last
assistant message of plain text (a string or text blocks), open calls in an
earlier message that a later one answers. The reference answers as
``harness.session.resume.interruption`` on every case
(``tests/test_solutions_ch07_ch11.py``).

``tear`` is checked on a small log and records (one with non-ASCII text), cut at
every character, each written over a stale target: what is judged is the file it
leaves (the source's bytes first, then the cut record with no newline).
"""
from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import anthropic
import httpx2

from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, text, tool_result, tool_use, user
from ...session.records import read_log
from ...session.resume import INTERRUPTED, replay
from ...session.retry import RetryPolicy, is_transient
from ...strategies.usage_triggered import UsageTriggered
from ..runs import run_scenario
from ..scenarios import LONG_SESSION
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step, raised


def my_interruption(history):
    """The user message answering the tool calls the history ends with, or None if no call is open."""
    if not history or history[-1]["role"] != "assistant":
        return None
    content = history[-1]["content"]
    if isinstance(content, str):
        return None
    open_ids = [block["id"] for block in content if block.get("type") == "tool_use"]
    if not open_ids:
        return None
    return user([tool_result(tool_id, INTERRUPTED, is_error=True) for tool_id in open_ids])


@lru_cache(maxsize=1)
def crash_points() -> tuple[tuple[int, tuple[Message, ...]], ...]:
    """(records read, the history they replay to) for every prefix of the chapter's session log."""
    with scratch_folder(Path("_work/07_robustness")) as root:
        run_scenario(LONG_SESSION, CompactionConfig(), root / "main", requests=LONG_SESSION.requests[:8], log=True,
                     compactor=UsageTriggered(retry=RetryPolicy(sleep=lambda seconds: None)), fsync=False)
        records = read_log(root / "main" / "session.jsonl").records
    return tuple((n, tuple(replay(records[:n]))) for n in range(1, len(records) + 1))


def _edges() -> list[tuple[str, list[Message]]]:
    ask = user("Read a.py and b.py.")
    both = assistant([text("Reading both."), tool_use("t1", "read_file", {"path": "a.py"}), text("and"),
                      tool_use("t2", "read_file", {"path": "b.py"})])
    return [("an empty history", []),
            ("one user message", [ask]),
            ("an answer as a string", [ask, assistant("Done.")]),
            ("an answer as text blocks", [ask, assistant([text("Done."), text("Anything else?")])]),
            ("two open calls between text blocks", [ask, both]),
            ("calls answered, then a text answer", [ask, both, user([tool_result("t1", "a"), tool_result("t2", "b")]),
                                                    assistant("Both read.")])]


@lru_cache(maxsize=1)
def _interruption_histories() -> tuple[tuple[str, list[Message]], ...]:
    chapter = [(f"the chapter's log, its first {n} records", list(history)) for n, history in crash_points()]
    drawn = [(f"random history {i}{cut}", h[:-1] if cut else h) for i, h in enumerate(random_histories(200, seed=7))
             for cut in ("", " without its last message") if len(h) > 1 or not cut]
    return tuple(_edges() + chapter + drawn)


def _interruption_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(name, (history,)) for name, history in _interruption_histories()]


def tear(source, target, record, keep):
    """Exercise 1: copy the log ``source`` to ``target``, then append the first ``keep`` characters of
    ``record`` with no newline, as a crash in the middle of writing it would."""
    shutil.copy(source, target)
    with open(target, "a", encoding="utf-8") as f:
        f.write(record[:keep])


@lru_cache(maxsize=1)
def _tear_folder() -> Path:
    """A small log to tear, in a folder of its own until the process exits."""
    folder = Path(tempfile.mkdtemp(prefix="ch07-tear-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    lines = [json.dumps({"seq": n, "kind": "message", "message": user(f"request {n}")}) for n in (1, 2, 3)]
    (folder / "source.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return folder


def _tear_cases() -> list[tuple[str, tuple[Any, ...]]]:
    folder = _tear_folder()
    records = [json.dumps({"seq": 4, "kind": "message", "message": user("never committed")}),
               json.dumps({"seq": 4, "kind": "message", "message": user("é 言")}, ensure_ascii=False)]
    return [(f"record {r + 1}, its first {keep} characters", (folder / "source.jsonl", folder / "torn.jsonl",
                                                              record, keep))
            for r, record in enumerate(records) for keep in range(1, len(record))]


def torn_file(function, args):
    """What a tear is judged by: the file it leaves over a stale target (and the source left as it was)."""
    source, target, _, _ = args
    before = source.read_bytes()
    target.write_text("a stale file from an earlier run\n", encoding="utf-8")
    function(*args)
    data = target.read_bytes()
    _, _, tail = data.rpartition(b"\n")
    return {"after the last newline": tail.decode("utf-8", "replace"), "starts with the source": data.startswith(before),
            "bytes": len(data), "source untouched": source.read_bytes() == before}


RETRY_STATUSES = (400, 401, 403, 404, 408, 409, 413, 429, 500, 529)  # the ten of exercise 2


def _status_error(status: int) -> anthropic.APIStatusError:
    """The SDK's error for a response with this status."""
    response = httpx2.Response(status, request=httpx2.Request("POST", "https://api.anthropic.com/v1/messages"))
    return anthropic.APIStatusError(f"status {status}", response=response, body=None)


def _retried_statuses() -> set[int]:
    """Exercise 2: the statuses of the ten that ``is_transient`` tries again."""
    return {status for status in RETRY_STATUSES if is_transient(_status_error(status))}


ANSWERS = (
    Answer("retried", "07", truth=_retried_statuses,
           hint="would the same request, sent again a second later, get a different answer? A timeout, a "
                "conflict, a rate limit and a server error might."),
)

STEPS = [
    Step("my_interruption", "07", my_interruption, _interruption_cases,
         hint="Only calls of the last message can be open, and only if it is the assistant's; one user message "
              "answers every one of them, in order, as the docstring says; anything else gives None.",
         traps={"AttributeError": "The last message's content may be a plain string: it holds no calls.",
                "IndexError": "An empty history has no last message: nothing is open.",
                "TypeError": "The last message's content may be a plain string: it holds no calls."},
         diagnose=raised,
         twins=("harness.session.resume:interruption",)),
    Step("tear", "07", tear, _tear_cases, torn_file, label="file",
         hint="The file afterwards: the source's bytes, then the first keep characters of the record, and "
              "nothing after them.",
         flags={"after the last newline": "Nothing after the cut: a crash mid-write leaves no newline after "
                                          "the part written.",
                "starts with the source": "The target starts as a copy of the source: whatever it held before "
                                          "(a stale file) is gone.",
                "source untouched": "The source is only read: the torn copy is the target.",
                "bytes": "Characters, not bytes: keep counts characters of the record, written as UTF-8."}),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "Each record is one line written with one write call to a file opened for appending, so a crash can only "
    "cut the last line short. No proper prefix of a JSON object is valid JSON, so a torn last line is "
    "recognisable and held no committed record; a bad line anywhere else is damage, and skipping it would "
    "resume a different history.",
    "The history ends with tool_use blocks that no tool_result answers, and the API refuses such a request "
    "(400). Keeping the round with an error result tells the model what it had asked for and that whatever "
    "the tool did may or may not have happened, so it checks before doing it again (an edit may have run).",
    "So that replay stays a pure function of the log: the answer is in the log as an 'interrupted' record, "
    "and resuming before and after gives the same history.",
    "Only what can succeed when sent again: 408, 409, 429, 5xx, a lost connection, a timeout. A 400 'prompt "
    "is too long' fails the same way every time. The SDK's own retries are off for the summary call so that "
    "one policy decides: 3 harness tries of 3 SDK tries each would be up to 9 requests.",
    "The next request must still fit with its reply: a fraction knows nothing about max_tokens (90% of "
    "200,000 leaves 20,000 tokens, less than a 64,000-token reply); window minus output reserve minus a "
    "safety buffer always leaves room for both.",
]
