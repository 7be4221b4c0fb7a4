"""The one message format: plain dicts in the Anthropic Messages API shape (chapter 02).

History is a list of JSON-serialisable dicts, ``{"role": ..., "content": ...}``,
with content either a string or a list of ``text`` / ``tool_use`` /
``tool_result`` blocks, and, in an assistant message, the ``compaction`` block
the API's server compaction returns (chapter 10), sent back as it came.
Nothing here depends on SDK classes, so a history survives a JSON round trip
unchanged.
"""
from __future__ import annotations

from typing import Any

Message = dict[str, Any]
Block = dict[str, Any]


class InvalidHistory(ValueError):
    """A history the Messages API would reject; names the rule, message index, block index and tool id."""

    def __init__(self, rule: str, index: int, detail: str, tool_id: str | None = None, block: int | None = None):
        self.rule, self.index, self.tool_id, self.block = rule, index, tool_id, block
        where = (f"messages[{index}]" + (f", block {block}" if block is not None else "")
                 + (f", tool id {tool_id}" if tool_id else ""))
        super().__init__(f"{rule}: {where}: {detail}")


# --- builders -----------------------------------------------------------------

def text(value: str) -> Block:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, tool_input: dict[str, Any]) -> Block:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, content: str, is_error: bool = False) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def user(content: str | list[Block]) -> Message:
    return {"role": "user", "content": content}


def assistant(content: str | list[Block]) -> Message:
    return {"role": "assistant", "content": content}


# --- reading ------------------------------------------------------------------

def blocks(message: Message) -> list[Block]:
    """The message's content as a list of blocks (a string becomes one text block).

    Unchecked, for hot loops: pass a message of a history its caller checked (``check_shape``)."""
    content = message["content"]
    return [text(content)] if isinstance(content, str) else content


def iter_tool_results(messages: list[Message]) -> list[tuple[int, int, Block]]:
    """Every tool_result block as (message index, block index, block), oldest first."""
    check_shape(messages)
    found = []
    for i, message in enumerate(messages):
        content = message["content"]
        if message["role"] == "user" and isinstance(content, list):
            for j, block in enumerate(content):
                if block["type"] == "tool_result":
                    found.append((i, j, block))
    return found


def iter_tool_uses(messages: list[Message]) -> list[tuple[int, Block]]:
    """Every tool_use block as (message index, block), oldest first."""
    check_shape(messages)
    return [(i, block) for i, message in enumerate(messages)
            if message["role"] == "assistant" and isinstance(message["content"], list)
            for block in message["content"] if block["type"] == "tool_use"]


def tool_names_by_id(messages: list[Message]) -> dict[str, str]:
    """Map each tool_use id to its tool name (works on plain dicts, so after JSON too)."""
    check_shape(messages)
    names = {}
    for message in messages:
        content = message["content"]
        if message["role"] == "assistant" and isinstance(content, list):
            for block in content:
                if block["type"] == "tool_use":
                    names[block["id"]] = block["name"]
    return names


def text_of(message: Message) -> str:
    """The message's text blocks joined by newlines (tool blocks ignored).

    Unchecked, like ``blocks``: pass a message of a checked history."""
    return "\n".join(b["text"] for b in blocks(message) if b.get("type") == "text")


def result_text(block: Block) -> str:
    """A tool_result's content as a string (list content: its text blocks joined).

    Unchecked: pass a block of a checked history (``check_message`` vets a result's content)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


# --- the API rules ------------------------------------------------------------

def validate_messages(messages: list[Message], *, allow_prefill: bool = False) -> None:
    """Raise InvalidHistory unless the Messages API would accept this history.

    The rules: user/assistant roles only; non-empty content; every
    tool_use is answered first thing in the next user message; every
    tool_result answers a tool_use of the message just before; tool_use ids
    are unique; the history ends with a user message (or an assistant prefill,
    or a turn the server paused after a compaction block: chapter 10).
    """
    if not isinstance(messages, list) or not messages:
        raise InvalidHistory("non_empty_history", 0, "the request needs at least one message")
    for i, message in enumerate(messages):
        check_message(message, i)  # every message first, so the tool rules read only sound blocks
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            _check_tool_uses(messages, i, seen_ids)
        else:
            _check_tool_results(messages, i)
    last = messages[-1]
    if last["role"] != "user" and not (allow_prefill and isinstance(last["content"], str)) \
            and not paused_after_compaction(last):
        raise InvalidHistory("ends_with_user", len(messages) - 1, "the last message must be from the user")


def paused_after_compaction(message: Message) -> bool:
    """An assistant turn that ends on a compaction block: ``pause_after_compaction`` stopped it there
    (``stop_reason`` ``"compaction"``), and the next request sends it back for the server to continue.

    Unchecked: pass a checked message. The SDK's tool runner resumes such a turn the same way
    (``anthropic.lib.tools._beta_runner``: ``"compaction": "resume"``)."""
    content = message["content"]
    return message["role"] == "assistant" and isinstance(content, list) and content[-1].get("type") == "compaction"


def check_shape(messages: Any) -> None:
    """Raise InvalidHistory unless ``messages`` is a list of well-formed messages (chapter 02).

    Only the shape: a list of messages with known roles and blocks with their
    required fields. The pairing rules of ``validate_messages`` are not checked,
    so a history in the middle of a round (ending in a tool_use) passes.
    """
    check_list(messages)
    for i, message in enumerate(messages):
        check_message(message, i)


def check_list(messages: Any) -> None:
    """Raise InvalidHistory unless ``messages`` is a list (for callers that check each message as they read it)."""
    if not isinstance(messages, list):
        raise InvalidHistory("history_is_list", 0, f"a history is a list of messages, not {type(messages).__name__}")


def check_message(message: Any, i: int) -> None:
    """Raise InvalidHistory unless ``message`` (at index ``i``) is well formed.

    Every entry point runs it on every message, so the common case is one flat pass over the blocks.
    """
    role = message.get("role") if isinstance(message, dict) else None
    if role != "user" and role != "assistant":
        raise InvalidHistory("role", i, "role must be 'user' or 'assistant'")
    content = message.get("content")
    if isinstance(content, str):
        if not content or content.isspace():
            raise InvalidHistory("non_empty_content", i, "text content is empty")
        return
    if not isinstance(content, list) or not content:
        raise InvalidHistory("non_empty_content", i, "content must be a non-empty string or list of blocks")
    for j, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            value = block.get("text")
            if not isinstance(value, str):
                raise InvalidHistory("block_fields", i, "a text block needs a string text", block=j)
            if not value or value.isspace():
                raise InvalidHistory("non_empty_content", i, "a text block is empty", block=j)
        elif kind == "tool_use" and role == "assistant":
            tool_id, name = block.get("id"), block.get("name")
            if not (isinstance(tool_id, str) and tool_id and isinstance(name, str) and name
                    and isinstance(block.get("input"), dict)):
                raise InvalidHistory("block_fields", i, "a tool_use needs a string id and name and an object input",
                                     block=j)
        elif kind == "compaction" and role == "assistant":
            value = block.get("content")
            if value is not None and not (isinstance(value, str) and value):
                raise InvalidHistory("block_fields", i, "a compaction block's content is a non-empty string, "
                                     "or null for a failed compaction", block=j)
        elif kind == "tool_result" and role == "user":
            tool_id, value = block.get("tool_use_id"), block.get("content", "")
            if not (isinstance(tool_id, str) and tool_id):
                raise InvalidHistory("block_fields", i, "a tool_result needs a string tool_use_id", block=j)
            if not isinstance(value, str) and not _is_block_list(value):
                raise InvalidHistory("block_fields", i, "a tool_result's content must be a string or a list of "
                                     "blocks (text blocks with a string text)", tool_id=tool_id, block=j)
        else:
            raise InvalidHistory("block_type", i, f"block type {kind!r} not allowed in a {role} message", block=j)


def _is_block_list(value: Any) -> bool:
    """A tool_result's list content: dicts, every text block with a string text."""
    return isinstance(value, list) and all(
        isinstance(b, dict) and (b.get("type") != "text" or isinstance(b.get("text"), str)) for b in value)


def _check_tool_uses(messages: list[Message], i: int, seen_ids: set[str]) -> None:
    uses = [b for b in blocks(messages[i]) if b.get("type") == "tool_use"]
    for block in uses:
        if block["id"] in seen_ids:
            raise InvalidHistory("unique_tool_use_id", i, "tool_use id used twice", block["id"])
        seen_ids.add(block["id"])
    if not uses:
        return
    following = messages[i + 1] if i + 1 < len(messages) else None
    if following is None:
        raise InvalidHistory("tool_use_answered", i, "tool_use has no tool_result after it", uses[0]["id"])
    leading_ids = []
    for block in blocks(following):
        if block.get("type") != "tool_result":
            break
        leading_ids.append(block.get("tool_use_id"))
    later_ids = [b.get("tool_use_id") for b in blocks(following) if b.get("type") == "tool_result"]
    for block in uses:
        if block["id"] not in leading_ids and block["id"] in later_ids:
            raise InvalidHistory("tool_results_first", i + 1, "tool_result blocks must come before any text",
                                 block["id"])
        if block["id"] not in leading_ids:
            raise InvalidHistory(
                "tool_use_answered", i,
                f"tool_use has no tool_result at the start of messages[{i + 1}]", block["id"])


def _check_tool_results(messages: list[Message], i: int) -> None:
    content = blocks(messages[i])
    previous = messages[i - 1] if i > 0 else None
    asked = {b["id"] for b in blocks(previous) if b.get("type") == "tool_use"} if previous else set()
    in_lead = True
    for block in content:
        if block.get("type") != "tool_result":
            in_lead = False
            continue
        tool_id = block.get("tool_use_id")
        if tool_id not in asked:
            raise InvalidHistory(
                "tool_result_answers_previous", i,
                "tool_result does not answer a tool_use of the previous assistant message", tool_id)
        if not in_lead:
            raise InvalidHistory("tool_results_first", i, "tool_result blocks must come before any text", tool_id)
