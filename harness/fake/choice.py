"""``tool_choice``: what the request lets or makes the model do with its tools (chapter 00).

- ``auto`` (or none sent): the agent decides (``agent.decide``).
- ``none``: no tool is offered to it (``tool_roles.offered``), so it calls none.
- ``any``: the reply calls a tool: the one the agent would call, or, when it would only talk, the first tool
  the request offers (*this fake*'s pick), with an input built for that tool's schema.
- ``tool`` (with ``name``): the reply calls that tool: as the agent would call it, or with an input built
  for its schema from what the agent had in hand (the values of the call it would have made, by property
  name; a string it has no value for gets what the agent would have said, or else the first string of that
  call: ``schemas.schema_instance``).

A forced call comes with no text before it: the API prefills the assistant turn so that the model "will not
emit a natural language response or explanation before tool_use content blocks" ("Forcing tool use",
https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use). The
memory tool (chapter 11) has no schema in the request; forced, it views ``/memories``.

``disable_parallel_tool_use`` goes to the agent (``allows_parallel``), whose decision honours it.
"""
from __future__ import annotations

from typing import Any

from .agent import Action
from .schemas import schema_instance

FORCED = ("any", "tool")
MEMORY_VIEW = {"command": "view", "path": "/memories"}


def allows_parallel(body: dict[str, Any]) -> bool:
    """Whether the request lets the model call several tools in one reply."""
    return not (body.get("tool_choice") or {}).get("disable_parallel_tool_use", False)


def obey(body: dict[str, Any], action: Action) -> Action:
    """``action`` as a forced ``tool_choice`` makes it (the module docstring); unchanged otherwise."""
    choice = body.get("tool_choice") or {}
    kind = choice.get("type")
    if kind not in FORCED or not body.get("tools"):
        return action
    name = choice["name"] if kind == "tool" else action.tool or body["tools"][0]["name"]
    if action.calls and (kind == "any" or all(called == name for called, _ in action.calls)):
        return Action(None, action.calls)  # the calls the agent would make (several, in parallel) are forced ones
    tool = next(t for t in body["tools"] if t["name"] == name)
    if "input_schema" not in tool:  # a typed tool: the fake serves only the memory tool
        return Action(None, ((name, dict(MEMORY_VIEW)),))
    hints = action.tool_input or {}
    fallback = (action.say or "").strip() or next((v for v in hints.values() if isinstance(v, str)), "")
    built = schema_instance(tool["input_schema"], hints, fallback)
    return Action(None, ((name, built if isinstance(built, dict) else {}),))
