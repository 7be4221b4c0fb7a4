"""The fake Messages API: the real SDK talks HTTP to this in-process server (chapter 00).

Every request is checked with the API's rules; a broken history gets the
HTTP 400 the real API would send, so the SDK raises ``BadRequestError``.
Usage is counted from the request with the offline tokenizer. Replies are a
pure function of the request: the same request always gets the same bytes.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

import anthropic
import httpx2

from ..core.messages import InvalidHistory, blocks, text, validate_messages
from ..core.tokens import block_tokens, count_tokens
from .agent import Action, action_blocks, decide
from .context_management import EditRejected, serve_context_managed
from .summarizer import summarise_text
from .view import build_view

CompactPolicy = Literal["never", "after_task"] | int  # an int N: after a task, when above N tokens


class RequestRejected(Exception):
    def __init__(self, status: int, kind: str, message: str):
        super().__init__(message)
        self.status, self.kind = status, kind


@dataclass
class FakeModel:
    """The fake Claude. ``compact_policy`` says when the agent calls ``compact``;
    ``fail_summaries`` makes that many summary calls fail with HTTP 500 and
    ``empty_summaries`` makes summary replies empty (both for testing failures)."""
    compact_policy: CompactPolicy = "never"
    fail_summaries: int = 0
    empty_summaries: bool = False
    requests: list[str] = field(default_factory=list)  # "agent" / "summary" / "count", in order

    def client(self) -> anthropic.Anthropic:
        transport = httpx2.MockTransport(self.handle)
        return anthropic.Anthropic(api_key="fake-key-offline", max_retries=0,
                                   http_client=httpx2.Client(transport=transport))

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        try:
            body = json.loads(request.content)
            if request.url.path.endswith("/count_tokens"):
                self.requests.append("count")
                check_request(body, needs_max_tokens=False)
                return httpx2.Response(200, json={"input_tokens": request_tokens(body)})
            check_request(body)
            request_id = hashlib.sha256(request.content).hexdigest()  # chapter 09: context management first
            return httpx2.Response(200, json=serve_context_managed(
                body, request.headers.get("anthropic-beta", ""), lambda b: self.reply(b, request_id), request_tokens))
        except (RequestRejected, EditRejected) as error:
            return httpx2.Response(error.status, json={
                "type": "error", "error": {"type": error.kind, "message": str(error)}})

    def reply(self, body: dict[str, Any], request_id: str) -> dict[str, Any]:
        if is_summary_request(body):
            self.requests.append("summary")
            if self.requests.count("summary") <= self.fail_summaries:
                raise RequestRejected(500, "api_error", "the fake summariser failed on purpose")
            summary = "" if self.empty_summaries else summarise_text(request_text(body))
            content = [text(summary)] if summary else []
        else:
            self.requests.append("agent")
            content = action_blocks(self.act(body), "toolu_" + request_id[:20])
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        return {
            "id": "msg_" + request_id[:24], "type": "message", "role": "assistant",
            "model": body["model"], "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": request_tokens(body),
                      "output_tokens": sum(block_tokens(b) for b in content)},
        }

    def act(self, body: dict[str, Any]) -> Action:
        action = decide(build_view(body["messages"]))
        offered = {t["name"] for t in body.get("tools", [])}
        if action.tool or "compact" not in offered or not self.wants_compact(body):
            return action
        return Action(action.say, "compact", {"focus": "the user's requests, decisions and notes"})

    def wants_compact(self, body: dict[str, Any]) -> bool:
        if self.compact_policy == "never":
            return False
        if self.compact_policy == "after_task":
            return True
        return request_tokens(body) > self.compact_policy


def fake_client(**options: Any) -> anthropic.Anthropic:
    """A real ``anthropic.Anthropic`` served offline by a ``FakeModel(**options)``."""
    return FakeModel(**options).client()


def check_request(body: dict[str, Any], needs_max_tokens: bool = True) -> None:
    """Raise RequestRejected(400) for anything the real API would refuse."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestRejected(400, "invalid_request_error", "model: field required")
    if needs_max_tokens and not (isinstance(body.get("max_tokens"), int) and body["max_tokens"] >= 1):
        raise RequestRejected(400, "invalid_request_error", "max_tokens: must be a positive integer")
    for i, tool in enumerate(body.get("tools", [])):
        if not (isinstance(tool, dict) and tool.get("name") and isinstance(tool.get("input_schema"), dict)):
            raise RequestRejected(400, "invalid_request_error", f"tools.{i}: needs a name and an input_schema")
    try:
        validate_messages(body.get("messages"))
    except InvalidHistory as error:
        raise RequestRejected(400, "invalid_request_error", f"messages: {error}") from None


def is_summary_request(body: dict[str, Any]) -> bool:
    return not body.get("tools") and "summar" in request_text(body).lower()


def request_text(body: dict[str, Any]) -> str:
    return "\n".join(b["text"] for m in body["messages"] for b in blocks(m) if b.get("type") == "text")


def request_tokens(body: dict[str, Any]) -> int:
    system = body.get("system")
    if isinstance(system, list):
        system = "\n".join(b.get("text", "") for b in system)
    return count_tokens(body["messages"], system=system, tools=body.get("tools"))


