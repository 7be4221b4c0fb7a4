"""The API's own context management as strategies: the server edits each request (chapters 08, 10).

``ServerToolClearing`` asks for ``clear_tool_uses_20250919`` and
``ServerCompaction`` for ``compact_20260112``. Each builds its edit with
``harness.api_context`` (checked against the SDK's TypedDicts) and returns it
from ``request_options``, so the loop sends every call through
``client.beta.messages.create`` with the edit and its beta flag: the offline
fake serves it (``harness.fake.context_management``), and on real Claude it
is the same request. Clearing never touches the history: the client keeps
sending all of it, and the server decides what the model sees. A compaction
block the server returns goes first in the next request, in place of
everything it summarises, as the API asks (the SDK types a 400 for a block
that is not first, ``CompactionBlockMisplacedError``, and for two blocks with
content, ``CompactionBlockAmbiguousError``): ``ServerCompaction`` drops what
came before the block's message, as the SDK's tool runner does after a
compaction (``anthropic/lib/tools/_beta_runner.py``), and logs that as a
compaction record, so a resumed session starts from the block too.

What the server did is read from each response and emitted as an Event of
the edit's type, so the course's counters and plots see it. Unlike the other
layers' events, their tokens are the API's: for a clearing, the input before
and after the edit; for a compaction, what the summarising step read and the
summary that now stands in for it. A compaction's summarising step is also
recorded as a "summary" call (its usage iteration), since it is billed.

Chapter 08 compares both with the strategies that compact on the client.
https://platform.claude.com/docs/en/build-with-claude/context-editing ·
https://platform.claude.com/docs/en/build-with-claude/compaction
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..api_context import betas_for, check_edit, clear_tool_uses, server_compaction
from ..core.config import check_count
from ..core.loop import CallTrace, Event, RunContext
from ..core.tokens import estimate_tokens, text_tokens
from .base import Compactor


@dataclass
class ServerEdit(Compactor):
    """A strategy that only asks the server for one context-management edit, and reports what it did."""
    edit: dict[str, Any] = field(init=False, repr=False)

    def request_options(self, run: RunContext) -> dict[str, Any]:
        return {"betas": betas_for([self.edit]), "context_management": {"edits": [self.edit]}}

    def after_round(self, run: RunContext, usage: Any) -> None:
        self.observe(run)

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        """The model called ``compact``: report the call's edits, then chapter 03's summary."""
        self.observe(run)
        super().on_compact(run, focus)

    def observe(self, run: RunContext) -> None:
        """Emit an Event for what the server did in the latest response."""


@dataclass
class ServerToolClearing(ServerEdit):
    """``clear_tool_uses_20250919``: past ``trigger`` input tokens, the server clears old tool results."""
    trigger: int = 100_000
    keep: int = 3
    clear_at_least: int | None = None
    exclude_tools: tuple[str, ...] = ()
    clear_tool_inputs: bool = False
    name: ClassVar[str] = "clear_tool_uses_20250919"

    def __post_init__(self) -> None:
        check_count("trigger", self.trigger)
        check_count("keep", self.keep)
        if self.clear_at_least is not None:
            check_count("clear_at_least", self.clear_at_least)
        if isinstance(self.exclude_tools, str):
            raise ValueError("exclude_tools must be a collection of tool names")
        self.exclude_tools = tuple(self.exclude_tools)
        if not isinstance(self.clear_tool_inputs, bool):
            raise ValueError(f"clear_tool_inputs must be True or False, got {self.clear_tool_inputs!r}")
        self.edit = clear_tool_uses(trigger=self.trigger, keep=self.keep, clear_at_least=self.clear_at_least,
                                    exclude_tools=list(self.exclude_tools), clear_tool_inputs=self.clear_tool_inputs)
        check_edit(self.edit)

    def observe(self, run: RunContext) -> None:
        managed = getattr(run.response, "context_management", None)
        for applied in managed.applied_edits if managed else ():
            if applied.type == self.name:
                after = run.response.usage.input_tokens
                run.emit(Event(self.name, run.call, after + applied.cleared_input_tokens, after, {
                    "cleared_tool_uses": applied.cleared_tool_uses,
                    "cleared_input_tokens": applied.cleared_input_tokens}))


@dataclass
class ServerCompaction(ServerEdit):
    """``compact_20260112``: past ``trigger`` input tokens (default 150,000, at least 50,000: both on
    https://platform.claude.com/docs/en/build-with-claude/compaction), the server summarises the
    conversation into a compaction block, and the history then starts from it. ``instructions`` replace the
    whole default summary prompt, as that page says (the SDK's ``BetaCompact20260112EditParam`` calls them
    "additional instructions"; the page is the one followed here)."""
    trigger: int = 150_000
    instructions: str | None = None
    pause_after_compaction: bool = False
    name: ClassVar[str] = "compact_20260112"

    def __post_init__(self) -> None:
        check_count("trigger", self.trigger, 1)  # the server refuses a trigger under its minimum (HTTP 400)
        if self.instructions is not None and not (isinstance(self.instructions, str) and self.instructions.strip()):
            raise ValueError("instructions must be a non-blank string, or None for the API's default prompt")
        if not isinstance(self.pause_after_compaction, bool):
            raise ValueError(f"pause_after_compaction must be True or False, got {self.pause_after_compaction!r}")
        self.edit = server_compaction(trigger=self.trigger, instructions=self.instructions,
                                      pause_after_compaction=self.pause_after_compaction)
        check_edit(self.edit)

    def observe(self, run: RunContext) -> None:
        response = run.response
        block = next((b for b in response.content if b.type == "compaction"), None) if response else None
        if block is None:
            return
        step = next((u for u in response.usage.iterations or () if u.type == "compaction"), None)
        read = step.input_tokens if step else 0
        if step:
            run.record(CallTrace(run.call, step.input_tokens, step.output_tokens, estimate_tokens(run.messages), 0,
                                 (self.name,), (), "summary"))
        if block.content is not None:
            self.start_from_block(run)
        run.emit(Event(self.name, run.call, read, text_tokens(block.content or ""), {
            "summary": block.content, "paused": response.stop_reason == "compaction"}))

    def start_from_block(self, run: RunContext) -> None:
        """Drop every message before the latest compaction block's (the reply that opened with it), so the next
        request sends the block first; with a log, replayed as chapter 12's swap is: a compaction record whose
        message is the block's, then the messages after it again (they are in the log twice)."""
        at = max(i for i, m in enumerate(run.messages) if m["role"] == "assistant" and isinstance(m["content"], list)
                 and m["content"][0]["type"] == "compaction")
        del run.messages[:at]
        if run.log:
            run.log.compacted(run.messages[:1], layer=self.name, message=run.messages[0])
            run.log.sync(run.messages)
