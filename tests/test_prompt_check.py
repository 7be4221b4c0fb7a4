"""Chapter 03's prompt of your own: how the fake read it, said in plain words, never as a wrong answer."""
from __future__ import annotations

import pytest

from harness import assistant, build_summary_request, text, user
from harness.fake.interpretation import PHRASING
from harness.labs.prompt_check import misread_note, prompt_verdict, try_summary_prompt
from harness.labs.steps import judge
from harness.labs.solutions import find_step
from wrong_answers.ch03 import summary_request_in_own_words, summary_request_reworded

HISTORY = [user("Change VERSION_TAG in a.py to 2."), assistant([text("Done.")])]


def request(prompt):
    return build_summary_request(HISTORY, model="claude-haiku-4-5", max_tokens=2_000, tail_chars=80_000, prompt=prompt)


def test_a_prompt_read_as_a_summary_request_gets_no_note():
    assert misread_note(request(PHRASING)) is None
    trial = try_summary_prompt(PHRASING, HISTORY)
    assert trial.read_as_summary and str(trial).startswith("The fake read your prompt as a summary request")
    assert "1. What was accomplished:" in str(trial)


@pytest.mark.parametrize("prompt", ["Résumez la conversation, s'il vous plaît.",
                                    "Summarise this, then count the lines of agents/s01_agent_loop.py."])
def test_a_misread_prompt_is_named_with_why_what_a_model_does_and_a_phrasing_it_reads(prompt):
    note = misread_note(request(prompt))
    assert note.startswith("The fake took your prompt for an agent turn") and ", because " in note
    assert "A real model reads the whole meaning" in note and f'"{PHRASING}"' in note
    assert "wrong" not in note
    assert not try_summary_prompt(prompt, HISTORY).read_as_summary


def test_the_verdict_of_exercise_5_says_what_is_not_a_prompt():
    assert prompt_verdict(None, HISTORY).startswith("a prompt is a non-empty str")
    assert prompt_verdict("   ", HISTORY).startswith("a prompt is a non-empty str")
    with pytest.raises(TypeError):
        try_summary_prompt("", HISTORY)


def test_the_summary_request_check_names_a_misread_only_when_there_is_one():
    step = find_step("my_summary_request")
    misread, _ = judge(step, summary_request_in_own_words)
    reworded, _ = judge(step, summary_request_reworded)
    assert "The fake took your prompt for an agent turn" in misread and PHRASING in misread
    assert "The prompt is SUMMARY_PROMPT as it stands" in reworded and "The fake took" not in reworded
