"""The fake Messages API: the real SDK talks HTTP to this in-process server (chapter 00).

Every request is checked whole with the API's rules (``request``): a
malformed field, a broken history, an unknown model or a request over the
model's window gets the HTTP error the real API would send, so the SDK raises
``BadRequestError`` (or ``NotFoundError``); a fault of the fake itself is an
HTTP 500 (``InternalServerError``), so no request makes the SDK see a broken
connection. The model then reads the request as a model would (``reading``):
a summary request gets a summary, anything else
the agent's next step, with only the tools offered; ``max_tokens`` caps the
reply (``output``). When the agent ends its turn it may call a compaction
tool first: by default on its own judgement, when the system prompt states
a context limit and the request nears it (``judgement``); ``compact_policy``
forces a behaviour instead, for an experiment. Usage is counted from the request with the offline
tokenizer, its input split into cache reads, cache writes and the rest as the API splits it, by the
fake's own prompt cache and clock (``caching``). Replies are a pure function of the request and, for the
cache fields of ``usage``, of the requests before it: the same requests in the same order always get the
same bytes.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

import anthropic
import httpx2

from ..core.tokens import block_tokens
from .agent import Action, decide
from .caching import ServerCache
from .choice import allows_parallel
from .compaction_rules import compaction_unavailable
from .context_management import count_response, serve_context_managed
from .judgement import compaction_call, near_limit
from .memory import API_MEMORY_INSTRUCTIONS, records_as_it_goes
from .options import reported, reported_usage
from .output import cap_output, reply_blocks, stop_at_sequence
from .reading import is_summary_request, offered_tools, summary_material, system_text
from .request import MEMORY_TYPE, RequestRejected, check_request, check_window, read_body, request_tokens
from .summarizer import SummaryStyle, summarise_text
from .thinking import displayed
from .view import build_view

CompactPolicy = Literal["judgement", "never", "after_task"] | int  # an int N: after a task, when above N tokens


@dataclass
class FakeModel:
    """The fake Claude. ``compact_policy`` says when the agent calls a compaction tool at the end of a
    task: ``"judgement"`` (the default) when the system prompt states a context limit and the request's
    input nears it, ``"never"`` (whatever the prompt says), ``"after_task"`` always, an int N when the
    request's input is above N tokens (chapter 04);
    ``fail_summaries`` makes that many summary calls fail with HTTP 500,
    ``empty_summaries`` makes summary replies empty, and ``compaction_unavailable`` makes that many server
    compactions (chapter 10) fail with the API's 529 ``compaction_unavailable`` (all for testing failures).
    ``window`` pretends the model's context window is that many tokens (chapter 08); None: the real one.
    ``memory_instructions``: the model reads the API's memory instructions after the system prompt when the
    memory tool is offered, as the API adds them (chapter 11; their tokens are not counted); False, a control.
    ``prompt_cache``: the API's prompt cache as this fake keeps it, with its clock (``caching.ServerCache``:
    ``fake.prompt_cache.advance(seconds)`` lets time pass between requests; chapter 09)."""
    compact_policy: CompactPolicy = "judgement"
    window: int | None = None
    memory_instructions: bool = True
    fail_summaries: int = 0
    empty_summaries: bool = False
    compaction_unavailable: int = 0
    summary_style: SummaryStyle = "extractive"  # "lossy": a summariser that distorts, as a control (chapter 03)
    requests: list[str] = field(default_factory=list)  # "agent" / "summary" / "compaction" / "count", in order
    prompt_cache: ServerCache = field(default_factory=ServerCache)  # this fake's cache and clock (chapter 09)

    def __post_init__(self) -> None:
        policy = self.compact_policy
        if policy not in ("judgement", "never", "after_task") and (
                isinstance(policy, bool) or not isinstance(policy, int) or policy < 0):
            raise ValueError(f"compact_policy must be 'judgement', 'never', 'after_task' or tokens (an int >= 0), "
                             f"got {policy!r}")

    def client(self) -> anthropic.Anthropic:
        transport = httpx2.MockTransport(self.handle)
        client = FakeClient(api_key="fake-key-offline", max_retries=0, http_client=httpx2.Client(transport=transport))
        client.fake = self
        return client

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        try:
            body = read_body(request.content)
            if request.url.path.endswith("/count_tokens"):
                self.requests.append("count")
                check_request(body, count=True, headers=request.headers)
                return httpx2.Response(200, json=count_response(body, request.headers.get("anthropic-beta", ""),
                                                                request_tokens))
            check_request(body, headers=request.headers)
            request_id = hashlib.sha256(request.content).hexdigest()  # chapter 10: context management first
            return httpx2.Response(200, json=serve_context_managed(
                body, request.headers.get("anthropic-beta", ""), lambda b: self.reply(b, request_id), request_tokens,
                self.compact))
        except RequestRejected as error:  # a bad edit too (EditRejected)
            return httpx2.Response(error.status, json=error.body())
        except Exception as error:  # a fault of the fake itself: an HTTP 500, never a broken transport
            return httpx2.Response(500, json={"type": "error", "error": {
                "type": "api_error", "message": f"the offline fake failed: {type(error).__name__}: {error}"}})

    def reply(self, body: dict[str, Any], request_id: str) -> dict[str, Any]:
        used = request_tokens(body)
        check_window(body, self.window, used)  # on the request the model sees, after any context management
        if is_summary_request(body):
            self.requests.append("summary")
            if self.requests.count("summary") <= self.fail_summaries:
                raise RequestRejected(500, "api_error", "the fake summariser failed on purpose")
            summary = "" if self.empty_summaries else summarise_text(summary_material(body), self.summary_style)
            action = Action(summary or None)
        else:
            self.requests.append("agent")
            action = self.act(body, used)
        content = reply_blocks(body, action, "toolu_" + request_id[:20])  # tool choice, thinking: output.py
        content, sequence = stop_at_sequence(content, body.get("stop_sequences", []))
        content, cut = cap_output(content, body["max_tokens"])
        stop = "max_tokens" if cut else "stop_sequence" if sequence else \
            "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        return {
            "id": "msg_" + request_id[:24], "type": "message", "role": "assistant",
            "model": body["model"], "content": displayed(body, content), "stop_reason": stop,
            "stop_sequence": None if cut else sequence,
            "usage": {**self.prompt_cache.usage(body, used),  # the input split as caching.py says
                      "output_tokens": sum(block_tokens(b) for b in content), **reported_usage(body, content)},
            **reported(body),
        }

    def compact(self, material: str) -> str:
        """The summarising step of a server compaction (chapter 10): ``material`` is the prompt and the
        conversation; the 529 ``compaction_unavailable`` for the first ``compaction_unavailable`` of them."""
        self.requests.append("compaction")
        if self.requests.count("compaction") <= self.compaction_unavailable:
            raise compaction_unavailable()
        return summarise_text(material)

    def act(self, body: dict[str, Any], used: int) -> Action:
        offered = offered_tools(body)
        system = system_text(body)
        if self.memory_instructions and any(t.get("type") == MEMORY_TYPE for t in body.get("tools", [])):
            system = f"{system}\n\n{API_MEMORY_INSTRUCTIONS}"
        action = decide(build_view(body["messages"]), offered, records_as_it_goes(system), allows_parallel(body))
        if action.tool or not self.wants_compact(system_text(body), used):
            return action
        call = compaction_call(body.get("tools", []), offered)
        return Action(action.say, *call) if call else action

    def wants_compact(self, system: str, used: int) -> bool:
        """Whether the agent compacts after a task, in a request of ``used`` input tokens with ``system``."""
        if self.compact_policy == "judgement":
            return near_limit(system, used)
        if self.compact_policy == "never":
            return False
        if self.compact_policy == "after_task":
            return True
        return used > self.compact_policy


class FakeClient(anthropic.Anthropic):
    """The SDK's client, served by a ``FakeModel`` (``fake``). Unlike a client of the real API it can be
    pickled: it arrives as a new client of a copy of the same fake, which is how a session run in a
    worker process comes back (``harness.labs.parallel``)."""
    fake: FakeModel

    def __reduce__(self) -> tuple[Any, ...]:
        if "fake" not in vars(self):  # a copy made by with_options(): the SDK's own client, not pickled
            raise TypeError("only a client made by FakeModel.client() can be pickled")
        return FakeModel.client, (self.fake,)


def fake_client(**options: Any) -> anthropic.Anthropic:
    """A real ``anthropic.Anthropic`` served offline by a ``FakeModel(**options)``."""
    return FakeModel(**options).client()



