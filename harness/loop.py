"""The agent loop with all three layers, in the order that keeps history valid (chapter 05).

Before every model call the compactor runs (for the reference agent: (1)
micro-compact, (2) past the threshold, auto-compact: transcript, summary,
replace). Then call the model, run every tool it asked for and append all
the results in one user message, ``compact``'s included, so no tool_use is
ever left without its result. The round is then committed and the compactor
may act again. If the model called ``compact``, compact and leave the loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .compactor import CallTrace, Compactor, Event, RunContext, ThreeLayers
from .config import CompactionConfig
from .manual import COMPACT_TOOL_NAME, compact_focus
from .messages import Block, Message, tool_result, user
from .session_log import SessionLog
from .tokens import count_tokens, estimate_tokens
from .tools import Toolbox


@dataclass
class RunResult:
    stop: str                 # "end_turn", "compact" or "max_turns"
    trace: list[CallTrace] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reply: str = ""           # the text of the model's last reply, kept even when compaction replaced it


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
              log: SessionLog | None = None, first_call: int = 1,
              compactor: Compactor | None = None) -> RunResult:
    """Run the model and its tools until it ends its turn, compacts itself, or hits max_turns.

    ``compactor`` defaults to ``ThreeLayers()``, the reference agent, driven by ``config``.
    """
    result = RunResult(stop="max_turns")
    compactor = compactor or ThreeLayers()

    def emit(event: Event) -> None:
        result.events.append(event)
        if on_event:
            on_event(event)

    run = RunContext(client, messages, config, system, tools.schemas, log, emit, result.trace.append)
    for call in range(first_call, first_call + config.max_turns):
        run.call = call
        if log:
            log.sync(messages)
        layers = compactor.before_call(run)
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens,
                                          system=system, tools=run.schemas, messages=messages)
        content = to_dicts(response.content) or [{"type": "text", "text": "(no reply)"}]
        uses = [b for b in content if b["type"] == "tool_use"]
        result.trace.append(CallTrace(
            call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(messages),
            count_tokens(messages, system=system, tools=run.schemas), tuple(layers),
            tuple(b["name"] for b in uses)))
        messages.append({"role": "assistant", "content": content})
        result.reply = "\n".join(b["text"] for b in content if b["type"] == "text")
        focus, compact_called = None, False
        if uses:
            results = []
            for block in uses:
                outcome = tools.run(block["name"], block["input"])
                results.append(tool_result(block["id"], outcome.content, outcome.is_error))
                result.tool_calls.append((block["name"], block["input"]))
                if block["name"] == COMPACT_TOOL_NAME:
                    compact_called, focus = True, compact_focus(block["input"])
            messages.append(user(results))
        if log:
            log.sync(messages)
        if compact_called:
            compactor.on_compact(run, focus)
            result.stop = "compact"
            break
        compactor.after_round(run, response.usage)
        if not uses:
            result.stop = "end_turn"
            break
    else:
        emit(Event("max_turns", call, estimate_tokens(messages), estimate_tokens(messages)))
    if log:
        log.sync(messages)
    return result
