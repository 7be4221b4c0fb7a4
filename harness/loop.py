"""The agent loop with all three layers, in the order that keeps history valid (chapter 05).

Before every model call: (1) micro-compact, (2) past the threshold, auto-compact
(transcript, summary, replace). Then call the model, run every tool it asked
for and append all the results in one user message, ``compact``'s included,
so no tool_use is ever left without its result. If the model called
``compact``, summarise the same way and leave the loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .auto import auto_compact
from .config import CompactionConfig
from .manual import COMPACT_TOOL_NAME, compact_focus
from .messages import Block, Message, tool_result, user
from .micro import micro_compact
from .session_log import SessionLog
from .tokens import count_tokens, estimate_tokens
from .tools import Toolbox


@dataclass
class Event:
    """Something a layer did: ``kind`` is micro, auto, manual or max_turns."""
    kind: str
    call: int                 # the model call it happened before (micro, auto) or after (manual)
    tokens_before: int        # estimate_tokens of the history
    tokens_after: int
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class CallTrace:
    """One model call, measured three ways, and what fired just before it."""
    call: int
    input_tokens: int         # reported by the API
    output_tokens: int
    estimated: int            # estimate_tokens(messages)
    counted: int              # count_tokens(messages, system, tools)
    layers: tuple[str, ...]   # layers that fired before this call
    tools: tuple[str, ...]    # tools the model asked for
    kind: str = "agent"       # "agent", or "summary" for a summarisation call


@dataclass
class RunResult:
    stop: str                 # "end_turn", "compact" or "max_turns"
    trace: list[CallTrace] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def context_size(messages: list[Message], config: CompactionConfig,
                 system: str | None = None, tools: list[dict[str, Any]] | None = None) -> int:
    """The number the threshold is compared with, by the configured counter."""
    if config.counter == "estimate":
        return estimate_tokens(messages)
    return count_tokens(messages, system=system, tools=tools)


def to_dicts(content: list[Any]) -> list[Block]:
    """SDK content blocks as plain dicts (text and tool_use; anything else is dropped)."""
    out: list[Block] = []
    for block in content:
        if block.type == "text" and block.text:
            out.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            out.append({"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)})
    return out


def run_agent(client: Any, messages: list[Message], *, system: str, tools: Toolbox,
              config: CompactionConfig, on_event: Callable[[Event], None] | None = None,
              log: SessionLog | None = None, first_call: int = 1) -> RunResult:
    """Run the model and its tools until it ends its turn, compacts itself, or hits max_turns."""
    result = RunResult(stop="max_turns")
    schemas = tools.schemas

    def emit(event: Event) -> None:
        result.events.append(event)
        if on_event:
            on_event(event)

    def summarised(kind: str, call: int, focus: str | None) -> None:
        report = auto_compact(client, messages, config, focus)
        result.trace.append(CallTrace(call, report.summary_input_tokens, report.summary_output_tokens,
                                      report.tokens_before, 0, (kind,), (), "summary"))
        if log:
            log.compacted(messages, layer=kind, message=messages[0], transcript=report.transcript.as_posix())
        emit(Event(kind, call, report.tokens_before, report.tokens_after, {
            "transcript": report.transcript.as_posix(), "summary": report.summary,
            "messages_before": report.messages_before}))

    for call in range(first_call, first_call + config.max_turns):
        if log:
            log.sync(messages)
        layers: list[str] = []
        if config.micro:
            report = micro_compact(messages, config.keep_recent, config.preserve_tools, config.min_chars)
            if report.fired:
                layers.append("micro")
                emit(Event("micro", call, report.tokens_before, report.tokens_after,
                           {"cleared": len(report.cleared), "tools": sorted({c.tool_name for c in report.cleared})}))
        if config.auto and context_size(messages, config, system, schemas) > config.threshold:
            summarised("auto", call, None)
            layers.append("auto")
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens,
                                          system=system, tools=schemas, messages=messages)
        content = to_dicts(response.content)
        uses = [b for b in content if b["type"] == "tool_use"]
        result.trace.append(CallTrace(
            call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(messages),
            count_tokens(messages, system=system, tools=schemas), tuple(layers), tuple(b["name"] for b in uses)))
        if not content:
            content = [{"type": "text", "text": "(no reply)"}]
        messages.append({"role": "assistant", "content": content})
        if not uses:
            result.stop = "end_turn"
            break
        results, focus, compact_called = [], None, False
        for block in uses:
            outcome = tools.run(block["name"], block["input"])
            results.append(tool_result(block["id"], outcome.content, outcome.is_error))
            result.tool_calls.append((block["name"], block["input"]))
            if block["name"] == COMPACT_TOOL_NAME:
                compact_called, focus = True, compact_focus(block["input"])
        messages.append(user(results))
        if compact_called:
            if log:
                log.sync(messages)
            summarised("manual", call, focus)
            result.stop = "compact"
            break
    else:
        emit(Event("max_turns", call, estimate_tokens(messages), estimate_tokens(messages)))
    if log:
        log.sync(messages)
    return result
