"""Prompt caching as the Messages API reports it, served by the fake (chapter 09).

A request marks *breakpoints* with ``cache_control`` (``{"type": "ephemeral", "ttl": "5m" | "1h"}``,
the SDK's ``CacheControlEphemeralParam``; ``ttl`` defaults to ``"5m"``): on a tool, a system block,
a message's block, or a block inside a tool_result's content; or once at the top level, which is the
API's *automatic caching* (the SDK's docstring: it "automatically applies a cache_control marker to
the last cacheable block in the request"). Each ``FakeModel`` keeps its own cache (``ServerCache``),
so runs are independent, and ``usage`` splits every request's input as the API does.

What the fake serves, from the API's prompt-caching page
(https://platform.claude.com/docs/en/build-with-claude/prompt-caching, as of late 2026):

- the prefix is ``tools``, ``system``, then ``messages``, "in that order", up to and including the
  block that holds the breakpoint; a hit needs that prefix identical ("exact matching");
- "Cache writes happen only at your breakpoint": one entry per breakpoint, for the prefix ending there;
- reads look back from the last breakpoint, one block boundary at a time, for an entry an earlier
  request wrote: "The system checks at most 20 positions per breakpoint, counting the breakpoint itself
  as the first", where "a run of consecutive ``tool_use`` blocks counts as one position, and so does a
  run of consecutive ``tool_result`` blocks"; with no entry in that window the walk "resumes from the
  next explicit breakpoint". The first entry found is the hit, at ``A`` tokens;
- billing: with ``B`` the tokens at the last 1-hour breakpoint after ``A`` (or ``A``) and ``C`` those at
  the last breakpoint, the request reads ``A``, writes ``B - A`` for an hour and ``C - B`` for five
  minutes (``usage.cache_creation``, whose sum is ``cache_creation_input_tokens``), and ``input_tokens``
  is the rest, after ``C``: "total_input_tokens = cache_read_input_tokens + cache_creation_input_tokens
  + input_tokens". Every response reports all of them, 0 when nothing was cached (the page: "if both
  ... are 0, the prompt was not cached");
- lifetimes: 5 minutes, or an hour for ``ttl: "1h"``, "measured from the start of the request that writes
  or reads the cache entry"; a hit refreshes the entry ("refreshed for no additional cost each time the
  cached content is used");
- a per-model minimum (``MIN_CACHEABLE``): a shorter prefix "will be processed without caching, and no
  error is returned";
- at most 4 breakpoints, the automatic one taking "one of the 4 available breakpoint slots": a 400 in the
  API's words, ``A maximum of 4 blocks with cache_control may be provided. Found 5.`` (quoted in
  tghamm/Anthropic.SDK#50, continuedev/continue#6937, slopus/happy#173);
- "Cache entries with longer TTL must appear before shorter TTLs": a 1-hour breakpoint after a 5-minute
  one is a 400, ``messages.0.content.4.cache_control.ttl: a ttl='1h' cache_control block must not come
  after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`,
  `system`, `messages`.`` (anthropics/claude-code#39599; ``system.1...`` in kristianvast/hermes-claude-auth#31);
- automatic caching lands on the last block that can hold a breakpoint, walking back past one that
  cannot (a thinking block); it is "a no-op" on a block marked with the same TTL, and a 400 on a block
  marked with another TTL or when four blocks are marked already;
- ``count_tokens`` takes ``cache_control`` and reports ``input_tokens`` only (the SDK's
  ``MessageTokensCount`` has no cache field); it reads and writes no entry.

*This fake*'s own rules, where the API's are not public:

- the clock: no wall clock. Each request the model answers starts at ``ServerCache.now`` and moves it on
  by ``seconds_per_request`` (``SECONDS_PER_REQUEST``, 5 s: a short agent turn, so a 5-minute entry
  that nothing hits is gone 60 requests later); ``advance(seconds)`` adds a pause. An entry written or
  hit by a request that starts at ``t`` serves requests that start before ``t + TTL``, not at it;
- a hit refreshes the entry hit and the live entries of the request's own breakpoints at or before it,
  each for its own TTL; an older entry whose prefix is read as part of a longer one is not refreshed;
- matching: a fingerprint of the model, each tool, each system block, then the request's ``tool_choice``
  and ``thinking`` (the page: changing them invalidates the messages' cache, not the tools' or the
  system's), then each block with its message's role, ``cache_control`` left out (a breakpoint that
  moves keeps the prefix); a string ``system`` or ``content`` is one text block, as the API renders it.
  Images, citations and the other invalidations the page lists are not modelled;
- with context management (chapter 10) the cache sees the request the model sees, after the edits;
- the lookback checks every block boundary in its window; a run counts once towards the 20. A block
  inside a tool_result's content is a position of its own, in its tool_result's run;
- tokens: the fake counts ``tools`` as one JSON list and a system list joined by newlines (``request``),
  so a prefix that ends at tool ``i`` counts the list cut after ``i`` (likewise the system blocks);
- a breakpoint whose prefix is under the minimum writes nothing; an unlisted model gets
  ``FALLBACK_MIN_CACHEABLE``, the largest documented minimum;
- our wordings: the "Found 5." 400 for four explicit breakpoints and the automatic one (the page says "a
  400 error"), a 400 for an automatic breakpoint on a block with another TTL, the ``cache_control.ttl``
  path when the automatic breakpoint breaks the TTL order, the ``tools.N.cache_control`` paths, and the
  shape errors of a tool's or system block's ``cache_control``; a null ``cache_control`` (the SDK types
  it ``Optional``) marks nothing; the rules above are checked on ``count_tokens`` too.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator, NamedTuple, Sequence

from ..core.messages import BLOCK_FIELDS
from ..core.models import DATED
from ..core.tokens import MESSAGE_OVERHEAD, block_tokens, text_tokens

TTL_SECONDS = {"5m": 300, "1h": 3_600}
MAX_BREAKPOINTS = 4
LOOKBACK_POSITIONS = 20
SECONDS_PER_REQUEST = 5  # this fake's clock: see the module docstring
TOO_MANY_BREAKPOINTS = "A maximum of 4 blocks with cache_control may be provided. Found {found}."
TTL_ORDER = ("{path}.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
             "Note that blocks are processed in the following order: `tools`, `system`, `messages`.")

# The minimum cacheable prompt per model, in tokens: the prompt-caching page's "Cache limitations" (late
# 2026): 512 for Fable 5.1, Mythos 5.1, Opus 5, Fable 5 and Mythos 5; 2,048 for Mythos Preview and Opus 4.7;
# 4,096 for Opus 4.6, Opus 4.5 and Haiku 4.5; 1,024 for Opus 4.8, Sonnet 5, Sonnet 4.6, Sonnet 4.5, Opus 4.1,
# Opus 4 and Sonnet 4; 2,048 for Haiku 3.5. Sonnet 3.7 (1,024) is from the page's earlier version (quoted in
# anthropics/anthropic-sdk-python#1194). Opus 5.5 and Sonnet 5.5 (512) are unverified: not in the stored
# copy of the page, quoted from it in public repositories. Haiku 5.5: none found (the fallback).
MIN_CACHEABLE: dict[str, int] = {
    "claude-fable-5-1": 512, "claude-mythos-5-1": 512, "claude-opus-5": 512, "claude-fable-5": 512,
    "claude-mythos-5": 512, "claude-opus-5-5": 512, "claude-sonnet-5-5": 512,
    "claude-mythos-preview": 2_048, "claude-opus-4-7": 2_048,
    "claude-opus-4-6": 4_096, "claude-opus-4-5": 4_096, "claude-haiku-4-5": 4_096,
    "claude-opus-4-8": 1_024, "claude-sonnet-5": 1_024, "claude-sonnet-4-6": 1_024,
    "claude-opus-4-1": 1_024, "claude-opus-4": 1_024, "claude-sonnet-4": 1_024, "claude-3-7-sonnet": 1_024,
    "claude-3-5-haiku": 2_048,
}
FALLBACK_MIN_CACHEABLE = 4_096  # this fake's choice for a model not listed: the largest documented minimum


def min_cacheable(model: str) -> int:
    """The fewest tokens a prefix needs to be cached for ``model`` (a dated id uses its base name's)."""
    for name in (model, DATED.sub("", model)):
        if name in MIN_CACHEABLE:
            return MIN_CACHEABLE[name]
    return FALLBACK_MIN_CACHEABLE


class CacheControlError(ValueError):
    """Breakpoints the API refuses: the message of its 400."""


class Position(NamedTuple):
    """One block boundary of a request, in prefix order."""
    path: str                                   # the block, as the API names it: ``messages.3.content.0``
    marks: tuple[tuple[str, Any], ...]          # (path of a cache_control, its value) of the blocks ending here
    holder: str | None                          # the block automatic caching would mark here, or None
    run: str | None                             # "tool_use" / "tool_result": a run counts once in a lookback
    tokens: int = 0                             # the prefix's tokens, up to and with this block (full walks)
    frame: bytes = b""                          # what this block adds to the prefix's fingerprint (full walks)


class Breakpoint(NamedTuple):
    index: int   # the position it ends at
    ttl: str     # "5m" or "1h"
    path: str    # its cache_control, as a 400 names it


def check_breakpoints(body: dict[str, Any]) -> None:
    """CacheControlError for a request (the rest of it checked) whose breakpoints the API refuses."""
    if marked(body):
        place(list(block_positions(body, full=False)), body.get("cache_control"))


def marked(body: dict[str, Any]) -> bool:
    """Whether anything in the request holds a ``cache_control`` key (the fast path: usually nothing)."""
    if "cache_control" in body or any("cache_control" in tool for tool in body.get("tools") or ()):
        return True
    system = body.get("system")
    if type(system) is list and any("cache_control" in block for block in system):
        return True
    for message in body["messages"]:
        content = message["content"]
        if type(content) is not str:
            for block in content:
                if "cache_control" in block:
                    return True
                inner = block.get("content")
                if type(inner) is list and any(type(b) is dict and "cache_control" in b for b in inner):
                    return True
    return False


def block_positions(body: dict[str, Any], *, full: bool = True) -> Iterator[Position]:
    """Every block boundary of a checked request, tools first, then system, then messages; ``full`` also
    counts each prefix's tokens and frames each block for the fingerprint (else 0 and empty)."""
    total = 0
    for position in head_positions(body, full=full):
        total = position.tokens
        yield position
    for i in range(len(body["messages"])):
        for position in message_positions(body, i, total, full=full):
            total = position.tokens
            yield position


def head_positions(body: dict[str, Any], *, full: bool = True) -> Iterator[Position]:
    """The positions of the tools, then of the system prompt (``block_positions``' first part)."""
    tools = body.get("tools") or []
    measured = _tool_prefixes(json.dumps(tools, sort_keys=True)) if full and tools else ()
    for i, tool in enumerate(tools):
        tokens, frame = measured[i] if full else (0, b"")
        yield _position(f"tools.{i}", [(f"tools.{i}", tool)], f"tools.{i}", None, tokens, frame)
    total = measured[-1][0] if measured else 0
    system = body.get("system") or []
    parts = ([("system", {"type": "text", "text": system})] if isinstance(system, str)  # one text block, as rendered
             else [(f"system.{i}", block) for i, block in enumerate(system)])
    for n, (where, block) in enumerate(parts):
        tokens, frame = 0, b""
        if full:  # the fake counts a system list as its texts joined by newlines (request.request_tokens)
            tokens, frame = total + text_tokens("\n".join(b["text"] for _, b in parts[:n + 1])), _block_frame(block)
        yield _position(where, [(where, block)], where, None, tokens, frame)


def message_positions(body: dict[str, Any], i: int, total: int, *, full: bool = True) -> Iterator[Position]:
    """The positions of message ``i``, after a prefix of ``total`` tokens (``block_positions``' second part).
    The first message's frame also holds the request's ``tool_choice`` and ``thinking``."""
    message = body["messages"][i]
    content = message["content"]
    path = None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]  # one text block, as rendered; it holds no breakpoint
        path = f"messages.{i}"
    head = b""
    if full:
        head = _pack(message["role"])
        if i == 0:
            head = _pack(json.dumps({key: body[key] for key in ("tool_choice", "thinking") if key in body},
                                    sort_keys=True)) + head
    for j, block in enumerate(content):
        where, kind = path or f"messages.{i}.content.{j}", block["type"]
        holder = where if "cache_control" in BLOCK_FIELDS.get(kind, ()) else None
        inner = block.get("content") if kind == "tool_result" else None
        pieces = list(enumerate(inner)) if isinstance(inner, list) and inner else [(None, block)]
        for k, piece in pieces:
            frame = b""
            if full:
                total += (MESSAGE_OVERHEAD if j == 0 and not k else 0) + block_tokens(piece)
                frame = (head if j == 0 and not k else b"") + (_result_header(block) if k == 0 else b"")
                frame += _block_frame(piece)
            if k is None:
                yield _position(where, [(where, block)], holder, kind if kind in ("tool_use", "tool_result")
                                else None, total, frame)
            else:  # a block of a tool_result's content: a position of its own, in its tool_result's run
                last = k == len(pieces) - 1
                yield _position(f"{where}.content.{k}", [(f"{where}.content.{k}", piece)]
                                + ([(where, block)] if last else []), holder if last else None, "tool_result",
                                total, frame)


def _result_header(block: dict[str, Any]) -> bytes:
    """What a tool_result with a list of blocks adds before them: its fields but the content and cache_control."""
    return _pack("tool_result_list", json.dumps(
        {key: value for key, value in block.items() if key not in ("content", "cache_control")}, sort_keys=True))


@lru_cache(maxsize=256)
def _tool_prefixes(schema: str) -> tuple[tuple[int, bytes], ...]:
    """For each tool of ``schema`` (the tools as sorted JSON, as ``request`` counts them): the tokens of the
    list cut after it, and its frame. Remembered: a session sends the same tools with every request."""
    tools = json.loads(schema)
    return tuple((text_tokens(json.dumps(tools[:i + 1], sort_keys=True)),
                  _pack("tool", json.dumps(_unmarked(tool), sort_keys=True))) for i, tool in enumerate(tools))


def _position(path: str, holders: list[tuple[str, dict[str, Any]]], holder: str | None, run: str | None,
              tokens: int, frame: bytes) -> Position:
    """A Position whose marks are the non-null cache_control of ``holders`` (each block's path and the block)."""
    marks = tuple((f"{where}.cache_control", block["cache_control"]) for where, block in holders
                  if block.get("cache_control") is not None)
    return Position(path, marks, holder, run, tokens, frame)


def place(found: Sequence[Position], automatic: Any) -> list[Breakpoint]:
    """The request's breakpoints in prefix order, the automatic one (``automatic``, the top-level
    ``cache_control``) where it lands; CacheControlError for a set the API refuses."""
    placed = [Breakpoint(n, _ttl(path, value), path) for n, position in enumerate(found)
              for path, value in position.marks]
    if automatic is not None:
        ttl = _ttl("cache_control", automatic)
        target = next((n for n in range(len(found) - 1, -1, -1) if found[n].holder), None)
        if target is not None:
            own = next((b for b in placed if b.path == f"{found[target].holder}.cache_control"), None)
            if own is not None and own.ttl != ttl:
                raise CacheControlError(
                    f"cache_control: automatic caching marks the last cacheable block, {found[target].holder}, "
                    f"which already has a cache_control with ttl='{own.ttl}', not ttl='{ttl}'")
            if own is None:
                placed.append(Breakpoint(target, ttl, "cache_control"))
                placed.sort(key=lambda b: b.index)
    if len(placed) > MAX_BREAKPOINTS:
        raise CacheControlError(TOO_MANY_BREAKPOINTS.format(found=len(placed)))
    after_5m = False
    for breakpoint in placed:
        if breakpoint.ttl == "5m":
            after_5m = True
        elif after_5m:
            raise CacheControlError(TTL_ORDER.format(path=breakpoint.path))
    return placed


def _ttl(path: str, value: Any) -> str:
    """A cache_control's TTL, once its shape is checked (pydantic's words, as ``core.messages`` uses)."""
    if not isinstance(value, dict):
        raise CacheControlError(f"{path}: Input should be a valid dictionary")
    for key in value:
        if key not in ("type", "ttl"):
            raise CacheControlError(f"{path}.{key}: Extra inputs are not permitted")
    if value.get("type") != "ephemeral":
        raise CacheControlError(f"{path}.type: Input should be 'ephemeral'")
    ttl = value.get("ttl", "5m")
    if ttl not in TTL_SECONDS:
        raise CacheControlError(f"{path}.ttl: Input should be '5m' or '1h'")
    return ttl


def _unmarked(block: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key != "cache_control"}


def _pack(*parts: str) -> bytes:
    """Strings as bytes, each after its length, so that no two sequences of parts frame alike."""
    out = []
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        out.append(len(data).to_bytes(8, "big") + data)
    return b"".join(out)


def _block_frame(block: dict[str, Any]) -> bytes:
    """A block without its cache_control, framed: the usual blocks by their strings (JSON is the slow path)."""
    kind, keys = block["type"], block.keys()
    if kind == "text" and keys <= _PLAIN["text"]:
        return _pack("text", block["text"])
    if kind == "tool_result" and keys <= _PLAIN["tool_result"] and type(block.get("content", "")) is str:
        return _pack("tool_result", block["tool_use_id"], block.get("content", ""),
                     "error" if block.get("is_error") else "")
    if kind == "tool_use" and keys <= _PLAIN["tool_use"] and all(
            type(value) is str for value in block["input"].values()):
        return _pack("tool_use", block["id"], block["name"], str(len(block["input"])),
                     *(part for item in sorted(block["input"].items()) for part in item))
    return _pack("json", json.dumps(_unmarked(block), sort_keys=True))


_PLAIN = {"text": {"type", "text", "cache_control"},  # the blocks _block_frame reads without JSON
          "tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"},
          "tool_use": {"type", "id", "name", "input", "cache_control"}}


def lookback_numbers(found: Sequence[Position]) -> list[int]:
    """Each position's number as the lookback counts them: a run of tool_use (or tool_result) blocks is one."""
    numbers, number, previous = [], -1, None
    for position in found:
        if position.run is None or position.run != previous:
            number += 1
        numbers.append(number)
        previous = position.run
    return numbers


def input_usage(total: int, read: int = 0, one_hour: int = 0, written: int | None = None) -> dict[str, Any]:
    """The input fields of ``usage``: ``read`` tokens read, writes up to ``one_hour`` for an hour and on to
    ``written`` for five minutes (token positions in the prefix), the rest of ``total`` uncached."""
    written = read if written is None else written
    one_hour = max(one_hour, read)
    return {"input_tokens": total - written, "cache_creation_input_tokens": written - read,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": written - one_hour,
                               "ephemeral_1h_input_tokens": one_hour - read}}


class Walked(NamedTuple):
    """One request walked, for the next to reuse: what it shares with it is not walked again."""
    head: tuple[Any, ...]                 # model, tools, system, tool_choice, thinking, as sent
    messages: list[dict[str, Any]]
    found: list[Position]
    fingerprints: list[bytes]
    ends: list[tuple[int, int, Any]]      # after each message: positions so far, tokens so far, the digest's state


def common_length(before: list[Any], after: list[Any]) -> int:
    """How many leading items two lists share (first compared whole, in C: usually the longer one extends the other)."""
    shared = min(len(before), len(after))
    if before[:shared] == after[:shared]:
        return shared
    return next(n for n, (old, new) in enumerate(zip(before, after)) if old != new)


@dataclass
class ServerCache:
    """One fake's prompt cache: entries by prefix fingerprint, each (TTL in seconds, expiry), aging under
    this fake's clock: ``now`` in seconds, moved on by ``seconds_per_request`` per answered request and by
    ``advance``."""
    seconds_per_request: int = SECONDS_PER_REQUEST
    now: int = 0
    entries: dict[bytes, tuple[int, int]] = field(default_factory=dict)
    _last: Walked | None = field(default=None, init=False, repr=False, compare=False)  # the previous request

    def __post_init__(self) -> None:
        for name in ("seconds_per_request", "now"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be whole seconds (an int >= 0), got {value!r}")

    def advance(self, seconds: int) -> None:
        """Let ``seconds`` pass before the next request (a pause of the user's, say)."""
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0:
            raise ValueError(f"seconds must be an int >= 0, got {seconds!r}")
        self.now += seconds

    def usage(self, body: dict[str, Any], used: int) -> dict[str, Any]:
        """The input fields of the usage of a checked request of ``used`` tokens that the model answers now:
        reads what it finds, stores what its breakpoints write, and moves the clock on."""
        start, self.now = self.now, self.now + self.seconds_per_request
        if not marked(body):
            return input_usage(used)
        found, fingerprints = self.walk(body)
        placed = place(found, body.get("cache_control"))
        if not placed:
            return input_usage(used)
        self.entries = {key: entry for key, entry in self.entries.items() if entry[1] > start}
        hit = self._lookup(placed, fingerprints, lookback_numbers(found))
        read = found[hit].tokens if hit is not None else 0
        minimum = min_cacheable(body["model"])
        writes = [b for b in placed if (hit is None or b.index > hit) and found[b.index].tokens >= minimum]
        for breakpoint in placed:  # refresh: the hit, and this request's live entries at or before it
            key = fingerprints[breakpoint.index]
            if hit is not None and breakpoint.index <= hit and key in self.entries:
                self.entries[key] = (self.entries[key][0], start + self.entries[key][0])
        if hit is not None:
            ttl = self.entries[fingerprints[hit]][0]
            self.entries[fingerprints[hit]] = (ttl, start + ttl)
        for breakpoint in writes:
            key, ttl = fingerprints[breakpoint.index], TTL_SECONDS[breakpoint.ttl]
            ttl = max(ttl, self.entries.get(key, (0, 0))[0])
            self.entries[key] = (ttl, start + ttl)
        one_hour = max((found[b.index].tokens for b in writes if b.ttl == "1h"), default=read)
        written = max((found[b.index].tokens for b in writes), default=read)
        return input_usage(used, read, one_hour, written)

    def walk(self, body: dict[str, Any]) -> tuple[list[Position], list[bytes]]:
        """``block_positions(body)`` and each position's fingerprint. The messages this request shares with the
        previous one walked (same model, tools, system, settings, and the same first messages) are not walked
        again: a conversation resends its history with every request."""
        head = (body["model"], body.get("tools"), body.get("system"), body.get("tool_choice"), body.get("thinking"))
        messages, last = body["messages"], self._last
        kept = common_length(last.messages, messages) if last is not None and last.head == head else 0
        if kept:
            count, total, state = last.ends[kept - 1]
            found, fingerprints, ends = last.found[:count], last.fingerprints[:count], last.ends[:kept]
            digest = state.copy()
        else:
            found, fingerprints, ends, total = [], [], [], 0
            digest = hashlib.blake2b(_pack(body["model"]), digest_size=16)
            for position in head_positions(body):
                digest.update(position.frame)
                found.append(position)
                fingerprints.append(digest.digest())
                total = position.tokens
        for i in range(kept, len(messages)):
            for position in message_positions(body, i, total):
                digest.update(position.frame)
                found.append(position)
                fingerprints.append(digest.digest())
                total = position.tokens
            ends.append((len(found), total, digest.copy()))
        self._last = Walked(head, messages, found, fingerprints, ends)
        return found, fingerprints

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a fake sent to a worker process) without the last walk, which a digest's state cannot be."""
        return {**self.__dict__, "_last": None}

    def _lookup(self, placed: Sequence[Breakpoint], fingerprints: Sequence[bytes],
                numbers: Sequence[int]) -> int | None:
        """The position of the longest live prefix found, walking back from each breakpoint, last first."""
        for breakpoint in reversed(placed):
            last = numbers[breakpoint.index]
            for n in range(breakpoint.index, -1, -1):
                if last - numbers[n] >= LOOKBACK_POSITIONS:
                    break
                if fingerprints[n] in self.entries:
                    return n
        return None
