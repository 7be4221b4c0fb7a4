"""Your loop as the harness's loop: the bookkeeping done around it (chapter 05).

Chapter 05 has you write the agent loop as taught: micro, the threshold check
and auto (``my_layers``), the call, the round with its compact handler
(chapter 04's ``my_finish_round``), the exits. The harness's ``run_agent``
also numbers the calls, logs what is committed before anything may rewrite
it, keeps a trace of every call, and routes the beta requests of chapter 10's
server-side strategies. ``taught_loop(your_loop)`` does the bookkeeping
without your loop knowing: the ``run`` it hands your loop numbers a turn's
call and syncs the log at the turn's first step (``run.micro``,
``run.context_size`` or the call), and again before a summary replaces the
history; its client traces each call with the layers that fired since the
turn began (``run.client`` is that client too, as chapter 05's step 2 uses it;
a summary call goes out untraced, as ``run_agent`` sends it). So a session run by
``taught_loop(your_loop)`` leaves the same
answers, history, trace, events, tool calls and log as one run by
``run_agent`` with ``ThreeLayers()`` (tested). Any other strategy is refused
with a clear error: your loop runs the three layers only.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Callable

from ..core.auto import AutoReport, auto_compact
from ..core.config import CompactionConfig
from ..core.loop import CallTrace, Compaction, Event, MessageLog, RunContext, RunResult, start_run, to_dicts
from ..core.messages import Message
from ..core.micro import MicroReport, micro_compact
from ..core.tokens import count_checked, estimate_tokens
from ..core.tools import Toolbox
from ..strategies.three_layers import ThreeLayers

YourLoop = Callable[..., str]  # (client, messages, *, system, tools, config, run) -> the stop reason
STOPS = ("end_turn", "compact", "max_turns")
BEFORE_CALL = ("micro", "auto")  # the layers a trace names: those that fired before its call


class TaughtRun(RunContext):
    """The RunContext your loop gets: a turn opens at its first step, and closes with its call."""

    def begin(self, result: RunResult) -> "TaughtRun":
        """Start tracing: ``run.client`` is the traced client, as the loop's own ``client`` is."""
        self._result, self._open, self._called, self._since = result, False, False, 0
        self._untraced, self.client = self.client, _TracedClient(_TracedMessages(self.client, self, result))
        return self

    def _turn(self) -> None:
        """The first step of a turn: the next call's number (after a call), the log synced."""
        if self._open:
            return
        if self._called:
            self.call += 1
        self._open, self._since = True, len(self._result.events)
        self._sync()

    def _sync(self) -> None:
        if self.log:
            self.log.sync(self.messages)

    def layers(self) -> tuple[str, ...]:
        """The layers that fired since this turn began."""
        return tuple(e.kind for e in self._result.events[self._since:] if e.kind in BEFORE_CALL)

    def called(self) -> None:
        self._open, self._called = False, True

    def micro(self, clear: Callable[..., MicroReport] = micro_compact,
              config: CompactionConfig | None = None) -> bool:
        self._turn()
        return super().micro(clear, config)

    def context_size(self) -> int:
        self._turn()
        return super().context_size()

    def summarise_and_replace(self, kind: str, focus: str | None = None,
                              compact: Callable[..., AutoReport] = auto_compact) -> AutoReport:
        if self._open or not self._called:
            self._turn()
        self._sync()  # the whole round is logged before the summary replaces the history
        traced, self.client = self.client, self._untraced  # a summary call is traced as a summary, not a turn
        try:
            return super().summarise_and_replace(kind, focus, compact)
        finally:
            self.client = traced


class _TracedMessages:
    """``client.messages`` for your loop: each ``create`` is sent as it is, and traced as run_agent traces it."""

    def __init__(self, client: Any, run: TaughtRun, result: RunResult):
        self._client, self._run, self._result = client, run, result

    def create(self, **request: Any) -> Any:
        run, result = self._run, self._result
        run._turn()
        response = run.response = self._client.messages.create(**request)
        content = to_dicts(response.content) or [{"type": "text", "text": "(no reply)"}]
        uses = [b for b in content if b["type"] == "tool_use"]
        result.trace.append(CallTrace(
            run.call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(run.messages),
            count_checked(run.messages, run.system, run.schemas), run.layers(), tuple(b["name"] for b in uses)))
        result.reply = "\n".join(b["text"] for b in content if b["type"] == "text")
        result.tool_calls += [(b["name"], b["input"]) for b in uses]
        run.called()
        return response


class _TracedClient:
    def __init__(self, messages: _TracedMessages):
        self.messages = messages


def plain_three_layers(compactor: Compaction) -> bool:
    """Whether ``compactor`` is the reference's ``ThreeLayers()``, with no layer of its own swapped in."""
    return (type(compactor) is ThreeLayers and compactor.summarise is None
            and "clear_old_results" not in vars(compactor))


def taught_loop(loop: YourLoop) -> Callable[..., RunResult]:
    """``loop`` with ``run_agent``'s signature and bookkeeping (see the module docstring)."""
    def run_agent_like(client: Any, messages: list[Message], *, system: str, tools: Toolbox, config: Any,
                       compactor: Compaction, on_event: Callable[[Event], None] | None = None,
                       log: MessageLog | None = None, first_call: int = 1,
                       result: RunResult | None = None) -> RunResult:
        if not plain_three_layers(compactor):
            raise ValueError(f"your loop runs the three layers only, not {type(compactor).__name__}: "
                             "run that strategy with harness.run_agent")
        context, result = start_run(client, messages, system, tools, config, on_event, log, result)
        run = TaughtRun(**{f.name: getattr(context, f.name) for f in fields(context)}).begin(result)
        run.call = first_call
        stop = loop(run.client, messages, system=system, tools=tools, config=config, run=run)
        if stop not in STOPS:
            raise ValueError(f"your loop returned {stop!r}; it must return one of {', '.join(STOPS)}")
        result.stop = stop
        if stop == "max_turns":
            run.emit(Event("max_turns", run.call, estimate_tokens(messages), estimate_tokens(messages)))
        run._sync()
        return result
    run_agent_like.__name__ = getattr(loop, "__name__", "your_loop")
    run_agent_like.__qualname__ = run_agent_like.__name__
    return run_agent_like
