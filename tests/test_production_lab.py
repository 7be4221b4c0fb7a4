"""Chapter 13's lab (harness/labs/production_lab.py): each call told apart by what it sends, and a row's
numbers read off its calls."""
from __future__ import annotations

from harness import CompactionConfig
from harness.core.auto import tail_request
from harness.core.messages import user
from harness.labs.cost import SESSION_PRICES, price
from harness.labs.production_lab import PricedCall, RowRun, call_kind
from harness.production.cached_summary import prefix_sharing_request
from harness.production.subagent import CHILD_SYSTEM

HISTORY = [user("Read every .py file under agents/ and summarise what each does.")]


def test_each_kind_of_call_is_told_apart_by_what_it_sends():
    agent = {"system": "You are a coding agent.", "messages": HISTORY, "tools": []}
    child = {**agent, "system": CHILD_SYSTEM}
    chapter_03 = tail_request(HISTORY, CompactionConfig(), None)
    shared = prefix_sharing_request(HISTORY, CompactionConfig(), "the tags", system="You are a coding agent.", tools=[])
    assert [call_kind(r) for r in (agent, child, chapter_03, shared)] == ["agent", "child", "summary", "summary"]


def _row(calls, answers=("", "", "I will not change tools/t05_shell.py")):
    return RowRun(3, 1_000, tuple(calls), 1, answers, 0, 0, (), (), 0)


def test_a_rows_numbers_are_read_off_its_calls():
    calls = [PricedCall("agent", 1, 0, 5_000, 10, 50), PricedCall("child", 2, 100, 900, 0, 20),
             PricedCall("agent", 2, 4_000, 2_000, 10, 40), PricedCall("summary", 2, 0, 6_000, 0, 300),
             PricedCall("agent", 3, 0, 700, 10, 30)]
    row = _row(calls)
    assert row.context_per_request() == [5_010, 6_010, 710]  # each request's last agent call
    assert row.peak == 6_010 and row.count("agent") == 3 and row.count() == 5
    assert row.tokens("cache_read") == 4_100 and row.tokens("output", "summary") == 300
    expected = [price(c.cache_read, c.cache_write, c.uncached, c.output, SESSION_PRICES) for c in calls]
    assert abs(row.dollars() - sum(expected)) < 1e-12
    assert abs(row.dollars_so_far()[1] - sum(expected[:4])) < 1e-12 and len(row.dollars_so_far()) == 3
    assert row.keeps_the_rule and not _row(calls, ("", "", "Changed VERSION_TAG")).keeps_the_rule
