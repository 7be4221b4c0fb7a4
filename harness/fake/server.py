"""The fake Messages API: the real SDK talks HTTP to this in-process server (chapter 00).

Routes: ``POST /v1/messages`` (a JSON reply, or server-sent events for ``stream: true``:
``streaming``), ``POST /v1/messages/count_tokens``, ``GET /v1/models`` and ``GET /v1/models/{id}``
(``models_api``); any other is a 404. Every request is checked whole with the API's rules
(``request``): a malformed field, a broken history, an unknown model, a feature the model lacks
(``capabilities``) or input over the model's window (``window``) gets the HTTP error the real API
would send, with the ``error.details.error_code`` the SDK types where it types one, so the SDK raises
its class (``BadRequestError``, ``NotFoundError``, ``ThreadNotFoundError``, ...); a fault of the fake
itself is an HTTP 500 (``InternalServerError``), so no request makes the SDK see a broken connection.
Every error comes before a reply starts: a stream never begins with a fault. A ``thread`` is served
(``threads``): the server keeps each threaded conversation, so a continue is answered from it. The
body's headers are read as the API reads them: ``Content-Encoding`` gzip or none (any other is
``request_body_encoding_unsupported``, a gzip body that does not decode ``request_body_encoding_invalid``)
and a ``Content-Type`` charset of UTF-8, ISO-8859-1 or US-ASCII (any other is ``unsupported_charset``,
as the SDK's ``BetaUnsupportedCharsetError`` describes); which encodings the API takes besides gzip is
not public, and these wordings are *this fake*'s.

The model then reads the request as a model would (``reading``), and says how it read it in the response's
``x-fake-reading`` header (``interpretation``): a summary request gets a summary, anything else
the agent's next step, with only the tools offered; ``max_tokens``, or the window, caps the
reply (``output``). When the agent ends its turn it may call a compaction
tool first: by default on its own judgement, when the system prompt states
a context limit and the request nears it (``judgement``); ``compact_policy``
forces a behaviour instead, for an experiment. Usage is counted from the request with the offline
tokenizer, its input split into cache reads, cache writes and the rest as the API splits it, by the
fake's own prompt cache and clock (``caching``). Replies are a pure function of the request and, for the
cache fields of ``usage``, of the requests before it (and, for a thread's continue, of the turns the server
keeps): the same requests in the same order always get the same bytes.
"""
from __future__ import annotations

import gzip
import hashlib
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import anthropic
import httpx2

from ..core.tokens import block_tokens
from .agent import Action, decide
from .caching import ServerCache
from .capabilities import check_capabilities
from .choice import allows_parallel
from .compaction_rules import compaction_unavailable
from .context_management import count_response, serve_context_managed
from .judgement import compaction_call, near_limit
from .memory import API_MEMORY_INSTRUCTIONS, records_as_it_goes
from .models_api import serve_models
from .options import reported, reported_usage
from .output import cap_output, reply_blocks, stop_at_sequence
from .interpretation import COMPACTION, HEADER, SUMMARY, Reading, read_request
from .reading import summary_material, system_text
from .rejection import RequestRejected
from .request import MEMORY_TYPE, check_request, read_body, request_tokens
from .streaming import canonical, sse_body
from .summarizer import SummaryStyle, summarise_text
from .thinking import displayed
from .threads import ThreadStore
from .tool_roles import offered
from .view import build_view
from .window import WINDOW_STOP, output_room

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
    ``fake.prompt_cache.advance(seconds)`` lets time pass between requests; chapter 09).
    ``threads`` are the message threads the server keeps (``threads.ThreadStore``)."""
    compact_policy: CompactPolicy = "judgement"
    window: int | None = None
    memory_instructions: bool = True
    fail_summaries: int = 0
    empty_summaries: bool = False
    compaction_unavailable: int = 0
    summary_style: SummaryStyle = "extractive"  # "lossy": a summariser that distorts, as a control (chapter 03)
    requests: list[str] = field(default_factory=list)  # "agent" / "summary" / "compaction" / "count", in order
    readings: list[Reading] = field(default_factory=list)  # how it read each messages request (x-fake-reading)
    prompt_cache: ServerCache = field(default_factory=ServerCache)  # this fake's cache and clock (chapter 09)
    threads: ThreadStore = field(default_factory=ThreadStore, repr=False, compare=False)  # threads it keeps

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
        """The HTTP side: ``POST /v1/messages`` (JSON, or server-sent events for ``stream: true``),
        ``POST /v1/messages/count_tokens``, ``GET /v1/models`` and ``GET /v1/models/{id}``; any other
        route is a 404. Every fault is an HTTP error before a reply starts."""
        try:
            route = (request.method, request.url.path.removesuffix("/"))
            if route[0] == "GET" and (route[1] == "/v1/models" or route[1].startswith("/v1/models/")):
                return httpx2.Response(200, json=serve_models(route[1], request.url.query,
                                                                 request.headers.get("anthropic-beta", "")))
            if route == ("POST", "/v1/messages/count_tokens"):
                body = read_body(body_bytes(request))
                self.requests.append("count")
                check_request(body, count=True, headers=request.headers)
                return httpx2.Response(200, json=count_response(body, request.headers.get("anthropic-beta", ""),
                                                                request_tokens))
            if route != ("POST", "/v1/messages"):
                raise RequestRejected(404, "not_found_error", f"{route[0]} {route[1]}: the offline fake serves no "
                                      "such route")
            raw = body_bytes(request)
            return self.messages(raw, read_body(raw), request.headers)
        except RequestRejected as error:  # a bad edit too (EditRejected)
            return httpx2.Response(error.status, json=error.body())
        except Exception as error:  # a fault of the fake itself: an HTTP 500, never a broken transport
            return httpx2.Response(500, json={"type": "error", "error": {
                "type": "api_error", "message": f"the offline fake failed: {type(error).__name__}: {error}"}})

    def messages(self, raw: bytes, body: Any, headers: Mapping[str, str]) -> httpx2.Response:
        """``POST /v1/messages`` (``raw`` its body): a thread opened (``threads``), the request checked, the
        model's reply after any context management, sent whole or streamed."""
        betas = headers.get("anthropic-beta", "")
        whole, continues = self.threads.open(body, betas) if isinstance(body, dict) else (body, None)
        check_request(whole, headers=headers)
        check_capabilities(whole)
        streamed = whole.get("stream") is True  # the same message as the plain request, ids included:
        plain = canonical({k: v for k, v in body.items() if k != "stream"}) if streamed else raw
        request_id = hashlib.sha256(plain).hexdigest()  # chapter 10: context management first
        readings = len(self.readings)
        response = serve_context_managed(whole, betas, lambda b: self.reply(b, request_id), request_tokens,
                                         self.compact)
        if continues is not None:
            self.threads.keep(whole, continues, response)
        if len(self.readings) == readings:  # no model turn ran: the request asked the API to compact
            self.readings.append(COMPACTION)
        headers = {HEADER: self.readings[-1].header()}
        if streamed:
            return httpx2.Response(200, headers={"content-type": "text/event-stream", **headers},
                                   content=sse_body(response))
        return httpx2.Response(200, headers=headers, json=response)

    def reply(self, body: dict[str, Any], request_id: str) -> dict[str, Any]:
        """The model's reply to the request it sees (after any context management); how it read the request goes
        to ``readings``."""
        used = request_tokens(body)
        room = output_room(body, used, self.window)  # on the request the model sees, after any context management
        reading = read_request(body)
        self.readings.append(reading)
        if reading.kind == SUMMARY:
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
        content, cut = cap_output(content, room)
        stop = (WINDOW_STOP if room < body["max_tokens"] else "max_tokens") if cut else "stop_sequence" if sequence \
            else "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        return {
            "id": "msg_" + request_id[:24], "type": "message", "role": "assistant",
            "model": body["model"], "content": displayed(body, content), "stop_reason": stop,
            "stop_sequence": None if cut else sequence, "stop_details": None,
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
        kit = offered(body)
        system = system_text(body)
        if self.memory_instructions and any(t.get("type") == MEMORY_TYPE for t in body.get("tools", [])):
            system = f"{system}\n\n{API_MEMORY_INSTRUCTIONS}"
        action = decide(build_view(body["messages"], kit), kit, records_as_it_goes(system), allows_parallel(body))
        if action.calls or not self.wants_compact(system_text(body), used):
            return action
        call = compaction_call(body.get("tools", []), kit)
        return Action(action.say, (call,)) if call else action

    def wants_compact(self, system: str, used: int) -> bool:
        """Whether the agent compacts after a task, in a request of ``used`` input tokens with ``system``."""
        if self.compact_policy == "judgement":
            return near_limit(system, used)
        if self.compact_policy == "never":
            return False
        if self.compact_policy == "after_task":
            return True
        return used > self.compact_policy


def body_bytes(request: httpx2.Request) -> bytes:
    """The request's body as UTF-8 bytes, decoded as its ``Content-Encoding`` and charset say; or a 400
    with the SDK's ``error_code`` for an encoding or charset the fake does not read."""
    content, encoding = request.content, request.headers.get("content-encoding", "identity").strip().lower()
    if encoding == "gzip":
        try:
            content = gzip.decompress(content)
        except (OSError, EOFError, zlib.error):
            raise RequestRejected(400, "invalid_request_error", "body: not valid for its Content-Encoding gzip",
                                  code="request_body_encoding_invalid") from None
    elif encoding != "identity":
        raise RequestRejected(400, "invalid_request_error", f"Content-Encoding {encoding!r} is not supported",
                              code="request_body_encoding_unsupported")
    charset = request.headers.get("content-type", "").lower().partition("charset=")[2].split(";")[0].strip(' "')
    if charset in ("", "utf-8", "utf8", "us-ascii"):
        return content
    if charset in ("iso-8859-1", "latin-1", "latin1"):
        return content.decode("latin-1").encode()
    raise RequestRejected(400, "invalid_request_error", f"Content-Type charset {charset!r} is not supported: "
                          "send UTF-8, ISO-8859-1 or US-ASCII", code="unsupported_charset")


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



