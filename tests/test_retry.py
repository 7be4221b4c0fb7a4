"""Which failures are tried again (chapter 07): transient ones only, and only by the harness.

Every error here comes from the real SDK talking to an in-process transport,
so the classes are the ones a student meets on real Claude.
"""
from __future__ import annotations

import anthropic
import httpx2
import pytest

from harness import CompactionConfig, RunContext, SummaryFailed, assistant, build_summary_request, request_summary, user
from harness.session.retry import RetriesExhausted, RetryPolicy, call_with_retry, is_transient, without_sdk_retries
from harness.strategies.usage_triggered import UsageTriggered

NO_SLEEP = RetryPolicy(attempts=3, sleep=lambda seconds: None)
REQUEST = build_summary_request([user("Read a.py")], model="m", max_tokens=10, tail_chars=None)
OK = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
      "stop_sequence": None, "content": [{"type": "text", "text": "A summary."}],
      "usage": {"input_tokens": 5, "output_tokens": 2}}
TOO_LONG = "prompt is too long: 207791 tokens > 200000 maximum"


class Server:
    """Answers with ``failures`` (a status code, or an httpx2 exception class) first, then a summary."""

    def __init__(self, *failures):
        self.failures, self.requests = list(failures), 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        if not self.failures:
            return httpx2.Response(200, json=OK)
        failure = self.failures.pop(0)
        if isinstance(failure, type):
            raise failure("the wire broke", request=request)
        kind = "overloaded_error" if failure == 529 else "invalid_request_error" if failure < 500 else "api_error"
        return httpx2.Response(failure, json={"type": "error", "error": {"type": kind, "message": TOO_LONG}})

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
