"""Thinking: the reply opens with a signed thinking block, which must come back unchanged (chapter 00; chapter 10
for the context-management edit that clears old ones).

The request's ``thinking`` (the SDK's ``ThinkingConfigParam`` and its beta twin: ``enabled`` with
``budget_tokens``, ``adaptive``, ``disabled``, ``between_tools``; ``display``, and the beta's
``block_binding``):

- ``enabled`` or ``adaptive``: the reply opens with one ``thinking`` block, the fake's plan in words, derived
  from the blocks that follow it (what it is about to say and call), and signed (with ``adaptive`` too: the
  fake always thinks, where the model decides whether to: *this fake*). Its tokens are output
  tokens, reported in ``usage.output_tokens`` and ``usage.output_tokens_details.thinking_tokens``, and
  ``max_tokens`` cuts them like any other (a cut thinking block is signed as cut). With ``enabled`` the
  thinking is cut to ``budget_tokens``. ``display`` ``"omitted"`` returns the block with empty ``thinking``
  and a signature, its tokens still billed (the SDK's docstring of ``display``); ``"summarized"`` and the
  beta's ``"updates"`` return it whole (*this fake*: its thinking is its own summary).
- ``between_tools``: thinking is off, and the text the model writes before a tool call comes back as a
  thinking block (the SDK's ``BetaThinkingTypes.between_tools`` docstring).
- ``disabled``, or no ``thinking``: no thinking block.

The API's rules, each with its wording where a public report quotes it:

- ``budget_tokens`` below 1,024: ``thinking.enabled.budget_tokens: Input should be greater than or equal to
  1024`` (themaximalist/llm.js#30, danny-avila/LibreChat#8346); not below ``max_tokens``: "`max_tokens` must be
  greater than `thinking.budget_tokens`. ..." (router-for-me/CLIProxyAPI#413, sigoden/aichat#1304). The
  exception the docs make for interleaved thinking with tools is not made (*this fake*).
- a forced ``tool_choice`` (``any``, ``tool``) with thinking on: "Thinking may not be enabled when tool_choice
  forces tool use." (mastra-ai/mastra#7507, can1357/oh-my-pi#341; the docs' feature-compatibility list).
- a thinking block sent back must be as it came: a ``signature`` that does not match its ``thinking`` is, in
  the latest assistant message, "`thinking` or `redacted_thinking` blocks in the latest assistant message
  cannot be modified. ..." (anthropics/claude-code#19539, #63203), and earlier "Invalid `signature` in
  `thinking` block" (anthropics/claude-code#10627), both after the block's path.
- with thinking on, in a tool loop (the request ends with a user message that opens with tool_result blocks)
  the assistant message before it must start with a thinking block: "messages.N.content.0.type: Expected
  `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant`
  message must start with a thinking block ..." (anthropics/claude-code#8677; lbjlaq/Antigravity-Manager#139).

Signatures are the fake's own: a digest of the block's text (``signature``), so a block verifies whatever
model or conversation it came from; the API also binds a block to its model and to the conversation before
it (the beta's ``block_binding`` and ``input_transformations``), which the fake does not check: no block fails
those checks, so nothing is dropped or reported (*this fake*). The fake never returns ``redacted_thinking``
(its model is never flagged), so one sent back cannot be verified: it is accepted as sent (*this fake*).
Every thinking block sent is read and counted as input unless ``clear_thinking_20251015`` clears it (the API's
default depends on the model: the context-editing docs say older models keep only the last assistant turn's
thinking, newer ones all; *this fake* keeps all). Per-model support of each thinking type is the model
table's business (``core.models``), not checked here.

``clear_thinking_20251015`` (context management, beta ``context-management-2025-06-27``;
https://platform.claude.com/docs/en/build-with-claude/context-editing): clears the thinking blocks of all but
the newest ``keep`` thinking turns (``{"type": "thinking_turns", "value": N}``, default 1; ``"all"`` or
``{"type": "all"}`` keeps every one). It must be the first edit and needs thinking on: "`clear_thinking_20251015`
strategy requires `thinking` to be enabled or adaptive" (router-for-me/CLIProxyAPI#4957); the wording of
the first rule is ours. A turn is a user message that is not only tool results and the assistant messages
after it (*this fake*); an assistant message left empty goes. ``applied_edits`` reports
``cleared_thinking_turns`` and ``cleared_input_tokens`` (the SDK's ``BetaClearThinking20251015EditResponse``)
when it cleared something.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Callable

from anthropic.types import ThinkingConfigParam
from anthropic.types.beta import BetaThinkingConfigParam

from ..core.messages import Block, Message, blocks
from ..core.tokens import block_tokens, text_prefix
from .rejection import RequestRejected, invalid

ON = ("enabled", "adaptive")  # thinking on: a thinking block opens every reply
THINKING_FIELDS = {  # each type's fields, beta's and non-beta's together (a test compares them with the SDK)
    "enabled": {"type", "budget_tokens", "display", "block_binding"},
    "disabled": {"type"},
    "between_tools": {"type"},
    "adaptive": {"type", "display", "block_binding"},
}
DISPLAYS = ("summarized", "omitted", "updates")
MISMATCH = ("error", "drop_block")  # block_binding.prefix_mismatch_behavior
MIN_BUDGET = 1024
THINKING_BLOCKS = ("thinking", "redacted_thinking")
BUDGET_ABOVE_MAX = ("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation "
                    "at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
                    "#max-tokens-and-context-window-size")
FORCED_WITH_THINKING = "Thinking may not be enabled when tool_choice forces tool use."
MODIFIED = ("`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These "
            "blocks must remain as they were in the original response.")
BAD_SIGNATURE = "Invalid `signature` in `thinking` block"
MUST_OPEN = ("Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final "
             "`assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and "
             "`tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this "
             "requirement, disable `thinking`. Please consult our documentation at "
             "https://docs.claude.com/en/docs/build-with-claude/extended-thinking")
CLEAR_THINKING = "clear_thinking_20251015"
NEEDS_THINKING = f"`{CLEAR_THINKING}` strategy requires `thinking` to be enabled or adaptive"
SDK_CONFIGS = (ThinkingConfigParam, BetaThinkingConfigParam)  # what THINKING_FIELDS is compared with


def mode(body: dict[str, Any]) -> str:
    """The thinking type of a checked request (``"disabled"`` when it sends none)."""
    return (body.get("thinking") or {}).get("type", "disabled")


def is_on(body: dict[str, Any]) -> bool:
    return mode(body) in ON


# --- checking a request ------------------------------------------------------------------

def check_config(body: dict[str, Any], *, count: bool = False) -> None:
    """RequestRejected unless ``thinking`` (if sent) is of the SDK's types and within the API's rules, and
    thinking on is not paired with a forced tool choice. ``count``: a count_tokens body (no max_tokens)."""
    if "thinking" in body:
        _check_thinking(body["thinking"], None if count else body["max_tokens"])
    choice = body.get("tool_choice")
    if is_on(body) and isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        raise RequestRejected(400, "invalid_request_error", FORCED_WITH_THINKING)


def _check_thinking(config: Any, max_tokens: int | None) -> None:
    kind = config.get("type") if isinstance(config, dict) else None
    if not isinstance(kind, str) or kind not in THINKING_FIELDS:
        raise invalid("thinking", "Input tag " + repr(kind) + " found using 'type' does not match any of the expected "
                      "tags: " + ", ".join(map(repr, THINKING_FIELDS)))
    where = f"thinking.{kind}"
    extra = next((key for key in config if key not in THINKING_FIELDS[kind]), None)
    if extra is not None:
        raise invalid(f"{where}.{extra}", "Extra inputs are not permitted")
    if config.get("display") not in (None, *DISPLAYS):
        raise invalid(f"{where}.display", "Input should be 'summarized', 'omitted' or 'updates'")
    binding = config.get("block_binding")
    if binding is not None and (not isinstance(binding, dict) or set(binding) - {"prefix_mismatch_behavior"}):
        raise invalid(f"{where}.block_binding", "Input should be an object with at most a prefix_mismatch_behavior")
    if binding and binding.get("prefix_mismatch_behavior") not in (None, *MISMATCH):
        raise invalid(f"{where}.block_binding.prefix_mismatch_behavior", "Input should be 'error' or 'drop_block'")
    if kind != "enabled":
        return
    budget = config.get("budget_tokens")
    if budget is None:
        raise invalid(f"{where}.budget_tokens", "Field required")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise invalid(f"{where}.budget_tokens", "Input should be a valid integer")
    if budget < MIN_BUDGET:
        raise invalid(f"{where}.budget_tokens", f"Input should be greater than or equal to {MIN_BUDGET}")
    if max_tokens is not None and budget >= max_tokens:
        raise RequestRejected(400, "invalid_request_error", BUDGET_ABOVE_MAX)


Thought = tuple[int, int, Block]  # (message index, block index, a thinking block)


def check_blocks(body: dict[str, Any], thoughts: list[Thought]) -> None:
    """RequestRejected unless every thinking block of a checked history (``thoughts``, all of them, in order)
    is as the fake returned it, and, with thinking on, a tool loop's assistant message opens with one (the
    module docstring has the rules)."""
    messages = body["messages"]
    if thoughts:
        latest = next(i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant")
        for i, j, block in thoughts:
            if block["signature"] != signature(block["thinking"]):
                raise RequestRejected(400, "invalid_request_error",
                                      f"messages.{i}.content.{j}: {MODIFIED if i == latest else BAD_SIGNATURE}")
    if is_on(body) and len(messages) >= 2 and _in_tool_loop(messages[-1]) and messages[-2]["role"] == "assistant":
        first = next((b for b in blocks(messages[-2]) if b["type"] != "compaction"), None)
        if first is not None and first["type"] not in THINKING_BLOCKS:
            i, j = len(messages) - 2, blocks(messages[-2]).index(first)
            raise invalid(f"messages.{i}.content.{j}.type", MUST_OPEN.format(found=first["type"]))


def _in_tool_loop(message: Message) -> bool:
    content = message["content"]
    return message["role"] == "user" and isinstance(content, list) and content[0]["type"] == "tool_result"


# --- the reply -----------------------------------------------------------------------------

def signature(thinking: str) -> str:
    """The fake's signature of a thinking block's text (opaque to a client: send it back as it came)."""
    return "fake-thinking-signature-" + hashlib.sha256(b"offline fake thinking\0" + thinking.encode()).hexdigest()


def thinking_block(thinking: str) -> Block:
    return {"type": "thinking", "thinking": thinking, "signature": signature(thinking)}


def plan(content: list[Block]) -> str:
    """The fake's thinking before a reply: what it is about to say and call, in order."""
    steps = []
    for block in content:
        if block["type"] == "text":
            line = block["text"].strip().splitlines()[0] if block["text"].strip() else ""
            steps.append(f"say: {line[:200]}" + (" ..." if len(block["text"].strip()) > len(line[:200]) else ""))
        elif block["type"] == "tool_use":
            steps.append(f"call {block['name']} with {json.dumps(block['input'], sort_keys=True, ensure_ascii=False)}")
    return "Next I " + "; then I ".join(steps) + "." if steps else "There is nothing to add."


def think(body: dict[str, Any], content: list[Block]) -> list[Block]:
    """The reply's blocks with thinking as the request's ``thinking`` asks (the module docstring)."""
    kind = mode(body)
    if kind in ON:
        thought = plan(content)
        if kind == "enabled":
            thought = text_prefix(thought, body["thinking"]["budget_tokens"])
        return [thinking_block(thought), *content]
    if kind == "between_tools" and any(b["type"] == "tool_use" for b in content):
        return [thinking_block(b["text"]) if b["type"] == "text" else b for b in content]
    return content


def displayed(body: dict[str, Any], content: list[Block]) -> list[Block]:
    """The reply as sent: with ``display`` ``"omitted"``, each thinking block empty but signed."""
    if ((body.get("thinking") or {}).get("display")) != "omitted":
        return content
    return [thinking_block("") if b["type"] == "thinking" else b for b in content]


def thinking_tokens(content: list[Block]) -> int:
    """The output tokens a reply spent thinking (counted before ``displayed`` empties anything)."""
    return sum(block_tokens(b) for b in content if b["type"] in THINKING_BLOCKS)


# --- clear_thinking_20251015 -----------------------------------------------------------------

def check_clear_thinking(body: dict[str, Any], edit: dict[str, Any], where: str, position: int) -> None:
    """RequestRejected unless the edit comes first, thinking is on, and ``keep`` is one of its forms."""
    if position != 0:
        raise invalid(where, f"{CLEAR_THINKING} must be the first edit in context_management.edits "
                             "(our wording; the context-editing docs state the rule)")
    if not is_on(body):
        raise RequestRejected(400, "invalid_request_error", NEEDS_THINKING)
    keep = edit.get("keep")
    if keep is None or keep == "all" or keep == {"type": "all"}:
        return
    if not isinstance(keep, dict) or keep.get("type") != "thinking_turns" or set(keep) != {"type", "value"}:
        raise invalid(f"{where}.keep", "Input should be 'all', {\"type\": \"all\"} or "
                                       "{\"type\": \"thinking_turns\", \"value\": N}")
    value = keep["value"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise invalid(f"{where}.keep.value", "Input should be a non-negative integer")


def clear_thinking(body: dict[str, Any], edit: dict[str, Any],
                   count: Callable[[dict[str, Any]], int]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``clear_thinking_20251015`` on one request: (the edited body, its applied_edits entry), or
    (``body``, None) when every thinking turn is kept."""
    keep = edit.get("keep")
    if keep == "all" or keep == {"type": "all"}:
        return body, None
    kept_turns = 1 if keep is None else keep["value"]
    messages = body["messages"]
    turns = _thinking_turns(messages)
    cleared = set(turns[:max(len(turns) - kept_turns, 0)])
    if not cleared:
        return body, None
    holding = {i for turn in cleared for i in turn}
    edited_messages = []
    for i, message in enumerate(messages):
        if i in holding:
            content = [b for b in message["content"] if b["type"] not in THINKING_BLOCKS]
            if not content:
                continue
            message = {**message, "content": content}
        edited_messages.append(message)
    edited = {**body, "messages": edited_messages}
    return edited, {"type": CLEAR_THINKING, "cleared_thinking_turns": len(cleared),
                    "cleared_input_tokens": count(body) - count(edited)}


def _thinking_turns(messages: list[Message]) -> list[tuple[int, ...]]:
    """Each turn that holds a thinking block, oldest first, as the indexes of its assistant messages that
    hold one. A turn starts at a user message that is not only tool results."""
    turns: list[list[int]] = []
    for i, message in enumerate(messages):
        content = blocks(message)
        if message["role"] == "user":
            if not turns or any(b["type"] != "tool_result" for b in content):
                turns.append([])
        elif any(b["type"] in THINKING_BLOCKS for b in content):
            if not turns:
                turns.append([])
            turns[-1].append(i)
    return [tuple(turn) for turn in turns if turn]
