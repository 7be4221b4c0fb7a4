"""Reversible placeholders: micro-compaction that can be undone by id (chapter 09).

A plain placeholder, ``[Previous: used read_file]``, says what the agent did
but not how to get the output back: the agent has to run the tool again. A
reversible placeholder also carries the tool_use id,
``[Previous: used read_file; recall id toolu_...]``, and a ``recall`` tool
returns the original output from the append-only session log, which holds
every tool result as it was before any layer rewrote it. Nothing is read
from disk again, and the output comes back even if the file has changed.
"""
from __future__ import annotations

import json
from typing import Any

from ..core.messages import Message, iter_tool_results
from ..core.micro import MicroReport, is_placeholder, micro_compact
from ..core.tools import Toolbox, ToolOutcome, Workspace
from ..session.log import SessionLog
from ..session.records import Cursor, read_log
from ..session.runner import Session
from .three_layers import ThreeLayers

RECALL_TOOL_NAME = "recall"
REVERSIBLE_PLACEHOLDER = "[Previous: used {tool_name}; recall id {tool_use_id}]"
RECALL_TOOL: dict[str, Any] = {
    "name": RECALL_TOOL_NAME,
    "description": "Get back the full output of an earlier tool call whose result was replaced by "
                   "a placeholder that shows a recall id.",
    "input_schema": {"type": "object", "properties": {"id": {
        "type": "string", "description": "The recall id shown in the placeholder."}}, "required": ["id"]},
}


def reversible_placeholder(tool_name: str, tool_use_id: str) -> str:
    return REVERSIBLE_PLACEHOLDER.format(tool_name=tool_name, tool_use_id=tool_use_id)


def reversible_micro_compact(messages: list[Message], keep_recent: int = 3,
                             preserve_tools: frozenset[str] = frozenset({"read_file"}),
                             min_chars: int = 100) -> MicroReport:
    """``micro_compact``, but each placeholder names the tool_use id it replaced."""
    hidden = {b["tool_use_id"] for _, _, b in iter_tool_results(messages) if is_placeholder(b.get("content"))}
    report = micro_compact(messages, keep_recent, preserve_tools, min_chars)
    report.cleared = [c._replace(new_content=reversible_placeholder(c.tool_name, c.tool_use_id))
                      for c in report.cleared]
    for cleared in report.cleared:
        messages[cleared.message_index]["content"][cleared.block_index]["content"] = cleared.new_content
    report.cleared = [c for c in report.cleared if c.tool_use_id not in hidden]  # a placeholder already
    return report


class ReversibleLayers(ThreeLayers):
    """The three layers with reversible placeholders in the micro layer."""
    name = "reversible"
    clear_old_results = staticmethod(reversible_micro_compact)


class Archive:
    """Every tool result in a session log, by tool_use id; reads only what was appended since last time.

    It reads the log with ``read_log``, the reader resume uses, so a torn last line
    is skipped rather than fatal, and a corrupt record is a ``CorruptLog``."""

    def __init__(self, log: SessionLog):
        self.log = log
        self.outputs: dict[str, Any] = {}
        self._cursor = Cursor()  # the first line not yet indexed

    def lookup(self, tool_use_id: str) -> Any | None:
        if tool_use_id not in self.outputs and self.log.path.exists():
            contents = read_log(self.log.path, self._cursor)
            for record in contents.records:
                if record["kind"] != "compaction":
                    self._index(record["message"])
            self._cursor = contents.end  # a line without its newline is read again next time
        return self.outputs.get(tool_use_id)

    def _index(self, message: Message) -> None:
        for _, _, block in iter_tool_results([message]):
            self.outputs.setdefault(block["tool_use_id"], block.get("content", ""))


class RecallToolbox(Toolbox):
    """The usual tools plus ``recall``, answered from the session log."""

    def __init__(self, workspace: Workspace, log: SessionLog, *, include_compact: bool = True):
        super().__init__(workspace, include_compact=include_compact)
        self.archive = Archive(log)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return super().schemas + [json.loads(json.dumps(RECALL_TOOL))]

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        if name != RECALL_TOOL_NAME:
            return super().run(name, tool_input)
        if not isinstance(tool_input, dict) or set(tool_input) != {"id"} or not isinstance(tool_input["id"], str):
            return ToolOutcome("Error: recall expects exactly one string argument 'id'", is_error=True)
        output = self.archive.lookup(tool_input["id"])
        if output is None:
            return ToolOutcome(f"Error: no tool output with id {tool_input['id']!r} in the session log",
                               is_error=True)
        return ToolOutcome(output if isinstance(output, str) else json.dumps(output))


def recalls(session: Session) -> int:
    """How many times the agent called ``recall`` in a session."""
    return sum(1 for name, _ in session.tool_calls if name == RECALL_TOOL_NAME)
