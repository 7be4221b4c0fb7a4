"""The reference agent's micro-compaction, ported for benchmarking only (not used by the harness).

A port of ``micro_compact`` in learn-claude-code's ``agents/s06_context_compact.py``,
rewritten here with the same semantics so ``benchmarks.micro_scaling`` can time
it beside ``harness.micro_compact``. Like the reference, it expects the history
the SDK loop builds: user messages of plain dicts, assistant messages holding
SDK blocks (``anthropic.types.TextBlock`` / ``ToolUseBlock``), whose tool names
it reads by attribute. On plain-dict assistant messages it would find no names
and clear every old result as "unknown", read_file's included.
"""
from __future__ import annotations

from typing import Any

KEEP_RECENT = 3
PRESERVE_RESULT_TOOLS = {"read_file"}
MIN_CHARS = 100


def reference_micro_compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Port of s06's micro_compact: old, long, non-read_file results become placeholders, in place.

    Returns ``messages``, as the reference does.
    """
    results = []
    for i, message in enumerate(messages):
        if message["role"] == "user" and isinstance(message.get("content"), list):
            for j, part in enumerate(message["content"]):
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    results.append((i, j, part))
    if len(results) <= KEEP_RECENT:
        return messages
    names = {}
    for message in messages:
        if message["role"] != "assistant":
            continue
        blocks = message.get("content", [])
        if isinstance(blocks, list):
            for block in blocks:
                if hasattr(block, "type") and block.type == "tool_use":
                    names[block.id] = block.name
    for _, _, part in results[:-KEEP_RECENT]:
        content = part.get("content")
        if not isinstance(content, str) or len(content) <= MIN_CHARS:
            continue
        name = names.get(part.get("tool_use_id", ""), "unknown")
        if name not in PRESERVE_RESULT_TOOLS:
            part["content"] = f"[Previous: used {name}]"
    return messages
