"""What a session costs in money, with prompt caching (chapter 09).

A provider bills input and output tokens at different prices, and with
prompt caching it splits the input three ways: the part of the request that
starts exactly like a request it has already cached is a cheap *cache read*,
the rest is a dearer *cache write* (it is stored for the next call), and a
request sent without caching is *uncached* at the plain input price.

The cache works on prefixes. Rewriting one earlier message (micro-compaction
replacing an old tool result by a placeholder) leaves the prefix before it
cached and turns everything after it into a write again. To see that, we
record what each request looked like (``cache_recorder``), cut it into
segments in the order the API caches them (tools, system, then every block of
every message) and compare consecutive requests segment by segment.

Simplifications, said once: the cache is assumed to hold what the previous
agent request wrote and never to expire (real caches expire after minutes and
look for a hit only at the breakpoints you mark, so real partial hits can be
smaller); summary calls are one-off requests and are sent uncached.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

from ..core.loop import CallTrace
from ..core.messages import Message, blocks, check_shape
from ..core.tokens import MESSAGE_OVERHEAD, block_tokens, text_tokens
from .recording import RecordingClient


@dataclass(frozen=True)
class Prices:
    """Example prices in dollars per million tokens: parameters to play with, not facts.

    The defaults are Anthropic-style example figures: input $3, output $15, a
    cache write costs 1.25x the input price, a cache read 0.1x. A prompt
    shorter than ``min_cacheable`` tokens is never cached.
    """
    input: float = 3.0
    output: float = 15.0
    cache_write_factor: float = 1.25
    cache_read_factor: float = 0.10
    min_cacheable: int = 1024

    def __post_init__(self) -> None:
        for name in ("input", "output", "cache_write_factor", "cache_read_factor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        if isinstance(self.min_cacheable, bool) or not isinstance(self.min_cacheable, int) \
                or self.min_cacheable < 0:
            raise ValueError(f"min_cacheable must be an integer >= 0, got {self.min_cacheable!r}")


EXAMPLE_PRICES = Prices()


# --- what a request looked like ------------------------------------------------

class Segment(NamedTuple):
    """One cacheable piece of a request: a fingerprint to compare and its token count."""
    key: tuple[Any, ...]
    tokens: int


def block_key(block: dict[str, Any]) -> tuple[Any, ...]:
    """A cheap fingerprint: the block's own strings, so equal blocks give equal keys."""
    kind = block.get("type")
    if kind == "text":
        return ("text", block["text"])
    if kind == "tool_use":
        return ("tool_use", block["id"], block["name"], dict(block["input"]))  # a copy: dicts compare by value
    if kind == "tool_result":
        content = block.get("content", "")
        if not isinstance(content, str):
            content = json.dumps(content, sort_keys=True)
        return ("tool_result", block["tool_use_id"], content, bool(block.get("is_error")))
    return ("other", json.dumps(block, sort_keys=True))


def request_segments(messages: list[Message], system: str | None = None,
                     tools: list[dict[str, Any]] | None = None) -> list[Segment]:
    """The request in cache order: tools, system, then each block (a message's framing on its first).

    The token counts add up to ``count_tokens(messages, system, tools)``.
    """
    check_shape(messages)
    segments = []
    if tools:
        schema = json.dumps(tools, sort_keys=True)
        segments.append(Segment(("tools", schema), text_tokens(schema)))
    if system:
        segments.append(Segment(("system", system), text_tokens(system)))
    for message in messages:
        for j, block in enumerate(blocks(message)):
            framing = MESSAGE_OVERHEAD if j == 0 else 0
            segments.append(Segment((message["role"] if j == 0 else "", *block_key(block)),
                                    framing + block_tokens(block)))
    return segments


def common_prefix(before: Sequence[Segment], after: Sequence[Segment]) -> int:
    """How many leading segments two requests share."""
    n = 0
    for a, b in zip(before, after):
        if a.key != b.key:
            break
        n += 1
    return n


def cache_recorder(client: Any) -> RecordingClient:
    """A client that keeps the segments of every request it sends (``records[i]`` for ``trace[i]``)."""
    return RecordingClient(client, lambda request: request_segments(
        request["messages"], request.get("system"), request.get("tools")))


# --- pricing -------------------------------------------------------------------

@dataclass(frozen=True)
class CallCost:
    """One call's input split three ways, its output, and its price in dollars."""
    call: int
    kind: str
    cache_read: int
    cache_write: int
    uncached: int
    output: int
    dollars: float

    @property
    def input(self) -> int:
        return self.cache_read + self.cache_write + self.uncached


PARTS = ("cache_read", "cache_write", "uncached", "output")


@dataclass(frozen=True)
class CostReport:
    calls: list[CallCost]
    prices: Prices

    def total(self, field: str) -> float:
        """The sum over all calls of one ``CallCost`` field (tokens, or ``dollars``)."""
        return sum(getattr(c, field) for c in self.calls)

    @property
    def dollars(self) -> float:
        return self.total("dollars")

    def dollars_for(self, part: str) -> float:
        """Dollars spent on one of ``PARTS``."""
        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, got {part!r}")
        return price(**{p: int(self.total(p)) if p == part else 0 for p in PARTS}, prices=self.prices)


def cache_split(previous: Sequence[Segment] | None, current: Sequence[Segment],
                min_cacheable: int) -> tuple[int, int]:
    """(read, write) tokens of a cached request, given what the previous one wrote."""
    total = sum(s.tokens for s in current)
    if total < min_cacheable:
        return 0, 0
    shared = common_prefix(previous or [], current)
    read = sum(s.tokens for s in current[:shared])
    if read < min_cacheable or sum(s.tokens for s in previous or []) < min_cacheable:
        read = 0  # nothing that short was ever written
    return read, total - read


def price(cache_read: int, cache_write: int, uncached: int, output: int, prices: Prices) -> float:
    """Dollars for one call's tokens."""
    per_token = prices.input / 1e6
    return (uncached * per_token + cache_write * per_token * prices.cache_write_factor
            + cache_read * per_token * prices.cache_read_factor + output * prices.output / 1e6)


def break_even_calls(cleared: int, after: int, prices: Prices = EXAMPLE_PRICES) -> float:
    """How many calls it takes, from the first one after the rewrite, before clearing
    ``cleared`` tokens has paid for itself under caching.

    Each of those calls reads ``cleared`` fewer tokens; the first one also
    writes the ``after`` tokens that follow the cleared block instead of
    reading them. (A placeholder's own few tokens are ignored.)
    """
    read, write = prices.cache_read_factor, prices.cache_write_factor
    if cleared <= 0 or after < 0 or read <= 0:
        raise ValueError("need cleared > 0 tokens, after >= 0 and a positive cache read price")
    return after * (write - read) / (cleared * read)


def cost_of(trace: Sequence[CallTrace], requests: Sequence[Sequence[Segment]],
            prices: Prices = EXAMPLE_PRICES, *, caching: bool = True) -> CostReport:
    """Price every call of a trace from the requests recorded for it (same order).

    With ``caching`` agent calls are cached (each reads what the previous agent
    call wrote); summary calls, and every call without ``caching``, are uncached.
    """
    if len(trace) != len(requests):
        raise ValueError(f"{len(trace)} calls traced but {len(requests)} requests recorded")
    calls, previous = [], None
    for step, segments in zip(trace, requests):
        total = sum(s.tokens for s in segments)
        read = write = 0
        if caching and step.kind == "agent":
            read, write = cache_split(previous, segments, prices.min_cacheable)
            previous = segments
        uncached = total - read - write
        calls.append(CallCost(step.call, step.kind, read, write, uncached, step.output_tokens,
                              price(read, write, uncached, step.output_tokens, prices)))
    return CostReport(calls, prices)
