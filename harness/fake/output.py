"""What a reply of the fake holds, and where it stops: tool choice, thinking, structured output,
``stop_sequences`` and ``max_tokens`` (chapter 00).

``reply_blocks`` turns what the model decided into the reply's blocks: a forced ``tool_choice`` (``choice``),
the model's remark on images it was shown (``images.remark``, never before a forced call), a structured output
(``output_config.format``: a reply that ends the turn says a JSON value of the schema, its strings filled with
what it would have said: ``schemas``; *this fake*'s rule; a reply that calls a tool is unchanged), and thinking
first (``thinking``).

``stop_at_sequence``: a reply stops at the first of the request's ``stop_sequences`` found in its text,
earliest position first (at one position, the one listed first): the text is cut before it, nothing after is
sent, and the reply stops with ``stop_reason`` ``"stop_sequence"`` and ``stop_sequence`` set to it (the SDK's
docstring of ``stop_sequences``). The sequence itself is not sent, and only text blocks are searched, not a
tool call's input or thinking (*this fake*; unverified).

``cap_output``: the output is counted as the fake reports it (``block_tokens``: a text's tokens; a tool call's
name and JSON input; thinking's text). A reply over ``max_tokens`` keeps its blocks in order while they fit:
a text or thinking that does not fit whole is cut to the longest prefix of its tokens that fits (a cut thinking
block is signed as cut; deterministic: the same reply and limit always give the same cut), a tool call that
does not fit whole is dropped, and nothing after the cut is sent. Such a reply stops with
``stop_reason: "max_tokens"``; a stop sequence that the cut never reached does not count.
"""
from __future__ import annotations

import json
from typing import Any

from ..core.messages import Block, text
from ..core.tokens import block_tokens, text_prefix
from .agent import Action, action_blocks
from .choice import FORCED, obey
from .images import remark
from .schemas import schema_instance
from .thinking import think, thinking_block


def reply_blocks(body: dict[str, Any], action: Action, tool_id: str) -> list[Block]:
    """The blocks of the reply to ``body`` in which the model does ``action`` (the module docstring)."""
    action = obey(body, action)
    forced = (body.get("tool_choice") or {}).get("type") in FORCED
    said = None if forced else remark(body["messages"])
    if said:
        action = Action("\n\n".join(filter(None, [said, action.say])), action.calls)
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema")
    if schema is not None and not action.calls:
        action = Action(json.dumps(schema_instance(schema, {}, (action.say or "").strip()), ensure_ascii=False))
    return think(body, action_blocks(action, tool_id))


def stop_at_sequence(content: list[Block], stops: list[str]) -> tuple[list[Block], str | None]:
    """(the reply up to the first stop sequence in its text, that sequence), or (``content``, None)."""
    if not stops:
        return content, None
    for n, block in enumerate(content):
        if block["type"] != "text":
            continue
        found = [(at, k) for k, stop in enumerate(stops) if stop and (at := block["text"].find(stop)) >= 0]
        if found:
            at, k = min(found)
            before = block["text"][:at]
            return content[:n] + ([text(before)] if before.strip() else []), stops[k]
    return content, None


def cap_output(content: list[Block], max_tokens: int) -> tuple[list[Block], bool]:
    """(the blocks that fit in ``max_tokens`` output tokens, whether anything was cut)."""
    kept: list[Block] = []
    room = max_tokens
    for block in content:
        size = block_tokens(block)
        if size <= room:
            kept.append(block)
            room -= size
            continue
        if block["type"] in ("text", "thinking"):
            prefix = text_prefix(block[block["type"]], room)
            if prefix.strip():
                kept.append(text(prefix) if block["type"] == "text" else thinking_block(prefix))
        return kept, True
    return kept, False
