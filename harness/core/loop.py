"""The agent loop, and the three hooks through which a compaction strategy acts (chapter 05).

Before every model call the strategy's ``before_call`` runs (for the
reference agent: (1) micro-compact, (2) past the threshold, auto-compact:
transcript, summary, replace). Then call the model, and ``finish_round``
(chapter 04): run every tool it asked for and append all the results in
one user message, ``compact``'s included, so no tool_use is ever left
without its result; only then, if the model called ``compact``, compact
(``on_compact``) and end the loop. Otherwise the round is committed and
``after_round`` may act.

The strategies themselves live in ``harness.strategies``; the loop only
knows the three hooks, and asks the strategy for extra keyword arguments of
the model call (``request_options``). With ``betas`` among them the call goes
through ``client.beta.messages.create``: that is how a strategy turns on the
API's own context management (chapter 10). ``RunContext`` is what a hook may see and use.

Every ``stop_reason`` of the SDK's ``StopReason``/``BetaStopReason`` has its handling:

- ``tool_use``: the round ends as above; ``end_turn`` and ``stop_sequence``: the turn is over, the
  run stops with that reason;
- ``pause_turn`` and ``compaction`` (``pause_after_compaction``): the turn is unfinished; it is
  appended as it came and sent back, no tool runs, the loop goes on ("You may provide the response
  back as-is in a subsequent request to let the model continue", the SDK's ``Message.stop_reason``
  docstring; the SDK's tool runner does the same, ``lib/tools/_beta_runner.py``: ``"resume"``). The
  API pauses for its server tools, never on a client tool call; one in a paused turn is dropped, so
  none is left unanswered. A pause is an event of kind ``pause_turn``;
- ``refusal``: the run stops and the refused turn is not kept, as the SDK's thread helper does not
  keep it (``lib/threads/_thread_state.py``, ``record_reply``);
- ``max_tokens`` and ``model_context_window_exceeded``: the reply was cut, by ``max_tokens`` or by
  the window, maybe in the middle of a tool call, so none of its tool calls runs (the SDK's tool
  runner stops on both too). Its text is kept, its tool_use blocks are not: no tool_use without its
  result ever enters the history. The run stops with that reason, and the dropped calls are in an
  event of the same kind.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from .auto import AutoReport, auto_compact
from .config import CompactionConfig
from .manual import COMPACT_TOOL_NAME, compact_focus
from .messages import Block, Message, check_shape, tool_result, user
from .micro import MicroReport, micro_compact
from .tokens import count_checked, count_tokens, estimate_tokens, repr_length
from .tools import Toolbox


UNFINISHED = ("refusal", "max_tokens", "model_context_window_exceeded")  # the run stops; no tool of it runs
PAUSED = ("pause_turn", "compaction")  # the server holds the turn open: sent back, the loop goes on
NO_REPLY: list[Block] = [{"type": "text", "text": "(no reply)"}]  # what an empty finished reply is kept as


@dataclass
class Event:
    """Something a layer did: ``kind`` is micro, auto, manual, max_turns, or a strategy's own."""
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


class MessageLog(Protocol):
    """What the loop needs of a session log (``harness.session.SessionLog`` is one)."""

    def sync(self, messages: list[Message]) -> int: ...

    def compacted(self, messages: list[Message], **fields: Any) -> dict[str, Any]: ...


class Compaction(Protocol):
    """The three hooks the loop calls, and the extra arguments of each model call
    (``harness.strategies.Compactor`` is the base class)."""

    def before_call(self, run: "RunContext") -> list[str]: ...

    def request_options(self, run: "RunContext") -> dict[str, Any]: ...

    def after_round(self, run: "RunContext", usage: Any) -> None: ...

    def on_compact(self, run: "RunContext", focus: str | None) -> None: ...


@dataclass
class RunContext:
    """What a compaction strategy may see and use during one run of the loop."""
    client: Any
    messages: list[Message]
    config: CompactionConfig
    system: str
    schemas: list[dict[str, Any]]
    log: MessageLog | None
    emit: Callable[[Event], None]
    record: Callable[[CallTrace], None]
    call: int = 0
    response: Any = None      # the latest model response (the API's context management reports there)

    def context_size(self) -> int:
        """The number a threshold is compared with, by the configured counter."""
        if self.config.counter == "estimate":
            return estimate_tokens(self.messages)
        return count_tokens(self.messages, system=self.system, tools=self.schemas)

    def summarise_and_replace(self, kind: str, focus: str | None = None,
                              compact: Callable[..., AutoReport] = auto_compact) -> AutoReport:
        """Transcript, summary, replacement (``compact``, auto_compact by default), then trace, log and event."""
        report = compact(self.client, self.messages, self.config, focus)
        self.record(CallTrace(self.call, report.summary_input_tokens, report.summary_output_tokens,
                              report.tokens_before, 0, (kind,), (), "summary"))
        if self.log:
            self.log.compacted(self.messages, layer=kind, message=self.messages[0],
                               transcript=report.transcript.as_posix())
        self.emit(Event(kind, self.call, report.tokens_before, report.tokens_after, {
            "transcript": report.transcript.as_posix(), "summary": report.summary,
            "messages_before": report.messages_before}))
        return report

    def micro(self, clear: Callable[..., MicroReport] = micro_compact,
              config: CompactionConfig | None = None) -> bool:
        """Run a micro layer with the knobs of ``config`` (the run's by default); emit its event;
        True if it cleared anything."""
        config = config or self.config
        report = clear(self.messages, config.keep_recent, config.preserve_tools, config.min_chars)
        if report.fired:
            after = repr_length(self.messages)
            self.emit(Event("micro", self.call, (after + report.repr_chars_saved) // 4, after // 4, {
                "cleared": len(report.cleared), "tools": sorted({c.tool_name for c in report.cleared})}))
        return report.fired


@dataclass
class RunResult:
    stop: str                 # "end_turn", "stop_sequence", "compact", "max_turns", or a cut or refused
    #                           reply's stop_reason: "max_tokens", "model_context_window_exceeded", "refusal"
    trace: list[CallTrace] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reply: str = ""           # the text of the model's last reply, kept even when compaction replaced it


def to_dicts(content: list[Any]) -> list[Block]:
    """SDK content blocks as plain dicts: text, tool_use, and the blocks that must go back unchanged, with
    every field exactly as the API sent them: compaction (chapter 10), thinking and redacted_thinking (a
    thinking block's signature must match its text, and with thinking on a tool loop's assistant turn must
    open with one); anything else is dropped."""
    out: list[Block] = []
    for block in content:
        if block.type == "text" and block.text:
            out.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            out.append({"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)})
        elif block.type in ("compaction", "thinking", "redacted_thinking"):
            out.append({"type": block.type, **block.to_dict(mode="json")})
    return out


def finish_round(messages: list[Message], content: list[Block], tools: Toolbox,
                 compact: Callable[[str | None], Any]) -> bool:
    """The end of a round (chapter 04): append the model's reply, run every tool it asked for and
    append all their results in one user message, ``compact``'s included (its handler only
    acknowledges). Only then, if the model called ``compact``, call ``compact(focus)`` and return
    True: the loop ends. False if it did not call ``compact``."""
    messages.append({"role": "assistant", "content": content})
    uses = [b for b in content if b["type"] == "tool_use"]
    if not uses:
        return False
    results, called, focus = [], False, None
    for block in uses:
        outcome = tools.run(block["name"], block["input"])
        results.append(tool_result(block["id"], outcome.content, outcome.is_error))
        if block["name"] == COMPACT_TOOL_NAME:
            called, focus = True, compact_focus(block["input"])
    messages.append(user(results))
    if called:
        compact(focus)
    return called


def messages_api(client: Any, options: dict[str, Any]) -> Any:
    """Where a call with these ``request_options`` goes: ``client.beta.messages`` when they name betas."""
    return client.beta.messages if "betas" in options else client.messages


def start_run(client: Any, messages: list[Message], system: str, tools: Toolbox, config: CompactionConfig,
              on_event: Callable[[Event], None] | None, log: MessageLog | None,
              result: RunResult | None) -> tuple[RunContext, RunResult]:
    """The start of a loop's run (chapter 05): the history checked (InvalidHistory before any call), the
    result to fill in (``result``, or a new one), and the RunContext whose ``emit`` records each event in it."""
    check_shape(messages)
    result = result if result is not None else RunResult(stop="max_turns")

    def emit(event: Event) -> None:
        result.events.append(event)
        if on_event:
            on_event(event)

    return RunContext(client, messages, config, system, tools.schemas, log, emit, result.trace.append), result


def run_agent(client: Any, messages: list[Message], *, system: str, tools: Toolbox,
              config: CompactionConfig, compactor: Compaction,
              on_event: Callable[[Event], None] | None = None,
              log: MessageLog | None = None, first_call: int = 1,
              result: RunResult | None = None,
              finish: Callable[..., bool] = finish_round) -> RunResult:
    """Run the model and its tools until it ends its turn, compacts itself, or hits max_turns.

    ``compactor`` is the strategy (``harness.strategies.ThreeLayers()`` is the reference agent).
    A malformed ``messages`` raises InvalidHistory before anything runs. ``result`` is filled in
    as the run goes: pass your own to keep the calls made before an error (``Session.ask`` does).
    ``finish`` ends each round (``finish_round`` by default; chapter 04 passes the student's)."""
    run, result = start_run(client, messages, system, tools, config, on_event, log, result)

    def compact(focus: str | None) -> None:
        if log:
            log.sync(messages)  # the whole round is logged before the compaction rewrites the history
        compactor.on_compact(run, focus)

    for call in range(first_call, first_call + config.max_turns):
        run.call = call
        if log:
            log.sync(messages)
        layers = compactor.before_call(run)
        options = compactor.request_options(run)
        response = run.response = messages_api(client, options).create(
            model=config.model, max_tokens=config.max_tokens, system=system, tools=run.schemas,
            messages=messages, **options)
        content = to_dicts(response.content)
        uses = [b for b in content if b["type"] == "tool_use"]
        result.trace.append(CallTrace(  # the API took this history, so it is counted without checking it again
            call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(messages),
            count_checked(messages, system, run.schemas), tuple(layers), tuple(b["name"] for b in uses)))
        result.reply = "\n".join(b["text"] for b in content or NO_REPLY if b["type"] == "text")
        stop = response.stop_reason
        if stop in UNFINISHED:
            result.stop = stop
            if uses:
                run.emit(Event(stop, call, estimate_tokens(messages), estimate_tokens(messages),
                               {"dropped_tool_uses": [b["name"] for b in uses]}))
            kept = [b for b in content if b["type"] != "tool_use"] if stop != "refusal" else []
            if kept:
                messages.append({"role": "assistant", "content": kept})
                compactor.after_round(run, response.usage)
            break
        if stop in PAUSED:  # the turn goes back to the server as it came, and no tool runs
            back = [b for b in content if b["type"] != "tool_use"]  # none is paused on: none left unanswered
            if back:
                messages.append({"role": "assistant", "content": back})
            if stop == "pause_turn":
                run.emit(Event(stop, call, estimate_tokens(messages), estimate_tokens(messages),
                               {"dropped_tool_uses": [b["name"] for b in uses]}))
            compactor.after_round(run, response.usage)
            continue
        result.tool_calls += [(b["name"], b["input"]) for b in uses]
        if finish(messages, content or NO_REPLY, tools, compact):
            result.stop = "compact"
            break
        if log:
            log.sync(messages)
        compactor.after_round(run, response.usage)
        if not uses:
            result.stop = stop if stop == "stop_sequence" else "end_turn"
            break
    else:
        run.emit(Event("max_turns", call, estimate_tokens(messages), estimate_tokens(messages)))
    if log:
        log.sync(messages)
    return result
