"""The references of chapters 07 and 11 (harness/labs/solutions/) do what the harness's own layers do, on
every case of their steps: a function that passes its check then behaves as the harness in the chapter."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.core.tools import PathEscape
from harness.labs.solutions import find_step
from harness.labs.yours import compare
from harness.labs.solutions.ch07 import RETRY_STATUSES, _retried_statuses, _tear_cases, tear
from harness.memory.store import memory_path
from harness.session.log import SessionLog
from harness.session.records import read_log
from harness.session.resume import interruption


def is_hidden(path: object) -> bool:
    return isinstance(path, str) and any(p.startswith(".") and p not in (".", "..") for p in path.split("/"))


def outcome(function, path):
    try:
        return function(path)
    except PathEscape:
        return PathEscape


def test_the_interruption_reference_answers_as_the_harness_on_every_case():
    step = find_step("my_interruption")
    agreement = compare(step.name, step.reference, interruption, step.cases())
    assert agreement.ok and agreement.cases > 400, str(agreement)
    assert sum(interruption(*args) is not None for _, args in step.cases()) > 100  # open calls, not only None


def test_the_tear_reference_leaves_a_log_read_with_its_last_line_torn_and_reopened_as_before():
    for _, (source, target, record, keep) in _tear_cases():
        tear(source, target, record, keep)
        torn = read_log(target)
        assert torn.torn is not None and torn.records == read_log(source).records
        SessionLog(target)
        assert target.read_bytes() == source.read_bytes()


def test_exercise_2s_answer_is_what_the_sdk_retries():
    """The SDK retries 408, 409, 429 and every 5xx (anthropic/_base_client.py, _should_retry)."""
    assert _retried_statuses() == {s for s in RETRY_STATUSES if s in (408, 409, 429) or s >= 500}


def test_the_path_check_reference_agrees_with_memory_path_on_every_case():
    step = find_step("my_memory_path")
    agreement = compare(step.name, step.reference, memory_path, step.cases())
    assert agreement.ok and agreement.cases > 300, str(agreement)


def test_the_hidden_names_reference_refuses_exactly_the_hidden_names():
    reference = find_step("no_hidden_memory_path").reference
    paths = [args[0] for _, args in find_step("no_hidden_memory_path").cases()]
    hidden = [p for p in paths if is_hidden(p)]
    assert len(hidden) > 20
    for path in paths:
        assert outcome(reference, path) == (PathEscape if is_hidden(path) else outcome(memory_path, path)), path


@given(st.lists(st.sampled_from(["a", ".", "..", "", ".b", "c..", "é", "\x00", "memories"]), max_size=5),
       st.sampled_from(["/memories/", "/memories", "/", "", "/memoriesX/"]))
def test_both_references_agree_with_memory_path_on_drawn_paths(parts, start):
    path = start + "/".join(parts)
    assert outcome(find_step("my_memory_path").reference, path) == outcome(memory_path, path)
    hidden = outcome(find_step("no_hidden_memory_path").reference, path)
    assert hidden == (PathEscape if is_hidden(path) else outcome(memory_path, path))
