"""A memory flush before compaction: a visible notice when the context nears the trigger (chapter 11).

A model cannot save what it learned before a compaction it cannot see
coming. ``FlushBeforeCompaction`` wraps any strategy whose trigger is the
config's ``threshold``: once the context passes ``at`` times that threshold
it appends one notice to the last user message (after its tool results, so
the history stays valid), and the notice stays in view until a compaction
replaces the history. The model then decides what to save. Claude Code's
``PreCompact`` hook (https://code.claude.com/docs/en/hooks#precompact) and
Codex's (openai/codex PR #19905) run a command of the user's before a
compaction, which is not a turn of the model's. The API warns Claude before
context editing clears tool results when the memory tool is offered
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool);
this notice plays that part for the harness's own compaction, in our words.
"""
from __future__ import annotations

from typing import Any

from ..core.loop import RunContext
from ..core.messages import Message, text
from ..strategies.base import Compactor

COMPACTION_NOTICE = "[harness] The context will be compacted soon: save what you need to memory now."


def notice_in_view(messages: list[Message]) -> bool:
    return any(isinstance(m["content"], list) and any(b.get("text") == COMPACTION_NOTICE for b in m["content"])
               for m in messages if m["role"] == "user")


def append_notice(messages: list[Message]) -> None:
    """Add the notice to the last (user) message as one more text block."""
    last = messages[-1]
    if isinstance(last["content"], str):
        last["content"] = [text(last["content"])]
    last["content"].append(text(COMPACTION_NOTICE))


class FlushBeforeCompaction(Compactor):
    """``inner``, plus the notice once the context passes ``at`` x the threshold (None: never)."""

    def __init__(self, inner: Compactor, at: float | None = 0.8):
        self.inner, self.at = inner, at
        self.name = f"{inner.name}+flush"

    def before_call(self, run: RunContext) -> list[str]:
        fired = self.inner.before_call(run)
        if self.at is not None and run.messages[-1]["role"] == "user" and not notice_in_view(run.messages) \
                and run.context_size() >= self.at * run.config.threshold:
            append_notice(run.messages)
            fired = fired + ["flush notice"]
        return fired

    def request_options(self, run: RunContext) -> dict[str, Any]:
        return self.inner.request_options(run)

    def after_round(self, run: RunContext, usage: Any) -> None:
        self.inner.after_round(run, usage)

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        self.inner.on_compact(run, focus)
