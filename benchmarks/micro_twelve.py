"""micro_compact on the s06 lesson's 12-file example, read_file preserved and not (chapter 02).

The history is the one the fake agent builds for TWELVE_FILES with every
layer off, as the next request finds it: the request, the listing, twelve
``read_file`` results, the agent's notes and answer, and the next request.
micro_compact then runs on two copies, once with the s06 defaults (``read_file``
preserved) and once with nothing preserved, which is what the s06 lesson's
~28,000 -> ~6,000 (-78%) shows. (Cut before the agent's final call instead, the
twelve results are not read yet, and micro_compact spares them.)
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from harness import CompactionConfig, count_tokens, estimate_tokens, iter_tool_results, micro_compact, user
from harness.core.messages import Message
from harness.core.tokens import text_tokens
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES

from .scratch import scratch_root
from .table import change, format_table, tokens

SEED_BEFORE, SEED_AFTER = 28_000, 6_000
PRESERVED = frozenset({"read_file"})
NOTHING = frozenset()


@dataclass(frozen=True)
class Size:
    """One history measured two ways: the s06 agent's estimate and the whole request in cl100k."""
    estimate: int   # estimate_tokens(messages): len(str(messages)) // 4, what micro reports
    request: int    # count_tokens(messages, system, tools): what the fake bills for the call


@dataclass(frozen=True)
class MicroTwelve:
    before: Size
    preserved: Size           # after micro, read_file preserved (s06 defaults)
    not_preserved: Size       # after micro, nothing preserved
    results: int              # tool results in the history
    cleared_preserved: tuple[str, ...]      # names of the tools whose results micro cleared
    cleared_not_preserved: tuple[str, ...]
    kept_tokens: int          # cl100k tokens of the newest keep_recent results micro keeps whole
    keep_recent: int


NEXT_REQUEST = "What is VERSION_TAG in agents/s01_agent_loop.py?"


def twelve_file_history(root: Path) -> tuple[list[Message], str, list[dict]]:
    """The finished 12-file history and the next request (``NEXT_REQUEST``), with its system prompt and tools."""
    session = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), root)
    return session.messages + [user(NEXT_REQUEST)], session.system, session.toolbox.schemas


def measure(keep_recent: int = 3) -> MicroTwelve:
    with scratch_root() as root:
        history, system, tools = twelve_file_history(root)

    def size(messages: list[Message]) -> Size:
        return Size(estimate_tokens(messages), count_tokens(messages, system=system, tools=tools))

    def after(preserve: frozenset[str]) -> tuple[Size, tuple[str, ...]]:
        messages = copy.deepcopy(history)
        report = micro_compact(messages, keep_recent, preserve, min_chars=100)
        return size(messages), tuple(c.tool_name for c in report.cleared)

    results = [block for _, _, block in iter_tool_results(history)]
    kept = results[max(0, len(results) - keep_recent):]
    preserved, cleared_p = after(PRESERVED)
    not_preserved, cleared_n = after(NOTHING)
    return MicroTwelve(size(history), preserved, not_preserved, len(results), cleared_p, cleared_n,
                       sum(text_tokens(b["content"]) for b in kept), keep_recent)


def render(r: MicroTwelve) -> str:
    def row(name: str, before: int, kept: int, cleared: int) -> list[str]:
        return [name, tokens(before), tokens(kept), change(before, kept), tokens(cleared), change(before, cleared)]

    rows = [row("estimate (len(str)//4)", r.before.estimate, r.preserved.estimate, r.not_preserved.estimate),
            row("request (cl100k)", r.before.request, r.preserved.request, r.not_preserved.request),
            ["the s06 lesson (its figures)", tokens(SEED_BEFORE), "", "", tokens(SEED_AFTER), change(SEED_BEFORE, SEED_AFTER)]]
    table = format_table(
        f"micro_compact on the 12-file history (keep_recent={r.keep_recent}, min_chars=100)",
        ["tokens", "before", "read_file kept", "change", "nothing kept", "change"], rows)
    return table + "\n" + note(r)


def note(r: MicroTwelve) -> str:
    return "\n".join([
        "Note: the s06 lesson's -78% clears read_file results, which its own PRESERVE_RESULT_TOOLS keeps.",
        f"  read_file kept: micro clears {cleared(r.cleared_preserved)} of {r.results} results,"
        f" {change(r.before.estimate, r.preserved.estimate)}.",
        f"  nothing kept: it clears {cleared(r.cleared_not_preserved)} of {r.results} results and keeps"
        f" the newest {r.keep_recent} whole",
        f"  ({tokens(r.kept_tokens)} cl100k tokens of file text by themselves). The s06 lesson's figures are"
        " round (12 and 3",
        "  files x ~2,000 tokens); measured, the history is a little smaller and the tool calls, notes and",
        f"  placeholders stay, so the cut is {change(r.before.estimate, r.not_preserved.estimate)}"
        " rather than -78%: the same shape.",
    ])


def cleared(names: tuple[str, ...]) -> str:
    """``10 (1 list_files, 9 read_file)``: how many results were cleared, by tool."""
    counts = ", ".join(f"{names.count(n)} {n}" for n in sorted(set(names)))
    return f"{len(names)} ({counts})" if names else "0"
