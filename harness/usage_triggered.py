"""Seed 000's strategy: compact on reported usage, between rounds, keeping the user's words (chapter 06).

After a round's tool results are committed (``after_round``; never between a
tool_use and its result) the strategy reads the usage that round reported
and asks ``decide_compaction``. To compact it asks the same client for a
hand-off summary (no tools), retried with backoff, then replaces the history
with ``replace_history`` and appends one compaction record holding the
summary to the session log, which is all ``resume`` needs to replay it.
A round that ends the turn commits no tool results and is left alone, so
the answer the user is about to read stays in the history.

Failures never touch the history: each failed compaction is an event, and
after ``max_failures`` in a row automatic compaction stops for the session.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .auto import SummaryFailed
from .compactor import CallTrace, Compactor, Event, RunContext
from .config import check_count
from .messages import Message, user
from .model_windows import check_threshold, resolve_threshold
from .replacement import (DEFAULT_BUDGET_CHARS, DEFAULT_THRESHOLD, decide_compaction, plan_replacement,
                          replace_history, reported_total)
from .retry import CircuitBreaker, RetriesExhausted, RetryPolicy, call_with_retry
from .tokens import estimate_tokens

HANDOFF_PROMPT = (
    "Summarise the conversation below for the model that will continue the work from your summary "
    "and the user's most recent messages alone. Keep the user's goal, the decisions made and why, "
    "the files touched, what is done and what remains, and any errors met. "
    "Write only the summary, with no preamble."
)


def build_handoff_request(messages: list[Message], *, tail_chars: int, model: str, max_tokens: int,
                          focus: str | None = None) -> dict[str, Any]:
    """The summary call's keyword arguments: no tools, the history's last ``tail_chars`` as JSON."""
    prompt = HANDOFF_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    tail = json.dumps(messages, ensure_ascii=False)[-tail_chars:]
    return {"model": model, "max_tokens": max_tokens,
            "messages": [user(f"{prompt}\n\n<conversation>\n{tail}\n</conversation>")]}


def request_summary(client: Any, request: dict[str, Any]) -> tuple[str, Any]:
    """One summary call: (text, usage), or SummaryFailed for an error or an empty reply."""
    try:
        response = client.messages.create(**request)
    except Exception as error:  # any API or transport failure is reported, never fatal
        raise SummaryFailed(f"summary call failed: {error}") from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


@dataclass
class UsageTriggered(Compactor):
    """Compact when the reported usage of a committed round reaches ``threshold``.

    ``threshold``: tokens (int) or a fraction of the model's window (float).
    One instance serves one session: it holds the circuit breaker.
    """
    threshold: int | float = DEFAULT_THRESHOLD
    budget_chars: int = DEFAULT_BUDGET_CHARS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_failures: int = 3
    breaker: CircuitBreaker = field(init=False)
    name: ClassVar[str] = "usage_triggered"

    def __post_init__(self) -> None:
        check_count("budget_chars", self.budget_chars)
        check_threshold(self.threshold)
        self.breaker = CircuitBreaker(self.max_failures)

    def after_round(self, run: RunContext, usage: Any) -> None:
        if self.breaker.open or run.messages[-1]["role"] == "assistant":
            return
        threshold = resolve_threshold(self.threshold, run.config.model)
        total = reported_total(usage)
        decision = decide_compaction(total, threshold, len(run.messages))
        if not decision.compact:
            return
        if self.compact(run, decision.reason, {"reported_tokens": total, "threshold": threshold}):
            self.breaker.succeeded()
        elif self.breaker.failed():
            tokens = estimate_tokens(run.messages)
            run.emit(Event("auto_compaction_stopped", run.call, tokens, tokens, {
                "failures": self.breaker.failures,
                "reason": f"{self.breaker.failures} compactions failed in a row: "
                          "automatic compaction is off for the rest of this session"}))

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        """The model called ``compact``: the same replacement, whatever the usage."""
        self.compact(run, "the model called compact", {"reported_tokens": None, "threshold": None}, focus)

    def compact(self, run: RunContext, reason: str, numbers: dict[str, Any], focus: str | None = None) -> bool:
        """Summary (with retries), replacement, log record, event; False (history untouched) on failure."""
        tokens_before = estimate_tokens(run.messages)
        request = build_handoff_request(run.messages, tail_chars=run.config.tail_chars, model=run.config.model,
                                        max_tokens=run.config.summary_max_tokens, focus=focus)
        try:
            (summary, usage), tries = call_with_retry(lambda: request_summary(run.client, request),
                                                      self.retry, (SummaryFailed,))
        except RetriesExhausted as error:
            run.emit(Event("compaction_failed", run.call, tokens_before, tokens_before, {
                **numbers, "reason": reason, "tries": error.attempts, "error": str(error.last)}))
            return False
        run.record(CallTrace(run.call, usage.input_tokens, usage.output_tokens, tokens_before, 0,
                             (self.name,), (), "summary"))
        plan = plan_replacement(run.messages, self.budget_chars)
        run.messages[:] = replace_history(run.messages, summary, self.budget_chars)
        if run.log:
            run.log.compacted(run.messages, strategy=self.name, summary=summary,
                              budget_chars=self.budget_chars, reason=reason, **numbers)
        run.emit(Event("history_compacted", run.call, tokens_before, estimate_tokens(run.messages), {
            **numbers, "reason": reason, "items_before": plan.items_before,
            "items_removed": plan.items_removed, "items_kept": plan.items_kept,
            "summary": summary, "tries": tries}))
        return True
