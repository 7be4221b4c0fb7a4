"""Chapter 06's steps, its three exercises: replay a log by hand, a replacement budget in tokens, the whole input
of a usage; the value exercise 3 asks for (``ANSWERS``); and the answers to its recap questions.

The cases: the chapter's two logs (the usage-triggered session's first 8 requests and the three-layer
12-file run), replayed up to each compaction and whole; hand-made records that trip a hand-written replay
(a compaction with a small budget, an ``interrupted`` record, none at all); the naive resume's history and
random histories at budgets from 0 up (the newest request alone over the budget, a large request before
small ones); SDK usages and dicts with cache fields present, missing and None.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from anthropic.types import Usage

from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, tool_result, tool_use, user
from ...core.tokens import count_tokens
from ...fake import fake_client
from ...session.records import read_log
from ...session.replacement import is_user_words, replace_history
from ...session.retry import RetryPolicy
from ...strategies.usage_triggered import UsageTriggered
from ..runs import run_scenario
from ..scenarios import LONG_SESSION, TWELVE_FILES
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step, raised


def my_replay(records):
    """The live history a list of log records leaves: messages appended, compactions replayed."""
    history = []
    for record in records:
        if record["kind"] == "compaction":
            if "summary" in record:  # a usage-triggered compaction: the replacement again
                history = replace_history(history, record["summary"], record["budget_chars"])
            else:                    # chapter 03's auto or manual layer: one message replaced everything
                history = [record["message"]]
        elif "message" in record:
            history.append(record["message"])
    return history


def kept_by_tokens(messages, budget_tokens):
    """The indexes of the user messages to keep, oldest first: chosen newest first while their tokens fit,
    the newest always."""
    kept, used = [], 0
    for index in reversed(range(len(messages))):
        if not is_user_words(messages[index]):
            continue
        size = count_tokens([messages[index]])
        if kept and used + size > budget_tokens:
            break
        kept.append(index)
        used += size
    return list(reversed(kept))


def whole_input(usage):
    """The input tokens a request read: input_tokens and both cache fields, from an SDK Usage or a dict."""
    names = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    values = [usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None) for name in names]
    return sum(value or 0 for value in values)


@lru_cache(maxsize=1)
def logs() -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """The records of the chapter's two logs: the usage-triggered session, then the three-layer run."""
    with scratch_folder(Path("_work/06_resume_and_replay")) as root:
        run_scenario(LONG_SESSION, CompactionConfig(), root / "main", requests=LONG_SESSION.requests[:8], log=True,
                     compactor=UsageTriggered(retry=RetryPolicy(sleep=lambda seconds: None)))
        run_scenario(TWELVE_FILES, CompactionConfig(threshold=10_000), root / "layers", log=True, compact_policy=5_000)
        return (tuple(read_log(root / "main" / "session.jsonl").records),
                tuple(read_log(root / "layers" / "session.jsonl").records))


def _record(seq: int, message: Message, kind: str = "message") -> dict[str, Any]:
    return {"seq": seq, "kind": kind, "message": message}


def _hand_made_records() -> list[tuple[Any, ...]]:
    ask, answer = user("Read a.py and b.py."), assistant([tool_use("t1", "read_file", {"path": "a.py"})])
    first = [_record(1, ask), _record(2, answer), _record(3, user([tool_result("t1", "print('a')")])),
             _record(4, assistant("a.py prints a.")), _record(5, user("And b.py? Keep it short."))]
    squeezed = {"seq": 6, "kind": "compaction", "summary": "The user asked about a.py; it prints a.",
                "budget_chars": 25, "reason": "reported usage 9,000 tokens reached the threshold 8,000"}
    interrupted = _record(3, user([tool_result("t1", "interrupted", is_error=True)]), kind="interrupted")
    return [("a compaction with a 25-character budget", (first + [squeezed],), "budget"),
            ("an interrupted record", (first[:2] + [interrupted],), "interrupted"),
            ("no records", ([],), None)]


def _replay_cases() -> list[tuple[Any, ...]]:
    usage_log, layer_log = logs()
    cases = _hand_made_records()
    for name, records, trap in (("the usage-triggered log", usage_log, "summary"),
                                ("the three-layer log", layer_log, "layer")):
        cuts = [i + 1 for i, r in enumerate(records) if r["kind"] == "compaction"] + [len(records)]
        cases += [(f"{name}, its first {n} records", (list(records[:n]),), trap) for n in cuts]
    return cases


@lru_cache(maxsize=1)
def naive_history() -> tuple[Message, ...]:
    """What the naive resume of the usage-triggered log gives: every logged message, in order."""
    return tuple(r["message"] for r in logs()[0] if r["kind"] == "message")


def _budget_cases() -> list[tuple[Any, ...]]:
    small_big_small = [user("short one"), assistant("ok"), user("x " * 400), assistant("ok"), user("the last")]
    cases: list[tuple[Any, ...]] = [
        ("a short request, a long one, a short one, budget 20", (small_big_small, 20), "stop"),
        ("the naive history, budget 0", (list(naive_history()), 0), "newest"),
        ("three short requests (7, 13 and 9 tokens), budget 25",
         ([user("Read a.py"), assistant("ok"), user("Now count the lines of every file, please"), assistant("ok"),
           user("Summarise b.py")], 25), "tokens")]
    cases += [(f"the naive history, budget {b}", (list(naive_history()), b), None) for b in (1, 50, 100, 10_000)]
    cases += [(f"random history {i}, budget {b}", (h, b), None)
              for i, h in enumerate(random_histories(20, seed=6)) for b in (0, 30, 200)]
    return cases


def indexes(function, args):
    """What a choice of messages is judged by: the indexes, as a list, oldest first."""
    return list(function(*args))


@lru_cache(maxsize=1)
def _usage_cases() -> list[tuple[Any, ...]]:
    cached_round = Usage(input_tokens=12, cache_read_input_tokens=9_500, cache_creation_input_tokens=400,
                         output_tokens=80)
    fake_usage = fake_client().messages.create(model=CompactionConfig().model, max_tokens=50,
                                               messages=[user("Hello")]).usage
    return [("a Usage with both cache fields and 80 output tokens", (cached_round,), "output"),
            ("the fake's Usage, nothing cached", (fake_usage,), None),
            ("a Usage whose cache fields are None", (Usage(input_tokens=25, output_tokens=10,
                                                         cache_creation_input_tokens=None,
                                                         cache_read_input_tokens=None),), "None"),
            ("a dict without cache fields", ({"input_tokens": 7, "output_tokens": 1},), "dict"),
            ("a dict, one cache field None", ({"input_tokens": 7, "cache_read_input_tokens": None,
                                              "cache_creation_input_tokens": 5, "output_tokens": 1},), "None"),
            ("a Usage without cache fields", (Usage(input_tokens=3, output_tokens=2),), None),
            ("a dict of cache reads only", ({"input_tokens": 0, "cache_read_input_tokens": 4_000},), None)]


STEPS = [
    Step("my_replay", "06", my_replay, _replay_cases,
         hint="Walk the records in order: a message record appends its message; a compaction record replaces "
              "the history as it was replaced when it was written.",
         traps={"budget": "A setting ignored: a compaction record holds its own budget_chars; replay with it, "
                          "not the default.",
                "interrupted": "Any record that holds a message appends it: an interrupted record (chapter 07) too.",
                "summary": "A compaction record with a summary: the history is replaced again, with "
                           "replace_history and the record's summary and budget; reading every message back "
                           "is the naive resume.",
                "layer": "A compaction record without a summary (chapter 05's layers) holds the one message "
                         "that replaced everything.",
                "KeyError": "A KeyError: not every record has every field; look at the kind first."},
         diagnose=raised, twins=("harness.session.resume:replay",)),
    Step("kept_by_tokens", "06", kept_by_tokens, _budget_cases, indexes,
         hint="From the newest user message back, each kept while the tokens so far fit; the newest always; "
              "the indexes oldest first.",
         traps={"stop": "Stop at the first that does not fit: the kept messages are a run of the most recent "
                        "ones, so an older, shorter one after it stays out.",
                "newest": "The newest request is kept even when it alone is over the budget (see the case's budget).",
                "tokens": "Tokens, not characters: count_tokens([message]) for each message.",
                "TypeError": "Return the indexes (ints) of the messages, oldest first."},
         diagnose=raised),
    Step("whole_input", "06", whole_input, _usage_cases,
         hint="input_tokens plus both cache fields; a field that is missing or None counts as 0.",
         traps={"output": "Input only: output_tokens is what the model wrote, not what the request read.",
                "None": "A cache field may be None (no caching asked for): count it as 0.",
                "dict": "A dict has no attributes: read its fields with .get, and an object's with getattr.",
                "TypeError": "A cache field may be None (no caching asked for): count it as 0.",
                "AttributeError": "A dict has no attributes, and an object has no .get: read each as what it is."},
         diagnose=raised),
]

ANSWERS = (
    Answer("naive_rule_compacts", "06", lambda: 12 + 80 >= 8_000,
           hint="The rule adds only cached_round's input_tokens and output_tokens: work out that sum and put it "
                "against 8,000."),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "Claude's input_tokens counts only the part that was neither read from nor written to the cache; with "
    "caching on, a long conversation is mostly cache reads. cached_round's reported total is 9,992 "
    "tokens, of which input_tokens is 12: input plus output alone (92) stays far below 8,000, so that rule "
    "would not compact.",
    "One summary message, then the most recent user messages verbatim, newest first within 20,000 "
    "characters (the newest always). Assistant messages, tool calls and tool results are dropped whole, so "
    "no pair can be split.",
    "A round is committed by then, its tool results appended and logged, so no tool_use is waiting for its "
    "result; and the usage that round reported is known. A round that ends the turn is left alone.",
    "The whole uncompressed history, because it reads back every logged message and the log keeps them "
    "all: 38 messages instead of 15, 57,585 tokens for the next call instead of 5,064. It is a valid "
    "history, so the API accepts it: the failure is silent.",
    "The compaction record already holds the summary and the budget. resume appends each message in order "
    "and, at each compaction record, runs replace_history again with them: a pure function of the history "
    "so far and the summary, so the replay gives the history the session had.",
]
