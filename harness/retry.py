"""When the summary call fails: retry with backoff, then a circuit breaker (chapter 06).

Two levels, as production agents do it. A failed call is retried after a
pause that grows each time (a rate limit or an overloaded server often
clears in seconds). A compaction whose every try failed counts as one
failure; after ``limit`` failures in a row the breaker opens and automatic
compaction stops for the session (Claude Code stops after 3), instead of
paying for a doomed summary call every round. The history is never touched
by a failure. ``sleep`` is injected, so tests and notebooks do not wait.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .config import check_count

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` tries in all; the pauses between them are first_delay, first_delay*factor, ..."""
    attempts: int = 3
    first_delay: float = 1.0
    factor: float = 2.0
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        check_count("attempts", self.attempts, 1)
        if self.first_delay < 0 or self.factor < 1:
            raise ValueError("first_delay must be >= 0 and factor >= 1")

    def delays(self) -> list[float]:
        """The pauses taken when every try fails (one fewer than the attempts)."""
        return [self.first_delay * self.factor ** k for k in range(self.attempts - 1)]


class RetriesExhausted(RuntimeError):
    """Every try failed; ``last`` is the last error, ``attempts`` how many tries were made."""

    def __init__(self, attempts: int, last: Exception):
        super().__init__(f"{attempts} tries failed; last error: {last}")
        self.attempts, self.last = attempts, last


def call_with_retry(call: Callable[[], T], policy: RetryPolicy,
                    retry_on: tuple[type[Exception], ...] = (Exception,)) -> tuple[T, int]:
    """``(call(), tries used)``, pausing between failed tries; RetriesExhausted if all fail."""
    for attempt, pause in enumerate(policy.delays(), start=1):
        try:
            return call(), attempt
        except retry_on:
            policy.sleep(pause)
    try:
        return call(), policy.attempts
    except retry_on as error:
        raise RetriesExhausted(policy.attempts, error) from error


@dataclass
class CircuitBreaker:
    """Counts consecutive failures; open (stop trying) once ``limit`` is reached."""
    limit: int = 3
    failures: int = 0

    def __post_init__(self) -> None:
        check_count("limit", self.limit, 1)

    @property
    def open(self) -> bool:
        return self.failures >= self.limit

    def failed(self) -> bool:
        """Count one failure; True if this one opened the breaker."""
        self.failures += 1
        return self.failures == self.limit

    def succeeded(self) -> None:
        self.failures = 0
