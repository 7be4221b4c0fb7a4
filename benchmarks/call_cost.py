"""What one simulated call costs, against the floor no fake behind the real SDK can beat.

The long session (71 requests, the three layers at their defaults) runs once
through the fake, with clocks around the transport (the fake) and around
``messages.create`` (the SDK and the fake). Every request body and every
response it got is kept. The floor is the same requests sent through a new SDK
client of the same kind to a transport that returns each recorded response as it
is: the SDK's own cost of building a request and parsing a reply. The split:

- SDK: time inside ``messages.create`` less the fake's;
- fake: the transport's handler, from request bytes to response;
- tools: the workspace's tools (files read and written, ``wc`` and ``grep`` run as programs);
- loop: everything else of the session's requests (the layers, the checks, the counting).

The session is timed from its first request to its last (the workspace is built before). Both
runs are repeated, interleaved, and the median of each is kept.
"""
from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from harness import CompactionConfig, Toolbox, ToolOutcome, Workspace
from harness.fake import FakeModel
from harness.labs.scenarios import LONG_SESSION
from harness.session.runner import Session
from harness.strategies.three_layers import ThreeLayers

from .scratch import scratch_root
from .table import format_table

TARGET = 2.0  # at most this many times the floor


@dataclass(frozen=True)
class CallCost:
    calls: int
    session: float   # seconds of the session's requests through the fake (median)
    sdk: float       # of which inside messages.create but not in the fake
    fake: float      # of which in the fake's handler
    tools: float     # of which in the workspace's tools
    floor: float     # the same requests through the SDK to canned responses (median)

    @property
    def loop(self) -> float:
        return self.session - self.sdk - self.fake - self.tools

    @property
    def ratio(self) -> float:
        """The session's time per call against the floor's."""
        return self.session / self.floor

    @property
    def call_ratio(self) -> float:
        """One call through the fake (SDK and fake) against the floor."""
        return (self.sdk + self.fake) / self.floor

    @property
    def meets_target(self) -> bool:
        return self.ratio <= TARGET


class TimedFake(FakeModel):
    """The fake, with a clock around its handler and a copy of every exchange."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0
        self.exchanges: list[tuple[bytes, bytes]] = []  # request and response bodies, parsed later

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        start = time.perf_counter()
        response = super().handle(request)
        self.seconds += time.perf_counter() - start
        self.exchanges.append((request.content, response.content))
        return response


class TimedToolbox(Toolbox):
    """The workspace's tools, with a clock around every call."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace)
        self.seconds = 0.0

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        start = time.perf_counter()
        try:
            return super().run(name, tool_input)
        finally:
            self.seconds += time.perf_counter() - start


class TimedClient:
    """An SDK client whose ``messages.create`` is timed (the loop calls nothing else here)."""

    def __init__(self, inner: anthropic.Anthropic) -> None:
        self.inner, self.seconds = inner, 0.0

    @property
    def messages(self) -> "TimedClient":
        return self

    def create(self, **request: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.inner.messages.create(**request)
        finally:
            self.seconds += time.perf_counter() - start


def one_session(requests: tuple[str, ...]) -> tuple[tuple[float, float, float, float], list[tuple[bytes, bytes]]]:
    """((session, create, fake, tools) seconds, exchanges) of one run of the long session: the three
    layers at their defaults, as ``run_scenario`` runs it."""
    fake = TimedFake()
    client = TimedClient(fake.client())
    with scratch_root() as root:
        toolbox = TimedToolbox(LONG_SESSION.build(root / "workspace"))
        session = Session(client, toolbox, CompactionConfig(transcript_dir=root / "transcripts"), ThreeLayers())
        start = time.perf_counter()
        for request in requests:
            session.ask(request)
        seconds = time.perf_counter() - start
    return (seconds, client.seconds, fake.seconds, toolbox.seconds), fake.exchanges


def floor_seconds(exchanges: list[tuple[bytes, bytes]]) -> float:
    """The same requests through a new SDK client whose transport returns each recorded response."""
    bodies = [json.loads(body) for body, _ in exchanges]
    replies = iter([reply for _, reply in exchanges])

    def canned(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=next(replies), headers={"content-type": "application/json"})

    client = anthropic.Anthropic(api_key="fake-key-offline", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(canned)))
    start = time.perf_counter()
    for body in bodies:
        client.messages.create(**body)
    return time.perf_counter() - start


def measure(requests: tuple[str, ...] = LONG_SESSION.requests, repeats: int = 5) -> CallCost:
    """Median session and floor times over ``repeats`` interleaved runs, after one warm-up of each."""
    _, exchanges = one_session(requests)
    floor_seconds(exchanges)
    sessions, floors = [], []
    for _ in range(repeats):
        sessions.append(one_session(requests)[0])
        floors.append(floor_seconds(exchanges))
    session, create, fake, tools = sorted(sessions)[len(sessions) // 2]
    return CallCost(len(exchanges), session, create - fake, fake, tools, statistics.median(floors))


def render(c: CallCost) -> str:
    def per_call(seconds: float) -> str:
        return f"{seconds / c.calls * 1000:.2f} ms"

    def share(seconds: float) -> str:
        return f"{seconds / c.session:.0%}"

    rows = [
        ["session through the fake", per_call(c.session), "100%", f"{c.ratio:.2f}x"],
        ["  SDK (request and reply)", per_call(c.sdk), share(c.sdk), ""],
        ["  fake (the handler)", per_call(c.fake), share(c.fake), ""],
        ["  tools (files, programs)", per_call(c.tools), share(c.tools), ""],
        ["  loop (layers, checks, counting)", per_call(c.loop), share(c.loop), ""],
        ["a call: SDK and fake", per_call(c.sdk + c.fake), "", f"{c.call_ratio:.2f}x"],
        ["floor: SDK to canned replies", per_call(c.floor), "", "1.00x"],
    ]
    return format_table(f"Cost of one call, long session ({c.calls} calls): the session at most {TARGET:.1f}x "
                        f"the floor, {verdict(c)}", ["", "per call", "share", "vs floor"], rows)


def verdict(c: CallCost) -> str:
    return "PASS" if c.meets_target else "FAIL"
