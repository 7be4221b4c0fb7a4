"""A picture of the message list: one strip of blocks per history (chapters 00, 02, 03, 04 and 06).

Every layer of compaction changes one thing, the list of messages sent to the model. ``message_parts``
cuts a history into its parts: the system prompt and tool schemas, then every content block of every
message, each with its kind and its tokens; their tokens sum to ``count_tokens`` of the request, each
message's framing allowance going to its first block (as ``growth.composition`` counts it).
``strip_figure`` draws one or more histories as horizontal strips on one token scale, so a before and
an after line up: width is tokens, colour is the kind.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..core.messages import Message, blocks, check_shape
from ..core.tokens import MESSAGE_OVERHEAD, block_tokens, text_tokens
from .growth import block_category
from .plots import CATEGORY_COLOURS
from .style import new_figure, thousands

COMPACTION_BLOCK = "compaction block"   # the API's server-side summary (chapter 10), not a category of growth
PART_KINDS = ("system", "user text", "assistant text", "tool calls", "tool results", "placeholders", "summaries",
         COMPACTION_BLOCK)
KIND_COLOURS = {**CATEGORY_COLOURS, COMPACTION_BLOCK: "#d62728"}
STRIP_HEIGHT, ROW_GAP = 0.6, 1.0   # in rows: each strip is 0.6 of a row high


@dataclass(frozen=True)
class Part:
    """One block of a strip: its kind (one of ``PART_KINDS``), its tokens, and which message it belongs to
    (None for the system prompt and the tool schemas)."""
    kind: str
    tokens: int
    message: int | None


def part_kind(role: str, block: dict[str, Any]) -> str:
    """The kind of one content block: ``growth.block_category``, and a compaction block as its own."""
    return COMPACTION_BLOCK if block.get("type") == "compaction" else block_category(role, block)


def message_parts(messages: list[Message], system: str | None = None,
                  tools: list[dict[str, Any]] | None = None) -> list[Part]:
    """The parts of a request in the order the model reads them. InvalidHistory for a malformed history."""
    check_shape(messages)
    parts = []
    if system:
        parts.append(Part("system", text_tokens(system), None))
    if tools:
        parts.append(Part("system", text_tokens(json.dumps(tools, sort_keys=True)), None))
    for number, message in enumerate(messages):
        for i, block in enumerate(blocks(message)):
            tokens = block_tokens(block) + (MESSAGE_OVERHEAD if i == 0 else 0)
            parts.append(Part(part_kind(message["role"], block), tokens, number))
    return parts


def messages_text(count: int) -> str:
    return f"{count:,} message" + ("" if count == 1 else "s")


def strip_figure(histories: dict[str, list[Message]], *, system: str | None = None,
                 tools: list[dict[str, Any]] | None = None, title: str = "the message list",
                 width: float = 11.0) -> Figure:
    """One strip per history, top to bottom in the order given, on one shared token axis; each label
    ends with the history's total tokens and message count. A thin white line separates blocks, a
    taller one separates messages. Only the kinds that appear are in the legend."""
    if not histories:
        raise ValueError("strip_figure needs at least one history")
    rows = {label: message_parts(messages, system, tools) for label, messages in histories.items()}
    fig = new_figure((width, 1.3 + 0.7 * len(rows)))
    ax = fig.subplots()
    seen: set[str] = set()
    for row, parts in enumerate(rows.values()):
        y = -row * ROW_GAP
        spans: dict[str, list[tuple[int, int]]] = {}
        starts, start, previous = [], 0, None
        for part in parts:
            spans.setdefault(part.kind, []).append((start, part.tokens))
            if part.message is not None and part.message != previous and start:
                starts.append(start)
            start, previous = start + part.tokens, part.message
        for kind, kind_spans in spans.items():
            ax.broken_barh(kind_spans, (y - STRIP_HEIGHT / 2, STRIP_HEIGHT), facecolors=KIND_COLOURS[kind],
                           edgecolor="white", linewidth=0.3)
        ax.vlines(starts, y - STRIP_HEIGHT * 0.65, y + STRIP_HEIGHT * 0.65, colors="white", linewidth=1.0)
        seen.update(spans)
    labels = [f"{label}\n{sum(p.tokens for p in parts):,} tokens, {messages_text(len(histories[label]))}"
              for label, parts in rows.items()]
    ax.set_yticks([-row * ROW_GAP for row in range(len(rows))], labels)
    ax.set_ylim(-(len(rows) - 1) * ROW_GAP - 0.6, 0.6)
    ax.set_xlim(0, max(max(sum(p.tokens for p in parts) for parts in rows.values()), 1) * 1.01)
    ax.xaxis.set_major_formatter(thousands)
    ax.set(xlabel="tokens, in the order the model reads them", title=title)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(axis="y", length=0)
    kinds = [k for k in PART_KINDS if k in seen]
    fig.legend(handles=[Patch(color=KIND_COLOURS[k], label=k) for k in kinds], loc="outside lower center",
               ncol=min(len(kinds), 4), frameon=False)
    return fig
