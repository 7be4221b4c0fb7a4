"""The amnesia probe (chapter 08): it quizzes a copy, never the session, and scores what is visible."""
from __future__ import annotations

import copy

import pytest

from harness import CompactionConfig, assistant, count_tokens, user
from harness.labs.amnesia import PROBES, WORK_REQUESTS, AmnesiaReport, Probe, ProbeAnswer, probe_amnesia
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.strategies.base import Compactor


@pytest.fixture(scope="module")
def early_session(tmp_path_factory):
    """The first three requests: the agents/ tour, the tools/ rule and the first edit, uncompressed."""
    return run_scenario(LONG_SESSION, CompactionConfig(), tmp_path_factory.mktemp("early"),
                        requests=WORK_REQUESTS[:3], compactor=Compactor())


def test_the_probes_are_the_long_sessions_closing_questions():
    assert tuple(p.question for p in PROBES) == LONG_SESSION.requests[-3:]
    assert WORK_REQUESTS == LONG_SESSION.requests[:-3]
    assert "agents/s03_todo_write.py" in WORK_REQUESTS[2] and "tools/" in WORK_REQUESTS[1]


def test_everything_visible_scores_one(early_session):
    report = probe_amnesia(early_session)
    assert report.score == 1.0 and report.forgotten == ()
    assert [a.tools for a in report.answers] == [(), (), ()]
    assert "vendored code" in report.answers[1].reply


def test_the_probe_leaves_the_session_untouched(early_session):
    messages, trace = copy.deepcopy(early_session.messages), list(early_session.trace)
    calls = len(early_session.tool_calls)
    probe_amnesia(early_session)
    assert early_session.messages == messages and early_session.trace == trace
    assert len(early_session.tool_calls) == calls


def test_a_history_without_the_early_turns_scores_zero(early_session):
    forgetful = copy.copy(early_session)
    forgetful.messages = [user("What is VERSION_TAG in agents/s01_agent_loop.py?"),
                          assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".')]
    report = probe_amnesia(forgetful)
    assert report.score == 0.0
    assert report.forgotten == tuple(p.name for p in PROBES)
    assert report.answers[2].tools == ("read_file",) and report.answers[2].reply == ""


def test_score_is_the_fraction_correct():
    probe = Probe("p", "q?", ("yes",))
    answers = tuple(ProbeAnswer(probe, r, (), r == "yes") for r in ("yes", "no", "yes", "no"))
    assert AmnesiaReport(answers).score == 0.5
    assert AmnesiaReport(()).score == 0.0


def test_every_expected_phrase_must_appear(early_session):
    strict = (Probe("strict", PROBES[1].question, PROBES[1].expect + ("a phrase never said",)),)
    assert probe_amnesia(early_session, strict).score == 0.0


def test_the_probe_is_sent_as_the_session_sends_its_calls(tmp_path):
    """With the API's clearing, the full history is over the window: only the server's edit makes it fit."""
    from harness.labs.scenarios import TWELVE_FILES
    from harness.strategies.server_side import ServerToolClearing
    session = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, window=15_000,
                           compactor=ServerToolClearing(trigger=8_000, keep=2))
    assert count_tokens(session.messages) > 15_000
    report = probe_amnesia(session, (Probe("any", "Which file did I first ask you to change?", ("change",)),))
    assert report.answers[0].reply == "I can no longer see which file you first asked me to change."
