"""A compactor wrapper that asks for one tool call per turn: it adds ``tool_choice`` with
``disable_parallel_tool_use`` to every model call of the course's loop (``Compactor.request_options``), and
passes every hook on to the compactor it wraps."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.core.loop import RunContext
from harness.strategies.base import Compactor

ONE_AT_A_TIME = {"type": "auto", "disable_parallel_tool_use": True}


@dataclass
class OneCallPerTurn(Compactor):
    inner: Compactor

    def before_call(self, run: RunContext) -> list[str]:
        return self.inner.before_call(run)

    def request_options(self, run: RunContext) -> dict[str, Any]:
        return {**self.inner.request_options(run), "tool_choice": ONE_AT_A_TIME}

    def after_round(self, run: RunContext, usage: Any) -> None:
        self.inner.after_round(run, usage)

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        self.inner.on_compact(run, focus)
