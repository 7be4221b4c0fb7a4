"""Chapter 06 has no step to write (what you write there are exercises): only the answers to its recap questions."""
from __future__ import annotations

from . import Step

STEPS: list[Step] = []

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
    "all: 96 messages instead of 12, 71,634 tokens for the next call instead of 3,870. It is a valid "
    "history, so the API accepts it: the failure is silent.",
    "The compaction record already holds the summary and the budget. resume appends each message in order "
    "and, at each compaction record, runs replace_history again with them: a pure function of the history "
    "so far and the summary, so the replay gives the history the session had.",
]
