"""Chapter 04's references do what the harness does (harness/labs/solutions/ch04.py): the handler refuses
what the toolbox refuses, the end of a round matches ``finish_round`` on every case, exercise 2's answer is
what ``finish_round`` does, exercise 1's history is refused by the fake server for the rule it is judged
by, and a case's stand-in compaction stays wired to its history when copied."""
from __future__ import annotations

import copy

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import DEFAULT_MODEL, finish_round, tool_use, user
from harness.fake import FakeModel
from harness.labs.solutions.ch04 import (STEPS, StandInCompact, handler_outcome, round_after, twelve_file_toolbox,
                                         why_refused)
from harness.labs.yours import compare

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
STEP = {step.name: step for step in STEPS}  # this chapter's only: all_steps() would import every chapter
INPUTS = VALUES | st.dictionaries(st.sampled_from(["focus", "topic", "Focus", ""]), VALUES, max_size=3)


@settings(max_examples=50, deadline=None)
@given(INPUTS)
def test_the_reference_handler_refuses_what_the_toolbox_refuses(tool_input):
    reference = STEP["handle_compact"].reference
    harness = lambda i: twelve_file_toolbox().run("compact", i)  # noqa: E731
    assert handler_outcome(reference, (tool_input,)) == handler_outcome(harness, (tool_input,))


def test_the_reference_round_is_finish_round_on_every_case():
    step = STEP["my_finish_round"]
    agreement = compare(step.name, step.reference, finish_round, step.cases(), round_after, step.label)
    assert agreement.ok, str(agreement)
    assert agreement.cases > 420


def test_exercise_2s_answer_is_what_finish_round_does():
    history = [user("Compact, twice.")]
    compact = StandInCompact(history)
    finish_round(history, [tool_use("t1", "compact", {"focus": "the notes"}),
                           tool_use("t2", "compact", {"focus": "the rules"})], twelve_file_toolbox(), compact)
    assert STEP["two_compacts"].reference() == (len(compact.seen), compact.seen[0]["focus"])


def test_exercise_1s_history_is_refused_by_the_fake_server_for_the_rule_it_is_judged_by():
    history = STEP["third_broken_history"].reference()
    with pytest.raises(anthropic.BadRequestError) as refused:
        FakeModel().client().messages.create(model=DEFAULT_MODEL, max_tokens=100, messages=history)
    assert refused.value.status_code == 400
    assert why_refused(STEP["third_broken_history"].reference, ()) == {
        "compact's result right after its call": True, "refused": True, "for a third rule, about that message": True}


def test_a_copied_case_compacts_its_own_history():
    args = STEP["my_finish_round"].cases()[0][1]
    messages, content, tools, compact = copy.deepcopy(args)
    assert compact.messages is messages
    assert finish_round(messages, content, tools, compact) is True
    assert compact.seen[0]["valid"] and messages == [user("[Conversation compressed.]")]
    assert len(args[0]) == 1 and args[3].seen == []  # the case itself is untouched


def test_a_duplicate_result_counts_as_a_third_rule_found_here_or_refused_by_validate_messages(monkeypatch):
    """Before harness/core/messages.py refuses two results for one call, ``refusal`` finds them; once it does
    (rule ``single_tool_result``, naming the call's id), the judgement is the same."""
    import harness.labs.solutions.ch04 as ch04
    from harness import COMPACT_ACK, InvalidHistory, assistant, tool_result
    twice = [user("Tidy up."), assistant([tool_use("toolu_compact_01", "compact", {})]),
             user([tool_result("toolu_compact_01", COMPACT_ACK), tool_result("toolu_compact_01", COMPACT_ACK)])]
    accepted = {"compact's result right after its call": True, "refused": True,
                "for a third rule, about that message": True}
    assert ch04.why_refused(lambda: twice, ()) == accepted

    def refuses_the_duplicate(history):
        raise InvalidHistory("single_tool_result", 2, "each tool_use must have a single result.", "toolu_compact_01", 1)

    monkeypatch.setattr(ch04, "validate_messages", refuses_the_duplicate)
    assert ch04.why_refused(lambda: twice, ()) == accepted
