"""The reference agent's three layers as a strategy (chapters 02-05).

Before every call: micro-compact (chapter 02), then, past the threshold,
auto-compact (chapter 03). When the model calls ``compact``: the same
summary (chapter 04, the base class's answer). Every knob comes from the
run's ``CompactionConfig``. Chapters 02 and 03 hand in the student's own
micro layer (``micro=``) and auto_compact (``summarise=``).
"""
from __future__ import annotations

from typing import Any, Callable

from ..core.auto import AutoReport, auto_compact, tail_request
from ..core.config import CompactionConfig
from ..core.loop import RunContext
from ..core.messages import Message
from ..core.micro import MicroReport, micro_compact
from .base import Compactor


class ThreeLayers(Compactor):
    """The reference agent's three layers: micro and auto before each call, manual on request."""
    name = "three_layers"
    clear_old_results = staticmethod(micro_compact)  # the micro layer (chapter 09 swaps in reversible placeholders)
    summary_request = staticmethod(tail_request)      # the summary request (chapter 08's control swaps it)
    summarise: Callable[..., AutoReport] | None = None  # an auto_compact of your own (chapter 03)

    def __init__(self, *, micro: Callable[..., MicroReport] | None = None,
                 summarise: Callable[..., AutoReport] | None = None) -> None:
        """``micro`` (micro_compact's arguments, returns a MicroReport) replaces the micro layer, and
        ``summarise`` (auto_compact's arguments) the summary of the automatic and manual layers."""
        if micro is not None:
            self.clear_old_results = micro
        self.summarise = summarise

    def before_call(self, run: RunContext) -> list[str]:
        config, layers = run.config, []
        if config.micro and run.micro(self.clear_old_results):
            layers.append("micro")
        if config.auto and run.context_size() > config.threshold:
            run.summarise_and_replace("auto", compact=self.compact)
            layers.append("auto")
        return layers

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        run.summarise_and_replace("manual", focus, compact=self.compact)

    def compact(self, client: Any, messages: list[Message], config: CompactionConfig,
                focus: str | None = None) -> AutoReport:
        """Chapter 03's auto_compact with this strategy's summary request, or ``summarise`` if given."""
        if self.summarise is not None:
            return self.summarise(client, messages, config, focus)
        return auto_compact(client, messages, config, focus, build=self.summary_request)
