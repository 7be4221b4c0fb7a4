"""The `compact` tool: the model asks for its own memory to be tidied (chapter 04).

The handler only acknowledges the request. The real work happens in the loop,
after every tool_result of the round (this one included) has been appended,
because only the loop owns the history.
"""
from __future__ import annotations

from typing import Any

COMPACT_TOOL_NAME = "compact"

COMPACT_TOOL: dict[str, Any] = {
    "name": COMPACT_TOOL_NAME,
    "description": (
        "Summarise the conversation so far and replace it with the summary, "
        "to free context. Use it when a task is finished or the context is "
        "getting long. Optionally say what the summary should focus on."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "focus": {
                "type": "string",
                "description": "What the summary must keep, in a few words.",
            }
        },
    },
}

COMPACT_ACK = "Compacting the conversation after this round."


def compact_focus(tool_input: dict[str, Any]) -> str | None:
    """The optional focus of a compact call, stripped; None when absent or blank."""
    focus = tool_input.get("focus")
    if isinstance(focus, str) and focus.strip():
        return focus.strip()
    return None
