"""The cost model with prompt caching, and cache-aware batched micro (harness/labs/cost.py, chapter 09)."""
from __future__ import annotations

import copy
import dataclasses

from typing import get_args

import pytest
from anthropic._data import DEPRECATED_MODELS
from anthropic.types import ModelParam
from hypothesis import given, settings
from histories import valid_histories

from harness import (CallTrace, CompactionConfig, assistant, count_tokens, micro_compact, tool_result,
                     tool_use, user, validate_messages)
from harness.core.tools import FILE_TOOLS
from harness.core.config import DEFAULT_MODEL
from harness.fake import fake_client
from harness.fake.caching import min_cacheable
from harness.labs.cost import (EXAMPLE_PRICES, PARTS, SESSION_PRICES, CallCost, Prices, PromptCache, Segment,
                               break_even_calls,
                               cache_recorder, common_prefix, cost_of, prefix_fingerprints, price,
                               request_segments)
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.strategies.batched_micro import BatchedMicro, clearable_tokens
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.three_layers import ThreeLayers

SYSTEM = "You are a careful coding agent."
# The short histories below are under Haiku 4.5's 4,096-token minimum: these prices cache from 1,024 on.
SHORT = dataclasses.replace(SESSION_PRICES, min_cacheable=1_024)
NOTHING = frozenset()


def history(results: int, size: int = 2_000) -> list[dict]:
    """A request, then ``results`` read_file rounds with long, distinct outputs."""
    messages = [user("Read the files.")]
    for i in range(results):
        messages += [assistant([tool_use(f"t{i}", "read_file", {"path": f"f{i}.py"})]),
                     user([tool_result(f"t{i}", f"line {i} " * (size // 7))])]
    return messages


def trace_of(requests: list[list[Segment]], kinds: list[str] | None = None) -> list[CallTrace]:
    kinds = kinds or ["agent"] * len(requests)
    return [CallTrace(i + 1, sum(s.tokens for s in r), 10, 0, 0, (), (), kind)
            for i, (r, kind) in enumerate(zip(requests, kinds))]


def test_session_prices_are_haiku_4_5_and_the_default():
    assert SESSION_PRICES == Prices(input=1.0, output=5.0, cache_write_factor=1.25, cache_read_factor=0.1,
                                    min_cacheable=4_096, lookback_blocks=20)
    assert price(0, 1_000_000, 0, 0, SESSION_PRICES) == pytest.approx(1.25)
    assert price(1_000_000, 0, 0, 1_000_000, SESSION_PRICES) == pytest.approx(0.10 + 5.00)
    cache = PromptCache()
    assert (cache.min_cacheable, cache.lookback_blocks) == (4_096, 20)
    request = [Segment(("block", 0), 4_095)]
    assert cost_of(trace_of([request]), [request]).prices == SESSION_PRICES
    assert cost_of(trace_of([request]), [request]).calls[0].uncached == 4_095  # one token short: uncached
    assert break_even_calls(2_000, 6_000) == break_even_calls(2_000, 6_000, SESSION_PRICES)


def test_example_prices_are_claude_sonnet_5_5s():
    assert EXAMPLE_PRICES == Prices(input=2.0, output=10.0, cache_write_factor=1.25, cache_read_factor=0.1,
                                    min_cacheable=512, lookback_blocks=20)
    assert price(1_000_000, 0, 0, 0, EXAMPLE_PRICES) == pytest.approx(0.20)
    assert price(0, 1_000_000, 0, 0, EXAMPLE_PRICES) == pytest.approx(2.50)
    assert price(0, 0, 1_000_000, 0, EXAMPLE_PRICES) == pytest.approx(2.00)
    assert price(0, 0, 0, 1_000_000, EXAMPLE_PRICES) == pytest.approx(10.00)
    assert EXAMPLE_PRICES.min_cacheable == min_cacheable("claude-sonnet-5-5")  # the fake's minimum for it


def test_a_model_is_priced_at_its_own_list_prices():
    """Chapter 08's compaction row runs on Sonnet 4.6 (Haiku 4.5 runs no compaction): it is priced there."""
    from harness.core.models import MODELS
    from harness.labs.cost import MODEL_PRICES, SONNET_4_6_PRICES, prices_for
    from harness.strategies.registry import COMPACTION_MODEL
    assert prices_for(DEFAULT_MODEL) is SESSION_PRICES and prices_for(COMPACTION_MODEL) is SONNET_4_6_PRICES
    assert SONNET_4_6_PRICES == Prices(input=3.0, output=15.0, cache_write_factor=1.25, cache_read_factor=0.1,
                                       min_cacheable=1_024, lookback_blocks=20)
    for model, prices in MODEL_PRICES.items():
        assert model in MODELS and prices.min_cacheable == min_cacheable(model), model  # the fake's minimum
    with pytest.raises(ValueError, match="no prices for 'claude-opus-4-6'"):
        prices_for("claude-opus-4-6")


def test_the_example_model_is_current_and_the_session_model_not_deprecated():
    """The SDK's list: both are models it names, and neither is deprecated (``_data/deprecated_models.py``)."""
    assert {"claude-sonnet-5-5", DEFAULT_MODEL} <= set(get_args(get_args(ModelParam)[0]))
    assert not {"claude-sonnet-5-5", DEFAULT_MODEL} & set(DEPRECATED_MODELS)


@pytest.mark.parametrize("changes", [{"input": -1}, {"output": "3"}, {"cache_read_factor": True},
                                     {"min_cacheable": -5}, {"min_cacheable": 1.5}, {"lookback_blocks": -1},
                                     {"lookback_blocks": 2.5}, {"lookback_blocks": False}])
def test_prices_are_validated(changes):
    with pytest.raises(ValueError):
        Prices(**changes)


@settings(max_examples=60, deadline=None)
@given(valid_histories())
def test_segments_add_up_to_the_whole_request(messages):
    segments = request_segments(messages, SYSTEM, FILE_TOOLS)
    assert sum(s.tokens for s in segments) == count_tokens(messages, system=SYSTEM, tools=FILE_TOOLS)
    assert common_prefix(segments, request_segments(copy.deepcopy(messages), SYSTEM, FILE_TOOLS)) == len(segments)


def test_segments_are_in_cache_order_tools_system_messages():
    segments = request_segments(history(1), SYSTEM, FILE_TOOLS)
    assert [s.key[0] for s in segments[:2]] == ["tools", "system"]
    assert segments[2].key[:2] == ("user", "text")
    assert len(segments) == 2 + 3


def test_any_rewrite_of_an_earlier_block_ends_the_shared_prefix():
    before = history(4)
    after = copy.deepcopy(before)
    after[4]["content"][0]["content"] = "[Previous: used read_file]"  # the second result
    a, b = request_segments(before, SYSTEM), request_segments(after, SYSTEM)
    assert common_prefix(a, b) == 1 + 4  # system, the request, result 1's round, the second tool_use
    assert common_prefix(a, a[:3]) == 3 and common_prefix([], a) == 0


def tokens(segments: list[Segment]) -> int:
    return sum(s.tokens for s in segments)


def test_a_growing_request_reads_the_one_before_and_writes_the_rest():
    cache = PromptCache(SHORT.min_cacheable)
    first, second = request_segments(history(3), SYSTEM), request_segments(history(4), SYSTEM)
    assert cache.send(first) == (0, tokens(first))  # an empty cache: everything is written
    assert cache.send(second) == (tokens(first), tokens(second) - tokens(first))
    assert cache.send(second) == (tokens(second), 0)  # the same request again: all read


def test_a_request_too_short_to_cache_is_neither_read_nor_stored():
    cache = PromptCache(min_cacheable=10**9)
    current = request_segments(history(2), SYSTEM)
    assert cache.send(current) == (0, 0) and not cache.stored
    assert PromptCache(min_cacheable=tokens(current) + 1).send(current) == (0, 0)


def test_a_rewrite_reads_only_up_to_a_prefix_an_earlier_request_stored():
    """Not up to the rewritten block: the cache holds prefixes only where a request ended."""
    cache = PromptCache(min_cacheable=1)
    for n in range(1, 5):
        cache.send(request_segments(history(n), SYSTEM))
    rewritten = history(4)
    rewritten[4]["content"][0]["content"] = "[Previous: used read_file]"  # the second result
    current = request_segments(rewritten, SYSTEM)
    read, write = cache.send(current)
    assert read == count_tokens(history(1), system=SYSTEM)  # the newest stored prefix before the rewrite
    assert read < tokens(current[:common_prefix(request_segments(history(4), SYSTEM), current)])
    assert read + write == tokens(current)


def test_any_earlier_request_can_be_read_not_only_the_last():
    cache = PromptCache(SHORT.min_cacheable)
    base = history(2)
    branch_a = base + [assistant("Done."), user("Now explain file 0. " * 50)]
    branch_b = base + [assistant("Done."), user("Now explain file 1. " * 50)]
    cache.send(request_segments(base, SYSTEM))
    cache.send(request_segments(branch_a, SYSTEM))
    read, _ = cache.send(request_segments(branch_b, SYSTEM))
    assert read == count_tokens(base, system=SYSTEM)


@pytest.mark.parametrize("lookback, found", [(3, True), (2, False)])
def test_a_stored_prefix_is_found_only_within_the_lookback(lookback, found):
    blocks = [Segment(("block", i), 300) for i in range(9)]
    cache = PromptCache(min_cacheable=1, lookback_blocks=lookback)
    cache.send(blocks[:5])                  # stored: a prefix ending at block 4
    read, write = cache.send(blocks[:8])    # the breakpoint on block 7, three blocks further on
    assert (read, write) == ((1_500, 900) if found else (0, 2_400))


def test_the_lookback_cliff_on_a_micro_step(tmp_path):
    """One result cleared 10 rounds back (20 blocks after it) is past the API's lookback: all written."""
    cache = PromptCache(SHORT.min_cacheable)
    for n in range(1, 13):
        cache.send(request_segments(history(n), SYSTEM))
    for kept, expect_read in ((9, True), (10, False)):
        rewritten = history(12)
        rewritten[2 * (12 - kept)]["content"][0]["content"] = "[Previous: used read_file]"
        read, write = cache.send(request_segments(rewritten, SYSTEM))
        assert (read > 0) is expect_read and read + write == count_tokens(rewritten, system=SYSTEM)


def test_fingerprints_name_prefixes():
    a, b = request_segments(history(3), SYSTEM), request_segments(history(4), SYSTEM)
    fa, fb = prefix_fingerprints(a), prefix_fingerprints(b)
    assert fa == fb[:len(fa)] and len(set(fb)) == len(fb)
    changed = history(3)
    changed[0] = user("Read the files, please.")
    assert not set(prefix_fingerprints(request_segments(changed, SYSTEM))[1:]) & set(fa)


@settings(max_examples=60, deadline=None)
@given(valid_histories())
def test_every_cached_token_is_read_or_written_once(messages):
    cache, sent = PromptCache(min_cacheable=1), []
    for end in range(1, len(messages) + 1):
        current = request_segments(messages[:end], SYSTEM)
        read, write = cache.send(current)
        assert read + write == tokens(current)
        longest_shared = max((tokens(current[:common_prefix(s, current)]) for s in sent), default=0)
        assert read <= longest_shared
        sent.append(current)


def test_cost_of_prices_each_call_and_keeps_summaries_uncached():
    requests = [request_segments(history(n), SYSTEM) for n in (2, 3, 3)]
    requests.insert(2, request_segments([user("Summarise " * 600)]))
    trace = trace_of(requests, ["agent", "agent", "summary", "agent"])
    report = cost_of(trace, requests, SHORT)
    first, second, summary, third = report.calls
    assert (first.cache_read, first.uncached) == (0, 0) and first.cache_write == first.input
    assert second.cache_read == trace[0].input_tokens
    assert second.cache_write == trace[1].input_tokens - second.cache_read
    assert summary.uncached == summary.input and summary.cache_read == summary.cache_write == 0
    assert third.cache_read == third.input and third.cache_write == 0  # same request again: all read
    for call, step in zip(report.calls, trace):
        assert call.input == step.input_tokens
        expected = price(call.cache_read, call.cache_write, call.uncached, 10, SHORT)
        assert call.dollars == pytest.approx(expected)
    assert report.dollars == pytest.approx(sum(report.dollars_for(p) for p in PARTS))
    plain = cost_of(trace, requests, caching=False)
    assert all(c.uncached == c.input for c in plain.calls)
    assert plain.total("uncached") == sum(t.input_tokens for t in trace)
    with pytest.raises(ValueError):
        cost_of(trace[:-1], requests)
    with pytest.raises(ValueError):
        report.dollars_for("dollars")


def test_recorder_keeps_each_request_as_it_was_sent(tmp_path):
    recorder = cache_recorder(fake_client())
    session = run_scenario(TWELVE_FILES, CompactionConfig(keep_recent=1, preserve_tools=NOTHING), tmp_path,
                           client=recorder)
    assert len(recorder.records) == len(session.trace)
    for segments, step in zip(recorder.records, session.trace):
        assert sum(s.tokens for s in segments) == step.input_tokens  # the fake bills exactly what was sent
    report = cost_of(session.trace, recorder.records)
    assert report.total("cache_read") + report.total("cache_write") + report.total("uncached") == \
        session.stats.input_tokens_billed
    assert recorder.messages.count_tokens(model="claude-haiku-4-5", messages=[user("hi")]).input_tokens > 0


def test_micro_rewrites_show_up_as_cache_writes(tmp_path):
    """Clearing every call (nothing preserved) rewrites history: more writes than growing untouched. One read per
    turn: with the twelve reads in one turn micro clears nine the model has not read (chapter 02)."""
    def run(config):
        recorder = cache_recorder(fake_client())
        session = run_scenario(TWELVE_FILES, config, tmp_path, client=recorder, compactor=OneCallPerTurn(ThreeLayers()))
        return session, cost_of(session.trace, recorder.records)
    plain, plain_cost = run(CompactionConfig(micro=False, auto=False))
    micro, micro_cost = run(CompactionConfig(preserve_tools=NOTHING, auto=False))
    assert micro.stats.input_tokens_billed < plain.stats.input_tokens_billed
    assert micro_cost.total("cache_write") > plain_cost.total("cache_write")
    largest = max(plain_cost.calls, key=lambda c: c.input)
    assert plain_cost.total("cache_write") == largest.input  # untouched: each token is written once


def test_break_even_calls():
    assert break_even_calls(2_000, 6_000) == pytest.approx(6_000 * 1.15 / 200)
    assert break_even_calls(2_000, 0) == 0
    assert break_even_calls(1_000, 1_000, Prices(cache_write_factor=1.0, cache_read_factor=0.5)) == 1.0
    for bad in [(0, 10), (10, -1)]:
        with pytest.raises(ValueError):
            break_even_calls(*bad)
    with pytest.raises(ValueError):
        break_even_calls(10, 10, Prices(cache_read_factor=0))


def test_clearable_tokens_is_a_dry_run():
    messages = history(5)
    before = copy.deepcopy(messages)
    expected = sum(len(m["content"][0]["content"]) for m in messages[2:8:2]) // 4  # all but the newest 2
    assert clearable_tokens(messages, 2, NOTHING, 100) == expected
    assert messages == before
    assert clearable_tokens(messages, 2, frozenset({"read_file"}), 100) == 0
    micro_compact(messages, 2, NOTHING, 100)
    assert clearable_tokens(messages, 2, NOTHING, 100) == 0  # placeholders are not cleared twice


def test_batched_micro_waits_for_a_large_batch(tmp_path):
    """The twelve reads, then a question: once read, nine reads can go at once, before the question's call."""
    config = CompactionConfig(preserve_tools=NOTHING, auto=False)
    requests = (*TWELVE_FILES.requests, "What is VERSION_TAG in agents/s01_agent_loop.py?")
    every_call = run_scenario(TWELVE_FILES, config, tmp_path, requests=requests)
    batched = run_scenario(TWELVE_FILES, config, tmp_path, requests=requests, compactor=BatchedMicro(6_000))
    micro = [e for e in batched.events if e.kind == "micro"]
    assert 0 < len(micro) < sum(e.kind == "micro" for e in every_call.events)
    assert all(e.tokens_before - e.tokens_after >= 5_000 for e in micro)
    never = run_scenario(TWELVE_FILES, config, tmp_path, requests=requests, compactor=BatchedMicro(10**9))
    assert not any(e.kind == "micro" for e in never.events)
    validate_messages(batched.messages + [user("Next request.")])


def test_batched_micro_is_cheaper_with_caching_on_the_lab_session(tmp_path):
    """The chapter's claim in small: the first 8 requests of LONG_SESSION, nothing preserved."""
    def dollars(compactor):
        recorder = cache_recorder(fake_client())
        session = run_scenario(LONG_SESSION, CompactionConfig(preserve_tools=NOTHING), tmp_path, client=recorder,
                               requests=LONG_SESSION.requests[:8], compactor=compactor)
        return cost_of(session.trace, recorder.records).dollars
    assert dollars(BatchedMicro(10_000)) < dollars(None)


def test_call_cost_input_is_the_sum_of_its_parts():
    assert CallCost(1, "agent", 5, 7, 11, 3, 0.0).input == 23
