"""Guards none of the real systems show: check every compaction, stop compaction loops (chapter 08).

``Guarded`` wraps any compactor and watches each of its hooks. It keeps a
copy of the history (down to the blocks) and the events the hook emits, and
after a hook that compacted it checks three things:

1. *valid*: the next request must pass ``validate_messages`` (a finished
   turn may end on the assistant's answer). If not, the copy is put back and
   a ``guard_invalid`` event names the broken rule: the session goes on
   with the history it had, never with one the API would refuse.
2. *small enough*: a compaction must leave the context under
   ``max_fraction`` of the threshold (half by default); if not, a
   ``guard_too_big`` event says so: such a compaction fires again soon.
3. *no loop*: a compaction that worked buys many calls of room. One that
   comes within ``min_gap`` calls of the previous one bought nothing, so the
   guard emits ``compaction_loop`` and stops compacting for the session.

The inner compactor's ``request_options`` pass through until compaction is
stopped. Per-call trimming (``micro``, the API's ``clear_tool_uses_20250919``)
is checked for validity only: it fires on most calls by design.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from ..core.config import check_count
from ..core.loop import Event, RunContext
from ..core.messages import InvalidHistory, Message, check_shape, user, validate_messages
from ..core.tokens import estimate_tokens
from .base import Compactor

INCREMENTAL = frozenset({"micro", "clear_tool_uses_20250919"})


def copy_history(messages: list[Message]) -> list[Message]:
    """A copy down to the blocks: enough to undo any compactor that rewrites or replaces blocks.

    InvalidHistory if ``messages`` is malformed."""
    check_shape(messages)
    return [{**m, "content": [dict(b) for b in m["content"]] if isinstance(m["content"], list)
             else m["content"]} for m in messages]


def check_next_request(messages: list[Message]) -> None:
    """Raise InvalidHistory unless this history, with the user's next message if due, is valid."""
    check_shape(messages)  # before reading the last message's role
    finished_turn = bool(messages) and messages[-1]["role"] == "assistant"
    validate_messages(messages + [user("(next request)")] if finished_turn else messages)


@dataclass
class Guarded(Compactor):
    """``inner`` with its compactions checked; ``threshold`` defaults to the config's."""
    inner: Compactor
    threshold: int | None = None
    max_fraction: float = 0.5
    min_gap: int = 3
    stopped: bool = field(default=False, init=False)
    last_compaction: int | None = field(default=None, init=False)
    name: ClassVar[str] = "guarded"

    def __post_init__(self) -> None:
        if self.threshold is not None:
            check_count("threshold", self.threshold, 1)
        check_count("min_gap", self.min_gap, 1)
        if not 0 < self.max_fraction <= 1:
            raise ValueError(f"max_fraction must be in (0, 1], got {self.max_fraction}")

    def before_call(self, run: RunContext) -> list[str]:
        return [] if self.stopped else self.watch(run, lambda: self.inner.before_call(run))

    def request_options(self, run: RunContext) -> dict[str, Any]:
        return {} if self.stopped else self.inner.request_options(run)

    def after_round(self, run: RunContext, usage: Any) -> None:
        if not self.stopped:
            self.watch(run, lambda: self.inner.after_round(run, usage))

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        """The model called ``compact``: passed on, unless compaction was stopped."""
        if not self.stopped:
            self.watch(run, lambda: self.inner.on_compact(run, focus))

    def watch(self, run: RunContext, hook: Callable[[], Any]) -> Any:
        """Run one hook of ``inner``, then check what it did to the history."""
        before, seen, emit = copy_history(run.messages), [], run.emit

        def emit_and_see(event: Event) -> None:
            seen.append(event)
            emit(event)

        run.emit = emit_and_see
        try:
            result = hook()
        finally:
            run.emit = emit
        if run.messages == before:
            return result
        try:
            check_next_request(run.messages)
        except InvalidHistory as error:
            broken = estimate_tokens(run.messages)
            run.messages[:] = before
            run.emit(Event("guard_invalid", run.call, broken, estimate_tokens(before), {
                "rule": error.rule, "index": error.index, "tool_id": error.tool_id,
                "by": sorted({e.kind for e in seen}), "reason": f"restored the history: {error}"}))
            return [] if isinstance(result, list) else result
        if any(e.kind not in INCREMENTAL for e in seen):
            self.check_compaction(run)
        return result

    def check_compaction(self, run: RunContext) -> None:
        """Small enough, and not a loop; stop compacting at the first loop."""
        limit = int(self.max_fraction * (self.threshold or run.config.threshold))
        size, tokens = run.context_size(), estimate_tokens(run.messages)
        if size > limit:
            run.emit(Event("guard_too_big", run.call, tokens, tokens, {
                "size": size, "limit": limit,
                "reason": f"compaction left {size:,} tokens, over {self.max_fraction:.0%} of the threshold"}))
        previous, self.last_compaction = self.last_compaction, run.call
        if previous is not None and run.call - previous < self.min_gap:
            self.stopped = True
            run.emit(Event("compaction_loop", run.call, tokens, tokens, {
                "previous_call": previous, "min_gap": self.min_gap,
                "reason": f"compacted at call {previous} and again at call {run.call}: "
                          "no room was won, so compaction is stopped for this session"}))
