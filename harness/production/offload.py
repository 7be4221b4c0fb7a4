"""Offloading: a big tool result goes to a file when it is written, not later (chapter 13).

Micro-compaction (chapter 02) clears a tool result after the model has read
it, and every call in between paid for it. Offloading never lets it in: as a
tool returns, a result over ``limit`` tokens is saved to a file in the
workspace and the context gets a placeholder instead, with the file's path,
the result's size, its first lines as a preview, and how to read the rest
with ``read_file``'s ``offset`` and ``limit``. The agent reads back only the
part it needs, when it needs it.

What it costs: a call to read a part back whenever the preview does not show
what the task needs. What it keeps: the whole output, on disk, for as long as
the workspace lives. Three results are never offloaded: an error (short, and
the model must read it), a read of a saved file (it would be saved again,
and the agent could never see it), and ``compact``'s acknowledgement.

Files are named by a counter and the tool (``007_read_file.txt``) and created
exclusively: a result never overwrites another one, even from another run on
the same workspace.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from ..core.manual import COMPACT_TOOL_NAME
from ..core.tokens import text_tokens
from ..core.tools import Toolbox, ToolOutcome, Workspace, _tool_definitions

OFFLOAD_FOLDER = ".tool_results"
OFFLOAD_LIMIT = 1_000   # tokens: a result over this goes to a file (chapter 13's slider moves it)
PREVIEW_LINES = 6       # the lines of a saved result the placeholder shows
OFFSET_ARG = {"type": "integer", "minimum": 1, "description": "Start at this line (1 is the first)."}


@dataclass(frozen=True)
class Saved:
    """One result saved to a file: where, from which tool, and its size."""
    path: str      # workspace-relative
    tool: str
    tokens: int
    lines: int


def offload_placeholder(saved: Saved, output: str, preview_lines: int = PREVIEW_LINES) -> str:
    """What the context holds instead of a saved result: its size and path, which lines follow, how to read
    the rest, then those lines."""
    lines = output.split("\n")
    shown = min(preview_lines, saved.lines)
    rest = (f'; read the rest with read_file(path="{saved.path}", offset={shown + 1}, limit=...)'
            if shown < saved.lines else "")
    return (f"[Output of {saved.tool} ({saved.tokens:,} tokens, {saved.lines:,} lines) saved to {saved.path}. "
            f"Lines 1-{shown} below{rest}]\n" + "\n".join(lines[:shown]))


def line_count(text: str) -> int:
    """Lines as ``read_file`` counts them (a final newline ends the last line, it does not start one)."""
    return len(text.split("\n")) - (1 if text.endswith("\n") else 0)


def save_output(workspace: Workspace, tool: str, output: str, folder: str = OFFLOAD_FOLDER) -> Saved:
    """Write ``output`` to a new file under ``folder`` (the next free number, never an existing file)."""
    target = workspace.resolve(folder)
    target.mkdir(parents=True, exist_ok=True)
    number = len(list(target.iterdir())) + 1
    while True:
        name = f"{folder}/{number:03d}_{tool}.txt"
        try:
            with open(workspace.resolve(name), "x", encoding="utf-8", newline="") as file:
                file.write(output)
            break
        except FileExistsError:
            number += 1
    return Saved(name, tool, text_tokens(output), line_count(output))


class PartReadingToolbox(Toolbox):
    """The course's tools with ``read_file``'s ``offset`` offered too (what reading a saved result back needs)."""

    def __init__(self, workspace: Workspace, *, include_compact: bool = True):
        super().__init__(workspace, include_compact=include_compact)
        self._json = json.dumps(_with_offset(_tool_definitions(include_compact)))

    def _definitions(self) -> list[dict[str, Any]]:
        return json.loads(self._json)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return json.loads(self._json)


class OffloadingToolbox(PartReadingToolbox):
    """The course's tools, ``read_file`` with an ``offset`` too, and every result over ``limit`` tokens saved
    to a file as it is written (the module's rule). ``saved`` lists the files, in order."""

    def __init__(self, workspace: Workspace, *, limit: int = OFFLOAD_LIMIT, preview_lines: int = PREVIEW_LINES,
                 folder: str = OFFLOAD_FOLDER, include_compact: bool = True):
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an integer >= 1, got {limit!r}")
        if isinstance(preview_lines, bool) or not isinstance(preview_lines, int) or preview_lines < 1:
            raise ValueError(f"preview_lines must be an integer >= 1, got {preview_lines!r}")
        super().__init__(workspace, include_compact=include_compact)
        self.limit, self.preview_lines, self.folder = limit, preview_lines, folder.strip("/")
        self.saved: list[Saved] = []

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        outcome = super().run(name, tool_input)
        if outcome.is_error or name == COMPACT_TOOL_NAME or self.reads_saved(name, tool_input):
            return outcome
        if text_tokens(outcome.content) <= self.limit:
            return outcome
        saved = save_output(self.workspace, name, outcome.content, self.folder)
        self.saved.append(saved)
        return ToolOutcome(offload_placeholder(saved, outcome.content, self.preview_lines))

    def reads_saved(self, name: str, tool_input: dict[str, Any]) -> bool:
        """Whether this call reads a file under the offload folder (never offloaded again)."""
        return reads_saved(name, tool_input, self.folder)


def reads_saved(name: str, tool_input: dict[str, Any], folder: str = OFFLOAD_FOLDER) -> bool:
    """Whether a call reads a file under the offload folder: its result is never offloaded again."""
    path = tool_input.get("path") if isinstance(tool_input, dict) else None
    return name == "read_file" and isinstance(path, str) and path.removeprefix("./").startswith(folder + "/")


def _with_offset(definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool definitions with ``offset`` added to ``read_file``'s input."""
    out = copy.deepcopy(definitions)
    for tool in out:
        if tool["name"] == "read_file":
            tool["description"] = "Read a text file from the workspace, or part of it (offset, limit)."
            tool["input_schema"]["properties"]["offset"] = dict(OFFSET_ARG)
    return out
