"""The usage-triggered design's compaction as two pure functions: when, and what replaces the history (chapter 06).

``decide_compaction`` looks only at the usage the provider reported for the
round just committed: no usage, no decision; below the threshold, no; fewer
than four history items, nothing worth compacting; otherwise compact, with a
reason that names both numbers.

``replace_history`` builds the new history from (history, summary) alone:
one summary message, then the user's own most recent messages, verbatim,
chosen newest first within a character budget (the newest is always kept,
even alone over budget). Assistant messages, tool calls and tool results are
dropped whole, so no tool_use can be left without its tool_result. The
system prompt lives outside ``messages`` (the ``system=`` argument), so it is
kept without doing anything. Because the function has no other input,
resuming a session can replay it and get the same history back.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..core.auto import SUMMARY_PREFIX, is_summary
from ..core.config import check_count
from ..core.messages import Message, blocks, check_shape, text_of, user

DEFAULT_THRESHOLD = 8_000      # the usage-triggered design's teaching constant, in reported tokens
DEFAULT_BUDGET_CHARS = 20_000  # characters of recent user messages kept verbatim
MIN_HISTORY = 4                # fewer items than this: nothing worth compacting
SUMMARY_HEADER = (SUMMARY_PREFIX + ". A summary of the earlier conversation follows; "
                  "the user's most recent messages come after it, verbatim.]")


@dataclass(frozen=True)
class Decision:
    compact: bool
    reason: str


def reported_total(usage: Any) -> int | None:
    """All the tokens a round reported: ``input_tokens`` (which excludes the cached input), both cache
    fields and ``output_tokens``, from an SDK usage or a dict; None if absent. The Messages API's usage
    docs: the request's whole input is the sum of the three input fields."""
    if usage is None:
        return None
    fields = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    values = [usage.get(f) if isinstance(usage, dict) else getattr(usage, f, None) for f in fields]
    if values[0] is None:
        return None
    return sum(v or 0 for v in values)


def decide_compaction(reported_total: int | None, threshold: int, history_len: int) -> Decision:
    """Whether to compact now, from the usage the last round reported, and why."""
    check_count("threshold", threshold, 1)
    if reported_total is None:
        return Decision(False, "no usage reported: no decision")
    if reported_total < threshold:
        return Decision(False, f"reported usage {reported_total:,} tokens is below the threshold {threshold:,}")
    if history_len < MIN_HISTORY:
        return Decision(False, f"only {history_len} history items (fewer than {MIN_HISTORY}): nothing to compact")
    return Decision(True, f"reported usage {reported_total:,} tokens reached the threshold {threshold:,}")


def is_user_words(message: Message) -> bool:
    """A user message that holds only the user's text: no tool_result, not a summary.

    Unchecked, for hot loops: pass a message of a checked history."""
    return (message["role"] == "user" and not is_summary(message)
            and all(b.get("type") == "text" for b in blocks(message)))


@dataclass(frozen=True)
class ReplacementPlan:
    """Which user messages survive a replacement; everything else is folded into the summary."""
    kept: tuple[int, ...]   # indexes into the history, oldest first
    kept_chars: int
    items_before: int

    @property
    def items_removed(self) -> int:
        """History items not carried over verbatim."""
        return self.items_before - len(self.kept)

    @property
    def items_kept(self) -> int:
        """Items of the new history: the summary and the kept user messages."""
        return 1 + len(self.kept)


def plan_replacement(messages: list[Message], budget_chars: int = DEFAULT_BUDGET_CHARS) -> ReplacementPlan:
    """Choose the recent user messages to keep: newest first, the newest always, then while they fit.

    InvalidHistory if ``messages`` is malformed."""
    check_count("budget_chars", budget_chars)
    check_shape(messages)
    kept: list[int] = []
    used = 0
    for index in reversed(range(len(messages))):
        if not is_user_words(messages[index]):
            continue
        size = len(text_of(messages[index]))
        if kept and used + size > budget_chars:
            break
        kept.append(index)
        used += size
    return ReplacementPlan(tuple(reversed(kept)), used, len(messages))


def summary_message(summary: str) -> Message:
    """The one user message that carries the summary: TypeError if it is not a str, ValueError if blank."""
    if not isinstance(summary, str):
        raise TypeError(f"a summary must be a str, not {type(summary).__name__}")
    if not summary.strip():
        raise ValueError("a summary must have some text")
    return user(SUMMARY_HEADER + "\n\n" + summary.strip())


def replace_history(messages: list[Message], summary: str,
                    budget_chars: int = DEFAULT_BUDGET_CHARS) -> list[Message]:
    """The new history: one summary message, then the kept user messages, oldest first.

    Pure: ``messages`` is not changed and the result shares nothing with it. A malformed
    history raises InvalidHistory; a ``summary`` that is not a str, TypeError; a blank one, ValueError.
    """
    message = summary_message(summary)
    plan = plan_replacement(messages, budget_chars)
    return [message] + [copy.deepcopy(messages[i]) for i in plan.kept]


def describe_replacement(messages: list[Message], budget_chars: int) -> str:
    """What a replacement with this budget keeps and drops, one line each (chapter 06's slider)."""
    plan = plan_replacement(messages, budget_chars)
    words = [i for i, m in enumerate(messages) if is_user_words(m)]
    lines = [f"budget {budget_chars:,} chars: keep {len(plan.kept)} of {len(words)} user messages "
             f"({plan.kept_chars:,} chars), drop {plan.items_removed} of {plan.items_before} items"]
    for index in words:
        said = text_of(messages[index])
        mark = "keep" if index in plan.kept else "drop"
        lines.append(f"  {mark} [{index:>3}] {len(said):>6,} chars  {said[:60]!r}")
    return "\n".join(lines)
