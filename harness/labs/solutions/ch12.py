"""Chapter 12's steps: the incremental summary request (section 2) and the self-check's request (exercise 4).

A request is judged part by part: its prompt cut at the tags (the instruction
before them, then the text of each ``<previous_summary>``, ``<draft_summary>``
and ``<conversation>``), then the whole request, so a line names the part that
differs. The cut assumes no tag inside a part: true of every case here (a
history's JSON has no raw newline, so never a closing tag's ``\\n</...>``).

The cases: the histories the chapter's incremental session asks a summary of
(its first 6 requests at the matched setting, recorded as each summary is
requested), with the tail of the chapter and two shorter ones, one shorter than its summary;
the chapter's 640 (40 random histories, each with and without a summary in
front, four tails, one shorter than that summary, with and without a focus);
and two malformed histories, which must raise ``check_shape``'s error. The
self-check's: the same histories (random ones at tails 40 and 2,000), each
with the draft's own view and larger or smaller ones, an empty draft or not.

``ANSWERS``: the values exercises 1-3 ask for, each worked out by running the
long session again in a temporary folder (one after another, no workers).
"""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.auto import compressed_message, is_summary, tail_request
from ...core.config import CompactionConfig
from ...core.messages import Message, check_shape, user
from ...strategies.incremental_summary import MERGE_PROMPT, merge_request
from ...strategies.three_layers import ThreeLayers
from ...strategies.verified_summary import VERIFY_PROMPT
from ..amnesia import WORK_REQUESTS
from ..runs import run_scenario
from ..scenarios import LONG_SESSION
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step

TAGS = ("previous_summary", "draft_summary", "conversation")
SUMMARY_TEXT = "1. What was accomplished:\n- read: a.py\n2. Current state:\n- In progress: go\n- User: go"
RECORDED_REQUESTS = 6  # of the long session: its first summaries at the matched setting


def my_merge_request(messages, config, focus):
    """The incremental summary request: the previous summary whole, then the tail of the later turns."""
    check_shape(messages)
    if not is_summary(messages[0]):
        return tail_request(messages, config, focus)
    previous = messages[0]["content"].split("\n\n", 1)[-1]
    dump = json.dumps(messages[1:], ensure_ascii=False)
    room = max(config.tail_chars - len(previous), 0)
    prompt = MERGE_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    prompt += (f"\n\n<previous_summary>\n{previous}\n</previous_summary>"
               f"\n\n<conversation>\n{dump[max(len(dump) - room, 0):]}\n</conversation>")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}


def my_verify_request(messages, draft, config, view_chars=None):
    """The self-check request: the draft, then the last view_chars characters of the history as JSON."""
    check_shape(messages)
    view = config.tail_chars if view_chars is None else view_chars
    dump = json.dumps(messages, ensure_ascii=False)
    prompt = (f"{VERIFY_PROMPT}\n\n<draft_summary>\n{draft}\n</draft_summary>"
              f"\n\n<conversation>\n{dump[max(len(dump) - view, 0):]}\n</conversation>")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}


def prompt_parts(prompt: str) -> dict[str, str]:
    """The instruction before the first tag, then the text inside each tag the prompt holds."""
    parts = {"instruction": prompt.split("\n\n<", 1)[0]}
    for tag in TAGS:
        opening, closing = f"<{tag}>\n", f"\n</{tag}>"
        if opening in prompt and closing in prompt:
            parts[tag] = prompt.split(opening, 1)[1].rsplit(closing, 1)[0]
    return parts


def request_by_part(function, args):
    """What a summary request is judged by: its prompt part by part, then the whole request."""
    request = function(*args)
    try:
        prompt = request["messages"][0]["content"]
    except (TypeError, KeyError, IndexError):
        prompt = None
    return {"prompt": prompt_parts(prompt) if isinstance(prompt, str) else {}, "whole": request}


@lru_cache(maxsize=1)
def recorded_histories() -> tuple[tuple[Message, ...], ...]:
    """What the chapter's incremental session asks a summary of, in its first requests (built once)."""
    from ..summary_lab import MATCHED_SETTING  # the lab's figures need matplotlib: only when checked
    asked: list[tuple[Message, ...]] = []

    def recording(messages: list[Message], config: CompactionConfig, focus: str | None) -> dict[str, Any]:
        asked.append(tuple(copy.deepcopy(messages)))
        return merge_request(messages, config, focus)

    class Recording(ThreeLayers):
        summary_request = staticmethod(recording)

    with scratch_folder(Path("_work/12_better_summaries")) as root:
        run_scenario(LONG_SESSION, MATCHED_SETTING, root / "recorded", requests=WORK_REQUESTS[:RECORDED_REQUESTS],
                     compactor=Recording())
    return tuple(asked)


def _random_cases() -> list[tuple[str, list[Message]]]:
    head = compressed_message(Path("_work/12_better_summaries/t.jsonl"), SUMMARY_TEXT)
    return [(f"history {n}{' after a summary' if with_summary else ''}", [head] + h[1:] if with_summary else h)
            for n, h in enumerate(random_histories(40, seed=12)) for with_summary in (False, True)]


MALFORMED = [("a message without content", [{"role": "user"}]),
             ("a history that is not a list", {"role": "user", "content": "hi"})]


def _merge_cases() -> list[tuple[str, tuple[Any, ...]]]:
    cases = [(f"the chapter's summary {n + 1}, tail {tail}, focus {focus!r}",
              (list(h), CompactionConfig(tail_chars=tail), focus))
             for n, h in enumerate(recorded_histories()) for tail in (1_000, 2_000, 80_000) for focus in (None, "tags")]
    cases += [(f"{name}, tail {tail}, focus {focus!r}", (h, CompactionConfig(tail_chars=tail), focus))
              for name, h in _random_cases() for tail in (40, 200, 2_000, 80_000) for focus in (None, "tags")]
    return cases + [(name, (h, CompactionConfig(), None)) for name, h in MALFORMED]


def _verify_cases() -> list[tuple[str, tuple[Any, ...]]]:
    recorded = recorded_histories()
    drafts = [h[0]["content"].split("\n\n", 1)[-1] for h in recorded if is_summary(h[0])] or [SUMMARY_TEXT]
    cases = [(f"the chapter's summary {n + 1}, view {view}",
              (list(h), drafts[n % len(drafts)], CompactionConfig(), view))
             for n, h in enumerate(recorded) for view in (None, 10**7)]
    cases += [(f"{name}, tail {tail}, view {view}",
               (h, ("", SUMMARY_TEXT)[n // 2 % 2], CompactionConfig(tail_chars=tail), view))
              for n, (name, h) in enumerate(_random_cases()) for tail in (40, 2_000) for view in (None, 1, 300, 10**7)]
    return cases + [(name, (h, SUMMARY_TEXT, CompactionConfig(), None)) for name, h in MALFORMED]


STEPS = [
    Step("my_merge_request", "12", my_merge_request, lru_cache(maxsize=1)(_merge_cases), request_by_part,
         label="request",
         hint="The previous summary is the first message's text after its first blank line; the tail is the room "
              "tail_chars leaves after it, counted back from the end of the later turns' JSON, and empty when no "
              "room is left (look at the case's tail); check_shape first."),
    Step("my_verify_request", "12", my_verify_request, lru_cache(maxsize=1)(_verify_cases), request_by_part,
         label="request",
         hint="The view is view_chars, or tail_chars when it is None; the conversation is the last view "
              "characters of the whole history's JSON, summary included; check_shape first."),
]

EX1_TAILS = (80_000, 90_000, 100_000, 120_000)
EX2_FRACTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _first_tail_that_keeps_three() -> int:
    """Exercise 1: the smallest tail at which the summary of summaries' last summary knows 3 facts."""
    from ..summary_lab import MATCHED_SETTING, run_drift
    with scratch_folder(Path("_work/12_better_summaries")) as root:
        return next(t for t in EX1_TAILS
                    if run_drift(f"ex1_{t}", ThreeLayers(), MATCHED_SETTING.with_(tail_chars=t), root).kept[-1] >= 3)


def _fractions_that_wasted_a_summary() -> set[float]:
    """Exercise 2: the prepare fractions that paid for a summary never swapped in."""
    from ..summary_lab import ahead_outcome
    with scratch_folder(Path("_work/12_better_summaries")) as root:
        return {f for f in EX2_FRACTIONS if ahead_outcome(f, root / "ex2").unused_tokens}


def _merged_facts_at_budget_1000() -> int:
    """Exercise 3: facts the incremental chain's last summary knows with a 1,000-token summary budget."""
    from ...strategies.incremental_summary import IncrementalSummary
    from ..summary_lab import MATCHED_SETTING, run_drift
    with scratch_folder(Path("_work/12_better_summaries")) as root:
        return run_drift("ex3", IncrementalSummary(), MATCHED_SETTING.with_(summary_max_tokens=1_000), root).kept[-1]


ANSWERS = [
    Answer("ex1_tail", "12", _first_tail_that_keeps_three,
           hint="the tail must reach back to the previous summary at the head: how many characters of JSON is the "
                "history a summary is written from, summary header included?"),
    Answer("ex2_wasted", "12", _fractions_that_wasted_a_summary,
           hint="a fraction wasted a summary when its unused_tokens in ahead is above 0"),
    Answer("ex3_kept", "12", _merged_facts_at_budget_1000,
           hint="the merged summary grows with every compaction; what happens when it passes the budget?"),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "At 20,000 estimated tokens the history is at least 80,000 characters (the estimate is characters / 4), "
    "so an 80,000-character tail never reaches the previous summary at its head: each summary knows only "
    "its own window.",
    "When the previous summary fills the budget, room is 0 and dump[-0:] is the whole dump: the merge would "
    "show every later turn. With room below 0 the slice drops only the first characters. Counting from the "
    "front, dump[max(len(dump) - room, 0):], gives the empty tail in both cases.",
    "The merged summary is rewritten whole each time and, in this fake, which copies every request into it, "
    "grows with the session, and the user waits while output is written: over the first ten summaries 1.04x "
    "the summary tokens but 3.6 times the output tokens, until the 2,000-token budget cuts it.",
    "Shown the same 80,000 characters, the second look had nothing the draft lacked (and this fake never "
    "overlooks what it is shown). The gain of the check shown the whole history came from what it was shown: "
    "one ordinary call shown the whole history (the control) kept 3 or 4 facts for 1.12x the plain chain's "
    "tokens, against 2.14x for the check.",
    "The user's wait (the summary is written while the user reads); it costs tokens: the verbatim turns fill "
    "the context again sooner (more swaps), a summary prepared late may never be used, and every call after a "
    "swap reads the verbatim turns.",
]
