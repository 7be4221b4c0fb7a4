"""When the summary call fails: retry with backoff, then a circuit breaker (chapter 07).

Two levels. A failed call is retried after a pause that grows each time (a
rate limit or an overloaded server often clears in seconds). Only a
transient failure is tried again, the statuses the ``anthropic`` SDK itself
retries (``_should_retry`` in its ``_base_client.py``): a request timeout
(408), a conflict (409), a rate limit (429), a server error (500, 529
overloaded, ...), plus a lost connection or a timeout. A request the API
refused otherwise (any other 4xx, such as a 400 "prompt is too long") fails
the same way every time, so it is not retried. A compaction whose every try
failed counts as one failure; after ``limit`` failures in a row the breaker
opens and automatic compaction stops for the session, instead of paying for
a doomed summary call every round. Claude Code stops after 3 (its
CHANGELOG.md, version 2.1.76). The history is never touched by a failure.
``sleep`` is injected, so tests and notebooks do not wait.

When the server says how long to wait, the pause is what it asked, as the
SDK does (``_parse_retry_after_header`` and ``_calculate_retry_timeout`` in
its ``_base_client.py``): the error's response header ``retry-after-ms``
(milliseconds) first, else ``retry-after`` as seconds (a float is taken
too), else ``retry-after`` as an HTTP date, the wait being that date minus
now (``clock``). Only a wait above zero counts; a missing, unreadable or
non-positive header leaves the policy's own backoff. The SDK caps the wait
only at what ``time.sleep`` accepts (about 4.3 million seconds); this harness
caps it at ``max_server_wait`` (60 s unless told otherwise, our choice: a
session waits at most a minute for one compaction, then tries again). The
header is found on the error or on the errors it was raised from, like the
status. The SDK's own retries are off here (``without_sdk_retries``), so
these headers are honoured once, by the harness.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timezone
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import anthropic

from ..core.config import check_count
from ..core.errors import Portable

T = TypeVar("T")
RETRIED_STATUSES = frozenset({408, 409, 429})  # and every 5xx: what the SDK itself retries


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` tries in all; the pauses between them are first_delay, first_delay*factor, ...,
    unless the failed response asked for a wait (``retry-after-ms`` / ``retry-after``): then that wait,
    at most ``max_server_wait`` seconds. ``clock`` (Unix seconds) dates an HTTP-date ``retry-after``."""
    attempts: int = 3
    first_delay: float = 1.0
    factor: float = 2.0
    sleep: Callable[[float], None] = time.sleep
    max_server_wait: float = 60.0
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        check_count("attempts", self.attempts, 1)
        if self.first_delay < 0 or self.factor < 1:
            raise ValueError("first_delay must be >= 0 and factor >= 1")
        if not self.max_server_wait >= 0:
            raise ValueError(f"max_server_wait must be >= 0 seconds, got {self.max_server_wait!r}")

    def delays(self) -> list[float]:
        """The pauses taken when every try fails (one fewer than the attempts)."""
        return [self.first_delay * self.factor ** k for k in range(self.attempts - 1)]


class RetriesExhausted(Portable, RuntimeError):
    """Every try failed; ``last`` is the last error, ``attempts`` how many tries were made."""

    def __init__(self, attempts: int, last: Exception):
        super().__init__(f"{attempts} tries failed; last error: {last}")
        self.attempts, self.last = attempts, last


def is_transient(error: BaseException) -> bool:
    """Whether trying the same request again may succeed: a 408, 409, 429 or 5xx, a lost connection or
    a timeout, found on ``error`` or on the errors it was raised from (``SummaryFailed`` wraps one)."""
    for seen in _causes(error):
        if isinstance(seen, anthropic.APIConnectionError):  # APITimeoutError is one
            return True
        if isinstance(seen, anthropic.APIStatusError):
            return seen.status_code in RETRIED_STATUSES or seen.status_code >= 500
    return False


def server_wait(error: BaseException, now: float) -> float | None:
    """The seconds the failed response asked the client to wait (the module's rule), uncapped;
    None when no response on ``error``'s chain asks for a wait above zero. ``now``: Unix seconds."""
    for seen in _causes(error):
        if isinstance(seen, anthropic.APIStatusError):
            wait = _asked_wait(seen.response.headers, now)
            return wait if wait is not None and wait > 0 else None
    return None


def _asked_wait(headers: Any, now: float) -> float | None:
    """``retry-after-ms`` in seconds, else ``retry-after`` as seconds, else as an HTTP date; None if none reads."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return float(headers.get(name)) / scale
        except (TypeError, ValueError):
            pass
    try:
        date = parsedate_to_datetime(headers.get("retry-after"))
    except (TypeError, ValueError, IndexError):
        return None
    return (date if date.tzinfo else date.replace(tzinfo=timezone.utc)).timestamp() - now  # no zone: GMT


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, then the error it was raised from, and so on."""
    seen: BaseException | None = error
    while seen is not None:
        yield seen
        seen = seen.__cause__


def call_with_retry(call: Callable[[], T], policy: RetryPolicy,
                    retry_if: Callable[[Exception], bool] = is_transient) -> tuple[T, int]:
    """``(call(), tries used)``, pausing between tries that failed with an error ``retry_if``
    accepts (the server's asked wait, capped, else the policy's backoff); any other error is raised at
    once; RetriesExhausted if every try failed."""
    delays, attempt = policy.delays(), 1
    while True:
        try:
            return call(), attempt
        except Exception as error:
            if not retry_if(error):
                raise
            if attempt == policy.attempts:
                raise RetriesExhausted(policy.attempts, error) from error
            asked = server_wait(error, policy.clock())
            policy.sleep(delays[attempt - 1] if asked is None else min(asked, policy.max_server_wait))
            attempt += 1


def without_sdk_retries(client: Any) -> Any:
    """The same client with the SDK's own retries off, so that only the harness retries
    (the SDK retries twice by default: three harness tries would be nine HTTP requests)."""
    with_options = getattr(client, "with_options", None)
    return with_options(max_retries=0) if with_options else client


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
