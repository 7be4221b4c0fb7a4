"""The base every compaction strategy extends: three hooks the loop calls (chapter 05).

The loop (``harness.core.loop``) asks a ``Compactor`` three questions:
before each model call (it may rewrite the history: micro, auto), after each
committed round (a round's tool results are all in, so no tool_use can be
cut from its result), and when the model called ``compact``. The base class
answers "do nothing" to the first two and "summarise" to the third: with it,
the history only grows, which makes it the baseline every strategy is
compared with. A strategy may also add keyword arguments to every model call
(``request_options``; the base adds none): chapter 10's strategies use it to
let the API manage the context itself.
"""
from __future__ import annotations

from typing import Any

from ..core.loop import RunContext


class Compactor:
    """No compaction at all: the baseline every strategy is compared with."""
    name = "none"

    def before_call(self, run: RunContext) -> list[str]:
        """Called before every model call; returns the names of the layers that fired."""
        return []

    def request_options(self, run: RunContext) -> dict[str, Any]:
        """Extra keyword arguments for each model call: none here. With ``betas`` among them the loop
        calls ``client.beta.messages.create`` (chapter 10: the API's own context management)."""
        return {}

    def after_round(self, run: RunContext, usage: Any) -> None:
        """Called once a round is committed (its tool results appended), with its reported usage."""

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        """Called after the round in which the model called ``compact``."""
        run.summarise_and_replace("manual", focus)
