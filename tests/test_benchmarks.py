"""The benchmarks run and report sensibly on reduced inputs (no timing assertions here)."""
from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest

from benchmarks import __main__ as bench_main
from benchmarks import (call_cost, long_session, memory, micro_scaling, micro_twelve, recount, strategies, summaries,
                        twelve_run)
from benchmarks.scratch import scratch_root
from benchmarks.table import change, format_table, ratio
from benchmarks.timing import median_seconds
from harness import count_tokens, validate_messages
from harness.labs.scenarios import LONG_SESSION


def test_format_table_aligns_columns_and_numbers_right():
    table = format_table("T", ["name", "n"], [["a", 1], ["long name", 1234]])
    assert table.splitlines() == ["T", "name          n", "---------  ----", "a             1", "long name  1234"]
    assert change(200, 50) == "-75.0%" and ratio(50, 200) == "0.25x" and ratio(1, 0) == "n/a"


def test_median_seconds_warms_up_then_repeats():
    calls = []
    assert median_seconds(lambda: calls.append(1), repeats=3, warmup=2) >= 0
    assert len(calls) == 5
    with pytest.raises(ValueError):
        median_seconds(lambda: None, repeats=0)


def test_scratch_root_is_relative_and_restores_the_working_directory():
    before = os.getcwd()
    with scratch_root() as root:
        assert root == Path("run") and os.getcwd() != before
    assert os.getcwd() == before


def test_micro_on_twelve_files_reproduces_the_seed_shape_only_without_preserving_read_file():
    r = micro_twelve.measure()
    assert r.results == 13 and r.before.estimate > 20_000
    assert r.cleared_preserved == ("list_files",)
    assert r.preserved.estimate > 0.99 * r.before.estimate
    assert r.cleared_not_preserved.count("read_file") == 9
    assert r.not_preserved.estimate < 0.35 * r.before.estimate
    text = micro_twelve.render(r)
    assert "28,000" in text and "Note:" in text


def test_long_session_compares_every_config_with_no_compaction():
    r = long_session.measure(requests=LONG_SESSION.requests[:3])
    assert list(r.stats) == list(long_session.CONFIGS) and r.requests == 3
    assert r.stats["no compaction"].compactions == {}
    assert all(s.input_tokens_billed > 0 for s in r.stats.values())
    assert "1.00x" in long_session.render(r)


def test_generated_history_is_valid_deterministic_and_counted_alike_both_ways():
    history = recount.generated_history(12)
    validate_messages(history)
    assert len(history) == 25 and history == recount.generated_history(12)
    assert recount.naive_count(history) == count_tokens(history)


def test_recount_measures_both_ways_on_a_short_history():
    r = recount.measure(turns=10, steps=3)
    assert r.history_tokens == count_tokens(recount.generated_history(10))
    assert r.naive > 0 and r.memoized > 0
    assert "vs naive" in recount.render(r)
    with pytest.raises(ValueError):
        recount.measure(turns=2, steps=5)


def test_twelve_run_reports_both_counters_and_a_verdict():
    r = twelve_run.measure(repeats=1, warmup=0)
    assert set(r.median) == {"estimate", "tiktoken"}
    assert twelve_run.verdict(r) in twelve_run.render(r)


@pytest.mark.parametrize("seconds, verdict", [(0.149, "PASS"), (0.150, "FAIL"), (0.3, "FAIL")])
def test_the_budget_verdict(seconds, verdict):
    assert twelve_run.verdict(twelve_run.TwelveRun(1, {"estimate": seconds, "tiktoken": 0.1})) == verdict


@pytest.mark.parametrize("seconds, status", [(0.05, 0), (0.2, 1)])
def test_main_prints_every_table_and_fails_when_the_budget_is_missed(monkeypatch, capsys, seconds, status):
    monkeypatch.setattr(micro_scaling, "measure", partial(micro_scaling.measure, sizes=(200,), repeats=1))
    monkeypatch.setattr(long_session, "measure", partial(long_session.measure, LONG_SESSION.requests[:1]))
    monkeypatch.setattr(recount, "measure", partial(recount.measure, turns=5, steps=2))
    monkeypatch.setattr(call_cost, "measure", partial(call_cost.measure, LONG_SESSION.requests[:1], repeats=1))
    monkeypatch.setattr(strategies, "measure", partial(strategies.measure, LONG_SESSION.requests[:2]))
    monkeypatch.setattr(memory, "measure", partial(memory.measure, LONG_SESSION.requests[:2], LONG_SESSION.requests[:2]))
    monkeypatch.setattr(summaries, "measure", partial(summaries.measure, LONG_SESSION.requests[:2]))
    monkeypatch.setattr(twelve_run, "measure", lambda: twelve_run.TwelveRun(1, {"estimate": seconds, "tiktoken": 0.1}))
    assert bench_main.main() == status
    out, err = capsys.readouterr()
    for title in ("micro_compact on the 12-file history", "Long session", "Cost of one call", "Recount",
                  "Memory across sessions", "Summaries", "One 12-file run"):
        assert title in out
    assert ("FAIL" in err) == bool(status)


def test_summaries_compares_every_chapter_12_strategy_at_one_setting():
    rows = summaries.measure(LONG_SESSION.requests[:12])
    assert [row[0] for row in rows] == list(summaries.STRATEGIES)
    assert all(row[1] >= 1 for row in rows)  # twelve requests pass the 20,000-token threshold
    # chapter 12's lab makes one tool call per turn (run_drift), so the summary prepared at 0.7 is ready in time
    # and no one waits; with the fake's parallel reads it came too late and waited like the others
    assert rows[-1][3] == "0.0 s" != rows[0][3]


def test_call_cost_splits_the_session_and_compares_it_with_the_floor():
    c = call_cost.measure(LONG_SESSION.requests[:3], repeats=1)
    assert c.calls >= 3 and min(c.session, c.sdk, c.fake, c.tools, c.floor) > 0
    assert abs(c.sdk + c.fake + c.tools + c.loop - c.session) < 1e-9 and c.loop > 0
    text = call_cost.render(c)
    assert f"{c.ratio:.2f}x" in text and call_cost.verdict(c) in text and "floor" in text


@pytest.mark.parametrize("session, verdict", [(1.99, "PASS"), (2.0, "PASS"), (2.01, "FAIL")])
def test_the_call_cost_verdict(session, verdict):
    assert call_cost.verdict(call_cost.CallCost(10, session, 0.5, 0.5, 0.1, 1.0)) == verdict
