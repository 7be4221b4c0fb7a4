"""The picture of the message list (harness.labs.strip): its blocks add up to the harness's count, one
per content block in reading order, each with its kind; the figure draws one strip per history."""
from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings

from harness.core.messages import InvalidHistory, assistant, text, tool_result, tool_use, user
from harness.core.micro import micro_compact, placeholder
from harness.core.tokens import count_tokens
from harness.labs.strip import COMPACTION_BLOCK, PART_KINDS, Part, message_parts, strip_figure

from histories import every_category_history, valid_histories

SYSTEM = "You are an agent."
TOOLS = [{"name": "read_file", "description": "read", "input_schema": {"type": "object"}}]


def test_the_blocks_widths_sum_to_the_tokens_the_harness_counts():
    history = every_category_history()
    parts = message_parts(history, SYSTEM, TOOLS)
    assert sum(p.tokens for p in parts) == count_tokens(history, SYSTEM, TOOLS)
    assert sum(p.tokens for p in message_parts(history)) == count_tokens(history)


@settings(max_examples=60, deadline=None)
@given(valid_histories())
def test_any_valid_history_adds_up(history):
    assert sum(p.tokens for p in message_parts(history, SYSTEM)) == count_tokens(history, SYSTEM)


def test_one_part_per_block_in_reading_order_with_its_kind():
    parts = message_parts(every_category_history(), SYSTEM, TOOLS)
    assert [p.kind for p in parts] == ["system", "system", "summaries", "user text", "assistant text",
                                       "tool calls", "tool results", "tool calls", "placeholders"]
    assert [p.message for p in parts] == [None, None, 0, 1, 2, 2, 3, 4, 5]


def test_a_compaction_block_is_its_own_kind():
    history = [user("go"), assistant([{"type": "compaction", "content": "We read a.py."}, text("Done.")])]
    assert [p.kind for p in message_parts(history)] == ["user text", COMPACTION_BLOCK, "assistant text"]


def test_micro_compaction_turns_results_into_placeholders_and_the_strip_shrinks():
    history = [user("read them")]
    for i in range(5):
        history += [assistant([tool_use(f"t{i}", "bash", {"command": f"cat f{i}.py"})]),
                    user([tool_result(f"t{i}", "x = 1\n" * 200)])]
    history.append(assistant([text("read all five")]))
    before = copy.deepcopy(history)
    micro_compact(history, keep_recent=2)
    kinds_after = [p.kind for p in message_parts(history)]
    assert kinds_after.count("placeholders") == 3 and kinds_after.count("tool results") == 2
    assert sum(p.tokens for p in message_parts(history)) < sum(p.tokens for p in message_parts(before))


def test_a_malformed_history_is_refused_and_nothing_is_drawn():
    with pytest.raises(InvalidHistory):
        message_parts([{"role": "user"}])
    with pytest.raises(ValueError, match="at least one history"):
        strip_figure({})


def test_the_figure_has_one_strip_per_history_aligned_on_one_axis():
    history = every_category_history()
    after = [user("[Conversation compressed. Transcript: t.jsonl]\n\nWe read b.py.")]
    fig = strip_figure({"before": history, "after": after}, system=SYSTEM)
    [ax] = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].startswith("before\n") and f"{count_tokens(history, SYSTEM):,} tokens" in labels[0]
    assert labels[1].startswith("after\n") and "1 message" in labels[1] and "messages" not in labels[1]
    assert ax.get_xlim()[1] >= count_tokens(history, SYSTEM)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [k for k in PART_KINDS if k in {p.kind for p in message_parts(history, SYSTEM)}
                      | {"summaries"}]


def test_a_part_is_a_plain_value():
    assert Part("system", 3, None) == Part("system", 3, None)
    assert placeholder("bash") != ""
