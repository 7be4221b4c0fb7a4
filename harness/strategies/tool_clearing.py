"""API-side tool-result clearing, simulated locally (chapter 07).

Modelled on the Messages API context edit ``clear_tool_uses_20250919``
and its documented knobs: past ``trigger`` input tokens, clear
the oldest tool results, keeping the newest ``keep`` tool uses; apply only
if at least ``clear_at_least`` tokens go; never touch the tools named in
``exclude_tools``; with ``clear_tool_inputs`` also blank the tool_use inputs.
No summary is ever written: user and assistant text stays forever.

The real edit runs on the server, on every request, over the full history
the client keeps. Here the compactor edits the history in place and keeps a
ledger of the tokens it took out, so the trigger and ``clear_at_least`` are
still compared with the full history. Once cleared, a result stays cleared:
the full history only grows, so the server would clear it again anyway.
Simplified: the placeholder is chapter 02's (the fake model reads it as
"content gone"; the API words it differently) and a cleared input is ``{}``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import ClassVar

from ..core.config import check_count
from ..core.loop import Event, RunContext
from ..core.messages import iter_tool_results, iter_tool_uses
from ..core.micro import placeholder
from ..core.tokens import block_tokens, count_tokens, estimate_tokens, text_tokens
from .base import Compactor


@dataclass
class ClearToolUses(Compactor):
    """Clear old tool results (and, optionally, inputs) once the full history passes ``trigger``."""
    trigger: int = 100_000
    keep: int = 3
    clear_at_least: int = 0
    exclude_tools: frozenset[str] = frozenset()
    clear_tool_inputs: bool = False
    cleared_tokens: int = field(default=0, init=False)       # the ledger: tokens taken out so far
    cleared_ids: set[str] = field(default_factory=set, init=False)
    name: ClassVar[str] = "clear_tool_uses"

    def __post_init__(self) -> None:
        check_count("trigger", self.trigger, 1)
        check_count("keep", self.keep)
        check_count("clear_at_least", self.clear_at_least)
        if isinstance(self.exclude_tools, str):
            raise ValueError("exclude_tools must be a collection of tool names")
        self.exclude_tools = frozenset(self.exclude_tools)

    def full_size(self, run: RunContext) -> int:
        """Input tokens of the request the client would send: what is left plus what was cleared."""
        return count_tokens(run.messages, system=run.system, tools=run.schemas) + self.cleared_tokens

    def before_call(self, run: RunContext) -> list[str]:
        if self.full_size(run) <= self.trigger:
            return []
        uses = [block for _, block in iter_tool_uses(run.messages)]
        kept = {block["id"] for block in uses[len(uses) - self.keep:]} if self.keep else set()
        results = {block["tool_use_id"]: block for _, _, block in iter_tool_results(run.messages)}
        chosen = [(use, results[use["id"]]) for use in uses
                  if use["id"] not in kept and use["id"] not in self.cleared_ids
                  and use["name"] not in self.exclude_tools and use["id"] in results]
        saved = sum(self.saving(use, result) for use, result in chosen)
        if not chosen or self.cleared_tokens + saved < self.clear_at_least:
            return []
        tokens_before = estimate_tokens(run.messages)
        for use, result in chosen:
            result["content"] = placeholder(use["name"])
            if self.clear_tool_inputs:
                use["input"] = {}
            self.cleared_ids.add(use["id"])
        self.cleared_tokens += saved
        run.emit(Event(self.name, run.call, tokens_before, estimate_tokens(run.messages), {
            "cleared_tool_uses": len(self.cleared_ids), "cleared_input_tokens": self.cleared_tokens,
            "newly_cleared": len(chosen)}))
        return [self.name]

    def saving(self, use: dict, result: dict) -> int:
        """Tokens one clearing takes out: the result (and the input) minus what replaces it."""
        tokens = block_tokens(result) - text_tokens(placeholder(use["name"]))
        if self.clear_tool_inputs:
            tokens += text_tokens(json.dumps(use["input"], sort_keys=True)) - text_tokens("{}")
        return tokens

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        """The model called ``compact``: chapter 03's summary; the ledger starts again from it."""
        super().on_compact(run, focus)
        self.cleared_tokens, self.cleared_ids = 0, set()
