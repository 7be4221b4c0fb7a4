"""How a context grows and what it is made of (chapters 00 and 01).

``growth_series`` turns a session's trace into per-call curves: the context
each agent call sent and the input tokens billed so far. ``composition``
splits one request into categories (system, user text, assistant text, tool
calls, tool results, placeholders, summaries) whose sizes add up exactly to
``count_tokens``. ``composition_recorder`` wraps any client and keeps the
composition of every request sent through it, compacted or not.
``mix_text`` and ``estimate_and_count`` compare the seed's estimate with the
cl100k count on text that mixes English and Chinese (chapter 01).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core.auto import SUMMARY_PREFIX
from ..core.loop import CallTrace
from ..core.messages import Message, blocks, check_shape, user
from ..core.micro import is_placeholder
from ..core.tokens import MESSAGE_OVERHEAD, block_tokens, count_tokens, estimate_tokens, text_tokens
from .recording import RecordingClient

CATEGORIES = ("system", "user text", "assistant text", "tool calls", "tool results",
              "placeholders", "summaries")


# --- per-call curves (chapter 00) ---------------------------------------------

@dataclass(frozen=True)
class GrowthSeries:
    """One value per agent call, in call order (summary calls folded into ``billed``)."""
    context: tuple[int, ...]    # input tokens the API reported for the call
    billed: tuple[int, ...]     # input tokens billed so far, this call and its summaries included
    estimated: tuple[int, ...]  # the seed's estimate of the history at the call
    counted: tuple[int, ...]    # count_tokens of the whole request at the call

    def __len__(self) -> int:
        return len(self.context)

    @property
    def calls(self) -> range:
        return range(1, len(self) + 1)

    def first(self, calls: int) -> "GrowthSeries":
        """The series cut after ``calls`` agent calls (0 <= calls <= len)."""
        if not 0 <= calls <= len(self):
            raise ValueError(f"calls must be between 0 and {len(self)}, got {calls}")
        return GrowthSeries(self.context[:calls], self.billed[:calls],
                            self.estimated[:calls], self.counted[:calls])


def growth_series(trace: list[CallTrace]) -> GrowthSeries:
    """Per-agent-call curves from a trace. A summary call is billed with the agent call that
    shares its number (auto: the call it ran before; manual: the call that asked for it)."""
    billed_by_call: dict[int, int] = {}
    for t in trace:
        billed_by_call[t.call] = billed_by_call.get(t.call, 0) + t.input_tokens
    agent = [t for t in trace if t.kind == "agent"]
    billed, running = [], 0
    for t in agent:
        running += billed_by_call[t.call]
        billed.append(running)
    return GrowthSeries(tuple(t.input_tokens for t in agent), tuple(billed),
                        tuple(t.estimated for t in agent), tuple(t.counted for t in agent))


def calls_after_requests(request_ends: list[int], requests: int) -> int:
    """How many agent calls the first ``requests`` requests took (``request_ends[i]``: calls
    after request i+1; 1 <= requests <= len(request_ends))."""
    if not 1 <= requests <= len(request_ends):
        raise ValueError(f"requests must be between 1 and {len(request_ends)}, got {requests}")
    return request_ends[requests - 1]


# --- what a request is made of (chapter 00) -----------------------------------

def block_category(role: str, block: dict[str, Any]) -> str:
    """The category of one content block."""
    kind = block.get("type")
    if kind == "tool_use":
        return "tool calls"
    if kind == "tool_result":
        return "placeholders" if is_placeholder(block.get("content")) else "tool results"
    if role == "assistant":
        return "assistant text"
    if block.get("text", "").startswith(SUMMARY_PREFIX):
        return "summaries"
    return "user text"


def composition(messages: list[Message], system: str | None = None,
                tools: list[dict[str, Any]] | None = None) -> dict[str, int]:
    """Tokens of a request by category, in ``CATEGORIES`` order; the values sum to
    ``count_tokens(messages, system, tools)``. The system prompt and tool schemas are
    "system"; each message's framing allowance goes to the category of its first block."""
    check_shape(messages)
    parts = dict.fromkeys(CATEGORIES, 0)
    parts["system"] = text_tokens(system) if system else 0
    if tools:
        parts["system"] += text_tokens(json.dumps(tools, sort_keys=True))
    for message in messages:
        content = blocks(message)
        for i, block in enumerate(content):
            category = block_category(message["role"], block)
            parts[category] += block_tokens(block) + (MESSAGE_OVERHEAD if i == 0 else 0)
    return parts


def composition_recorder(inner: Any) -> RecordingClient:
    """A client that keeps the composition of every request it sends (``records[i]`` for ``trace[i]``)."""
    return RecordingClient(inner, lambda request: composition(request["messages"], request.get("system"),
                                                              request.get("tools")))


# --- the estimate against a tokenizer (chapter 01) ----------------------------

def mix_text(english: str, chinese: str, chinese_percent: int, length: int = 400) -> str:
    """``length`` characters: ``chinese_percent`` % taken from ``chinese``, the rest from
    ``english`` (each repeated as needed), English first."""
    if not 0 <= chinese_percent <= 100:
        raise ValueError(f"chinese_percent must be between 0 and 100, got {chinese_percent}")
    if not english or not chinese or length < 1:
        raise ValueError("need non-empty English and Chinese texts and a positive length")
    zh_chars = round(length * chinese_percent / 100)
    return _repeat(english, length - zh_chars) + _repeat(chinese, zh_chars)


def _repeat(text: str, chars: int) -> str:
    return (text * (chars // len(text) + 1))[:chars]


def estimate_and_count(text: str) -> tuple[int, int]:
    """(seed estimate, cl100k count) of a one-message history holding ``text``."""
    history = [user(text)]
    return estimate_tokens(history), count_tokens(history)
