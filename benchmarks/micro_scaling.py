"""micro_compact against the reference's, on synthetic histories of 1,000 to 50,000 messages (chapter 02).

Each history is generated from a seed: a user request, then tool calls in
turn, an assistant message (a short note and one tool_use of read_file, bash,
list_files or grep) and a user message with its result (about 300 to 3,000
characters, or a short line under 100). The same history is built twice:
as plain dicts for ``harness.micro_compact`` and with SDK blocks in the
assistant messages for the port of the reference (``reference_micro``),
which reads tool names by attribute as the s06 agent does. A pass edits the
history in place, so each timed pass gets a fresh deep copy made outside the
timed region; the two functions' repeats alternate so machine load hits
both alike, and every pass must leave the same tool_result contents.
"""
from __future__ import annotations

import copy
import gc
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from anthropic.types import TextBlock, ToolUseBlock

from harness import assistant, micro_compact, text, tool_result, tool_use, user

from .reference_micro import reference_micro_compact
from .table import format_table, millis, ratio
from .timing import elapsed

History = list[dict[str, Any]]

SEED = 602
SIZES = (1_000, 5_000, 10_000, 50_000)
TARGET_SIZES = (1_000, 10_000, 50_000)  # where ours must take at most as long as the reference
TOOLS = ("read_file", "bash", "list_files", "grep")
TOOL_WEIGHTS = (4, 3, 1, 2)
SHORT_SHARE = 0.15                # results under micro_compact's 100-character floor
LINES = {
    "read_file": "    value = compute(value, step)  # keep the running total\n",
    "bash": "PASSED tests/test_module.py::test_case - 0.01s\n",
    "list_files": "src/package/module_name.py\n",
    "grep": "src/package/module_name.py:42:    return compute(value)\n",
}


def result_text(rng: random.Random, tool: str, turn: int) -> str:
    """A tool result: mostly 300-3,000 characters of the tool's kind of output, sometimes a short line."""
    if rng.random() < SHORT_SHARE:
        return f"{tool}: step {turn} done, nothing to show"
    line = LINES[tool]
    length = rng.randint(300, 3_000)
    return f"# step {turn}\n" + line * (length // len(line))


def synthetic_history(size: int, seed: int = SEED) -> History:
    """``size`` messages of plain dicts, the same for the same seed.

    A user request, then assistant tool calls and user results in turn; an
    even ``size`` ends with the assistant's closing text answer.
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    rng = random.Random(seed)
    history = [user("Survey the repository, run the tests and report what you find.")]
    turn = 0
    while len(history) < size - 1:
        turn += 1
        tool_id, tool = f"toolu_{turn:06d}", rng.choices(TOOLS, TOOL_WEIGHTS)[0]
        history.append(assistant([text(f"Step {turn}: {tool}."),
                                  tool_use(tool_id, tool, {"path": f"src/m{turn:05d}.py"})]))
        history.append(user([tool_result(tool_id, result_text(rng, tool, turn))]))
    if len(history) < size:
        history.append(assistant(f"Done after {turn} steps."))
    return history


def with_sdk_blocks(history: History) -> History:
    """A copy of ``history`` whose assistant blocks are SDK objects, as the reference agent keeps them."""
    sdk = {"text": TextBlock, "tool_use": ToolUseBlock}
    return [{"role": "assistant", "content": [sdk[b["type"]](**b) for b in m["content"]]}
            if m["role"] == "assistant" and isinstance(m["content"], list) else copy.deepcopy(m)
            for m in history]


def result_contents(history: History) -> list[Any]:
    """Every tool_result's content, oldest first. Read by hand, not with ``iter_tool_results``,
    which refuses the reference's history: its SDK blocks are not the plain dicts of a history."""
    return [block["content"] for m in history if m["role"] == "user" and isinstance(m["content"], list)
            for block in m["content"] if block["type"] == "tool_result"]


def timed_pass(compact: Callable[[History], object], source: History) -> tuple[float, list[Any]]:
    """Seconds one ``compact`` pass takes on a fresh deep copy of ``source``, and the contents it leaves."""
    history = copy.deepcopy(source)
    gc.collect()  # the copy's garbage is collected here, not inside the timed pass
    seconds = elapsed(lambda: compact(history))
    return seconds, result_contents(history)


@dataclass(frozen=True)
class Row:
    messages: int
    results: int       # tool results in the history
    cleared: int       # results both functions replaced by placeholders
    repeats: int
    ours: float        # median seconds per pass
    reference: float


@dataclass(frozen=True)
class MicroScaling:
    rows: tuple[Row, ...]

    @property
    def meets_target(self) -> bool | None:
        """Whether ours is at most as slow as the reference at every TARGET_SIZES (None: none measured)."""
        targets = [r for r in self.rows if r.messages in TARGET_SIZES]
        return all(r.ours <= r.reference for r in targets) if targets else None


def repeats_for(size: int) -> int:
    """7 repeats below 50,000 messages, 5 from there (a deep copy of 50,000 takes about a second)."""
    return 7 if size < 50_000 else 5


def measure_size(size: int, repeats: int) -> Row:
    """Median seconds of one pass of each function on ``size`` messages, their repeats interleaved."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    plain = synthetic_history(size)
    sdk = with_sdk_blocks(plain)
    runs = {"ours": (micro_compact, plain), "reference": (reference_micro_compact, sdk)}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for repeat in range(repeats):
        order = list(runs) if repeat % 2 == 0 else list(reversed(runs))  # neither always goes first
        contents: dict[str, list[Any]] = {}
        for name in order:
            compact, source = runs[name]
            elapsed_s, contents[name] = timed_pass(compact, source)
            seconds[name].append(elapsed_s)
        if contents["ours"] != contents["reference"]:
            raise RuntimeError(f"micro_compact and the reference leave different results on {size:,} messages")
    before = result_contents(plain)
    cleared = sum(a != b for a, b in zip(before, contents["ours"], strict=True))
    return Row(size, len(before), cleared, repeats,
               statistics.median(seconds["ours"]), statistics.median(seconds["reference"]))


def measure(sizes: Sequence[int] = SIZES, repeats: int | None = None) -> MicroScaling:
    """Every size in ``sizes``, each with ``repeats`` passes per function (default: ``repeats_for``)."""
    return MicroScaling(tuple(measure_size(size, repeats_for(size) if repeats is None else repeats)
                              for size in sizes))


def verdict(r: MicroScaling) -> str:
    return {True: "PASS", False: "FAIL", None: "n/a (not measured)"}[r.meets_target]


def render(r: MicroScaling) -> str:
    rows = [[f"{row.messages:,}", millis(row.ours), millis(row.reference), ratio(row.ours, row.reference),
             f"{row.cleared:,} of {row.results:,}"] for row in r.rows]
    repeats = ", ".join(str(row.repeats) for row in r.rows)
    table = format_table(
        f"micro_compact vs the reference's (s06 port): one pass on a synthetic history"
        f" (medians of {repeats} interleaved repeats)",
        ["messages", "ours", "reference", "ours/reference", "results cleared (both)"], rows)
    targets = " and ".join(f"{n:,}" for n in TARGET_SIZES)
    return table + f"\nTarget: ours <= 1.00x the reference at {targets} messages: {verdict(r)}"


if __name__ == "__main__":
    print(render(measure()))
