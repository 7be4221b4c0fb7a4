"""The summary sent over the agent's cached prefix (harness/production/cached_summary.py, chapter 13)."""
from __future__ import annotations

import copy

import pytest

from harness import CompactionConfig, SummaryFailed
from harness.core.auto import SUMMARY_PREFIX
from harness.fake import FakeModel
from harness.fake.interpretation import read_request, SUMMARY
from harness.labs.cost import AutomaticCaching
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES, LONG_SESSION
from harness.production.cached_summary import CACHED_SUMMARY_PROMPT, CacheReusingLayers, prefix_sharing_request
from harness.strategies.three_layers import ThreeLayers


class Sent:
    """A client that keeps every request's keyword arguments and reply's usage."""

    def __init__(self, inner):
        self.inner, self.requests, self.usages = inner, [], []

    @property
    def messages(self):
        return self

    def create(self, **request):
        self.requests.append(copy.deepcopy(request))  # the loop rewrites its history in place afterwards
        reply = self.inner.messages.create(**request)
        self.usages.append(reply.usage)
        return reply


def read_in_all(usage):
    return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens


def run(compactor, tmp_path, **config):
    client = Sent(AutomaticCaching(FakeModel().client()))
    session = run_scenario(LONG_SESSION, CompactionConfig(**config), tmp_path, client=client, compactor=compactor,
                           requests=LONG_SESSION.requests[:20])
    return session, client


def test_the_summary_request_is_the_last_calls_prompt_plus_one_instruction(tmp_path):
    session, client = run(CacheReusingLayers(), tmp_path)
    summaries = [i for i, t in enumerate(session.trace) if t.kind == "summary"]
    assert summaries, "the session compacted"
    for i in summaries:
        summary, agent = client.requests[i], client.requests[i - 1]
        assert (summary["system"], summary["tools"], summary["model"]) == (agent["system"], agent["tools"],
                                                                           agent["model"])
        assert summary["messages"][:len(agent["messages"])] == agent["messages"]
        assert summary["messages"][-1] == {"role": "user", "content": CACHED_SUMMARY_PROMPT}
        assert read_request({k: v for k, v in summary.items() if k != "cache_control"}).kind == SUMMARY


def test_the_cache_serves_the_prefix_so_the_summary_reads_what_the_last_call_sent(tmp_path):
    session, client = run(CacheReusingLayers(), tmp_path)
    first = next(i for i, t in enumerate(session.trace) if t.kind == "summary")
    assert client.usages[first].cache_read_input_tokens == read_in_all(client.usages[first - 1])
    assert client.usages[first].input_tokens == 0  # automatic caching writes the new part, reads the rest


def test_chapter_03s_summary_reads_nothing_from_the_cache(tmp_path):
    session, client = run(ThreeLayers(), tmp_path)
    summaries = [i for i, t in enumerate(session.trace) if t.kind == "summary"]
    assert summaries and all(client.usages[i].cache_read_input_tokens == 0 for i in summaries)


def test_the_summary_replaces_the_history_as_chapter_03s_does(tmp_path):
    session, _ = run(CacheReusingLayers(), tmp_path)
    auto = next(e for e in session.events if e.kind == "auto")
    assert auto.detail["summary"] and auto.tokens_after < auto.tokens_before
    assert session.messages[0]["content"].startswith(SUMMARY_PREFIX)


def test_a_failing_summary_leaves_the_history_untouched(tmp_path):
    strategy = CacheReusingLayers()
    client = FakeModel(fail_summaries=1).client()
    with pytest.raises(SummaryFailed):
        run_scenario(TWELVE_FILES, CompactionConfig(threshold=5_000), tmp_path, client=client, compactor=strategy)


def test_focus_is_added_to_the_instruction():
    from harness.core.messages import user
    request = prefix_sharing_request([user("hi")], CompactionConfig(), "the tags", system="s", tools=[])
    assert request["messages"][-1]["content"].endswith("Focus especially on: the tags")
    assert request["max_tokens"] == CompactionConfig().summary_max_tokens
