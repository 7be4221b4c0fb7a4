"""A summary request that shares the last call's prefix, so the prompt cache serves it (chapter 13).

Chapter 03's summary request is a new prompt: the summary instruction, then
the history quoted as JSON in one user message. Nothing of it was sent
before, so a provider's cache has none of it and every token is billed at
the full input price (or written to the cache, dearer still). Sent instead
as the same ``system``, the same ``tools`` and the same messages as the
agent's own calls, with the instruction as one more user message at the
end, the request starts with what the last agent call sent: the cache reads
that whole prefix at a tenth of the price and only the newest round and the
instruction are new. Codex's remote compaction v2 sends its usual input with
a compaction trigger item after it for this reason (chapter 13's Sources).

Two things must not change for the prefix to match: the tools (they come
first in the prefix) and ``tool_choice`` (a change invalidates the messages'
cache), so the tools stay offered and the instruction asks for text only.
"""
from __future__ import annotations

from typing import Any

from ..core.auto import AutoReport, auto_compact
from ..core.config import CompactionConfig
from ..core.loop import RunContext
from ..core.messages import Message, check_shape, user
from ..strategies.three_layers import ThreeLayers

CACHED_SUMMARY_PROMPT = (
    "Your context is about to be compacted. Summarise the conversation so far so that the work can continue "
    "from the summary alone: what was accomplished, the current state, and the key decisions and why. "
    "Do not call any tools; reply with the summary text only."
)


def prefix_sharing_request(messages: list[Message], config: CompactionConfig, focus: str | None, *,
                           system: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The keyword arguments of a summary call that starts exactly as the agent's calls do: the same
    model, ``system`` and ``tools``, the history as it is, then the instruction as one more user message.
    InvalidHistory if ``messages`` is malformed."""
    check_shape(messages)
    instruction = CACHED_SUMMARY_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "system": system, "tools": tools,
            "messages": [*messages, user(instruction)]}


class CacheReusingLayers(ThreeLayers):
    """The three layers, each summary sent over the agent's cached prefix (``prefix_sharing_request``)."""
    name = "cache_reusing_layers"

    def before_call(self, run: RunContext) -> list[str]:
        self._prefix = run.system, run.schemas
        return super().before_call(run)

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        self._prefix = run.system, run.schemas
        super().on_compact(run, focus)

    def compact(self, client: Any, messages: list[Message], config: CompactionConfig,
                focus: str | None = None) -> AutoReport:
        system, tools = self._prefix

        def build(history: list[Message], knobs: CompactionConfig, wanted: str | None) -> dict[str, Any]:
            return prefix_sharing_request(history, knobs, wanted, system=system, tools=tools)
        return auto_compact(client, messages, config, focus, build=build)
