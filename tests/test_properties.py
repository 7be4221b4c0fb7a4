"""Every layer leaves a valid history, on generated histories."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from histories import TOOL_NAMES, corrupt_one_place, json_values, tool_result_contents, valid_histories

from harness import (COMPACT_ACK, CompactionConfig, InvalidHistory, Toolbox, Workspace, assistant,
                     auto_compact, iter_tool_results, iter_tool_uses, micro_compact, placeholder,
                     read_transcript, run_agent, validate_messages)
from harness.fake import FakeModel
from harness.strategies.three_layers import ThreeLayers

PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CLIENT = FakeModel().client()


@pytest.fixture(scope="module")
def toolbox(tmp_path_factory):
    return Toolbox(Workspace(tmp_path_factory.mktemp("workspace")))


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory):
    return tmp_path_factory.mktemp("transcripts")


# --- the generator itself ------------------------------------------------------------


@PROPERTY
@given(valid_histories())
def test_generated_histories_are_valid_and_json_safe(messages):
    validate_messages(messages)
    assert json.loads(json.dumps(messages)) == messages


@PROPERTY
@given(valid_histories(), st.data())
def test_removing_a_tool_result_is_caught(messages, data):
    answered = [(i, j, b["tool_use_id"]) for i, j, b in iter_tool_results(messages)]
    assume(answered)
    i, j, tool_id = data.draw(st.sampled_from(answered))
    del messages[i]["content"][j]
    with pytest.raises(InvalidHistory) as info:
        validate_messages(messages)
    if messages[i]["content"]:
        assert (info.value.rule, info.value.index, info.value.tool_id) == ("tool_use_answered", i - 1, tool_id)
    else:
        assert (info.value.rule, info.value.index) == ("non_empty_content", i)


@PROPERTY
@given(valid_histories())
def test_ending_with_the_assistant_is_caught(messages):
    messages.append(assistant("one more thing"))
    with pytest.raises(InvalidHistory) as info:
        validate_messages(messages)
    assert (info.value.rule, info.value.index) == ("ends_with_user", len(messages) - 1)


JSON_VALUES = json_values()


def valid_or_invalid_history(messages) -> None:
    """validate_messages may only accept or raise InvalidHistory (never TypeError, KeyError...)."""
    try:
        validate_messages(messages)
    except InvalidHistory as error:
        assert error.rule and 0 <= error.index < max(len(messages), 1)


@PROPERTY
@given(st.lists(JSON_VALUES, max_size=5))
def test_any_json_is_either_valid_or_an_invalid_history(messages):
    valid_or_invalid_history(messages)


@PROPERTY
@given(valid_histories(), JSON_VALUES, st.data())
def test_a_corrupted_message_or_block_is_an_invalid_history(messages, junk, data):
    corrupt_one_place(messages, junk, data)
    valid_or_invalid_history(messages)


# --- micro ------------------------------------------------------------------------------


@PROPERTY
@given(valid_histories(), st.integers(min_value=0, max_value=6),
       st.frozensets(st.sampled_from(TOOL_NAMES)), st.integers(min_value=0, max_value=300))
def test_micro_keeps_histories_valid(messages, keep_recent, preserve, min_chars):
    before = copy.deepcopy(messages)
    report = micro_compact(messages, keep_recent, preserve, min_chars)
    validate_messages(messages)
    # only tool_result contents changed, and exactly the reported ones, to their placeholders
    assert [(m["role"], len(m["content"]) if isinstance(m["content"], list) else None) for m in messages] == \
        [(m["role"], len(m["content"]) if isinstance(m["content"], list) else None) for m in before]
    assert list(iter_tool_uses(messages)) == list(iter_tool_uses(before))
    old, new = tool_result_contents(before), tool_result_contents(messages)
    changed = [tool_id for tool_id in old if old[tool_id] != new[tool_id]]
    assert changed == [c.tool_use_id for c in report.cleared]
    names = {b["id"]: b["name"] for _, b in iter_tool_uses(before)}
    for c in report.cleared:
        assert new[c.tool_use_id] == placeholder(c.tool_name)
        assert c.tool_name == names[c.tool_use_id] and c.tool_name not in preserve
        assert isinstance(old[c.tool_use_id], str) and c.chars_before == len(old[c.tool_use_id]) > min_chars
    newest = list(old)[max(0, len(old) - keep_recent):]
    assert not set(changed) & set(newest)  # the newest keep_recent results are never touched
    assert not micro_compact(messages, keep_recent, preserve, min_chars).fired  # idempotent


# --- auto ---------------------------------------------------------------------------------


@PROPERTY
@given(valid_histories(), st.integers(min_value=50, max_value=100_000),
       st.none() | st.sampled_from(["the rules", "file names"]), st.booleans())
def test_auto_leaves_a_history_the_api_accepts(transcripts, toolbox, messages, tail_chars, focus, micro_first):
    config = CompactionConfig(tail_chars=tail_chars, transcript_dir=transcripts)
    if micro_first:
        micro_compact(messages, 1, frozenset(), 0)
    before = copy.deepcopy(messages)
    report = auto_compact(CLIENT, messages, config, focus)
    validate_messages(messages)
    assert len(messages) == 1 and messages[0]["role"] == "user"
    assert read_transcript(report.transcript) == before
    reply = CLIENT.messages.create(model=config.model, max_tokens=100, messages=messages, tools=toolbox.schemas)
    assert reply.role == "assistant"  # the next request was accepted


# --- manual, through the loop ------------------------------------------------------------------


@PROPERTY
@given(valid_histories(), st.booleans())
def test_manual_compaction_in_the_loop_leaves_a_valid_history(transcripts, toolbox, messages, micro):
    config = CompactionConfig(micro=micro, auto=False, transcript_dir=transcripts, max_turns=3)
    before = copy.deepcopy(messages)
    result = run_agent(FakeModel(compact_policy="after_task").client(), messages, system="sys",
                       tools=toolbox, config=config, compactor=ThreeLayers())
    assert result.stop == "compact"
    validate_messages(messages)
    assert len(messages) == 1
    transcript = read_transcript(result.events[-1].detail["transcript"])
    validate_messages(transcript)
    last_use = transcript[-2]["content"][-1]
    assert last_use["name"] == "compact"
    assert transcript[-1]["content"] == [{"type": "tool_result", "tool_use_id": last_use["id"], "content": COMPACT_ACK}]
    if not micro:
        assert transcript[:len(before)] == before
