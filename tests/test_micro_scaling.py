"""The micro_compact scaling benchmark: the reference port agrees with ours; measure runs small (no timing asserts)."""
from __future__ import annotations

import copy

import pytest
from anthropic.types import ToolUseBlock

from benchmarks import micro_scaling
from benchmarks.reference_micro import reference_micro_compact
from harness import micro_compact, placeholder, validate_messages


def test_synthetic_history_is_valid_deterministic_and_the_requested_size():
    for size in (199, 200):
        history = micro_scaling.synthetic_history(size)
        validate_messages(history, allow_prefill=True)
        assert len(history) == size and history == micro_scaling.synthetic_history(size)
    sdk = micro_scaling.with_sdk_blocks(history)
    assert isinstance(sdk[1]["content"][1], ToolUseBlock) and sdk[2] == history[2] and sdk[2] is not history[2]


def test_the_port_and_ours_leave_identical_placeholders_and_keep_read_file():
    plain = micro_scaling.synthetic_history(200)
    sdk = micro_scaling.with_sdk_blocks(plain)
    before = micro_scaling.result_contents(plain)
    ours, reference = copy.deepcopy(plain), copy.deepcopy(sdk)
    micro_compact(ours)
    reference_micro_compact(reference)
    after = micro_scaling.result_contents(ours)
    assert after == micro_scaling.result_contents(reference)
    names = [block["name"] for m in plain if m["role"] == "assistant" and isinstance(m["content"], list)
             for block in m["content"] if block["type"] == "tool_use"]
    older = zip(names[:-3], before[:-3], after[:-3], strict=True)
    long_old = [(name, old, new) for name, old, new in older if len(old) > 100]
    assert {name for name, _, _ in long_old} == set(micro_scaling.TOOLS)
    assert all((new == old) == (name == "read_file") for name, old, new in long_old)
    assert all(new == placeholder(name) for name, old, new in long_old if name != "read_file")
    assert after[-3:] == before[-3:]


def test_measure_on_a_small_history_reports_positive_times_and_no_verdict():
    r = micro_scaling.measure(sizes=(200,), repeats=1)
    (row,) = r.rows
    assert (row.messages, row.results, row.repeats) == (200, 99, 1)
    assert 0 < row.cleared < row.results and row.ours > 0 and row.reference > 0
    assert r.meets_target is None
    assert "n/a" in micro_scaling.render(r)
    with pytest.raises(ValueError):
        micro_scaling.measure(sizes=(200,), repeats=0)


@pytest.mark.parametrize("ours_50k, verdict", [(0.9, "PASS"), (1.0, "PASS"), (1.1, "FAIL")])
def test_the_target_verdict_needs_ours_at_most_the_reference_at_every_target_size(ours_50k, verdict):
    rows = (micro_scaling.Row(10_000, 4_999, 2_000, 7, 0.5, 1.0),
            micro_scaling.Row(50_000, 24_999, 10_000, 5, ours_50k, 1.0))
    r = micro_scaling.MicroScaling(rows)
    assert micro_scaling.verdict(r) == verdict and f": {verdict}" in micro_scaling.render(r)
