"""Malformed histories (harness/core/messages.py, chapter 02): every public function that takes a
history raises InvalidHistory naming the rule, message and block, before it changes or writes anything."""
from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from histories import corrupt_one_place, json_values, valid_histories

from harness import (CompactionConfig, InvalidHistory, RunContext, assistant, auto_compact, build_summary_request,
                     count_tokens, exact_tokens, iter_tool_results, iter_tool_uses, micro_compact, run_agent,
                     summarise, text, tool_names_by_id, tool_result, tool_use, user, write_transcript)
from harness.core.messages import MAX_DEPTH, check_sendable, check_shape
from harness.core.micro import first_kept
from harness.labs.amnesia import ask_copy
from harness.labs.auto_lab import placeholder_results
from harness.labs.cost import request_segments
from harness.labs.growth import composition
from harness.labs.loop_lab import memory_picture
from harness.labs.micro_lab import measure_micro, outline, result_labels, result_tokens
from harness.session.log import SessionLog
from harness.session.replacement import describe_replacement, plan_replacement, replace_history
from harness.strategies.base import Compactor
from harness.strategies.batched_micro import BatchedMicro, clearable_tokens
from harness.strategies.guards import Guarded, check_next_request, copy_history
from harness.strategies.structured_summary import StructuredSummary, structured_compact
from harness.strategies.three_layers import ThreeLayers
from harness.strategies.usage_triggered import UsageTriggered

LONG = "x" * 500


def nested(levels: int) -> dict[str, Any]:
    """An object ``levels`` deep."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


class Untouchable:
    """A client, session, toolbox or folder that fails the test if it is used at all."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"used .{name} before the history was checked")

    def __fspath__(self) -> str:
        raise AssertionError("used as a path before the history was checked")


NOTHING = Untouchable()


def base() -> list[dict[str, Any]]:
    """A valid history that micro-compaction changes: six bash rounds with long results, then a request."""
    history = [user("Do the work.")]
    for n in range(6):
        history += [assistant([text(f"Step {n}."), tool_use(f"t{n}", "bash", {"command": "ls"})]),
                    user([tool_result(f"t{n}", f"{LONG} #{n}")])]
    return history + [user("Go on.")]


# name: (the malformed message, rule, block index)
BAD_MESSAGES: dict[str, tuple[Any, str, int | None]] = {
    "not a dict": ("hello", "role", None),
    "empty dict": ({}, "role", None),
    "bad role": ({"role": "system", "content": "be brief"}, "role", None),
    "no role": ({"content": "hi"}, "role", None),
    "content None": ({"role": "user", "content": None}, "non_empty_content", None),
    "no content": ({"role": "assistant"}, "non_empty_content", None),
    "blank content": (user("   "), "non_empty_content", None),
    "empty block list": (user([]), "non_empty_content", None),
    "block not a dict": (assistant([text("Looking."), "oops"]), "block_type", 1),
    "block without type": (user([text("see"), {"text": "x"}]), "block_type", 1),
    "tool_use in a user message": (user([tool_use("u1", "bash", {})]), "block_type", 0),
    "tool_result in an assistant message": (assistant([tool_result("t0", "x")]), "block_type", 0),
    "tool_result without tool_use_id": (user([tool_result("t0", "x"), {"type": "tool_result", "content": "y"}]),
                                        "block_fields", 1),
    "tool_result with a list tool_use_id": (user([{"type": "tool_result", "tool_use_id": ["t0"], "content": "y"}]),
                                            "block_fields", 0),
    "tool_result with None content": (user([{"type": "tool_result", "tool_use_id": "t0", "content": None}]),
                                      "block_fields", 0),
    "tool_use without id": (assistant([text("a"), {"type": "tool_use", "name": "bash", "input": {}}]),
                            "block_fields", 1),
    "tool_use without name": (assistant([{"type": "tool_use", "id": "u1", "input": {}}]), "block_fields", 0),
    "tool_use without input": (assistant([{"type": "tool_use", "id": "u1", "name": "bash"}]), "block_fields", 0),
    "tool_use with an int id": (assistant([{"type": "tool_use", "id": 7, "name": "bash", "input": {}}]),
                                "block_fields", 0),
    "tool_use with an empty name": (assistant([text("a"), tool_use("u1", "", {})]), "block_fields", 1),
    "tool_use with a list input": (assistant([tool_use("u1", "bash", [])]), "block_fields", 0),
    "tool_result with an empty tool_use_id": (user([tool_result("", "x")]), "block_fields", 0),
    "text block with non-str text": (user([{"type": "text", "text": 5}]), "block_fields", 0),
    "text block with None text": (assistant([{"type": "text", "text": None}]), "block_fields", 0),
    "empty text block": (assistant([text("ok"), text("")]), "non_empty_content", 1),
    # fields a message or block does not have (the API: "Extra inputs are not permitted")
    "a message with a name": ({"role": "user", "content": "hi", "name": "Ann"}, "extra_inputs", None),
    "a tool_result's content misspelt": (user([{"type": "tool_result", "tool_use_id": "t0", "bontent": "x"}]),
                                         "extra_inputs", 0),
    "a text block with an unknown field": (user([text("a") | {"x": 1}]), "extra_inputs", 0),
    # optional fields of the wrong type
    "cache_control a string": (user([text("a") | {"cache_control": "yes"}]), "block_fields", 0),
    "cache_control with an unknown ttl": (user([text("a") | {"cache_control": {"type": "ephemeral", "ttl": "2h"}}]),
                                          "block_fields", 0),
    "citations a number": (user([text("a") | {"citations": 5}]), "block_fields", 0),
    "is_error a string": (user([tool_result("t0", "x") | {"is_error": "yes"}]), "block_fields", 0),
    "caller a string": (assistant([tool_use("u1", "bash", {}) | {"caller": "direct"}]), "block_fields", 0),
    "compaction signature a number": (assistant([{"type": "compaction", "content": "S", "signature": 5}]),
                                      "block_fields", 0),
    "compaction encrypted_content a list": (assistant([{"type": "compaction", "content": "S",
                                                        "encrypted_content": ["x"]}]), "block_fields", 0),
    "compaction content blank": (assistant([{"type": "compaction", "content": "\u00a0"}]), "block_fields", 0),
    "compaction content a newline": (assistant([text("a"), {"type": "compaction", "content": "\n"}]),
                                     "block_fields", 1),
    # values JSON cannot carry, or not as they are
    "bytes in a tool input": (assistant([tool_use("u1", "bash", {"command": b"ls"})]), "json_value", 0),
    "a set in a tool input": (assistant([tool_use("u1", "bash", {"paths": {"a", "b"}})]), "json_value", 0),
    "a tuple in a tool input": (assistant([tool_use("u1", "bash", {"range": (1, 2)})]), "json_value", 0),
    "NaN in a tool input": (assistant([tool_use("u1", "bash", {"n": [1, float("nan")]})]), "json_value", 0),
    "-inf in a tool input": (assistant([tool_use("u1", "bash", {"n": float("-inf")})]), "json_value", 0),
    "an int key in a tool input": (assistant([tool_use("u1", "bash", {1: "x"})]), "json_value", 0),
    "a lone surrogate as content": (user("a\ud800"), "json_value", None),
    "a lone surrogate in a text block": (assistant([text("ok"), text("a\udc80b")]), "json_value", 1),
    "a lone surrogate in a tool input key": (assistant([tool_use("u1", "bash", {"\ud800": "x"})]), "json_value", 0),
    "a lone surrogate in a tool result": (user([tool_result("t0", [text("\udfff")])]), "json_value", 0),
    "a tool input nested too deep": (assistant([tool_use("u1", "bash", nested(MAX_DEPTH))]), "json_value", 0),
    "bytes as a text": (user([{"type": "text", "text": b"x"}]), "block_fields", 0),
}
# 6: after two results micro would clear, before the newest three (its one pass); 13: the end, which
# micro reads first. The other functions check the whole history one way, so one position is enough.
POSITIONS = (6, 13)
NOT_LISTS = {"a string": "hello", "one message": user("hi"), "None": None, "a tuple": (user("hi"),)}


def config(tmp_path) -> CompactionConfig:
    return CompactionConfig(transcript_dir=tmp_path / "transcripts")


def run(history: Any, tmp_path) -> RunContext:
    def never(_: Any) -> None:
        raise AssertionError("an event or a trace before the history was checked")
    return RunContext(NOTHING, history, config(tmp_path), "system", [], None, never, never)


USAGE = {"input_tokens": 1_000_000, "output_tokens": 0}

# Every public function that takes a history (or a RunContext holding one), called on ``h``.
CALLS: dict[str, Callable[[Any, Any], object]] = {
    "check_shape": lambda h, tmp: check_shape(h),
    "micro_compact": lambda h, tmp: micro_compact(h),
    "micro_compact keep_recent=0": lambda h, tmp: micro_compact(h, keep_recent=0),
    "micro_compact keep_recent=50": lambda h, tmp: micro_compact(h, keep_recent=50),
    "first_kept": lambda h, tmp: first_kept(h, 3),
    "iter_tool_results": lambda h, tmp: iter_tool_results(h),
    "iter_tool_uses": lambda h, tmp: iter_tool_uses(h),
    "tool_names_by_id": lambda h, tmp: tool_names_by_id(h),
    "count_tokens": lambda h, tmp: count_tokens(h),
    "exact_tokens": lambda h, tmp: exact_tokens(NOTHING, h, model="claude-haiku-4-5"),
    "write_transcript": lambda h, tmp: write_transcript(h, tmp / "transcripts"),
    "build_summary_request": lambda h, tmp: build_summary_request(h, model="m", max_tokens=100, tail_chars=None),
    "summarise": lambda h, tmp: summarise(NOTHING, h, config(tmp)),
    "auto_compact": lambda h, tmp: auto_compact(NOTHING, h, config(tmp)),
    "structured_compact": lambda h, tmp: structured_compact(NOTHING, h, config(tmp)),
    "run_agent": lambda h, tmp: run_agent(NOTHING, h, system="s", tools=NOTHING, config=config(tmp),
                                          compactor=Compactor()),
    "plan_replacement": lambda h, tmp: plan_replacement(h),
    "replace_history": lambda h, tmp: replace_history(h, "The summary."),
    "describe_replacement": lambda h, tmp: describe_replacement(h, 1_000),
    "clearable_tokens": lambda h, tmp: clearable_tokens(h, 3, frozenset(), 100),
    "copy_history": lambda h, tmp: copy_history(h),
    "check_next_request": lambda h, tmp: check_next_request(h),
    "Compactor.on_compact": lambda h, tmp: Compactor().on_compact(run(h, tmp), None),
    "ThreeLayers.before_call": lambda h, tmp: ThreeLayers().before_call(run(h, tmp)),
    "BatchedMicro.before_call": lambda h, tmp: BatchedMicro(batch_tokens=1).before_call(run(h, tmp)),
    "StructuredSummary.before_call": lambda h, tmp: StructuredSummary(window=1_000).before_call(run(h, tmp)),
    "UsageTriggered.after_round": lambda h, tmp: UsageTriggered(threshold=1).after_round(run(h, tmp), USAGE),
    "Guarded.before_call": lambda h, tmp: Guarded(ThreeLayers()).before_call(run(h, tmp)),
    "labs outline": lambda h, tmp: outline(h),
    "labs composition": lambda h, tmp: composition(h),
    "labs request_segments": lambda h, tmp: request_segments(h),
    "labs result_labels": lambda h, tmp: result_labels(h),
    "labs result_tokens": lambda h, tmp: result_tokens(h),
    "labs placeholder_results": lambda h, tmp: placeholder_results(h),
    "labs memory_picture": lambda h, tmp: memory_picture(h, keep_recent=3),
    "labs measure_micro": lambda h, tmp: measure_micro(h, 3, frozenset(), NOTHING),
    "labs ask_copy": lambda h, tmp: ask_copy(NOTHING, h, "What did you read?"),
}


def fails_cleanly(call: str, history: Any, tmp_path) -> InvalidHistory:
    """Call ``call`` on ``history``: it must raise InvalidHistory, change nothing and write nothing."""
    before = copy.deepcopy(history)
    with pytest.raises(InvalidHistory) as info:
        CALLS[call](history, tmp_path)
    assert history == before
    assert not any(tmp_path.iterdir())
    return info.value


@pytest.mark.parametrize("call, case, position", [
    (call, case, position) for call in CALLS for case in BAD_MESSAGES
    for position in (POSITIONS if call.startswith(("micro_compact", "first_kept")) else POSITIONS[:1])])
def test_a_malformed_message_is_named_and_nothing_changes(call, case, position, tmp_path):
    message, rule, block = BAD_MESSAGES[case]
    history = base()
    history[position] = copy.deepcopy(message)
    error = fails_cleanly(call, history, tmp_path)
    assert (error.rule, error.index, error.block) == (rule, position, block)
    where = f"messages[{position}]" + (f", block {block}" if block is not None else "")
    assert str(error).startswith(f"{rule}: {where}")


@pytest.mark.parametrize("case", NOT_LISTS)
@pytest.mark.parametrize("call", CALLS)
def test_a_history_that_is_not_a_list_is_refused(call, case, tmp_path):
    error = fails_cleanly(call, NOT_LISTS[case], tmp_path)
    assert (error.rule, error.index, error.block) == ("history_is_list", 0, None)


def test_the_message_names_rule_message_block_and_tool_id():
    with pytest.raises(InvalidHistory) as info:
        check_shape([user("a"), assistant("b"), user("c"), user([tool_result("t1", "x"), {"type": "tool_result"}])])
    assert str(info.value) == ("block_fields: messages[3], block 1: "
                               "messages.3.content.1.tool_result.tool_use_id: Field required")
    with pytest.raises(InvalidHistory) as info:
        check_shape([user([{"type": "tool_result", "tool_use_id": "t1", "content": 3}])])
    assert str(info.value).startswith("block_fields: messages[0], block 0, tool id t1: ")
    assert isinstance(info.value, ValueError)


def test_a_well_formed_history_in_the_middle_of_a_round_passes():
    check_shape([])
    check_shape([user("go"), assistant([tool_use("t1", "bash", {"command": "ls"})])])
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    check_shape([user([tool_result("t1", [text("a"), image])])])


@pytest.mark.parametrize("summary", [None, 42, b"bytes", ["a summary"]])
def test_replace_history_refuses_a_summary_that_is_not_a_str(summary):
    history = base()
    before = copy.deepcopy(history)
    with pytest.raises(TypeError, match=f"a summary must be a str, not {type(summary).__name__}"):
        replace_history(history, summary)
    assert history == before
    with pytest.raises(ValueError, match="some text"):
        replace_history(history, "  ")


# --- micro_compact checks inline, in its one pass: it must agree with check_shape exactly ----------------

JSON_VALUES = json_values("x" * 200)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_histories(), JSON_VALUES, st.data(), st.integers(min_value=0, max_value=6))
def test_micro_compact_raises_exactly_what_check_shape_raises(messages, junk, data, keep_recent):
    corrupt_one_place(messages, junk, data, ("role", "content"))
    try:
        check_shape(messages)
        expected = None
    except InvalidHistory as error:
        expected = (error.rule, error.index, error.block, error.tool_id)
    before = copy.deepcopy(messages)
    try:
        micro_compact(messages, keep_recent)
        found = None
    except InvalidHistory as error:
        found = (error.rule, error.index, error.block, error.tool_id)
        assert messages == before
    assert found == expected


@pytest.mark.parametrize("call", CALLS)
def test_a_tool_input_nested_past_the_stack_is_refused_before_anything_is_written(call, tmp_path):
    """1,500 levels: deeper than Python's recursion limit, so ``json.dumps``, ``repr`` and ``copy.deepcopy``
    would raise RecursionError; every public function refuses it as InvalidHistory first."""
    history = base()
    deep = assistant([tool_use("u1", "bash", nested(1_500))])
    history[13] = deep
    with pytest.raises(InvalidHistory) as info:
        CALLS[call](history, tmp_path)
    assert (info.value.rule, info.value.index, info.value.block) == ("json_value", 13, 0)
    assert history[13] is deep and history[:13] == base()[:13]
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("value, path, problem", [
    ({"seq": 1, "tags": {"a"}}, "record.tags", "a set is not a JSON value"),
    ({"seq": 1, "blob": [b"x"]}, "record.blob.0", "a bytes is not a JSON value"),
    ({"seq": 1, "score": float("nan")}, "record.score", "nan is not a JSON number"),
    ({"seq": 1, "note": "a\ud800"}, "record.note", "lone surrogate"),
    ({"seq": 1, 2: "x"}, "record.2", "keys are strings, not int"),
    ({"seq": 1, "deep": nested(MAX_DEPTH)}, "record.deep.a", "nested deeper than 100 levels"),
])
def test_check_sendable_names_the_value_json_cannot_carry(value, path, problem):
    with pytest.raises(InvalidHistory) as info:
        check_sendable(value, "record")
    assert info.value.rule == "json_value" and info.value.path.startswith(path) and problem in info.value.detail
    check_sendable({"seq": 1, "kind": "message", "nested": nested(MAX_DEPTH - 1), "x": [1.5, None, True, "é"]})


@pytest.mark.parametrize("message", [assistant([tool_use("u1", "bash", {"paths": {"a"}})]),
                                     assistant([tool_use("u1", "bash", {"blob": b"x"})]),
                                     assistant([tool_use("u1", "bash", nested(1_500))]), user("a\ud800")])
def test_the_session_log_refuses_a_message_json_cannot_carry_and_writes_nothing(message, tmp_path):
    log = SessionLog(tmp_path / "session.jsonl", fsync=False)
    with pytest.raises(InvalidHistory):
        log.append("message", message=message)
    with pytest.raises(InvalidHistory, match="record.summary"):  # a record's other fields too
        log.append("compaction", summary="a\udc00", budget_chars=10)
    assert log.seq == 0 and (tmp_path / "session.jsonl").read_bytes() == b""
