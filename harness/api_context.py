"""The API's own context management, built with the SDK's beta types (chapter 10).

The API does on Anthropic's side what this course builds by hand: context
editing (``clear_tool_uses_20250919``, like micro-compaction, and
``clear_thinking_20251015``, the same for thinking blocks), compaction at a
threshold (``compact_20260112``, like auto-compaction) and compaction on
demand (``compaction={"type": "summarize"}``, like the manual layer). This
module builds their request payloads, checks them against the SDK's own
TypedDicts, and shows the exact JSON the SDK sends, all offline.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import anthropic
import httpx2
import pydantic
from anthropic.types.beta import (BetaClearThinking20251015EditParam, BetaClearToolUses20250919EditParam,
                                  BetaCompact20260112EditParam, BetaCompactionConfigParam)

CONTEXT_EDITING_BETA = "context-management-2025-06-27"
COMPACTION_BETA = "compact-2026-01-12"
ON_DEMAND_COMPACTION_BETA = "compact-2026-09-04"  # the SDK's tool runner names it for compact_before_next_turn()
EDIT_TYPES: dict[str, type] = {
    "clear_tool_uses_20250919": BetaClearToolUses20250919EditParam,
    "clear_thinking_20251015": BetaClearThinking20251015EditParam,
    "compact_20260112": BetaCompact20260112EditParam,
}
Sent = list[tuple[str, dict[str, Any]]]  # (anthropic-beta header, JSON body) of each request, in order


def clear_tool_uses(*, trigger: int = 100_000, keep: int = 3, clear_at_least: int | None = None,
                    exclude_tools: list[str] | None = None, clear_tool_inputs: bool = False) -> dict[str, Any]:
    """A context-editing edit: past ``trigger`` input tokens, clear all but ``keep`` tool results."""
    edit: dict[str, Any] = {"type": "clear_tool_uses_20250919",
                            "trigger": {"type": "input_tokens", "value": trigger},
                            "keep": {"type": "tool_uses", "value": keep},
                            "clear_tool_inputs": clear_tool_inputs}
    if clear_at_least is not None:
        edit["clear_at_least"] = {"type": "input_tokens", "value": clear_at_least}
    if exclude_tools:
        edit["exclude_tools"] = list(exclude_tools)
    return edit


def server_compaction(*, trigger: int = 150_000, instructions: str | None = None,
                      pause_after_compaction: bool = False) -> dict[str, Any]:
    """A server-compaction edit: past ``trigger`` input tokens, the API summarises older context."""
    edit: dict[str, Any] = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": trigger},
                            "pause_after_compaction": pause_after_compaction}
    if instructions:
        edit["instructions"] = instructions
    return edit


def clear_thinking_turns(*, keep: int | None = 1) -> dict[str, Any]:
    """A context-editing edit for thinking blocks: keep those of the newest ``keep`` thinking turns (None: all).
    The API takes it only with thinking on, and first among the edits (the context-editing docs)."""
    return {"type": "clear_thinking_20251015",
            "keep": "all" if keep is None else {"type": "thinking_turns", "value": keep}}


def on_demand_compaction(instructions: str | None = None) -> dict[str, Any]:
    """The ``compaction`` field of a request that asks for a summary now (beta ``ON_DEMAND_COMPACTION_BETA``),
    checked against the SDK's ``BetaCompactionConfigParam``; ``instructions`` replace the default prompt."""
    field: dict[str, Any] = {"type": "summarize"}
    if instructions:
        field["instructions"] = instructions
    try:
        pydantic.TypeAdapter(BetaCompactionConfigParam).validate_python(field)
    except pydantic.ValidationError as error:
        raise ValueError(f"compaction: {error}") from None
    return field


def check_edit(edit: dict[str, Any]) -> None:
    """Raise ValueError unless ``edit`` matches the SDK's TypedDict for its type (no unknown keys)."""
    param_type = EDIT_TYPES.get(edit.get("type", ""))
    if param_type is None:
        raise ValueError(f"unknown edit type {edit.get('type')!r}; expected one of {sorted(EDIT_TYPES)}")
    unknown = set(edit) - set(param_type.__annotations__)
    if unknown:
        raise ValueError(f"{edit['type']}: unknown keys {sorted(unknown)}")
    try:
        pydantic.TypeAdapter(param_type).validate_python(edit)
    except pydantic.ValidationError as error:  # the first line names the field, then pydantic's whole report
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{edit['type']}.{where}: {first['msg']}\n{error}") from None


def betas_for(edits: list[dict[str, Any]]) -> list[str]:
    """The beta flags a request with these edits needs."""
    needed = {CONTEXT_EDITING_BETA if e["type"].startswith("clear_") else COMPACTION_BETA for e in edits}
    return sorted(needed)


def wire_request(request: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Send ``client.beta.messages.create(**request)`` to a capturing transport, offline.

    Returns the JSON body the SDK would put on the wire and its ``anthropic-beta`` header.
    """
    captured: dict[str, Any] = {}

    def capture(http_request: httpx2.Request) -> httpx2.Response:
        captured["body"] = json.loads(http_request.content)
        captured["beta"] = http_request.headers.get("anthropic-beta", "")
        return httpx2.Response(200, json={
            "id": "msg_capture", "type": "message", "role": "assistant", "model": request["model"],
            "content": [{"type": "text", "text": "(captured, not sent)"}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}})

    client = anthropic.Anthropic(api_key="capture-only", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(capture)))
    client.beta.messages.create(**request)
    return captured["body"], captured["beta"]


def listening_client(handle: Callable[[httpx2.Request], httpx2.Response]) -> tuple[anthropic.Anthropic, Sent]:
    """A client whose every request is answered by ``handle`` (offline, the fake's ``FakeModel.handle``), and the
    list to which each Messages request it sends is appended first: what an SDK helper really puts on the wire."""
    sent: Sent = []

    def listen(http_request: httpx2.Request) -> httpx2.Response:
        if http_request.method == "POST" and http_request.url.path == "/v1/messages":
            sent.append((http_request.headers.get("anthropic-beta", ""), json.loads(http_request.content)))
        return handle(http_request)

    client = anthropic.Anthropic(api_key="listening-client", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(listen)))
    return client, sent


def context_managed_request(messages: list[dict[str, Any]], edits: list[dict[str, Any]], *, model: str,
                            max_tokens: int = 1024, system: str | None = None,
                            tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``client.beta.messages.create`` with the given edits, checked first.

    ``messages`` goes as given: this room imports nothing of ``harness``, and the API checks it."""
    for edit in edits:
        check_edit(edit)
    request: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": messages,
                               "context_management": {"edits": edits}, "betas": betas_for(edits)}
    if system:
        request["system"] = system
    if tools:
        request["tools"] = tools
    return request
