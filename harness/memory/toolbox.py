"""The usual tools plus the memory tool, offered as the API offers it (chapter 11).

The memory tool is not a custom tool with a schema: a request names it by
type, ``{"type": "memory_20250818", "name": "memory"}``, the shape of the
SDK's ``MemoryTool20250818Param`` (no beta prefix: anthropic 2.14.0,
``anthropic/types/memory_tool_20250818_param.py``), and the API adds memory
instructions of its own to the system prompt
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool;
the fake server adds their gist, ``harness.fake.memory``).
The memory folder lives beside the workspace, not in it, so the file tools
never see it and it outlives any one conversation.
"""
from __future__ import annotations

import os
from typing import Any, Callable

from ..core.tools import Toolbox, ToolOutcome, Workspace
from .store import MemoryStore

MEMORY_TOOL_NAME = "memory"
MEMORY_TOOL: dict[str, str] = {"type": "memory_20250818", "name": MEMORY_TOOL_NAME}


class MemoryToolbox(Toolbox):
    """The workspace's tools, and ``memory`` on the folder ``memory_root``."""

    def __init__(self, workspace: Workspace, memory_root: str | os.PathLike[str], *, include_compact: bool = True,
                 check: Callable[[Any], str] | None = None):
        super().__init__(workspace, include_compact=include_compact)
        self.memory = MemoryStore(memory_root, check)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return super().schemas + [dict(MEMORY_TOOL)]

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        if name == MEMORY_TOOL_NAME:
            return self.memory.run(tool_input)
        return super().run(name, tool_input)
