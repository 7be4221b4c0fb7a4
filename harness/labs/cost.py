"""What a session costs in money, with prompt caching (chapter 09).

A provider bills input and output tokens at different prices, and with
prompt caching it splits the input three ways: the start of the request that
it finds in its cache is a cheap *cache read*, the rest up to the cache
breakpoint is a dearer *cache write* (stored for the next call), and a
request sent without caching is *uncached* at the plain input price.

The model here is the Anthropic API's *automatic caching*
(https://platform.claude.com/docs/en/build-with-claude/prompt-caching): one
breakpoint on the last block of every request. The provider stores the
request's whole prefix, in the order tools, system, then every block of
every message, under that breakpoint. The next request reads the longest
stored prefix it starts with, but looks for one only at the block boundaries
of its last ``lookback_blocks`` blocks (about 20 in the API). So rewriting an
old message (micro-compaction replacing a tool result by a placeholder)
costs a write of everything after the newest stored prefix before it, and a
rewrite further back than the lookback costs a write of the whole request.
``cache_recorder`` keeps each request as it was sent, cut into segments
(one per block), and ``PromptCache`` replays them.

What the model leaves out, said once: entries never expire (the API's
default lifetime is 5 minutes, refreshed by each hit; our sessions have no
clock), one minimum length stands for every call of a price list (the API's
depends on the model), and summary calls are one-off requests, sent uncached.
Everything prices at ``SESSION_PRICES`` unless told otherwise.

``AutomaticCaching`` sends the same requests with the top-level ``cache_control`` (the API's automatic
caching), so the server reports its own split in each reply's ``usage``: chapter 09 sets the fake's
beside this model's, call by call (tests/test_fake_caching_vs_cost.py pins where they differ).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, Sequence

from ..core.loop import CallTrace
from ..core.messages import Message, blocks, check_shape
from ..core.tokens import MESSAGE_OVERHEAD, block_tokens, text_tokens
from .recording import RecordingClient


@dataclass(frozen=True)
class Prices:
    """Prices in dollars per million tokens, and the cache rules that decide which applies.

    The defaults (``EXAMPLE_PRICES``) are Claude Sonnet 5.5's, the current Sonnet model (its model page:
    https://platform.claude.com/docs/en/models/sonnet-5-5/overview; the pricing page,
    https://platform.claude.com/docs/en/about-claude/pricing): input $2, output $10, a 5-minute cache
    write $2.50 (1.25x the input price), a cache read $0.20 (0.1x, as its model page lists it; price
    trackers report a cut to $0.10 from 2026-10-07, not on a stored copy of either page: unverified), and
    a 512-token minimum (the fake's ``MIN_CACHEABLE`` entry, quoted from the prompt-caching page in public
    repositories: unverified). Parameters to vary, not a quote. A prompt shorter than ``min_cacheable``
    tokens is never cached; a request finds a stored prefix only at one of its last ``lookback_blocks``
    block boundaries.
    """
    input: float = 2.0
    output: float = 10.0
    cache_write_factor: float = 1.25
    cache_read_factor: float = 0.10
    min_cacheable: int = 512
    lookback_blocks: int = 20

    def __post_init__(self) -> None:
        for name in ("input", "output", "cache_write_factor", "cache_read_factor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        for name in ("min_cacheable", "lookback_blocks"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")


EXAMPLE_PRICES = Prices()  # Claude Sonnet 5.5: a second price list, for exercises that vary one
# The model every offline session runs on (``DEFAULT_MODEL``, Claude Haiku 4.5): input $1, output $5
# (https://platform.claude.com/docs/en/models/haiku-4-5/overview: a legacy model, still available; the SDK's
# ``_data/deprecated_models.py`` does not list it), the same cache factors, and a prompt shorter than 4,096
# tokens is never cached (the prompt-caching page's minimum for Haiku 4.5, as quoted in
# anthropics/anthropic-sdk-python#1194). Price a session of this course with these unless a chapter says why not.
SESSION_PRICES = Prices(input=1.0, output=5.0, min_cacheable=4_096)
# Claude Sonnet 4.6, the model chapter 08's server compaction runs on (``compact_20260112`` does not run on
# Haiku 4.5: ``core.models``): input $3, output $15 (https://platform.claude.com/docs/en/models/sonnet-4-6/overview:
# a legacy model, still available), the same cache factors (the pricing page's, for every model), and a
# 1,024-token minimum (the fake's ``MIN_CACHEABLE`` entry for it, the same source as Haiku's).
SONNET_4_6_PRICES = Prices(input=3.0, output=15.0, min_cacheable=1_024)
MODEL_PRICES: dict[str, Prices] = {"claude-haiku-4-5": SESSION_PRICES, "claude-haiku-4-5-20251001": SESSION_PRICES,
                                   "claude-sonnet-4-6": SONNET_4_6_PRICES}


def prices_for(model: str) -> Prices:
    """The list prices of ``model`` (one of ``MODEL_PRICES``): a run is priced at the model it ran on.
    ValueError for a model the table lacks, rather than another model's prices."""
    if model not in MODEL_PRICES:
        raise ValueError(f"no prices for {model!r}: the priced models are {sorted(MODEL_PRICES)}")
    return MODEL_PRICES[model]


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


class AutomaticCaching:
    """A client that sends every request with the top-level ``cache_control`` (the SDK's docstring: it
    "automatically applies a cache_control marker to the last cacheable block in the request") and keeps
    each reply's ``usage`` in ``usages``, in call order."""

    MARK = {"type": "ephemeral"}

    def __init__(self, inner: Any) -> None:
        self.inner, self.usages = inner, []

    @property
    def messages(self) -> "AutomaticCaching":
        return self  # so that ``client.messages.create`` lands on ``create`` below

    def create(self, **request: Any) -> Any:
        reply = self.inner.messages.create(**request, cache_control=self.MARK)
        self.usages.append(reply.usage)
        return reply

    def count_tokens(self, **request: Any) -> Any:
        return self.inner.messages.count_tokens(**request)


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


def prefix_fingerprints(segments: Sequence[Segment]) -> list[bytes]:
    """``result[i]`` fingerprints ``segments[:i + 1]``: two requests that start alike up to block i
    have the same fingerprint there."""
    digest, out = hashlib.blake2b(digest_size=16), []
    for segment in segments:
        digest.update(_framed(segment.key))
        out.append(digest.digest())
    return out


def _framed(key: tuple[Any, ...]) -> bytes:
    """A segment key as JSON bytes after their length (encoded once per distinct key when it can be a dict key)."""
    try:
        return _framed_key(key)
    except TypeError:  # a key holding a dict (a tool_use's input): encoded every time
        return _frame(key)


@lru_cache(maxsize=65_536)
def _framed_key(key: tuple[Any, ...]) -> bytes:
    return _frame(key)


def _frame(key: tuple[Any, ...]) -> bytes:
    text = json.dumps(key, sort_keys=True).encode()
    return len(text).to_bytes(8, "big") + text


@dataclass
class PromptCache:
    """The provider's cache under automatic caching: every request stores its whole prefix (its one
    breakpoint is its last block) and reads the longest stored prefix found at one of its last
    ``lookback_blocks`` block boundaries (by default those of ``SESSION_PRICES``). Entries never expire here."""
    min_cacheable: int = SESSION_PRICES.min_cacheable
    lookback_blocks: int = SESSION_PRICES.lookback_blocks
    stored: set[bytes] = field(default_factory=set)

    def send(self, segments: Sequence[Segment]) -> tuple[int, int]:
        """(read, write) tokens of one cached request; stores its prefix. (0, 0): too short to cache."""
        total = sum(s.tokens for s in segments)
        if total < self.min_cacheable:
            return 0, 0
        fingerprints = prefix_fingerprints(segments)
        last = len(segments) - 1
        read = 0
        for i in range(last, max(last - self.lookback_blocks, 0) - 1, -1):
            if fingerprints[i] in self.stored:
                read = sum(s.tokens for s in segments[:i + 1])
                break
        self.stored.add(fingerprints[last])
        return read, total - read


def price(cache_read: int, cache_write: int, uncached: int, output: int, prices: Prices) -> float:
    """Dollars for one call's tokens."""
    per_token = prices.input / 1e6
    return (uncached * per_token + cache_write * per_token * prices.cache_write_factor
            + cache_read * per_token * prices.cache_read_factor + output * prices.output / 1e6)


def break_even_calls(cleared: int, after: int, prices: Prices = SESSION_PRICES) -> float:
    """How many calls it takes, from the first one after the rewrite, before clearing
    ``cleared`` tokens has paid for itself under caching.

    Each of those calls reads ``cleared`` fewer tokens; the first one also
    writes ``after`` tokens it would otherwise have read: what follows the
    newest stored prefix before the cleared block (the whole request when
    the rewrite is further back than the lookback). A placeholder's own few
    tokens are ignored.
    """
    read, write = prices.cache_read_factor, prices.cache_write_factor
    if cleared <= 0 or after < 0 or read <= 0:
        raise ValueError("need cleared > 0 tokens, after >= 0 and a positive cache read price")
    return after * (write - read) / (cleared * read)


def cost_of(trace: Sequence[CallTrace], requests: Sequence[Sequence[Segment]],
            prices: Prices = SESSION_PRICES, *, caching: bool = True) -> CostReport:
    """Price every call of a trace from the requests recorded for it (same order).

    With ``caching`` agent calls go through one ``PromptCache`` (automatic caching);
    summary calls, and every call without ``caching``, are uncached.
    """
    if len(trace) != len(requests):
        raise ValueError(f"{len(trace)} calls traced but {len(requests)} requests recorded")
    calls, cache = [], PromptCache(prices.min_cacheable, prices.lookback_blocks)
    for step, segments in zip(trace, requests):
        total = sum(s.tokens for s in segments)
        read = write = 0
        if caching and step.kind == "agent":
            read, write = cache.send(segments)
        uncached = total - read - write
        calls.append(CallCost(step.call, step.kind, read, write, uncached, step.output_tokens,
                              price(read, write, uncached, step.output_tokens, prices)))
    return CostReport(calls, prices)
