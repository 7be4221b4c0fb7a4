"""One tool call per turn, for a lesson that needs it: any strategy, with parallel calls turned off (chapter 00).

Current Claude models call independent tools in parallel by default, and so does the course's fake; the
API's ``tool_choice.disable_parallel_tool_use`` turns that off (the SDK's ``ToolChoiceAutoParam``: "If set
to true, the model will output at most one tool use"). ``OneCallPerTurn(inner)`` adds that ``tool_choice``
to every model call of the loop (``Compactor.request_options``) and passes every hook on to ``inner``. A
chapter uses it where its lesson is about one call at a time, and says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.loop import RunContext
from .base import Compactor

ONE_AT_A_TIME = {"type": "auto", "disable_parallel_tool_use": True}


@dataclass
class OneCallPerTurn(Compactor):
    """``inner``'s compaction, with the model asked for at most one tool call per turn."""

    inner: Compactor

    def before_call(self, run: RunContext) -> list[str]:
        return self.inner.before_call(run)

    def request_options(self, run: RunContext) -> dict[str, Any]:
        return {**self.inner.request_options(run), "tool_choice": ONE_AT_A_TIME}

    def after_round(self, run: RunContext, usage: Any) -> None:
        self.inner.after_round(run, usage)

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        self.inner.on_compact(run, focus)
