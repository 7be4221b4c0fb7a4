"""The check a build chapter runs on the student's function (harness/labs/yours.py, chapters 02-05)."""
from __future__ import annotations

import copy

import pytest

from harness import micro_compact, validate_messages
from harness.labs.yours import MISSING, Raised, compare, first_difference, random_histories


def history_after(function, args):
    messages = args[0]
    function(*args)
    return messages


def test_random_histories_are_valid_varied_and_fixed_by_their_seed():
    histories = random_histories(60, seed=3)
    for history in histories:
        validate_messages(history)
    assert histories == random_histories(60, seed=3) != random_histories(60, seed=4)
    blocks = [b for h in histories for m in h if isinstance(m["content"], list) for b in m["content"]]
    contents = [b["content"] for b in blocks if b["type"] == "tool_result"]
    assert any(isinstance(c, list) for c in contents) and any(isinstance(c, str) and len(c) <= 100 for c in contents)
    assert any(isinstance(c, str) and len(c) > 100 for c in contents)
    assert any(b.get("is_error") for b in blocks)
    assert any(len([b for b in m["content"] if b["type"] == "tool_result"]) > 1
               for h in histories for m in h if m["role"] == "user" and isinstance(m["content"], list))


def test_first_difference_names_the_path_and_both_values():
    expected = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "[Previous: used bash]"}]}]
    got = copy.deepcopy(expected)
    assert first_difference(expected, got, "history") is None
    got[0]["content"][0]["content"] = "long output"
    assert first_difference(expected, got, "history") == (
        "history[0].content[0].content", "[Previous: used bash]", "long output")
    assert first_difference([1, 2], [1, 2, 3], "x") == ("x (length)", 2, 3)
    assert first_difference({"a": 1}, {"a": 1, "b": 2}, "d") == ("d.b", MISSING, 2) and repr(MISSING) == "<missing>"
    assert first_difference({"a": 1}, {"a": True}, "d") == ("d.a", 1, True)  # equal, but not the same type


def test_compare_agrees_with_itself_and_reports_a_broken_copy_where_it_breaks():
    cases = [(f"history {i}, keep {k}", (h, k)) for i, h in enumerate(random_histories(30, seed=1)) for k in (0, 1, 3)]
    same = compare("micro_compact", micro_compact, micro_compact, cases, history_after, "history")
    assert same.ok and same.cases == 90 and "agree on all 90 cases" in str(same)

    def off_by_one(messages, keep_recent):  # keeps one result too many
        return micro_compact(messages, keep_recent + 1)

    broken = compare("micro_compact", off_by_one, micro_compact, cases, history_after, "history")
    assert not broken.ok and 0 < len(broken.differences) < 90
    first = broken.differences[0]
    assert first.where.startswith("history[") and first.where.endswith(".content")
    assert first.expected.startswith("[Previous: used ") and not first.got.startswith("[Previous")
    assert f"in {len(broken.differences)} of 90 cases" in str(broken)


def test_an_exception_is_compared_by_its_type():
    def fails(x):
        raise ValueError(f"bad {x}")

    assert compare("f", fails, fails, [("one", (1,))]).ok
    report = compare("f", lambda x: x, fails, [("one", (1,))])
    assert report.differences[0].expected == Raised("ValueError") and report.differences[0].got == 1


def test_the_inputs_are_copied_for_each_function():
    history = random_histories(1, seed=2)[0]
    before = copy.deepcopy(history)
    compare("micro_compact", micro_compact, micro_compact, [("one", (history, 0))], history_after)
    assert history == before


@pytest.mark.parametrize("seed", range(3))
def test_random_histories_cover_every_tool(seed):
    names = {b["name"] for h in random_histories(40, seed=seed) for m in h
             if m["role"] == "assistant" and isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_use"}
    assert names == {"read_file", "bash", "list_files", "edit_file", "write_file", "compact"}


def test_a_number_within_the_tolerance_is_equal_and_yours_runs_first_so_a_stub_stops_the_comparison():
    assert first_difference({"x": 0.30000000000000004}, {"x": 0.3}, "r", tolerance=1e-9) is None
    assert first_difference(10, 12, "r", tolerance=1) == ("r", 10, 12)
    ran = []

    def theirs(x):
        ran.append(x)
        return x

    def stub(x):
        raise NotImplementedError

    report = compare("f", stub, theirs, [("one", (1,)), ("two", (2,), "a trap")], stop=lambda: True)
    assert report.cases == 1 and not ran
    report = compare("f", lambda x: -x, theirs, [("one", (1,)), ("two", (2,), "a trap")])
    assert [d.trap for d in report.differences] == [None, "a trap"]
