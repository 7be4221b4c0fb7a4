"""Which failures are tried again (chapter 07): transient ones only, and only by the harness.

Every error here comes from the real SDK talking to an in-process transport,
so the classes are the ones a student meets on real Claude.
"""
from __future__ import annotations

import time
from email.utils import formatdate

import anthropic
import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import CompactionConfig, RunContext, SummaryFailed, assistant, build_summary_request, request_summary, user
from harness.session.retry import (RetriesExhausted, RetryPolicy, call_with_retry, is_transient, server_wait,
                                   without_sdk_retries)
from harness.strategies.usage_triggered import UsageTriggered

NO_SLEEP = RetryPolicy(attempts=3, sleep=lambda seconds: None)
REQUEST = build_summary_request([user("Read a.py")], model="m", max_tokens=10, tail_chars=None)
OK = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
      "stop_sequence": None, "content": [{"type": "text", "text": "A summary."}],
      "usage": {"input_tokens": 5, "output_tokens": 2}}
TOO_LONG = "prompt is too long: 207791 tokens > 200000 maximum"


class Server:
    """Answers with ``failures`` (a status code, a (status, headers) pair, or an httpx2 exception class)
    first, then a summary."""

    def __init__(self, *failures):
        self.failures, self.requests = list(failures), 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        if not self.failures:
            return httpx2.Response(200, json=OK)
        failure = self.failures.pop(0)
        if isinstance(failure, type):
            raise failure("the wire broke", request=request)
        failure, headers = failure if isinstance(failure, tuple) else (failure, {})
        kind = "overloaded_error" if failure == 529 else "invalid_request_error" if failure < 500 else "api_error"
        return httpx2.Response(failure, headers=headers,
                               json={"type": "error", "error": {"type": kind, "message": TOO_LONG}})

    def client(self, max_retries: int = 0) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key="test", max_retries=max_retries,
                                   http_client=httpx2.Client(transport=httpx2.MockTransport(self)))


TRANSIENT = [408, 409, 429, 500, 529, httpx2.ConnectError, httpx2.ReadTimeout]
PERMANENT = [400, 401, 403, 404, 413]


def summary_call(client):
    return lambda: request_summary(client, REQUEST)


@pytest.mark.parametrize("failure", TRANSIENT, ids=str)
def test_a_transient_failure_is_tried_again(failure):
    server = Server(failure, failure)
    (summary, _), tries = call_with_retry(summary_call(server.client()), NO_SLEEP)
    assert (summary, tries, server.requests) == ("A summary.", 3, 3)


@pytest.mark.parametrize("failure", TRANSIENT, ids=str)
def test_a_transient_failure_every_time_exhausts_the_tries(failure):
    server = Server(*[failure] * 5)
    with pytest.raises(RetriesExhausted) as caught:
        call_with_retry(summary_call(server.client()), NO_SLEEP)
    assert caught.value.attempts == 3 and server.requests == 3 and is_transient(caught.value.last)


@pytest.mark.parametrize("status", PERMANENT)
def test_a_refused_request_is_never_tried_again(status):
    server = Server(status)
    with pytest.raises(SummaryFailed) as caught:
        call_with_retry(summary_call(server.client()), NO_SLEEP)
    assert server.requests == 1 and not is_transient(caught.value)
    assert isinstance(caught.value.__cause__, anthropic.APIStatusError)


@pytest.mark.parametrize("status", range(400, 600))
def test_the_harness_retries_the_statuses_the_sdk_retries(status):
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx2.Response(status, request=request)
    error = anthropic.APIStatusError(f"status {status}", response=response, body=None)
    assert is_transient(error) == Server().client()._should_retry(response)


# --- how long to wait: what the server asked, as the SDK reads it ------------------------------

NOW = 1_780_000_000.0  # a fixed clock, for HTTP-date headers
DATE_IN_30S = formatdate(NOW + 30, usegmt=True)


def pauses(*failures, **policy) -> list[float]:
    """The pauses call_with_retry takes, through the real SDK, before the summary finally arrives."""
    slept: list[float] = []
    server = Server(*failures)
    options = {"attempts": len(failures) + 1, "sleep": slept.append, "clock": lambda: NOW} | policy
    (summary, _), tries = call_with_retry(summary_call(server.client()), RetryPolicy(**options))
    assert (summary, tries) == ("A summary.", len(failures) + 1)
    return slept


@pytest.mark.parametrize("headers, wait", [
    ({"retry-after-ms": "1500"}, 1.5), ({"retry-after": "7"}, 7.0), ({"retry-after": "2.5"}, 2.5),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),           # milliseconds first
    ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),           # unreadable ms: seconds
    ({"retry-after": DATE_IN_30S}, 30.0),                            # an HTTP date, 30 s from now
    ({"retry-after": "Thu, 28 May 2026 20:27:10"}, 30.0),            # the same date with no zone: GMT
])
def test_the_pause_is_what_the_server_asked(headers, wait):
    assert formatdate(NOW + 30, usegmt=True) == "Thu, 28 May 2026 20:27:10 GMT"
    assert pauses((429, headers), (529, headers)) == [wait, wait]


def test_a_wait_above_the_cap_is_cut_to_the_cap():
    assert pauses((429, {"retry-after": "3600"})) == [60.0]
    assert pauses((429, {"retry-after-ms": "9000"}), max_server_wait=5) == [5.0]
    with pytest.raises(ValueError, match="max_server_wait"):
        RetryPolicy(max_server_wait=-1)


@pytest.mark.parametrize("headers", [{}, {"retry-after": "soon"}, {"retry-after": "0"}, {"retry-after": "-3"},
                                     {"retry-after-ms": "-5", "retry-after": "9"},  # read, not positive: backoff
                                     {"retry-after": formatdate(NOW - 30, usegmt=True)}])
def test_no_positive_wait_asked_means_the_policys_own_backoff(headers):
    assert pauses((429, headers), (500, headers), httpx2.ConnectError) == [1.0, 2.0, 4.0]


def test_a_connection_error_has_no_response_to_ask_for_a_wait():
    assert server_wait(anthropic.APIConnectionError(request=httpx2.Request("POST", "https://x")), NOW) is None


HEADER_VALUES = st.one_of(st.none(), st.floats(allow_nan=False).map(str), st.integers(-10**6, 10**9).map(str),
                          st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30),
                          st.sampled_from([formatdate(time.time() + 120, usegmt=True),
                                           formatdate(time.time() - 120, usegmt=True), "Thu, 28 May 2026 20:27:10"]))


@given(ms=HEADER_VALUES, seconds=HEADER_VALUES)
def test_the_wait_read_is_the_sdks_when_it_is_positive(ms, seconds):
    headers = {name: value for name, value in (("retry-after-ms", ms), ("retry-after", seconds)) if value is not None}
    response = httpx2.Response(429, headers=headers, request=httpx2.Request("POST", "https://x"))
    error = anthropic.RateLimitError("slow down", response=response, body=None)
    sdk = Server().client()._parse_retry_after_header(response.headers)
    now = time.time()
    ours = server_wait(error, now)
    if sdk is None or not sdk > 0:
        assert ours is None
    else:
        assert ours == pytest.approx(sdk, abs=1.0)  # a date is read against two clocks a moment apart


def test_an_empty_reply_is_not_a_transient_failure():
    assert not is_transient(SummaryFailed("summary call returned no text"))
    assert not is_transient(ValueError("anything else"))


def test_without_sdk_retries_turns_the_sdks_own_retries_off():
    server = Server(529, 529, 529, 529)
    client = server.client(max_retries=2)
    with pytest.raises(SummaryFailed):
        request_summary(without_sdk_retries(client), REQUEST)
    assert server.requests == 1
    assert without_sdk_retries(object) is object  # a client without with_options is used as it is


def run_context(client, tmp_path) -> RunContext:
    messages = [user("Read a.py"), assistant("Done."), user("Next."), assistant("Done too."), user("And?")]
    return RunContext(client, messages, CompactionConfig(transcript_dir=tmp_path), "sys", [], None,
                      events.append, lambda trace: None)


events: list = []


@pytest.fixture(autouse=True)
def clear_events():
    events.clear()


def usage(total: int):
    return {"input_tokens": total, "output_tokens": 0}


def test_usage_triggered_makes_one_http_request_per_harness_try(tmp_path):
    server = Server(*[529] * 10)
    run = run_context(server.client(max_retries=2), tmp_path)
    before = [dict(m) for m in run.messages]
    UsageTriggered(threshold=100, retry=NO_SLEEP).after_round(run, usage(1_000))
    assert server.requests == 3  # three harness tries; the SDK would have made nine
    [failed] = events
    assert failed.kind == "compaction_failed" and failed.detail["tries"] == 3 and run.messages == before


def test_usage_triggered_does_not_retry_a_prompt_that_is_too_long(tmp_path):
    server = Server(400)
    run = run_context(server.client(max_retries=2), tmp_path)
    UsageTriggered(threshold=100, retry=NO_SLEEP).after_round(run, usage(1_000))
    [failed] = events
    assert server.requests == 1 and failed.kind == "compaction_failed" and failed.detail["tries"] == 1
    assert TOO_LONG in failed.detail["error"]
