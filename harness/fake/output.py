"""``max_tokens`` caps every reply of the fake, as it caps the real model's (chapter 00).

The output is counted as the fake reports it (``block_tokens``: a text's
tokens; a tool call's name and JSON input). A reply over ``max_tokens`` keeps
its blocks in order while they fit: a text that does not fit whole is cut to
the longest prefix of its tokens that fits (deterministic: the same reply and
limit always give the same cut), a tool call that does not fit whole is
dropped, and nothing after the cut is sent. Such a reply stops with
``stop_reason: "max_tokens"``.
"""
from __future__ import annotations

from ..core.messages import Block, text
from ..core.tokens import block_tokens, encoding, text_tokens


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
        if block["type"] == "text":
            prefix = text_prefix(block["text"], room)
            if prefix.strip():
                kept.append(text(prefix))
        return kept, True
    return kept, False


def text_prefix(value: str, budget: int) -> str:
    """The longest prefix of ``value``'s tokens that is whole UTF-8 and counts at most ``budget`` tokens."""
    tokens = encoding().encode(value, disallowed_special=())
    for size in range(min(budget, len(tokens)), 0, -1):
        try:
            prefix = encoding().decode_bytes(tokens[:size]).decode("utf-8")
        except UnicodeDecodeError:  # the cut fell inside a character
            continue
        if text_tokens(prefix) <= budget:
            return prefix
    return ""
