"""What one simulated call costs, against the floor no fake behind the real SDK can beat.

The long session (71 requests, the three layers at their defaults) runs once
through the fake, with clocks around the transport (the fake) and around
``messages.create`` (the SDK and the fake). Every request body and every
response it got is kept. The floor is the same requests sent through a new SDK
client of the same kind to a transport that returns each recorded response as it
is: the SDK's own cost of building a request and parsing a reply. The split:

- SDK: time inside ``messages.create`` less the fake's;
- fake: the transport's handler, from request bytes to response;
- loop: everything else of the session (the layers, the tools, the counting).

Both runs are repeated, interleaved, and the median of each is kept.
"""
from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from harness import CompactionConfig
from harness.fake import FakeModel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION

from .scratch import scratch_root
from .table import format_table

TARGET = 2.0  # at most this many times the floor


@dataclass(frozen=True)
class CallCost:
    calls: int
    session: float   # seconds of the session's requests through the fake (median)
    sdk: float       # of which inside messages.create but not in the fake
    fake: float      # of which in the fake's handler
    floor: float     # the same requests through the SDK to canned responses (median)

    @property
    def loop(self) -> float:
        return self.session - self.sdk - self.fake

    @property
    def ratio(self) -> float:
        return self.session / self.floor

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


def one_session(requests: tuple[str, ...]) -> tuple[float, float, float, list[tuple[bytes, bytes]]]:
    """(session seconds, create seconds, fake seconds, exchanges) of one run of the long session."""
    fake = TimedFake()
    client = TimedClient(fake.client())
    with scratch_root() as root:
        start = time.perf_counter()
        run_scenario(LONG_SESSION, CompactionConfig(), root, client=client, requests=requests)
        seconds = time.perf_counter() - start
    return seconds, client.seconds, fake.seconds, fake.exchanges


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
    *_, exchanges = one_session(requests)
    floor_seconds(exchanges)
    sessions, floors = [], []
    for _ in range(repeats):
        sessions.append(one_session(requests)[:3])
        floors.append(floor_seconds(exchanges))
    session, sdk, fake = sorted(sessions)[len(sessions) // 2]
    return CallCost(len(exchanges), session, sdk - fake, fake, statistics.median(floors))


def render(c: CallCost) -> str:
    def per_call(seconds: float) -> str:
        return f"{seconds / c.calls * 1000:.2f} ms"

    def share(seconds: float) -> str:
        return f"{seconds / c.session:.0%}"

    rows = [
        ["session through the fake", per_call(c.session), "100%", f"{c.ratio:.2f}x"],
        ["  SDK (request and reply)", per_call(c.sdk), share(c.sdk), ""],
        ["  fake (the handler)", per_call(c.fake), share(c.fake), ""],
        ["  loop (layers, tools, counting)", per_call(c.loop), share(c.loop), ""],
        ["floor: SDK to canned replies", per_call(c.floor), "", "1.00x"],
    ]
    verdict = "PASS" if c.meets_target else "FAIL"
    return format_table(f"Cost of one call, long session ({c.calls} calls): at most {TARGET:.1f}x the floor, "
                        f"{verdict}", ["", "per call", "share", "vs floor"], rows)
