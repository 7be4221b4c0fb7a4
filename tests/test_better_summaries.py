"""Chapter 12's strategies: the incremental request, the self-check, the summary prepared ahead of time."""
from __future__ import annotations

import json

import pytest

from harness import CompactionConfig, validate_messages
from harness.core.auto import compressed_message, tail_request
from harness.core.messages import assistant, user
from harness.fake import fake_client
from harness.fake.server import FakeModel
from harness.fake.summarizer import summarise_text
from harness.labs.recording import RecordingClient
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.labs.summary_lab import (MATCHED_SETTING, SummaryPoint, ahead_outcome, run_drift, summary_points,
                                      wait_seconds)
from harness.session.resume import resume
from harness.strategies.incremental_summary import IncrementalSummary, merge_request, previous_summary
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.prepared_summary import PreparedSummary
from harness.strategies.three_layers import ThreeLayers
from harness.strategies.verified_summary import VerifiedSummary, verify_request

REQUESTS = LONG_SESSION.requests[:20]
SUMMARY = "1. What was accomplished:\n- read: a.py\n3. Key decisions:\n- none recorded\n- User: keep tools/ as it is"


def history_after_a_compaction(tmp_path, turns: int = 30):
    messages = [compressed_message(tmp_path / "t.jsonl", SUMMARY)]
    for n in range(turns):
        messages += [assistant(f"answer {n} " + "x" * 200), user(f"request {n}")]
    return messages


def test_merge_request_without_a_summary_is_chapter_03s():
    messages = [user("hello"), assistant("hi"), user("go on")]
    assert merge_request(messages, CompactionConfig(), None) == tail_request(messages, CompactionConfig(), None)


@pytest.mark.parametrize("tail", [500, 3_000, 100_000])
def test_merge_request_quotes_the_previous_summary_whole_and_fits_the_turns_in_the_room_left(tmp_path, tail):
    messages = history_after_a_compaction(tmp_path)
    prompt = merge_request(messages, CompactionConfig(tail_chars=tail), None)["messages"][0]["content"]
    assert f"<previous_summary>\n{SUMMARY}\n</previous_summary>" in prompt
    quoted = prompt.split("<conversation>\n", 1)[1].removesuffix("\n</conversation>")
    dump, room = json.dumps(messages[1:], ensure_ascii=False), max(tail - len(SUMMARY), 0)
    assert len(quoted) <= room and dump.endswith(quoted) and (quoted == dump or len(quoted) == room)
    assert previous_summary(messages[0]) == SUMMARY


def test_the_fake_reads_a_quoted_previous_summary_and_only_then(tmp_path):
    messages = history_after_a_compaction(tmp_path, turns=2)
    merged = summarise_text(merge_request(messages, CompactionConfig(tail_chars=len(SUMMARY)), None)["messages"][0]["content"])
    assert "- User: keep tools/ as it is" in merged and "read: a.py" in merged
    plain = "Summarise the conversation below.\n\n<conversation>\n[]\n</conversation>"
    assert "keep tools/" not in summarise_text(plain + SUMMARY)  # an unquoted summary in the prompt text is not read


def test_summary_of_summaries_loses_what_the_tail_cuts_and_merging_keeps_it(tmp_path):
    config = MATCHED_SETTING
    runs = {key: run_scenario(LONG_SESSION, config, tmp_path / key, requests=REQUESTS, compactor=make())
            for key, make in (("plain", ThreeLayers), ("merge", IncrementalSummary))}
    points = {key: summary_points(s) for key, s in runs.items()}
    assert len(points["plain"]) >= 2 and all(isinstance(p, SummaryPoint) for p in points["merge"])
    assert sum(len(p.kept) for p in points["merge"]) >= sum(len(p.kept) for p in points["plain"])


def test_a_verified_summary_makes_two_calls_per_compaction_and_counts_both(tmp_path):
    model = FakeModel()
    session = run_scenario(LONG_SESSION, MATCHED_SETTING, tmp_path, requests=REQUESTS, compactor=VerifiedSummary(),
                           client=model.client())
    summaries = [t for t in session.trace if t.kind == "summary"]
    assert summaries and model.requests.count("summary") == 2 * len(summaries)
    request = verify_request([user("a")], "the draft", CompactionConfig(), view_chars=5)
    assert "<draft_summary>\nthe draft\n</draft_summary>" in request["messages"][0]["content"]


def test_prepared_summary_keeps_every_later_message_verbatim_and_every_request_valid(tmp_path):
    checked = RecordingClient(fake_client(), lambda request: validate_messages(request["messages"]) or True)
    strategy = PreparedSummary(0.7)  # one read per turn: twelve reads at once jump past the window to prepare in
    session = run_scenario(LONG_SESSION, MATCHED_SETTING, tmp_path, requests=REQUESTS,
                           compactor=OneCallPerTurn(strategy), client=checked)
    swaps = [e for e in session.events if e.kind == "prepared"]
    assert swaps and all(e.detail["kept_verbatim"] > 0 for e in swaps)
    assert "auto" not in session.stats.compactions
    assert sum(p.used for p in strategy.preparations) == len(swaps)


def test_preparing_at_the_threshold_is_chapter_03s_compaction(tmp_path):
    plain = run_scenario(LONG_SESSION, MATCHED_SETTING, tmp_path / "a", requests=REQUESTS, compactor=ThreeLayers())
    late = run_scenario(LONG_SESSION, MATCHED_SETTING, tmp_path / "a", requests=REQUESTS, compactor=PreparedSummary(1.0))
    assert [(t.input_tokens, t.kind) for t in plain.trace] == [(t.input_tokens, t.kind) for t in late.trace]
    with pytest.raises(ValueError):
        PreparedSummary(0)


def test_wait_is_modelled_from_token_counts(tmp_path):
    assert wait_seconds(5_000, 50) == 2.0
    early, late = ahead_outcome(0.7, tmp_path / "e"), ahead_outcome(1.0, tmp_path / "l")
    assert early.wait < late.wait and late.swaps == 0 and late.unused_tokens == 0
    assert early.waited_output == 0 < late.waited_output  # at 0.7 every summary was prepared ahead


def test_a_session_log_replays_every_prepared_swap(tmp_path):
    session = run_scenario(LONG_SESSION, MATCHED_SETTING, tmp_path, requests=REQUESTS,
                           compactor=OneCallPerTurn(PreparedSummary(0.7)), log=True)
    assert any(e.kind == "prepared" for e in session.events)
    resumed = resume(tmp_path / "session.jsonl")
    assert resumed.messages == session.messages
    assert resumed.compactions == sum(e.kind in ("prepared", "auto") for e in session.events)


def test_a_drift_run_is_priced_with_and_without_caching(tmp_path):
    run = run_drift("plain", ThreeLayers(), MATCHED_SETTING, tmp_path, requests=REQUESTS)
    assert len(run.requests) == len(run.session.trace)  # the probes' requests are not in it
    assert 0 < run.dollars(caching=True) < run.dollars(caching=False)
    assert run.summary_outputs == [t.output_tokens for t in run.session.trace if t.kind == "summary"]


def test_a_drift_run_makes_one_tool_call_per_turn_unless_asked_for_parallel_calls(tmp_path):
    one = run_drift("one", ThreeLayers(), MATCHED_SETTING, tmp_path, requests=REQUESTS[:1])
    both = run_drift("both", ThreeLayers(), MATCHED_SETTING, tmp_path, requests=REQUESTS[:1], parallel=True)
    assert max(len(t.tools) for t in one.session.trace) == 1  # the twelve reads of agents/ one by one
    assert max(len(t.tools) for t in both.session.trace) == 12  # the fake's default: all twelve in one turn
