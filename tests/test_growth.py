"""Per-call growth curves, request composition and the estimate-vs-count helpers
(harness/labs/growth.py, chapters 00 and 01)."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import (CallTrace, CompactionConfig, assistant, compressed_message, count_tokens,
                     estimate_tokens, exact_tokens, placeholder, text, tool_result, tool_use, user)
from harness.fake import FakeModel, fake_client
from harness.labs.growth import (CATEGORIES, GrowthSeries, block_category, calls_after_requests, composition,
                                 composition_recorder, estimate_and_count, growth_series, mix_text)
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.session.replacement import summary_message
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.three_layers import ThreeLayers
from histories import every_category_history

ENGLISH = "The window holds what the model can read in one call, and no more than that."
CHINESE = "模型每一次调用只能读入窗口里的内容，窗口满了就必须先整理旧的对话。"


def trace_entry(call: int, tokens: int, kind: str = "agent") -> CallTrace:
    return CallTrace(call, tokens, 0, tokens, tokens, (), (), kind)


# --- growth_series -------------------------------------------------------------

def test_growth_series_accumulates_the_bill_and_keeps_per_call_context():
    trace = [trace_entry(1, 100), trace_entry(2, 250), trace_entry(3, 400)]
    series = growth_series(trace)
    assert series.context == (100, 250, 400)
    assert series.billed == (100, 350, 750)
    assert list(series.calls) == [1, 2, 3] and len(series) == 3


def test_summary_calls_are_billed_with_the_agent_call_of_the_same_number():
    trace = [trace_entry(1, 100), trace_entry(2, 900, "summary"), trace_entry(2, 50),  # auto before 2
             trace_entry(3, 80), trace_entry(3, 700, "summary")]                        # manual after 3
    series = growth_series(trace)
    assert series.context == (100, 50, 80), "summary calls are not agent calls"
    assert series.billed == (100, 1_050, 1_830)
    assert series.billed[-1] == sum(t.input_tokens for t in trace)


def test_empty_trace_gives_empty_series():
    assert len(growth_series([])) == 0


@pytest.mark.parametrize("calls", [0, 1, 2, 3])
def test_first_cuts_every_curve(calls):
    series = growth_series([trace_entry(1, 10), trace_entry(2, 20), trace_entry(3, 30)])
    cut = series.first(calls)
    assert len(cut) == calls
    assert cut.context == series.context[:calls] and cut.billed == series.billed[:calls]
    assert cut.estimated == series.estimated[:calls] and cut.counted == series.counted[:calls]


@pytest.mark.parametrize("calls", [-1, 4])
def test_first_refuses_out_of_range(calls):
    series = growth_series([trace_entry(1, 10), trace_entry(2, 20), trace_entry(3, 30)])
    with pytest.raises(ValueError):
        series.first(calls)


def test_calls_after_requests_over_its_whole_range():
    ends = [3, 5, 9]
    assert [calls_after_requests(ends, r) for r in range(1, 4)] == ends
    for bad in (0, 4):
        with pytest.raises(ValueError):
            calls_after_requests(ends, bad)


# --- composition -----------------------------------------------------------------

def test_composition_sorts_every_category_and_adds_up_to_count_tokens():
    history = every_category_history()
    tools = [{"name": "read_file", "description": "read", "input_schema": {"type": "object"}}]
    parts = composition(history, "You are an agent.", tools)
    assert list(parts) == list(CATEGORIES)
    assert all(parts[c] > 0 for c in CATEGORIES), parts
    assert sum(parts.values()) == count_tokens(history, "You are an agent.", tools)


def test_composition_without_system_or_tools():
    history = [user("hello")]
    parts = composition(history)
    assert parts["system"] == 0
    assert parts["user text"] == count_tokens(history)
    assert sum(composition([]).values()) == 0


def test_both_kinds_of_summary_message_count_as_summaries():
    auto_summary = compressed_message(Path(".transcripts/transcript_0001.jsonl"), "We read files.")
    for message in (auto_summary, summary_message("We read files.")):
        parts = composition([message])
        assert parts["summaries"] == sum(parts.values()) > 0


@pytest.mark.parametrize("role, block, category", [
    ("user", text("plain"), "user text"),
    ("user", text("[Conversation compressed. Transcript: x]\n\nsummary"), "summaries"),
    ("assistant", text("[Conversation compressed. Transcript: x]"), "assistant text"),
    ("assistant", tool_use("t", "bash", {}), "tool calls"),
    ("user", tool_result("t", "output"), "tool results"),
    ("user", tool_result("t", placeholder("read_file")), "placeholders"),
])
def test_block_category(role, block, category):
    assert block_category(role, block) == category


# --- composition_recorder on real runs ----------------------------------------------------

def test_recording_client_matches_the_reported_usage_of_every_call(tmp_path):
    client = composition_recorder(fake_client())
    session = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), tmp_path, client=client)
    assert len(client.records) == len(session.trace) == 3  # list, the twelve reads in one turn, the answer
    assert [sum(p.values()) for p in client.records] == [t.input_tokens for t in session.trace]
    assert not any(p["placeholders"] or p["summaries"] for p in client.records)


def test_recording_client_sees_placeholders_and_summaries_when_compaction_runs(tmp_path):
    client = composition_recorder(fake_client())
    config = CompactionConfig(threshold=8_000)  # one read per turn, so that micro and auto both act between reads
    session = run_scenario(TWELVE_FILES, config, tmp_path, client=client, compactor=OneCallPerTurn(ThreeLayers()))
    kinds = [t.kind for t in session.trace]
    assert "summary" in kinds, "the threshold is low enough for auto-compaction"
    assert len(client.records) == len(session.trace)
    assert [sum(p.values()) for p in client.records] == [t.input_tokens for t in session.trace]
    assert any(p["placeholders"] for p in client.records)
    assert any(p["summaries"] for p in client.records)
    for parts, t in zip(client.records, session.trace):
        if t.kind == "summary":
            assert parts["system"] == 0, "a summary request has no system prompt and no tools"


def test_recording_client_passes_count_tokens_through():
    model = FakeModel()
    history = [user("count me")]
    client = composition_recorder(model.client())
    assert exact_tokens(client, history, model="claude-haiku-4-5") == count_tokens(history)
    assert model.requests == ["count"] and client.records == []


# --- estimate against count ------------------------------------------------------------

@pytest.mark.parametrize("percent", range(0, 101))
def test_mix_text_has_the_asked_length_and_share(percent):
    mixed = mix_text(ENGLISH, CHINESE, percent, 400)
    assert len(mixed) == 400
    chinese_chars = round(400 * percent / 100)
    assert sum(1 for ch in mixed if ord(ch) > 127) == chinese_chars
    assert mixed == (ENGLISH * 10)[: 400 - chinese_chars] + (CHINESE * 20)[:chinese_chars]


@pytest.mark.parametrize("args", [(ENGLISH, CHINESE, -1), (ENGLISH, CHINESE, 101), ("", CHINESE, 50),
                                  (ENGLISH, "", 50), (ENGLISH, CHINESE, 50, 0)])
def test_mix_text_refuses_bad_arguments(args):
    with pytest.raises(ValueError):
        mix_text(*args)


def test_estimate_sees_only_length_and_undercounts_chinese():
    pairs = [estimate_and_count(mix_text(ENGLISH, CHINESE, p, 400)) for p in range(0, 101, 10)]
    assert len({e for e, _ in pairs}) == 1, "same length, same estimate"
    counts = [c for _, c in pairs]
    assert counts == sorted(counts) and counts[-1] > 3 * counts[0]
    estimate, counted = pairs[-1]
    assert estimate < counted / 3, "all-Chinese text: the estimate is far too low"
    assert estimate_and_count(ENGLISH) == (estimate_tokens([user(ENGLISH)]), count_tokens([user(ENGLISH)]))


def test_growth_series_is_a_plain_value():
    series = GrowthSeries((1,), (1,), (1,), (1,))
    assert series == GrowthSeries((1,), (1,), (1,), (1,))
    with pytest.raises(AttributeError):
        series.context = (2,)  # frozen
