"""When the fake agent compacts on its own judgement: the limit its system prompt states (chapter 04).

A model told its context limit can tidy up before it hits it. This fake reads
the system prompt (a string, or its text blocks joined) sentence by sentence
(a sentence ends at ``.``, ``!``, ``?`` or ``;`` before a space, or at a line
break). A sentence states the context limit when it holds an amount of
tokens, a number of at least 1,000 right before ``token``/``tokens``
(``50,000 tokens``, ``50000-token``, ``50k tokens``, ``1.5M tokens``; ``k``
is a thousand, ``M`` a million), and either names the context
(``context``, ``window``, ``conversation``, ``history``, ``transcript``) or
names a limit (``limit``, ``budget``, ``cap``, ``maximum``, ``max``,
``under``, ``below``, ``within``, ``at most``) without naming the output
(``reply``, ``response``, ``output``, ``answer``, ``completion``). The limit
is the smallest such amount in the prompt. So "You have a 50000-token
budget" and "keep the context under 40,000 tokens" state one; "Each reply
may use up to 4,096 tokens", "the repository holds 3 API tokens" and
"files of 50,000 lines" do not. Limits of this reading: it is lexical (a
number written in words, an amount without the word "token", or a
hypothetical "if your window were ..." are read as written, or not at all),
and it is this fake's rule, not how a real model reads its prompt.

A compaction tool is one the request offers (``tool_choice`` ``none``
offers none) that is named ``compact``, or whose name (split at ``_`` and
``-``) or description says it compacts, summarises or condenses the
context (a word starting ``compact``, ``summar`` or ``condens``, and one of
the context nouns above, in the name or in one sentence of the
description): ``compact_context``, or ``tidy`` described as "Replace the
conversation so far with a summary"; not ``summarize_file``. ``compact`` is
preferred, then the first offered. The fake fills its input with the focus
text for a ``focus`` property and for every required string property; a
tool that requires anything else is not one the fake can call.

The judgement: at a task boundary (the agent ends its turn), this fake
compacts when the request's input tokens reach ``NEAR_LIMIT`` (0.8) of the
stated limit. Why 0.8: the agent acts only between tasks, so the next task
(a few reads of several thousand tokens each in the course's scenarios)
must still fit, and so must the summary call, which sends the history
again; 80% is also the fraction chapter 07's thresholds start from. A real
model's judgement differs, and is not documented.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

NEAR_LIMIT = 0.8
COMPACT_FOCUS = "the user's requests, decisions and notes"
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
TOKEN_AMOUNT = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*([kKmM])?(?:\s+|-)?tokens?\b")
CONTEXT_WORDS = r"context|window|conversation|history|transcript"
CONTEXT = re.compile(rf"\b(?:{CONTEXT_WORDS})s?\b", re.IGNORECASE)
LIMIT = re.compile(r"\b(?:limit|budget|cap|maximum|max|under|below|within|at most)\b", re.IGNORECASE)
OUTPUT = re.compile(r"\b(?:repl(?:y|ies)|responses?|outputs?|answers?|completions?)\b", re.IGNORECASE)
COMPACTS = re.compile(r"\b(?:compact|summar|condens)\w*", re.IGNORECASE)
SCALE = {"k": 1_000, "m": 1_000_000}
SMALLEST_LIMIT = 1_000


@lru_cache(maxsize=256)
def stated_limit(system: str) -> int | None:
    """The context limit ``system`` states, in tokens (the module's rule); None when it states none.
    Parsed once per distinct prompt: every call of a session sends the same one."""
    limits = [amount for sentence in SENTENCE_END.split(system) if _states_a_limit(sentence)
              for amount in _amounts(sentence)]
    return min(limits, default=None)


def _states_a_limit(sentence: str) -> bool:
    return bool(CONTEXT.search(sentence) or (LIMIT.search(sentence) and not OUTPUT.search(sentence)))


def _amounts(sentence: str) -> list[int]:
    """The token amounts of a sentence, at least ``SMALLEST_LIMIT`` each."""
    amounts = (round(float(number.replace(",", "")) * SCALE.get(suffix.lower(), 1))
               for number, suffix in TOKEN_AMOUNT.findall(sentence))
    return [amount for amount in amounts if amount >= SMALLEST_LIMIT]


def near_limit(system: str, used: int) -> bool:
    """Whether a request of ``used`` input tokens is near the limit ``system`` states (never, without one)."""
    limit = stated_limit(system)
    return limit is not None and used >= NEAR_LIMIT * limit


def compaction_call(tools: list[dict[str, Any]], offered: frozenset[str]) -> tuple[str, dict[str, Any]] | None:
    """The compaction tool to call and its input (the module's rule), or None when none is offered."""
    calls = [(tool["name"], tool_input) for tool in tools if tool.get("name") in offered and _compacts(tool)
             and (tool_input := _input_for(tool)) is not None]
    calls.sort(key=lambda call: call[0] != "compact")
    return calls[0] if calls else None


def _compacts(tool: dict[str, Any]) -> bool:
    if tool["name"] == "compact":
        return True
    name = " ".join(re.split(r"[_-]", tool["name"]))
    sentences = [name, *SENTENCE_END.split(tool.get("description", ""))]
    return any(COMPACTS.search(s) and CONTEXT.search(s) for s in sentences)


def _input_for(tool: dict[str, Any]) -> dict[str, Any] | None:
    """The focus text for ``focus`` and each required string property; None if another field is required."""
    schema = tool.get("input_schema") or {}
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if any((properties.get(name) or {}).get("type") != "string" for name in required):
        return None
    return {name: COMPACT_FOCUS for name in dict.fromkeys([*(["focus"] if "focus" in properties else []), *required])}
