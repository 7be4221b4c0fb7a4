"""UsageTriggered in the loop (chapter 06): round boundary, reported usage; retries, circuit breaker (07)."""
import copy
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from harness import (CompactionConfig, RunContext, assistant, is_summary, iter_tool_results, tool_result,
                     tool_use, user, validate_messages)
from harness.fake import FakeModel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.session.replacement import replace_history
from harness.session.resume import resume, resume_naive
from harness.session.retry import CircuitBreaker, RetriesExhausted, RetryPolicy, call_with_retry
from harness.strategies.usage_triggered import UsageTriggered

REQUESTS = LONG_SESSION.requests[:8]
NO_SLEEP = RetryPolicy(sleep=lambda seconds: None)


def usage(total: int) -> SimpleNamespace:
    return SimpleNamespace(input_tokens=total - 10, output_tokens=10)


def context(messages, model: FakeModel | None = None) -> tuple[RunContext, list, list]:
    events, traces = [], []
    run = RunContext((model or FakeModel()).client(), messages, CompactionConfig(), "system", [], None,
                     events.append, traces.append)
    return run, events, traces


def committed_round() -> list:
    return [user("Read a.py"), assistant([tool_use("t1", "read_file", {"path": "a.py"})]),
            user([tool_result("t1", "x = 1\n" * 50)]), assistant([tool_use("t2", "read_file", {"path": "b.py"})]),
            user([tool_result("t2", "y = 2\n" * 50)])]


# --- one round at a time ---------------------------------------------------------------

@pytest.mark.parametrize("reported, compacts", [(None, False), (7_999, False), (8_000, True), (50_000, True)])
def test_the_decision_uses_the_usage_the_round_reported(reported, compacts):
    run, events, traces = context(committed_round())
    UsageTriggered(retry=NO_SLEEP).after_round(run, None if reported is None else usage(reported))
    assert [e.kind for e in events] == (["history_compacted"] if compacts else [])
    if compacts:
        assert events[0].detail["reported_tokens"] == reported
        assert events[0].detail["reason"] == f"reported usage {reported:,} tokens reached the threshold 8,000"
        assert [t.kind for t in traces] == ["summary"]


def test_a_compaction_replaces_the_history_and_reports_its_numbers():
    run, events, _ = context(committed_round())
    before = copy.deepcopy(run.messages)
    UsageTriggered(retry=NO_SLEEP).after_round(run, usage(9_000))
    detail = events[0].detail
    assert run.messages == replace_history(before, detail["summary"])
    assert (detail["items_before"], detail["items_removed"], detail["items_kept"]) == (5, 4, 2)
    assert detail["threshold"] == 8_000 and detail["tries"] == 1
    assert events[0].tokens_after < events[0].tokens_before
    validate_messages(run.messages)


def test_a_round_that_ends_the_turn_is_left_alone():
    run, events, _ = context(committed_round() + [assistant("Both files read.")])
    UsageTriggered().after_round(run, usage(90_000))
    assert events == [] and run.messages[-1] == assistant("Both files read.")


def test_a_short_history_is_left_alone():
    run, events, _ = context(committed_round()[:3])
    UsageTriggered().after_round(run, usage(90_000))
    assert events == []


@pytest.mark.parametrize("threshold, reported, compacts", [(0.04, 7_999, False), (0.04, 8_000, True),
                                                             (0.5, 99_999, False), (0.5, 100_000, True)])
def test_a_fractional_threshold_follows_the_model_window(threshold, reported, compacts):
    run, events, _ = context(committed_round())  # CompactionConfig's model has a 200,000-token window
    UsageTriggered(threshold=threshold, retry=NO_SLEEP).after_round(run, usage(reported))
    assert bool(events) == compacts
    if compacts:
        assert events[0].detail["threshold"] == round(threshold * 200_000)


@pytest.mark.parametrize("options", [{"threshold": 1.5}, {"threshold": 0}, {"threshold": "8k"},
                                     {"budget_chars": -1}, {"max_failures": 0}])
def test_bad_settings_are_refused(options):
    with pytest.raises(ValueError):
        UsageTriggered(**options)


# --- retries and the circuit breaker -------------------------------------------------------

def test_retry_pauses_grow_and_the_sleep_is_injected():
    slept, calls = [], iter([RuntimeError("a"), RuntimeError("b"), "ok"])

    def flaky():
        outcome = next(calls)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    policy = RetryPolicy(attempts=3, first_delay=0.5, factor=3, sleep=slept.append)
    assert call_with_retry(flaky, policy, retry_if=lambda error: True) == ("ok", 3)
    assert slept == [0.5, 1.5]
    assert RetryPolicy(attempts=4).delays() == [1.0, 2.0, 4.0]


def test_retries_exhausted_carries_the_last_error():
    slept = []
    with pytest.raises(RetriesExhausted) as caught:
        call_with_retry(lambda: 1 / 0, RetryPolicy(attempts=2, sleep=slept.append), retry_if=lambda error: True)
    assert caught.value.attempts == 2 and isinstance(caught.value.last, ZeroDivisionError) and slept == [1.0]


def test_the_breaker_opens_after_consecutive_failures_and_a_success_resets_it():
    breaker = CircuitBreaker(3)
    assert [breaker.failed(), breaker.failed()] == [False, False]
    breaker.succeeded()
    assert [breaker.failed(), breaker.failed(), breaker.failed()] == [False, False, True] and breaker.open


def test_a_failing_summary_is_retried_with_backoff_then_succeeds():
    slept = []
    model = FakeModel(fail_summaries=2)
    run, events, _ = context(committed_round(), model)
    UsageTriggered(retry=RetryPolicy(attempts=3, sleep=slept.append)).after_round(run, usage(9_000))
    assert [e.kind for e in events] == ["history_compacted"] and events[0].detail["tries"] == 3
    assert slept == [1.0, 2.0] and model.requests == ["summary"] * 3


def test_three_failed_compactions_stop_auto_compaction_and_leave_history_untouched():
    model = FakeModel(fail_summaries=10**6)
    run, events, _ = context(committed_round(), model)
    before = copy.deepcopy(run.messages)
    strategy = UsageTriggered(retry=RetryPolicy(attempts=2, sleep=lambda s: None))
    for _ in range(5):
        strategy.after_round(run, usage(9_000))
    assert [e.kind for e in events] == ["compaction_failed"] * 3 + ["auto_compaction_stopped"]
    assert "500" in events[0].detail["error"] and events[0].detail["tries"] == 2
    assert "3 compactions failed in a row" in events[-1].detail["reason"]
    assert run.messages == before
    assert model.requests == ["summary"] * 6  # rounds 4 and 5 did not even try


def test_a_success_between_failures_resets_the_count():
    model = FakeModel(fail_summaries=2)
    run, events, _ = context(committed_round(), model)
    strategy = UsageTriggered(retry=RetryPolicy(attempts=1, sleep=lambda s: None))
    for _ in range(3):
        strategy.after_round(run, usage(9_000))
        run.messages += committed_round()[1:]
    assert [e.kind for e in events] == ["compaction_failed", "compaction_failed", "history_compacted"]
    assert strategy.breaker.failures == 0


def test_the_compact_tool_uses_the_same_replacement():
    run, events, _ = context(committed_round())
    UsageTriggered(retry=NO_SLEEP).on_compact(run, "the files read")
    assert events[0].detail["reason"] == "the model called compact"
    assert events[0].detail["reported_tokens"] is None
    assert is_summary(run.messages[0]) and run.messages[1:] == [user("Read a.py")]


# --- a whole session on the fake ------------------------------------------------------------

@dataclass
class RecordingModel(FakeModel):
    bodies: list = field(default_factory=list)

    def reply(self, body, request_id):
        self.bodies.append(body)
        return super().reply(body, request_id)


@dataclass
class Watched(UsageTriggered):
    """Remembers the history just before and just after each compaction, and the usage it used."""
    snapshots: list = field(default_factory=list)

    def after_round(self, run, usage):
        before = copy.deepcopy(run.messages)
        super().after_round(run, usage)
        if run.messages != before:
            self.snapshots.append((before, copy.deepcopy(run.messages), usage))


@pytest.fixture(scope="module")
def session_run(tmp_path_factory):
    model, strategy = RecordingModel(), Watched(retry=NO_SLEEP)
    root = tmp_path_factory.mktemp("usage_triggered")
    session = run_scenario(LONG_SESSION, CompactionConfig(), root, client=model.client(), requests=REQUESTS,
                           log=True, compactor=strategy)
    return session, model, strategy, root / "session.jsonl"


def test_a_session_compacts_several_times(session_run):
    session, _, strategy, _ = session_run
    compactions = [e for e in session.events if e.kind == "history_compacted"]
    assert len(compactions) >= 2 and len(strategy.snapshots) == len(compactions)
    assert session.stats.summary_calls == len(compactions)


def test_compaction_happens_only_after_a_rounds_tool_results(session_run):
    _, _, strategy, _ = session_run
    for before, _, _ in strategy.snapshots:
        last = before[-1]
        assert last["role"] == "user" and [i for i, _, _ in iter_tool_results(before)][-1] == len(before) - 1
        validate_messages(before)


def test_each_compaction_used_that_rounds_reported_usage(session_run):
    session, _, strategy, _ = session_run
    events = [e for e in session.events if e.kind == "history_compacted"]
    for event, (_, _, round_usage) in zip(events, strategy.snapshots):
        assert event.detail["reported_tokens"] == round_usage.input_tokens + round_usage.output_tokens >= 8_000


def test_the_next_call_sees_exactly_the_compacted_history(session_run):
    _, model, strategy, _ = session_run
    summaries = [i for i, b in enumerate(model.bodies) if not b.get("tools")]
    assert len(summaries) == len(strategy.snapshots)
    for index, (_, after, _) in zip(summaries, strategy.snapshots):
        assert model.bodies[index + 1]["messages"] == after


def test_the_session_log_replays_to_the_live_history(session_run):
    session, _, strategy, log = session_run
    resumed = resume(log)
    assert resumed.messages == session.messages and resumed.compactions == len(strategy.snapshots)
    assert len(resume_naive(log)) > len(session.messages)
