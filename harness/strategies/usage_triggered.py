"""The usage-triggered design's strategy: compact on reported usage, between rounds, keeping the user's words
(chapter 06).

After a round's tool results are committed (``after_round``; never between a
tool_use and its result) the strategy reads the usage that round reported
and asks ``decide_compaction``. To compact it asks the same client for a
hand-off summary (no tools) of the history's last ``config.tail_chars``
characters (80,000: the s06 agent's rule, not the usage-triggered design's,
which does not cut), retried with backoff, then replaces the history
with ``replace_history`` and appends one compaction record holding the
summary to the session log, which is all ``resume`` needs to replay it.
A round that ends the turn commits no tool results and is left alone, so
the answer the user is about to read stays in the history.

Failures never touch the history (chapter 07): each failed compaction is an
event, and after ``max_failures`` in a row automatic compaction stops for the
session.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..core.auto import SummaryFailed, build_summary_request, request_summary
from ..core.config import check_count
from ..core.loop import CallTrace, Event, RunContext
from ..core.messages import check_shape
from ..core.models import check_threshold, resolve_threshold
from ..core.tokens import estimate_tokens
from ..session.replacement import (DEFAULT_BUDGET_CHARS, DEFAULT_THRESHOLD, decide_compaction,
                                   plan_replacement, replace_history, reported_total)
from ..session.retry import CircuitBreaker, RetriesExhausted, RetryPolicy, call_with_retry, without_sdk_retries
from .base import Compactor

HANDOFF_PROMPT = (
    "Summarise the conversation below for the model that will continue the work from your summary "
    "and the user's most recent messages alone. Keep the user's goal, the decisions made and why, "
    "the files touched, what is done and what remains, and any errors met. "
    "Write only the summary, with no preamble."
)


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
        check_shape(run.messages)  # before reading the last message's role
        if self.breaker.open or not run.messages or run.messages[-1]["role"] == "assistant":
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
        request = build_summary_request(run.messages, tail_chars=run.config.tail_chars, model=run.config.model,
                                        max_tokens=run.config.summary_max_tokens, prompt=HANDOFF_PROMPT,
                                        focus=focus)
        client = without_sdk_retries(run.client)
        try:
            (summary, usage), tries = call_with_retry(lambda: request_summary(client, request), self.retry)
        except (RetriesExhausted, SummaryFailed) as error:
            tries, last = (error.attempts, error.last) if isinstance(error, RetriesExhausted) else (1, error)
            run.emit(Event("compaction_failed", run.call, tokens_before, tokens_before, {
                **numbers, "reason": reason, "tries": tries, "error": str(last)}))
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
