"""What the fake model can see in a request, and nothing more (chapter 00).

The fake agent decides only from this view. A file's content counts as
visible when a ``read_file`` result still holds it (not a placeholder, not
folded into a summary) and no later edit made it stale; a note or a user
instruction counts as visible when its text is somewhere in the request.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..messages import Message, blocks, result_text
from ..micro import is_placeholder

NOTE = re.compile(r"^Note: (\S+) — (.+)$", re.MULTILINE)
PLAN = re.compile(r"^Plan for (\S+?)/: (.+)$", re.MULTILINE)
SUMMARY_GOAL = re.compile(r"^- User: (.+)$", re.MULTILINE)
IN_PROGRESS = re.compile(r"^- In progress: (.+)$", re.MULTILINE)
COMPRESSED = "[Conversation compressed"
EDITING_TOOLS = ("edit_file", "write_file")


@dataclass
class ToolCall:
    index: int  # the message that holds the tool_use
    name: str
    input: dict
    result: str | None  # None: no result yet; placeholders count as no content
    is_error: bool


@dataclass
class View:
    user_texts: list[str] = field(default_factory=list)   # every user request visible, oldest first
    all_text: list[str] = field(default_factory=list)     # every text block, oldest first
    task: str | None = None                               # the request being worked on
    task_calls: list[ToolCall] = field(default_factory=list)  # tool calls made since that request
    files: dict[str, str] = field(default_factory=dict)   # path -> fresh visible content
    listings: dict[str, list[str]] = field(default_factory=dict)  # folder -> visible listing

    def listing(self, folder: str) -> list[str] | None:
        """The files of ``folder``: from a visible list_files result, else from a visible plan."""
        if folder in self.listings:
            return self.listings[folder]
        plans = [paths for text in self.all_text for f, paths in PLAN.findall(text) if f == folder]
        return plans[-1].split(", ") if plans else None

    @property
    def notes(self) -> dict[str, str]:
        return {path: purpose for text in self.all_text for path, purpose in NOTE.findall(text)}


def build_view(messages: list[Message]) -> View:
    view = View()
    calls: dict[str, ToolCall] = {}
    task_start = 0
    for index, message in enumerate(messages):
        for block in blocks(message):
            kind = block.get("type")
            if kind == "text":
                view.all_text.append(block["text"])
                if message["role"] == "user":
                    _add_user_text(view, block["text"])
                    task_start = index
            elif kind == "tool_use":
                calls[block["id"]] = ToolCall(index, block["name"], block["input"], None, False)
                if block["name"] in EDITING_TOOLS:
                    view.files.pop(block["input"].get("path", ""), None)
            elif kind == "tool_result" and block.get("tool_use_id") in calls:
                call = calls[block["tool_use_id"]]
                content = result_text(block)
                call.is_error = bool(block.get("is_error"))
                call.result = None if is_placeholder(content) else content
                _remember(view, call)
    view.task_calls = [c for c in calls.values() if c.index > task_start]
    return view


def _remember(view: View, call: ToolCall) -> None:
    if call.result is None or call.is_error:
        return
    path = call.input.get("path", ".")
    if call.name == "read_file" and "limit" not in call.input:
        view.files[path] = call.result
    elif call.name == "list_files":
        view.listings[path.rstrip("/")] = call.result.splitlines()


def _add_user_text(view: View, text: str) -> None:
    if text.startswith(COMPRESSED):
        view.user_texts.extend(SUMMARY_GOAL.findall(text))
        in_progress = IN_PROGRESS.findall(text)
        view.task = in_progress[-1] if in_progress else None
    else:
        view.user_texts.append(text)
        view.task = text
