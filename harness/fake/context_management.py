"""The API's own context management, served by the fake before its model sees a request (chapter 10).

Three ``context_management`` edits of the Messages API beta, applied in the order given
(``clear_thinking_20251015``, which must come first, is ``thinking``'s), and the on-demand ``compaction`` request:

* ``clear_tool_uses_20250919`` (beta ``context-management-2025-06-27``): once the
  input passes ``trigger`` (input tokens as the fake counts them, or tool uses),
  the oldest tool results are replaced by a placeholder, keeping the newest
  ``keep`` tool uses, never touching ``exclude_tools``, and only if at least
  ``clear_at_least`` tokens go; ``clear_tool_inputs`` (true, or a list of tool
  names) also empties those tool_use inputs. Only the request is edited: the
  client keeps, and keeps sending, its full history. The response reports each
  applied edit in ``context_management.applied_edits``, and ``usage.input_tokens``
  counts what the model saw after the edits.
  https://platform.claude.com/docs/en/build-with-claude/context-editing
* ``compact_20260112`` (beta ``compact-2026-01-12``): once the input passes
  ``trigger`` (default 150,000; below 50,000 is a 400), the conversation is
  summarised (``instructions`` replace the default prompt) into a ``compaction``
  block that opens the response. With ``pause_after_compaction`` the response
  stops there (``stop_reason`` ``"compaction"``); otherwise the model answers
  from the summary in the same response. Usage lists the summarising step as a
  ``compaction`` iteration, not counted in the top-level fields. A later request
  that sends the block back has everything before it ignored: the block's
  content stands in for it. https://platform.claude.com/docs/en/build-with-claude/compaction
* ``compaction={"type": "summarize", "instructions": ...}`` (beta ``compact-2026-09-04``,
  which the SDK's tool runner names for ``compact_before_next_turn()``, the helper that
  sends it: ``anthropic/lib/tools/_beta_runner.py``): the whole conversation is
  summarised and the response holds the compaction block alone, ``stop_reason``
  ``"compaction"``; ``instructions`` replace the default prompt, and empty or blank
  ones count as absent. count_tokens accepts the field and ignores it (the SDK's
  ``BetaCompactionConfigParam`` and the field's docstring in ``MessageCreateParams``).

A compaction block carries ``encrypted_content``, ``signature`` and ``tool_changes``
(the fields the SDK's ``BetaCompactionBlock`` says to send back verbatim). Sent back, it
must be first in ``messages`` and the only one with content (``core.messages``), one
this fake issued and unchanged (``compaction_rules``, which signs it); the fake reads
its ``content``. A compaction checks first that it can record the tools called
(``compaction_rules.check_tool_references``); the summarising step itself is the fake
model's (``summarise``: ``FakeModel.compact``, which can fail with the API's 529 on
purpose). Usage lists that step as a ``compaction`` iteration, left out of the
top-level fields as the SDK's ``BetaUsage.iterations`` docstring says, so an on-demand
response reports 0 input and output tokens there.

``count_tokens`` with ``context_management`` (``count_response``) counts the request
the model would see after the clearing edits (``input_tokens``) and as sent
(``context_management.original_input_tokens``: the SDK's ``BetaMessageTokensCount``).
It runs no compaction: ``compact_20260112`` is accepted there and not applied (*this
fake*: counting never calls a model).

Unverified, and the fake's own choice: the placeholder's wording (the docs only
say "placeholder text"), a cleared input becoming ``{}``, ``keep`` counting the
excluded tools' uses too, "passes" meaning strictly greater, the top-level usage
of a paused response (0: no message iteration ran), the beta header being
required for a compaction block (either compaction beta) and for ``compaction``,
and how the fake's model reads a compaction block (as a user message holding the
summary, the way it reads chapter 03's).
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from ..core.messages import Block, Message
from ..core.tokens import text_tokens
from .compaction_rules import check_returned_blocks, check_tool_references, compaction_block, nothing_to_summarize
from .request import RequestRejected
from .summarizer import summarise_text
from .thinking import CLEAR_THINKING, check_clear_thinking, clear_thinking

EDIT_BETAS = {"clear_tool_uses_20250919": "context-management-2025-06-27", "compact_20260112": "compact-2026-01-12",
              CLEAR_THINKING: "context-management-2025-06-27"}
ON_DEMAND_BETA = "compact-2026-09-04"  # compaction={"type": "summarize"}: the SDK's runner names it
BLOCK_BETAS = (EDIT_BETAS["compact_20260112"], ON_DEMAND_BETA)  # a compaction block comes with either
CLEARED_RESULT = "[tool result cleared]"
CLEARING_TRIGGER, CLEARING_KEEP = 100_000, 3            # the documented defaults of clear_tool_uses_20250919
COMPACTION_TRIGGER, MIN_COMPACTION_TRIGGER = 150_000, 50_000
COMPACTION_PROMPT = (  # the fake's paraphrase; the API's own default prompt is quoted in the compaction docs
    "You wrote a partial transcript of the task above. Summarise it so that the work can continue from the "
    "summary alone, in a new context where the transcript is gone: the state, the next steps, what was learned.")
EDIT_FIELDS = {
    "clear_tool_uses_20250919": {"type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"},
    "compact_20260112": {"type", "trigger", "pause_after_compaction", "instructions"},
    CLEAR_THINKING: {"type", "keep"},
}

BodyCounter = Callable[[dict[str, Any]], int]  # a request body -> its input tokens
Summariser = Callable[[str], str]  # what to summarise (prompt and conversation) -> the summary


class EditRejected(RequestRejected):
    """A context_management edit (or a compaction block) the API would refuse: HTTP 400, naming the field."""

    def __init__(self, message: str):
        super().__init__(400, "invalid_request_error", message)


@dataclass
class Managed:
    """What context management made of one request."""
    body: dict[str, Any]                  # the request the model sees
    applied_edits: list[dict[str, Any]]   # one entry per clearing that ran (the SDK's AppliedEdit)
    compaction: Block | None = None       # the new compaction block, if the request was compacted
    compaction_usage: dict[str, Any] | None = None  # its iteration (the SDK's BetaCompactionIterationUsage)
    paused: bool = False                  # pause_after_compaction: no model reply in this response


def serve_context_managed(body: dict[str, Any], betas: str, reply: Callable[[dict[str, Any]], dict[str, Any]],
                          count: BodyCounter, summarise: Summariser = summarise_text) -> dict[str, Any]:
    """The response to a checked request: context management first, then ``reply`` (the fake model); an
    on-demand ``compaction`` request gets its compaction block alone.

    A request with no beta header, no ``context_management``, no ``compaction`` and no compaction block goes to
    ``reply`` untouched. ``betas`` is the ``anthropic-beta`` header; RequestRejected for a bad edit or block."""
    if not betas and "context_management" not in body and "compaction" not in body \
            and not compaction_blocks(body["messages"]):
        return reply(body)
    if "compaction" in body and ON_DEMAND_BETA not in beta_names(betas):
        raise EditRejected(f"compaction: needs the anthropic-beta header {ON_DEMAND_BETA}")
    managed = apply_context_management(body, betas, count, summarise)
    if "compaction" in body:
        instructions = body["compaction"].get("instructions")
        managed.body, managed.compaction, managed.compaction_usage = summarised(managed.body, instructions, count,
                                                                                summarise)
        managed.paused = True
    if managed.paused:
        request_id = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        response = {"id": "msg_" + request_id[:24], "type": "message", "role": "assistant", "model": body["model"],
                    "content": [], "stop_reason": "compaction", "stop_sequence": None, "stop_details": None,
                    "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                              "cache_read_input_tokens": 0}}  # no message iteration ran, so nothing was cached
    else:
        response = reply(managed.body)
    if managed.compaction is not None:
        response["content"] = [managed.compaction, *response["content"]]
        usage = response["usage"]
        message = [] if managed.paused else [{
            "type": "message", "input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"],
            "cache_creation_input_tokens": usage.get("cache_creation_input_tokens") or 0,
            "cache_read_input_tokens": usage.get("cache_read_input_tokens") or 0}]  # the reply's split (caching.py)
        usage["iterations"] = [managed.compaction_usage, *message]
    if "context_management" in body:
        response["context_management"] = {"applied_edits": managed.applied_edits}
    return response


def count_response(body: dict[str, Any], betas: str, count: BodyCounter) -> dict[str, Any]:
    """count_tokens' answer to a checked request: its input tokens, and with ``context_management`` those the
    model would see after the clearing edits, beside ``original_input_tokens`` (no compaction is run)."""
    if betas or "context_management" in body or compaction_blocks(body["messages"]):
        managed = apply_context_management(body, betas, count, None)  # the edits and the blocks checked
        if "context_management" in body:
            return {"input_tokens": count(managed.body), "context_management": {"original_input_tokens": count(body)}}
    return {"input_tokens": count(body)}


def apply_context_management(body: dict[str, Any], betas: str, count: BodyCounter,
                             summarise: Summariser | None = summarise_text) -> Managed:
    """Pure (given a pure ``summarise``): the request the model sees, the clearings applied, and the compaction
    block if one was made (``summarise`` None: no compaction, as count_tokens does).

    The compaction blocks sent back are checked; everything before the last one is dropped first; then each edit
    runs in order."""
    edits = check_context_management(body, beta_names(betas))
    check_returned_blocks(body["messages"])
    seen = {key: value for key, value in body.items() if key not in ("context_management", "compaction")}
    seen["messages"] = after_compaction(body["messages"])
    if not seen["messages"]:
        raise nothing_to_summarize()
    managed = Managed(seen, [])
    for edit in edits:
        if edit["type"] in ("clear_tool_uses_20250919", CLEAR_THINKING):
            clear = clear_old_tool_uses if edit["type"] == "clear_tool_uses_20250919" else clear_thinking
            managed.body, applied = clear(managed.body, edit, count)
            if applied:
                managed.applied_edits.append(applied)
        elif edit["type"] == "compact_20260112" and summarise is not None:
            managed.body, managed.compaction, managed.compaction_usage = compact_request(
                managed.body, edit, count, summarise)
            managed.paused = managed.compaction is not None and bool(edit.get("pause_after_compaction"))
    return managed


# --- the two edits -----------------------------------------------------------------

def clear_old_tool_uses(body: dict[str, Any], edit: dict[str, Any],
                        count: BodyCounter) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``clear_tool_uses_20250919`` on one request: (the edited body, its applied_edits entry), or
    (``body``, None) below the trigger, with nothing to clear, or under ``clear_at_least``."""
    uses = [block for message in body["messages"] if message["role"] == "assistant"
            and isinstance(message["content"], list) for block in message["content"] if block["type"] == "tool_use"]
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": CLEARING_TRIGGER}
    before = count(body)
    if (before if trigger["type"] == "input_tokens" else len(uses)) <= trigger["value"]:
        return body, None
    keep = (edit.get("keep") or {"value": CLEARING_KEEP})["value"]
    excluded = set(edit.get("exclude_tools") or ())
    chosen = {use["id"] for use in uses[:max(len(uses) - keep, 0)] if use["name"] not in excluded}
    if not chosen:
        return body, None
    inputs = edit.get("clear_tool_inputs") or False
    edited = {**body, "messages": copy.deepcopy(body["messages"])}
    for message in edited["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block["type"] == "tool_result" and block["tool_use_id"] in chosen:
                block["content"] = CLEARED_RESULT
            elif block["type"] == "tool_use" and block["id"] in chosen and (
                    inputs is True or isinstance(inputs, list) and block["name"] in inputs):
                block["input"] = {}
    cleared = before - count(edited)
    at_least = (edit.get("clear_at_least") or {"value": 0})["value"]
    if cleared < at_least:
        return body, None
    return edited, {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(chosen),
                    "cleared_input_tokens": cleared}


def compact_request(body: dict[str, Any], edit: dict[str, Any], count: BodyCounter,
                    summarise: Summariser = summarise_text) -> tuple[dict[str, Any], Block | None,
                                                                     dict[str, Any] | None]:
    """``compact_20260112`` on one request: (the body the model answers from, the compaction block,
    its usage iteration), or (``body``, None, None) at or below the trigger."""
    if count(body) <= (edit.get("trigger") or {"value": COMPACTION_TRIGGER})["value"]:
        return body, None, None
    return summarised(body, edit.get("instructions"), count, summarise)


def summarised(body: dict[str, Any], instructions: str | None, count: BodyCounter,
               summarise: Summariser) -> tuple[dict[str, Any], Block, dict[str, Any]]:
    """The conversation of ``body`` summarised (``instructions`` in place of the default prompt, unless empty or
    blank): (the body with the summary standing in for it, the compaction block, the step's usage iteration)."""
    check_tool_references(body["messages"])
    prompt = instructions if instructions and instructions.strip() else COMPACTION_PROMPT
    summary = summarise(
        f"{prompt}\n\n<conversation>\n{json.dumps(body['messages'], ensure_ascii=False)}\n</conversation>")
    usage = {"type": "compaction", "input_tokens": count(body) + text_tokens(prompt),
             "output_tokens": text_tokens(summary), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    return {**body, "messages": [stand_in(summary)]}, compaction_block(summary), usage


# --- compaction blocks in a request ---------------------------------------------------

def compaction_blocks(messages: list[Message]) -> list[tuple[int, int, Block]]:
    """Every compaction block of a checked history as (message index, block index, block)."""
    return [(i, j, block) for i, message in enumerate(messages) if isinstance(message["content"], list)
            for j, block in enumerate(message["content"]) if block["type"] == "compaction"]


def after_compaction(messages: list[Message]) -> list[Message]:
    """What the model sees of a history: from its last compaction block on, the block's summary
    standing in for everything before it. A block with null content (a failed compaction) is a no-op."""
    cuts = [(i, j, block) for i, j, block in compaction_blocks(messages) if block.get("content") is not None]
    if not cuts:
        return without_compaction_blocks(messages)
    i, j, block = cuts[-1]
    rest = [{**messages[i], "content": messages[i]["content"][j + 1:]}, *messages[i + 1:]]
    return [stand_in(block["content"]), *without_compaction_blocks(rest)]


def without_compaction_blocks(messages: list[Message]) -> list[Message]:
    """The messages without their compaction blocks; a message left empty goes too."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [block for block in content if block["type"] != "compaction"]
        if content:
            out.append({**message, "content": content})
    return out


def stand_in(summary: str) -> Message:
    """How the fake's model reads a compaction block: a user message holding the summary."""
    return {"role": "user", "content": summary}


# --- checking the request ---------------------------------------------------------------

def beta_names(betas: str) -> set[str]:
    """The betas an ``anthropic-beta`` header names (comma-separated)."""
    return {b.strip() for b in betas.split(",") if b.strip()}


def check_context_management(body: dict[str, Any], betas: set[str]) -> list[dict[str, Any]]:
    """The request's edits, checked; EditRejected naming the field (or the beta) that is wrong."""
    for i, j, _ in compaction_blocks(body["messages"]):
        if not betas & set(BLOCK_BETAS):
            raise EditRejected(f"messages.{i}.content.{j}: a compaction block needs the "
                               f"anthropic-beta header {' or '.join(BLOCK_BETAS)}")
    config = body.get("context_management")
    if config is None:
        return []
    if not isinstance(config, dict) or set(config) - {"edits"} or not isinstance(config.get("edits", []), list):
        raise EditRejected("context_management: must be an object with a list of edits")
    edits = config.get("edits", [])
    for n, edit in enumerate(edits):
        where = f"context_management.edits.{n}"
        kind = edit.get("type") if isinstance(edit, dict) else None
        if not isinstance(kind, str) or kind not in EDIT_FIELDS:
            raise EditRejected(f"{where}.type: unknown edit type {kind!r}; the fake serves {sorted(EDIT_FIELDS)}")
        if EDIT_BETAS[kind] not in betas:
            raise EditRejected(f"{where}: {kind} needs the anthropic-beta header {EDIT_BETAS[kind]}")
        if any(other.get("type") == kind for other in edits[:n]):
            raise EditRejected(f"{where}: {kind} given twice")
        unknown = sorted(set(edit) - EDIT_FIELDS[kind])
        if unknown:
            raise EditRejected(f"{where}.{unknown[0]}: extra inputs are not permitted")
        if kind == CLEAR_THINKING:
            check_clear_thinking(body, edit, where, n)
            continue
        (check_clearing if kind == "clear_tool_uses_20250919" else check_compaction)(edit, where)
    return edits


def check_clearing(edit: dict[str, Any], where: str) -> None:
    trigger = edit.get("trigger")
    if trigger is not None:
        check_limit(trigger, f"{where}.trigger", ("input_tokens", "tool_uses"))
    if edit.get("keep") is not None:
        check_limit(edit["keep"], f"{where}.keep", ("tool_uses",))
    if edit.get("clear_at_least") is not None:
        check_limit(edit["clear_at_least"], f"{where}.clear_at_least", ("input_tokens",))
    for name in ("exclude_tools", "clear_tool_inputs"):
        value = edit.get(name)
        if value is not None and not (name == "clear_tool_inputs" and isinstance(value, bool)) and not (
                isinstance(value, list) and all(isinstance(tool, str) for tool in value)):
            raise EditRejected(f"{where}.{name}: must be a list of tool names"
                               + (" or a boolean" if name == "clear_tool_inputs" else ""))


def check_compaction(edit: dict[str, Any], where: str) -> None:
    trigger = edit.get("trigger")
    if trigger is not None:
        check_limit(trigger, f"{where}.trigger", ("input_tokens",))
        if trigger["value"] < MIN_COMPACTION_TRIGGER:
            raise EditRejected(f"{where}.trigger.value: must be at least {MIN_COMPACTION_TRIGGER:,} tokens, "
                               f"got {trigger['value']:,}")
    if not isinstance(edit.get("pause_after_compaction", False), bool):
        raise EditRejected(f"{where}.pause_after_compaction: must be a boolean")
    instructions = edit.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise EditRejected(f"{where}.instructions: must be a string")


def check_limit(value: Any, where: str, types: tuple[str, ...]) -> None:
    """A ``{"type": ..., "value": int >= 0}`` object of one of ``types``."""
    if not isinstance(value, dict) or set(value) != {"type", "value"}:
        raise EditRejected(f"{where}: must be an object with exactly a type and a value")
    if value["type"] not in types:
        raise EditRejected(f"{where}.type: must be one of {list(types)}, got {value['type']!r}")
    number = value["value"]
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise EditRejected(f"{where}.value: must be a non-negative integer, got {number!r}")
