"""The reference agent's three layers as a strategy (chapters 02-05).

Before every call: micro-compact (chapter 02), then, past the threshold,
auto-compact (chapter 03). When the model calls ``compact``: the same
summary (chapter 04, the base class's answer). Every knob comes from the
run's ``CompactionConfig``.
"""
from __future__ import annotations

from ..core.loop import RunContext
from ..core.micro import micro_compact
from .base import Compactor


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
