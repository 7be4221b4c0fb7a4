"""Recounting a growing history: memoized count_tokens against naive re-encoding (chapter 01).

An agent counts its context before every call, and the history only grows
by appending. ``count_tokens`` remembers each text's count, so after one new
message it encodes only that message; the naive way encodes every block of
the history again. The history is generated: ``turns`` tool calls, each an
assistant message (a note and a tool_use) and a user message with its
result (a generated Python file, a listing or a short command output).
"""
from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from harness import assistant, count_tokens, text, tool_result, tool_use, user
from harness.core.messages import Message
from harness.core.tokens import encode_count, text_tokens
from harness.labs.scenarios import python_module

from .table import format_table, millis, ratio, tokens
from .timing import elapsed

SEED = 1201
NOUNS = ["loader", "parser", "router", "cache", "queue", "writer", "reader", "index"]


def generated_history(turns: int, seed: int = SEED) -> list[Message]:
    """A valid history of ``turns`` tool calls and their results, the same for the same seed."""
    rng = random.Random(seed)
    history = [user("Work through the repository and keep notes as you go.")]
    for turn in range(1, turns + 1):
        tool_id = f"toolu_{turn:04d}"
        path = f"src/m{turn:03d}_{rng.choice(NOUNS)}.py"
        kind = rng.choices(["read_file", "list_files", "bash"], weights=[6, 1, 3])[0]
        if kind == "read_file":
            tool_input, content = {"path": path}, python_module(path[4:-3], "does one small job", turn,
                                                               lines=rng.randint(20, 150))
        elif kind == "list_files":
            tool_input = {"path": "src"}
            content = "\n".join(f"src/m{i:03d}_{rng.choice(NOUNS)}.py" for i in range(1, turn + 1))
        else:
            tool_input = {"command": f"wc -l {path}"}
            content = f"{rng.randint(20, 150)} {path}"
        history.append(assistant([text(f"Step {turn}: {kind} on {path}."), tool_use(tool_id, kind, tool_input)]))
        history.append(user([tool_result(tool_id, content)]))
    return history


def naive_count(messages: list[Message]) -> int:
    """The same total as ``count_tokens(messages)``, every text encoded again (no memory)."""
    return count_tokens(messages, count=encode_count)


@dataclass(frozen=True)
class Recount:
    turns: int
    steps: int            # messages appended one at a time at the end of the history
    history_tokens: int
    naive: float          # median seconds per step
    memoized: float


def measure(turns: int = 200, steps: int = 21) -> Recount:
    """Warm the cache on all but the last ``steps`` messages, then append them one per step and
    time a full recount each step, both ways (median seconds per step)."""
    history = generated_history(turns)
    if not 1 <= steps < len(history):
        raise ValueError(f"steps must be in 1..{len(history) - 1}, got {steps}")
    text_tokens.cache_clear()
    count_tokens(history[: len(history) - steps])
    naive, memoized = [], []
    for end in range(len(history) - steps + 1, len(history) + 1):
        view = history[:end]
        memoized.append(elapsed(lambda: count_tokens(view)))
        naive.append(elapsed(lambda: naive_count(view)))
    total = count_tokens(history)
    if naive_count(history) != total:
        raise RuntimeError("naive and memoized counts disagree")
    return Recount(turns, steps, total, statistics.median(naive), statistics.median(memoized))


def render(r: Recount) -> str:
    rows = [["naive: encode every block again", millis(r.naive), "1.00x"],
            ["memoized: count_tokens, cache warm", millis(r.memoized), ratio(r.memoized, r.naive)]]
    return format_table(
        f"Recount after appending one message ({r.turns}-turn history, {tokens(r.history_tokens)} cl100k tokens;"
        f" median of {r.steps} steps)",
        ["method", "per step", "vs naive"], rows) + f"\nmemoized is {r.naive / r.memoized:,.0f}x faster"
