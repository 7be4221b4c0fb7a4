"""How the fake reads a hostile request against an ordinary one of the same length (chapter 00).

Each reading path (the request kinds, the summary rule, the tag and line stripping, the dict scan, the
transcript's speakers, a whole summary, the layout a summary request asks for, LangChain's message reprs, a
read in ``cat -n`` form) gets, at each length, its ordinary input (prose; a JSON dump
for the dict scan; a transcript for the speakers) and every hostile alphabet in ``HOSTILE`` (word
runs, dashes, slashes, tags, summary words, cut dicts, spaces, quotes, brackets, digits). The table
shows the worst alphabet and its ratio to the ordinary input: linear reading keeps it near 1x. No garbage is
collected during a timed read (a collection of what earlier reads left would be timed as the read).
"""
from __future__ import annotations

import json
from typing import Callable

from harness.fake import conversation_forms, reading, summarizer, view

from .table import format_table, millis
from .timing import median_seconds

PROSE = ("The morning was quiet, and the river ran slowly past the old mill. Nobody spoke; "
         "a dog barked twice near the bridge, then the wind rose again over the fields. ")
DUMP = json.dumps([{"role": "user", "content": "Read a.py and tell me what it does."},
                   {"role": "assistant", "content": "It runs the loop; nothing else."}])[1:-1] + ", "
TRANSCRIPT = "User: Read a.py and tell me what it does.\nAssistant: It runs the loop; nothing else.\n"
HOSTILE = {"word run": "x", "dashes": "x-", "slashes": "a/", "digits": "7", "underscores": "_", "dots": "x.",
           "tags": "<a>", "summary words": "summary x ", "split verbs": "sum x ", "pronouns": "summarise it ",
           "cut JSON dicts": '{"role": ', "cut Python dicts": "{'role': ", "braces": "{", "brackets": "[",
           "spaces": " ", "letter, spaces": "a" + " " * 50, "quotes": "'x", "speakers": "User: ",
           "calls": "read_file {", "quoted summaries": "<previous_summary>\n", "punctuation": ".,;!?",
           "LangChain reprs": "HumanMessage(content='x', ", "instruction tags": "<instructions>x ",
           "heading speakers": "## USER\n", "numbered lines": "1. x\n", "labels": "- X:\n",
           "cat -n lines": "     1\tx\n",
           "rules": "never edit ", "openers": "from now on ", "summary labels": "the summary: ",
           "nested tags": "<a><b>", "extract": "extract the context from "}
PATHS: dict[str, tuple[Callable[[str], object], str]] = {
    "request kinds": (reading.request_kind.__wrapped__, PROSE),
    "summary rule": (reading.summary_reading.__wrapped__, PROSE),
    "instruction text": (reading.instruction_text, PROSE),
    "dict scan": (conversation_forms.whole_messages, DUMP),
    "transcript": (conversation_forms.transcript_messages, TRANSCRIPT),
    "whole summary": (summarizer.summarise_text, PROSE),
    "layout asked": (summarizer.requested_layout, PROSE),
    "LangChain reprs": (conversation_forms.langchain_messages, "HumanMessage(content='Read a.py.'), "),
    "numbered read": (view.unnumbered, "     1\tThe morning was quiet.\n"),
}
SIZES = (10_000, 100_000)


def filled(unit: str, size: int) -> str:
    """``unit`` repeated to exactly ``size`` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def measure(sizes: tuple[int, ...] = SIZES, repeats: int = 3) -> list[list[object]]:
    rows = []
    for name, (read, ordinary) in PATHS.items():
        for size in sizes:
            base = median_seconds(lambda: read(filled(ordinary, size)), repeats=repeats, collect=False)
            worst = max((median_seconds(lambda u=unit: read(filled(u, size)), repeats=repeats, collect=False), label)
                        for label, unit in HOSTILE.items())
            rows.append([name, f"{size:,}", millis(base), worst[1], millis(worst[0]),
                         f"{worst[0] / max(base, 1e-4):.1f}x"])
    return rows


def render(rows: list[list[object]]) -> str:
    return format_table("Reading: the worst hostile alphabet against an ordinary input of the same length"
                        " (ratio floored at 0.1 ms)",
                        ["path", "chars", "ordinary", "worst alphabet", "hostile", "ratio"], rows)


if __name__ == "__main__":
    print(render(measure()))
