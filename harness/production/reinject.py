"""Re-injection: what comes back after a summary replaces the history (chapter 13).

A summary keeps what the summariser chose to keep. Users of real agents
report the rest: an instruction given early is gone after a compaction, and
the agent edits what it was told never to touch. So production agents put
some things back after the summary, verbatim and within a token budget.
Here, in this order:

1. the user's standing instructions, oldest first: every user message that
   opens with "From now on", "Always" or "Never" (*this design*'s rule: a
   real agent keeps them in a file, such as Claude Code's CLAUDE.md);
2. the files read most recently, newest first, at most ``max_files``, each
   as it is on disk now (not the copy in the old history, which an edit may
   have made stale); a file that no longer exists is left out.

An item that does not fit in what is left of ``budget`` tokens is left out
and the next one is tried. The restored text goes into the summary message,
after the summary, so the history keeps its shape.

What it costs: the restored tokens, in every call until the next compaction
(and an earlier next compaction, since the history starts bigger).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable

from ..core.auto import AutoReport
from ..core.config import CompactionConfig
from ..core.messages import Message, blocks
from ..core.tokens import estimate_tokens, text_tokens
from ..core.tools import PathEscape, Workspace
from ..strategies.three_layers import ThreeLayers

STANDING = re.compile(r"^\s*(?:from now on\b|always\b|never\b)", re.IGNORECASE)
RESTORED_HEADER = "[Restored after compaction: standing instructions and recent files, as they are now]"
REINJECT_BUDGET = 8_000   # tokens (chapter 13)
MAX_FILES = 5             # Claude Code is reported to restore up to five recently read files (chapter 13's Sources)


@dataclass(frozen=True)
class Restorable:
    """What a history holds that may come back after its summary."""
    instructions: tuple[str, ...]   # the user's standing instructions, verbatim, oldest first
    recent_files: tuple[str, ...]   # paths read with read_file, the most recent first, each once


def what_to_restore(messages: list[Message], skip_folder: str = ".tool_results") -> Restorable:
    """The standing instructions (the module's rule) and the files read, newest first, of a checked history;
    reads of ``skip_folder`` (chapter 13's offloaded results) are not files to restore."""
    instructions: list[str] = []
    reads: list[str] = []
    for message in messages:
        for block in blocks(message):
            if message["role"] == "user" and block.get("type") == "text":
                instructions += restored_instructions(block["text"])
            elif block.get("type") == "tool_use" and block["name"] == "read_file":
                path = block["input"].get("path")
                if isinstance(path, str) and not path.removeprefix("./").startswith(skip_folder + "/"):
                    reads.append(path)
    newest_first = list(dict.fromkeys(reversed(reads)))
    return Restorable(tuple(dict.fromkeys(instructions)), tuple(newest_first))


INSTRUCTION_LABEL = "Standing instruction from the user: "


def instruction_entry(text: str) -> str:
    return INSTRUCTION_LABEL + text


def restored_instructions(text: str) -> list[str]:
    """The standing instructions a user text holds: itself, when it opens like one (the module's rule), else
    those an earlier re-injection put back (so a second compaction keeps them too)."""
    if STANDING.match(text):
        return [text]
    return [line.removeprefix(INSTRUCTION_LABEL) for line in text.splitlines() if line.startswith(INSTRUCTION_LABEL)]


def file_entry(path: str, content: str) -> str:
    return f"File {path}, as it is now:\n{content}"


def reinjection(restore: Restorable, workspace: Workspace, budget: int = REINJECT_BUDGET,
                max_files: int = MAX_FILES) -> str | None:
    """The text to put back after a summary (the module's order), at most ``budget`` tokens in all (each entry
    counted with ``text_tokens``); None when nothing fits or nothing is to restore."""
    entries: list[str] = []
    left = budget
    for text in restore.instructions:
        entry = instruction_entry(text)
        if text_tokens(entry) <= left:
            entries.append(entry)
            left -= text_tokens(entry)
    files = 0
    for path in restore.recent_files:
        if files == max_files:
            break
        try:
            content = workspace.read_file(path)
        except (OSError, UnicodeError, PathEscape):
            continue  # deleted, unreadable or outside: nothing to restore
        entry = file_entry(path, content)
        if text_tokens(entry) <= left:
            entries.append(entry)
            left -= text_tokens(entry)
            files += 1
    return "\n\n".join([RESTORED_HEADER, *entries]) if entries else None


class ReinjectingLayers(ThreeLayers):
    """The three layers; after each summary (automatic or manual), ``reinjection`` (or ``build``) of what the old
    history held."""
    name = "reinjecting_layers"

    def __init__(self, workspace: Workspace, *, budget: int = REINJECT_BUDGET, max_files: int = MAX_FILES,
                 build: Callable[[Restorable, Workspace, int, int], str | None] | None = None, **layers: Any) -> None:
        super().__init__(**layers)
        self.workspace, self.budget, self.max_files = workspace, budget, max_files
        self.build = build or reinjection  # what is put back (chapter 13's stub: the student's own)
        self.restored: list[int] = []  # tokens put back after each summary (0: nothing fitted), in order

    def compact(self, client: Any, messages: list[Message], config: CompactionConfig,
                focus: str | None = None) -> AutoReport:
        restore = what_to_restore(messages)
        report = super().compact(client, messages, config, focus)
        restored = self.build(restore, self.workspace, self.budget, self.max_files)
        self.restored.append(text_tokens(restored) if restored else 0)
        if restored is None:
            return report
        messages[0] = {"role": "user", "content": f"{messages[0]['content']}\n\n{restored}"}
        return replace(report, tokens_after=estimate_tokens(messages))
