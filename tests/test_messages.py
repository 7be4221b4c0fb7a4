"""The message format and the API rules (harness/core/messages.py, chapter 02)."""
from __future__ import annotations

import copy
import json

import pytest

from harness import (InvalidHistory, assistant, iter_tool_results, iter_tool_uses, result_text, text,
                     text_of, tool_names_by_id, tool_result, tool_use, user, validate_messages)
from harness.core.messages import blocks


def good_history() -> list[dict]:
    return [
        user("Look at the files."),
        assistant([text("Listing first."), tool_use("t1", "list_files", {"path": "."}),
                   tool_use("t2", "read_file", {"path": "a.py"})]),
        user([tool_result("t2", "print('a')"), tool_result("t1", "a.py\nb.py"), text("thanks")]),
        assistant("Two files."),
        user("Now bash."),
        assistant([tool_use("t3", "bash", {"command": "ls"})]),
        user([tool_result("t3", "a.py", is_error=True)]),
    ]


# --- builders and readers ---------------------------------------------------


def test_builders_make_plain_api_dicts():
    assert text("hi") == {"type": "text", "text": "hi"}
    assert tool_use("id", "bash", {"command": "ls"}) == {
        "type": "tool_use", "id": "id", "name": "bash", "input": {"command": "ls"}}
    assert tool_result("id", "out") == {"type": "tool_result", "tool_use_id": "id", "content": "out"}
    assert tool_result("id", "bad", is_error=True)["is_error"] is True
    assert user("u") == {"role": "user", "content": "u"}
    assert assistant([text("a")]) == {"role": "assistant", "content": [{"type": "text", "text": "a"}]}


def test_readers_walk_blocks_in_order():
    history = good_history()
    assert [(i, j, b["tool_use_id"]) for i, j, b in iter_tool_results(history)] == [
        (2, 0, "t2"), (2, 1, "t1"), (6, 0, "t3")]
    assert [(i, b["id"]) for i, b in iter_tool_uses(history)] == [(1, "t1"), (1, "t2"), (5, "t3")]
    assert tool_names_by_id(history) == {"t1": "list_files", "t2": "read_file", "t3": "bash"}
    assert text_of(history[1]) == "Listing first."
    assert text_of(history[2]) == "thanks"
    assert text_of(history[0]) == "Look at the files."
    assert blocks(history[0]) == [text("Look at the files.")]
    assert result_text(tool_result("x", "plain")) == "plain"
    assert result_text({"type": "tool_result", "tool_use_id": "x",
                        "content": [text("one"), text("two")]}) == "one\ntwo"


def test_history_survives_a_json_round_trip():
    history = good_history()
    again = json.loads(json.dumps(history))
    assert again == history
    assert tool_names_by_id(again) == tool_names_by_id(history)
    validate_messages(again)


# --- validate_messages: accepted ---------------------------------------------


def test_valid_history_passes_and_is_not_modified():
    history = good_history()
    before = copy.deepcopy(history)
    assert validate_messages(history) is None
    assert history == before


def test_consecutive_user_messages_are_allowed():
    validate_messages([user("one"), user("two")])


def test_assistant_prefill_only_when_allowed():
    history = [user("hi"), assistant("Sure,")]
    validate_messages(history, allow_prefill=True)
    with pytest.raises(InvalidHistory) as info:
        validate_messages(history)
    assert info.value.rule == "ends_with_user"
    # a prefill cannot hold a tool_use: that one still needs its result
    with pytest.raises(InvalidHistory) as info:
        validate_messages([user("hi"), assistant([tool_use("p", "bash", {})])], allow_prefill=True)
    assert (info.value.rule, info.value.index, info.value.tool_id) == ("tool_use_answered", 1, "p")


# --- validate_messages: one broken history per rule ------------------------------

COMPACTED = {"type": "compaction", "content": "Earlier work, summarised."}
BROKEN = {
    "empty list": ([], "non_empty_history", 0, None),
    "not a list": ("hello", "non_empty_history", 0, None),
    "system role": ([user("a"), {"role": "system", "content": "b"}], "role", 1, None),
    "not a dict": ([user("a"), "b"], "role", 1, None),
    "empty string": ([user("a"), assistant("   ")], "non_empty_content", 1, None),
    "empty list content": ([user([])], "non_empty_content", 0, None),
    "None content": ([user("a"), assistant(None)], "non_empty_content", 1, None),
    "empty text block": ([user([text("")])], "non_empty_content", 0, None),
    "tool_use in user": ([user([tool_use("u", "bash", {})])], "block_type", 0, None),
    "tool_result in assistant": ([user("a"), assistant([tool_result("u", "x")]), user("b")],
                                 "block_type", 1, None),
    "unknown block": ([user([{"type": "document"}])], "block_type", 0, None),
    "unhashable block type": ([user([{"type": ["text"]}])], "block_type", 0, None),
    "block not a dict": ([user(["text"])], "block_type", 0, None),
    "tool_use without id": ([user("a"), assistant([{"type": "tool_use", "name": "bash", "input": {}}]),
                             user("b")], "block_fields", 1, None),
    "tool_result without id": ([user("a"), assistant("b"), user([{"type": "tool_result", "content": "x"}])],
                               "block_fields", 2, None),
    "tool_use is last": ([user("a"), assistant([tool_use("t9", "bash", {})])], "tool_use_answered", 1, "t9"),
    "tool_use answered by text": ([user("a"), assistant([tool_use("t9", "bash", {})]), user("b")],
                                  "tool_use_answered", 1, "t9"),
    "one of two unanswered": ([user("a"), assistant([tool_use("t1", "bash", {}), tool_use("t2", "bash", {})]),
                               user([tool_result("t1", "x")])], "tool_use_answered", 1, "t2"),
    "answered two messages later": ([user("a"), assistant([tool_use("t9", "bash", {})]), user("b"),
                                     assistant("c"), user([tool_result("t9", "x")])],
                                    "tool_use_answered", 1, "t9"),
    "tool_result after text": ([user("a"), assistant([tool_use("t9", "bash", {})]),
                                user([text("here"), tool_result("t9", "x")])], "tool_results_first", 2, "t9"),
    "tool_result first message": ([user([tool_result("t0", "x")])], "tool_result_answers_previous", 0, "t0"),
    "tool_result after a user": ([user("a"), user([tool_result("t0", "x")])],
                                 "tool_result_answers_previous", 1, "t0"),
    "tool_result for another id": ([user("a"), assistant([tool_use("t1", "bash", {})]),
                                    user([tool_result("t1", "x"), tool_result("zz", "y")])],
                                   "tool_result_answers_previous", 2, "zz"),
    "tool_result for an older id": ([user("a"), assistant([tool_use("t1", "bash", {})]),
                                     user([tool_result("t1", "x")]), assistant("b"),
                                     user([tool_result("t1", "x")])], "tool_result_answers_previous", 4, "t1"),
    "duplicate id": ([user("a"), assistant([tool_use("d", "bash", {})]), user([tool_result("d", "x")]),
                      assistant([tool_use("d", "bash", {})]), user([tool_result("d", "x")])],
                     "unique_tool_use_id", 3, "d"),
    "duplicate id in one message": ([user("a"), assistant([tool_use("d", "bash", {}), tool_use("d", "ls", {})]),
                                     user([tool_result("d", "x")])], "unique_tool_use_id", 1, "d"),
    "two results for one tool_use": ([user("a"), assistant([tool_use("t1", "bash", {})]),
                                      user([tool_result("t1", "x"), tool_result("t1", "y")])],
                                     "single_tool_result", 2, "t1"),
    "a second result after text": ([user("a"), assistant([tool_use("t1", "bash", {})]),
                                    user([tool_result("t1", "x"), text("and"), tool_result("t1", "y")])],
                                   "single_tool_result", 2, "t1"),
    "a compaction block not first": ([user("a"), assistant([COMPACTED, text("b")]), user("c")],
                                     "compaction_block_misplaced", 1, None),
    "a compaction block after text": ([assistant([text("b"), COMPACTED]), user("c")],
                                      "compaction_block_misplaced", 0, None),
    "a compaction block in a system message": ([{"role": "system", "content": [COMPACTED]}, user("c")],
                                               "compaction_block_misplaced", 0, None),
    "two compaction blocks with content": ([assistant([COMPACTED]), user("c"), assistant([COMPACTED]), user("d")],
                                           "compaction_block_ambiguous", 2, None),
    "ends with assistant": ([user("a"), assistant("b")], "ends_with_user", 1, None),
    "only assistant": ([assistant("b")], "ends_with_user", 0, None),
    "a field a message does not have": ([user("a") | {"id": "m1"}], "extra_inputs", 0, None),
    "a field a block does not have": ([user([tool_result("t0", "x") | {"bontent": ""}])], "extra_inputs", 0, "t0"),
    "a value JSON cannot carry": ([user("a"), assistant([tool_use("t1", "bash", {"n": float("inf")})]),
                                   user([tool_result("t1", "x")])], "json_value", 1, None),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_each_rule_is_named_with_index_and_tool_id(case):
    messages, rule, index, tool_id = BROKEN[case]
    with pytest.raises(InvalidHistory) as info:
        validate_messages(messages)
    error = info.value
    assert (error.rule, error.index, error.tool_id) == (rule, index, tool_id)
    message = str(error)
    assert message.startswith(f"{rule}: messages[{index}]")
    if tool_id:
        assert f"tool id {tool_id}" in message
    assert isinstance(error, ValueError)


def test_two_results_for_one_call_read_as_the_api_words_them():
    history = [user("a"), assistant([tool_use("t1", "bash", {})]),
               user([tool_result("t1", "x"), tool_result("t1", "y")])]
    with pytest.raises(InvalidHistory) as info:
        validate_messages(history)
    assert info.value.api_message == ("messages.2.content.1: each tool_use must have a single result. "
                                      "Found multiple `tool_result` blocks with id: t1")


@pytest.mark.parametrize("history", [
    [assistant([COMPACTED, text("b")]), user("c")],                         # first: the one the API reads from
    [assistant([COMPACTED]), user("c"), assistant([{"type": "compaction", "content": None}]), user("d")],
    [user("a"), assistant([{"type": "compaction", "content": None}, text("b")]), user("c")],  # null: a no-op
    [assistant([COMPACTED])],                                               # a paused turn, sent back
])
def test_a_compaction_block_with_content_goes_first_and_only_once(history):
    validate_messages(history)


def test_a_compaction_request_may_end_on_a_finished_turn_but_not_on_open_calls():
    finished = [user("a"), assistant("b")]
    validate_messages(finished, compacting=True)
    with pytest.raises(InvalidHistory, match="ends_with_user"):
        validate_messages(finished)
    open_calls = [user("a"), assistant([text("b"), tool_use("t1", "bash", {})])]
    with pytest.raises(InvalidHistory) as info:
        validate_messages(open_calls, compacting=True)
    assert (info.value.rule, info.value.index, info.value.path) == ("compaction_incomplete_turn", 1, "messages.1")
    with pytest.raises(InvalidHistory, match="tool_use_answered"):
        validate_messages(open_calls)
    validate_messages(open_calls + [user([tool_result("t1", "x")])], compacting=True)


def test_every_rule_of_the_design_is_exercised():
    rules = {rule for _, rule, _, _ in BROKEN.values()}
    assert {"non_empty_history", "role", "extra_inputs", "non_empty_content", "block_type", "block_fields",
            "json_value", "tool_use_answered", "tool_results_first", "tool_result_answers_previous",
            "single_tool_result", "unique_tool_use_id", "ends_with_user", "compaction_block_misplaced",
            "compaction_block_ambiguous"} == rules
