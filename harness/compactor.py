"""The compaction strategy as an object the loop consults (chapter 05).

The loop asks a ``Compactor`` three questions: before each model call (may
rewrite the history: micro, auto), after each committed round (a round's
tool results are all in, so no tool_use can be cut from its result), and
when the model called ``compact``. ``ThreeLayers`` is the reference agent's
answer, driven by a ``CompactionConfig``; other strategies (chapters 06, 07)
answer differently through the same three hooks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .auto import AutoReport, auto_compact
from .config import CompactionConfig
from .messages import Message
from .micro import MicroReport, micro_compact
from .session_log import SessionLog
from .tokens import count_tokens, estimate_tokens


@dataclass
class Event:
    """Something a layer did: ``kind`` is micro, auto, manual, max_turns, or a strategy's own."""
    kind: str
    call: int                 # the model call it happened before (micro, auto) or after (manual)
    tokens_before: int        # estimate_tokens of the history
    tokens_after: int
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class CallTrace:
    """One model call, measured three ways, and what fired just before it."""
    call: int
    input_tokens: int         # reported by the API
    output_tokens: int
    estimated: int            # estimate_tokens(messages)
    counted: int              # count_tokens(messages, system, tools)
    layers: tuple[str, ...]   # layers that fired before this call
    tools: tuple[str, ...]    # tools the model asked for
    kind: str = "agent"       # "agent", or "summary" for a summarisation call


@dataclass
class RunContext:
    """What a compactor may see and use during one run of the loop."""
    client: Any
    messages: list[Message]
    config: CompactionConfig
    system: str
    schemas: list[dict[str, Any]]
    log: SessionLog | None
    emit: Callable[[Event], None]
    record: Callable[[CallTrace], None]
    call: int = 0

    def context_size(self) -> int:
        """The number a threshold is compared with, by the configured counter."""
        if self.config.counter == "estimate":
            return estimate_tokens(self.messages)
        return count_tokens(self.messages, system=self.system, tools=self.schemas)

    def summarise_and_replace(self, kind: str, focus: str | None = None,
                              compact: Callable[..., AutoReport] = auto_compact) -> AutoReport:
        """Transcript, summary, replacement (``compact``, auto_compact by default), then trace, log and event."""
        report = compact(self.client, self.messages, self.config, focus)
        self.record(CallTrace(self.call, report.summary_input_tokens, report.summary_output_tokens,
                              report.tokens_before, 0, (kind,), (), "summary"))
        if self.log:
            self.log.compacted(self.messages, layer=kind, message=self.messages[0],
                               transcript=report.transcript.as_posix())
        self.emit(Event(kind, self.call, report.tokens_before, report.tokens_after, {
            "transcript": report.transcript.as_posix(), "summary": report.summary,
            "messages_before": report.messages_before}))
        return report

    def micro(self, clear: Callable[..., MicroReport] = micro_compact,
              config: CompactionConfig | None = None) -> bool:
        """Run a micro layer with the knobs of ``config`` (the run's by default); emit its event;
        True if it cleared anything."""
        config = config or self.config
        report = clear(self.messages, config.keep_recent, config.preserve_tools, config.min_chars)
        if report.fired:
            self.emit(Event("micro", self.call, report.tokens_before, report.tokens_after, {
                "cleared": len(report.cleared), "tools": sorted({c.tool_name for c in report.cleared})}))
        return report.fired


class Compactor:
    """No compaction at all: the baseline every strategy is compared with."""
    name = "none"

    def before_call(self, run: RunContext) -> list[str]:
        """Called before every model call; returns the names of the layers that fired."""
        return []

    def after_round(self, run: RunContext, usage: Any) -> None:
        """Called once a round is committed (its tool results appended), with its reported usage."""

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        """Called after the round in which the model called ``compact``."""
        run.summarise_and_replace("manual", focus)


class ThreeLayers(Compactor):
    """The reference agent's three layers: micro and auto before each call, manual on request."""
    name = "three_layers"
    clear_old_results = staticmethod(micro_compact)  # the micro layer (chapter 08 swaps in reversible placeholders)

    def before_call(self, run: RunContext) -> list[str]:
        config, layers = run.config, []
        if config.micro and run.micro(self.clear_old_results):
            layers.append("micro")
        if config.auto and run.context_size() > config.threshold:
            run.summarise_and_replace("auto")
            layers.append("auto")
        return layers
