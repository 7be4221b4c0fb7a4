"""The amnesia probe (chapter 08): it quizzes a copy, never the session, scores what is visible, and grades
each fact graded by when it was said and where it lives."""
from __future__ import annotations

import copy

import pytest

from harness import CompactionConfig, assistant, count_tokens, user
from harness.labs.amnesia import (CLOSING_QUESTIONS, PROBES, WORK_REQUESTS, AmnesiaReport, Probe, ProbeAnswer,
                                  probe_amnesia, probes_for)
from harness.labs.runs import run_scenario
from harness.labs.scenarios import CORE_FILES, LONG_SESSION, python_module
from harness.strategies.base import Compactor

EARLY = PROBES[:3]  # the three facts said in the first three requests
TAGS = [p for p in PROBES if p.question.startswith("Without opening any file: ")]  # the other five


@pytest.fixture(scope="module")
def early_session(tmp_path_factory):
    """The first three requests: the agents/ tour, the tools/ rule and the first edit, uncompressed."""
    return run_scenario(LONG_SESSION, CompactionConfig(), tmp_path_factory.mktemp("early"),
                        requests=WORK_REQUESTS[:3], compactor=Compactor())


def test_the_first_three_probes_are_the_long_sessions_closing_questions():
    assert tuple(p.question for p in EARLY) == CLOSING_QUESTIONS == LONG_SESSION.requests[-3:]
    assert WORK_REQUESTS == LONG_SESSION.requests[:-3] and len(WORK_REQUESTS) == 68
    assert TAGS == list(PROBES[3:]) and not {p.question for p in TAGS} & set(LONG_SESSION.requests)


def subject(probe: Probe) -> str:
    """What every request that brings the fact up names: the file in a tag question, else the fact's key."""
    return probe.question.split(" in ")[-1].removesuffix(" now?") if probe in TAGS \
        else {"first file changed": "s03_todo_write"}.get(probe.name, "tools/")


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.name)
def test_every_request_a_probe_grades_by_names_its_subject(probe):
    assert probe.said_in == tuple(sorted(probe.said_in)) and len(probe.said_in) > 0
    assert all(subject(probe) in WORK_REQUESTS[n - 1] for n in probe.said_in)


@pytest.mark.parametrize("probe", TAGS, ids=lambda p: p.name)
def test_a_tag_probe_expects_the_value_the_session_leaves(probe):
    path = subject(probe)
    value, = probe.expect
    requests = [WORK_REQUESTS[n - 1] for n in probe.said_in]
    if probe.source == "user":  # set by the user's edit request, then only asked about
        assert requests[0] == f'In {path}, change VERSION_TAG to "{value}".'
        assert requests[1:] == [f"What is VERSION_TAG in {path}?"] * (len(requests) - 1)
        later = WORK_REQUESTS[probe.said_in[0]:]
    else:                       # never edited: only a read shows it
        stem = path.removeprefix("core/").removesuffix(".py")
        assert f'VERSION_TAG = "{value}"' in python_module(stem, CORE_FILES[stem], list(CORE_FILES).index(stem) + 1)
        assert requests == [f"What is VERSION_TAG in {path}?"]
        later = WORK_REQUESTS
    assert not any(r.startswith(f"In {path}, change") for r in later)  # nothing changes it afterwards


def test_the_probes_differ_in_every_grade():
    assert len(PROBES) >= 6 and len({p.name for p in PROBES}) == len(PROBES)
    assert {p.position for p in PROBES} == {"early", "middle", "late"}
    assert {p.source for p in PROBES} == {"user", "tool"}


@pytest.mark.parametrize("first, position", [(1, "early"), (23, "early"), (24, "middle"), (46, "middle"),
                                             (47, "late"), (68, "late")])
def test_position_is_the_third_of_the_session_where_the_fact_was_first_said(first, position):
    assert Probe("p", "q?", ("x",), (first, 68)).position == position
    assert Probe("p", "q?", ("x",)).position == ""


def test_only_the_facts_a_session_heard_are_probed():
    assert probes_for(WORK_REQUESTS[:1]) == ()
    assert probes_for(WORK_REQUESTS[:3]) == EARLY
    assert [p.name for p in probes_for(WORK_REQUESTS[:12])] == [p.name for p in EARLY] + ["c06_storage's tag"]
    assert probes_for(WORK_REQUESTS) == PROBES


def test_everything_visible_scores_one(early_session):
    report = probe_amnesia(early_session)
    assert [a.probe for a in report.answers] == list(EARLY)
    assert report.score == 1.0 and report.forgotten == ()
    assert [a.tools for a in report.answers] == [(), (), ()]
    assert "vendored code" in report.answers[1].reply


def test_a_tag_probe_is_answered_from_the_users_words(early_session):
    told = copy.copy(early_session)
    told.messages = early_session.messages + [user(WORK_REQUESTS[6]), assistant("Noted.")]
    c06 = next(p for p in PROBES if p.name == "c06_storage's tag")
    answer, = probe_amnesia(told, (c06,)).answers
    assert answer.correct and answer.tools == () and "v6-append-only" in answer.reply


def test_the_probe_leaves_the_session_untouched(early_session):
    messages, trace = copy.deepcopy(early_session.messages), list(early_session.trace)
    calls = len(early_session.tool_calls)
    probe_amnesia(early_session, PROBES)
    assert early_session.messages == messages and early_session.trace == trace
    assert len(early_session.tool_calls) == calls


def test_a_history_without_the_early_turns_forgets_every_fact(early_session):
    forgetful = copy.copy(early_session)
    forgetful.messages = [user("What is VERSION_TAG in agents/s01_agent_loop.py?"),
                          assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".')]
    report = probe_amnesia(forgetful, PROBES)
    assert report.score == 0.0
    assert report.forgotten == tuple(p.name for p in PROBES)
    assert report.answers[2].tools == ("read_file",) and report.answers[2].reply == ""
    assert all(a.tools == () and "no longer see" in a.reply for a in report.answers[3:])  # says so, reads nothing


def test_score_is_the_fraction_correct_and_breaks_down_by_grade():
    early, late = Probe("e", "q?", ("yes",), (2,)), Probe("l", "q?", ("yes",), (60,), source="tool")
    answers = tuple(ProbeAnswer(p, r, (), r == "yes") for p, r in ((early, "yes"), (late, "no"), (early, "yes")))
    report = AmnesiaReport(answers)
    assert report.score == pytest.approx(2 / 3)
    assert report.by("position") == {"early": 1.0, "late": 0.0}
    assert report.by("source") == {"user": 1.0, "tool": 0.0}
    assert report.remembered == {"e": True, "l": False}  # one entry per name: the last answer wins
    assert AmnesiaReport(()).score == 0.0


@pytest.mark.parametrize("reply, matches", [
    ("I will not change tools/t05_shell.py: you asked me never to edit anything under tools/.", True),
    ("I won't edit that file; you told me tools/ is off limits.", True),
    ("I CANNOT do that: it is VENDORED code.", True),
    ("Done: I changed tools/t05_shell.py as you asked.", False),   # "asked" is not a refusal
    ("I will not change it.", False),                              # no reason given
])
def test_a_phrase_may_be_any_of_its_alternatives_in_any_case(reply, matches):
    assert PROBES[2].matches(reply) is matches


def test_every_expected_phrase_must_appear(early_session):
    strict = (Probe("strict", PROBES[1].question, PROBES[1].expect + ("a phrase never said",)),)
    assert probe_amnesia(early_session, strict).score == 0.0


def test_a_tool_call_is_never_an_answer_from_memory(early_session):
    """A reply that reads a file first is wrong even if its text holds the expected words."""
    greedy = (Probe("any text", 'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".', ("",)),)
    forgetful = copy.copy(early_session)
    forgetful.messages = [user(WORK_REQUESTS[3]), assistant("I will look.")]
    answer, = probe_amnesia(forgetful, greedy).answers
    assert answer.tools == ("read_file",) and not answer.correct


def test_the_probe_is_sent_as_the_session_sends_its_calls(tmp_path):
    """With the API's clearing, the full history is over the window: only the server's edit makes it fit."""
    from harness.labs.scenarios import TWELVE_FILES
    from harness.strategies.server_side import ServerToolClearing
    session = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, window=15_000,
                           compactor=ServerToolClearing(trigger=8_000, keep=2))
    assert count_tokens(session.messages) > 15_000
    report = probe_amnesia(session, (Probe("any", "Which file did I first ask you to change?", ("change",)),))
    assert report.answers[0].reply == "I can no longer see which file you first asked me to change."
