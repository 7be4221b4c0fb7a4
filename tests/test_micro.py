"""Layer 1, micro-compaction (harness/core/micro.py, chapter 02)."""
from __future__ import annotations

import copy
import json

import pytest

from harness import (PLACEHOLDER, assistant, estimate_tokens, is_placeholder, micro_compact, placeholder,
                     text, tool_result, tool_use, user, validate_messages)
from harness.core.micro import Cleared

LONG = "x" * 500


def one_result_per_turn(names: list[str], content: str = LONG) -> list[dict]:
    """A request, then one tool call per assistant message, answered by one tool_result."""
    messages = [user("Do the work.")]
    for n, name in enumerate(names):
        messages.append(assistant([tool_use(f"id{n}", name, {"path": f"f{n}"})]))
        messages.append(user([tool_result(f"id{n}", f"{content} #{n}")]))
    return messages


def contents(messages: list[dict]) -> list:
    return [b["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


def test_placeholder_text():
    assert PLACEHOLDER == "[Previous: used {tool_name}]"
    assert placeholder("bash") == "[Previous: used bash]"
    assert is_placeholder("[Previous: used bash]")
    assert not is_placeholder("bash output") and not is_placeholder(["[Previous: used bash]"])


def test_newest_three_are_kept_older_ones_cleared():
    history = one_result_per_turn(["bash"] * 6)
    report = micro_compact(history)
    assert contents(history) == ["[Previous: used bash]"] * 3 + [f"{LONG} #3", f"{LONG} #4", f"{LONG} #5"]
    assert [c.tool_use_id for c in report.cleared] == ["id0", "id1", "id2"]
    validate_messages(history)


def test_tool_use_blocks_and_other_fields_stay():
    history = one_result_per_turn(["bash"] * 5)
    before = copy.deepcopy(history)
    micro_compact(history)
    assert [m["role"] for m in history] == [m["role"] for m in before]
    assert [m for m in history if m["role"] == "assistant"] == [m for m in before if m["role"] == "assistant"]
    assert history[2]["content"][0] == {"type": "tool_result", "tool_use_id": "id0",
                                        "content": "[Previous: used bash]"}


def test_read_file_results_are_preserved_by_default():
    history = one_result_per_turn(["read_file", "bash", "read_file", "list_files", "bash", "bash", "bash"])
    report = micro_compact(history)
    assert contents(history)[:4] == [f"{LONG} #0", "[Previous: used bash]", f"{LONG} #2",
                                     "[Previous: used list_files]"]
    assert [c.tool_name for c in report.cleared] == ["bash", "list_files"]


def test_preserve_tools_is_configurable():
    history = one_result_per_turn(["read_file", "bash", "x", "y", "z"])
    micro_compact(history, keep_recent=3, preserve_tools=frozenset({"bash"}))
    assert contents(history)[:2] == ["[Previous: used read_file]", f"{LONG} #1"]


def test_short_results_up_to_min_chars_are_untouched():
    history = [user("go")]
    for n, size in enumerate([99, 100, 101, 5]):
        history.append(assistant([tool_use(f"id{n}", "bash", {})]))
        history.append(user([tool_result(f"id{n}", "y" * size)]))
    history.append(assistant("done"))
    history.append(user("next"))
    report = micro_compact(history, keep_recent=0, min_chars=100)
    assert contents(history) == ["y" * 99, "y" * 100, "[Previous: used bash]", "y" * 5]
    assert [(c.tool_use_id, c.chars_before) for c in report.cleared] == [("id2", 101)]
    micro_compact(history, keep_recent=0, min_chars=4)
    assert contents(history) == ["[Previous: used bash]"] * 4


def test_non_string_content_is_untouched():
    listed = [text("first part " * 30), text("second part " * 30)]
    history = [user("go"), assistant([tool_use("a", "bash", {}), tool_use("b", "bash", {})]),
               user([{"type": "tool_result", "tool_use_id": "a", "content": copy.deepcopy(listed)},
                     tool_result("b", LONG)]),
               assistant("ok"), user("next")]
    report = micro_compact(history, keep_recent=0)
    assert history[2]["content"][0]["content"] == listed
    assert history[2]["content"][1]["content"] == "[Previous: used bash]"
    assert [c.tool_use_id for c in report.cleared] == ["b"]


def test_several_results_in_one_message_are_handled_block_by_block():
    uses = [tool_use(f"t{k}", name, {}) for k, name in enumerate(["bash", "list_files", "bash", "edit_file"])]
    history = [user("go"), assistant(uses),
               user([tool_result(f"t{k}", f"{LONG} {k}") for k in range(4)] + [text("and then?")]),
               assistant("Read them all."), user("next")]  # the model has read the four results
    report = micro_compact(history, keep_recent=2)
    assert contents(history) == ["[Previous: used bash]", "[Previous: used list_files]", f"{LONG} 2", f"{LONG} 3"]
    assert [(c.message_index, c.block_index, c.tool_name) for c in report.cleared] == [
        (2, 0, "bash"), (2, 1, "list_files")]
    assert history[2]["content"][4] == text("and then?")
    validate_messages(history)


def test_placeholder_names_the_tool_after_a_json_round_trip():
    history = json.loads(json.dumps(one_result_per_turn(["bash", "list_files", "grep_tool", "a", "b", "c"])))
    micro_compact(history)
    assert contents(history)[:3] == ["[Previous: used bash]", "[Previous: used list_files]",
                                     "[Previous: used grep_tool]"]
    assert "unknown" not in json.dumps(history)


def test_result_without_its_tool_use_is_named_unknown():
    # a history cut by hand: the tool_use of id0 is gone (micro does not validate)
    history = one_result_per_turn(["bash"] * 5)
    del history[1]
    micro_compact(history, keep_recent=4)
    assert contents(history)[0] == "[Previous: used unknown]"


def test_keep_recent_zero_clears_every_eligible_result_the_model_has_read():
    history = one_result_per_turn(["bash", "read_file", "list_files", "bash"])
    report = micro_compact(history, keep_recent=0)
    assert contents(history) == ["[Previous: used bash]", f"{LONG} #1", "[Previous: used list_files]",
                                 f"{LONG} #3"]  # the last result, not read yet, stays
    assert len(report.cleared) == 2
    micro_compact(history, keep_recent=0, spare_unread=False)  # the s06 agent's count: it goes too
    assert contents(history)[3] == "[Previous: used bash]"


def six_parallel_reads_after_older_ones(read: bool) -> list:
    """Three turns of one bash call each, then one turn of six parallel calls; ``read``: the model has answered."""
    history = one_result_per_turn(["bash"] * 3)
    uses = [tool_use(f"p{k}", "bash", {}) for k in range(6)]
    history += [user("and six more"), assistant(uses), user([tool_result(f"p{k}", f"{LONG} p{k}") for k in range(6)])]
    return history + [assistant("Done.")] if read else history


def test_six_parallel_results_not_yet_read_are_all_kept_and_older_ones_still_cleared():
    history = six_parallel_reads_after_older_ones(read=False)
    report = micro_compact(history, keep_recent=3)
    assert contents(history)[3:] == [f"{LONG} p{k}" for k in range(6)]  # none of the newest six
    assert contents(history)[:3] == ["[Previous: used bash]"] * 3      # the older ones, as s06 would
    assert [c.tool_use_id for c in report.cleared] == ["id0", "id1", "id2"]
    validate_messages(history)


def test_once_read_the_parallel_results_follow_keep_recent_again():
    history = six_parallel_reads_after_older_ones(read=True)
    micro_compact(history, keep_recent=3)
    assert contents(history)[3:] == ["[Previous: used bash]"] * 3 + [f"{LONG} p{k}" for k in range(3, 6)]


def test_without_the_guard_the_s06_count_clears_unread_results():
    history = six_parallel_reads_after_older_ones(read=False)
    report = micro_compact(history, keep_recent=3, spare_unread=False)
    assert contents(history)[3:6] == ["[Previous: used bash]"] * 3  # three results nobody has read
    assert len(report.cleared) == 6


def test_unread_results_after_a_user_text_are_spared_too():
    history = one_result_per_turn(["bash"] * 3) + [user("one more thing")]
    micro_compact(history, keep_recent=0)
    assert contents(history) == ["[Previous: used bash]"] * 2 + [f"{LONG} #2"]


@pytest.mark.parametrize("keep_recent", [4, 5, 7, 100])
def test_keep_recent_at_least_the_number_of_results_clears_nothing(keep_recent):
    history = one_result_per_turn(["bash"] * 4)
    before = copy.deepcopy(history)
    report = micro_compact(history, keep_recent=keep_recent)
    assert history == before
    assert not report.fired and report.cleared == [] and report.repr_chars_saved == 0


@pytest.mark.parametrize("bad", [-1, -3, 1.5, 3.0, "3", None, True])
def test_bad_keep_recent_raises_and_changes_nothing(bad):
    history = one_result_per_turn(["bash"] * 5)
    before = copy.deepcopy(history)
    with pytest.raises(ValueError, match="keep_recent"):
        micro_compact(history, keep_recent=bad)
    assert history == before


@pytest.mark.parametrize("bad", [-1, 2.5, "100"])
def test_bad_min_chars_raises(bad):
    with pytest.raises(ValueError, match="min_chars"):
        micro_compact(one_result_per_turn(["bash"] * 5), min_chars=bad)


def test_report_numbers_are_right():
    history = one_result_per_turn(["bash", "list_files", "bash", "bash", "bash"])
    sizes = [len(c) for c in contents(history)]
    old = contents(history)
    chars_before = len(str(history))
    report = micro_compact(history, keep_recent=3)
    assert report.cleared == [Cleared(2, 0, "id0", "bash", old[0], "[Previous: used bash]"),
                              Cleared(4, 0, "id1", "list_files", old[1], "[Previous: used list_files]")]
    assert [c.chars_before for c in report.cleared] == sizes[:2]
    assert report.repr_chars_saved == chars_before - len(str(history))  # exact: what estimate_tokens sees
    assert report.fired


def test_a_second_run_clears_nothing_even_with_tiny_min_chars():
    history = one_result_per_turn(["bash"] * 6)
    first = micro_compact(history, keep_recent=2, min_chars=0)
    assert len(first.cleared) == 4
    after_first = copy.deepcopy(history)
    second = micro_compact(history, keep_recent=2, min_chars=0)
    assert second.cleared == [] and not second.fired
    assert history == after_first
