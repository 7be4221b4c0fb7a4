"""Your loop as the harness's loop: the bookkeeping done around it (chapter 05).

Chapter 05 has you write the agent loop as taught: the strategy's ``before_call``
(micro and auto), the call, the round (chapter 04's ``my_finish_round``), the
exits. The harness's ``run_agent`` also numbers the calls, logs what is
committed before anything may rewrite it, keeps a trace of every call, and
routes the beta requests of chapter 10's server-side strategies.
``taught_loop(your_loop)`` does the bookkeeping around your loop without your
loop knowing: it hands it a client that traces each call, and a strategy that
numbers the call and syncs the log before each hook. So a session run by
``taught_loop(your_loop)`` leaves the same answers, history, trace, events,
tool calls and log as one run by ``run_agent`` (tested), for every strategy
that needs no beta routing; a server-side strategy is refused with a clear error.

``micro`` and ``summarise`` put your own layers (chapters 02 and 03) into the
three layers: a plain ``ThreeLayers()`` the session passes becomes
``ThreeLayers(micro=micro, summarise=summarise)``.
"""
from __future__ import annotations

from itertools import count
from typing import Any, Callable, Iterator

from ..core.loop import CallTrace, Compaction, Event, MessageLog, RunContext, RunResult, start_run, to_dicts
from ..core.messages import Message
from ..core.tokens import count_checked, estimate_tokens
from ..core.tools import Toolbox
from ..strategies.three_layers import ThreeLayers

YourLoop = Callable[..., str]  # (client, messages, *, system, tools, config, compactor, run) -> the stop reason
STOPS = ("end_turn", "compact", "max_turns")


class _TracedMessages:
    """``client.messages`` for your loop: each ``create`` is sent as it is, and traced as run_agent traces it."""

    def __init__(self, client: Any, run: RunContext, result: RunResult, layers: list[str]):
        self._client, self._run, self._result, self._layers = client, run, result, layers

    def create(self, **request: Any) -> Any:
        run, result = self._run, self._result
        response = run.response = self._client.messages.create(**request)
        content = to_dicts(response.content) or [{"type": "text", "text": "(no reply)"}]
        uses = [b for b in content if b["type"] == "tool_use"]
        result.trace.append(CallTrace(
            run.call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(run.messages),
            count_checked(run.messages, run.system, run.schemas), tuple(self._layers), tuple(b["name"] for b in uses)))
        result.reply = "\n".join(b["text"] for b in content if b["type"] == "text")
        result.tool_calls += [(b["name"], b["input"]) for b in uses]
        return response


class _TracedClient:
    def __init__(self, messages: _TracedMessages):
        self.messages = messages


class _Bookkept(Compaction):
    """The session's strategy, with run_agent's bookkeeping before each hook."""

    def __init__(self, inner: Compaction, calls: Iterator[int], layers: list[str], log: MessageLog | None):
        self.inner, self._calls, self._layers, self._log = inner, calls, layers, log

    def _sync(self, run: RunContext) -> None:
        if self._log:
            self._log.sync(run.messages)

    def before_call(self, run: RunContext) -> list[str]:
        run.call = next(self._calls)
        self._sync(run)
        layers = self.inner.before_call(run)
        if self.inner.request_options(run):
            raise ValueError(f"{type(self.inner).__name__} sends the API's context management, which your loop "
                             "does not route: run it with harness.run_agent")
        self._layers[:] = layers
        return layers

    def request_options(self, run: RunContext) -> dict[str, Any]:
        return {}

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        self._sync(run)  # the whole round is logged before the compaction rewrites the history
        self.inner.on_compact(run, focus)

    def after_round(self, run: RunContext, usage: Any) -> None:
        self._sync(run)
        self.inner.after_round(run, usage)


def taught_loop(loop: YourLoop, *, micro: Callable[..., Any] | None = None,
                summarise: Callable[..., Any] | None = None) -> Callable[..., RunResult]:
    """``loop`` with ``run_agent``'s signature and bookkeeping (see the module docstring)."""
    def run_agent_like(client: Any, messages: list[Message], *, system: str, tools: Toolbox, config: Any,
                       compactor: Compaction, on_event: Callable[[Event], None] | None = None,
                       log: MessageLog | None = None, first_call: int = 1,
                       result: RunResult | None = None) -> RunResult:
        run, result = start_run(client, messages, system, tools, config, on_event, log, result)
        run.call = first_call
        if (micro or summarise) and type(compactor) is ThreeLayers and compactor.summarise is None:
            compactor = ThreeLayers(micro=micro, summarise=summarise)
        layers: list[str] = []
        traced = _TracedClient(_TracedMessages(client, run, result, layers))
        stop = loop(traced, messages, system=system, tools=tools, config=config,
                    compactor=_Bookkept(compactor, count(first_call), layers, log), run=run)
        if stop not in STOPS:
            raise ValueError(f"your loop returned {stop!r}; it must return one of {', '.join(STOPS)}")
        result.stop = stop
        if stop == "max_turns":
            run.emit(Event("max_turns", run.call, estimate_tokens(messages), estimate_tokens(messages)))
        if log:
            log.sync(messages)
        return result
    run_agent_like.__name__ = getattr(loop, "__name__", "your_loop")
    run_agent_like.__qualname__ = run_agent_like.__name__
    return run_agent_like
