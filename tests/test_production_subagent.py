"""The sub-agent tool (harness/production/subagent.py, chapter 13): a fresh history, its own budget, one tool
result back, its transcript on disk; a child that fails and one over its budget."""
from __future__ import annotations

import json

import pytest

from harness import CompactionConfig
from harness.core.messages import check_shape
from harness.core.tools import Toolbox
from harness.core.transcripts import read_transcript
from harness.fake import FakeModel
from harness.labs.scenarios import READ_AGENTS, TWELVE_FILES
from harness.production.subagent import CHILD_SYSTEM, SUBAGENT_TOOL_NAME, SubagentToolbox, outcome_of
from harness.session.runner import Session
from harness.strategies.three_layers import ThreeLayers


class Watched:
    """A client that keeps every request, and makes the child's calls fail when told to."""

    def __init__(self, inner, fail_child: bool = False):
        self.inner, self.fail_child, self.requests = inner, fail_child, []

    @property
    def messages(self):
        return self

    def create(self, **request):
        self.requests.append(json.loads(json.dumps(request)))
        if self.fail_child and request.get("system") == CHILD_SYSTEM:
            return self.inner.messages.create(**{**request, "messages": [{"role": "assistant", "content": "x"}]})
        return self.inner.messages.create(**request)


def session(tmp_path, **options):
    workspace = TWELVE_FILES.build(tmp_path / "ws")
    client = Watched(FakeModel().client(), options.pop("fail_child", False))
    config = CompactionConfig(transcript_dir=tmp_path / "transcripts")
    tools = SubagentToolbox(Toolbox(workspace), client, config, **options)
    return Session(client, tools, config, ThreeLayers()), tools, client


def test_the_child_starts_fresh_and_only_its_report_comes_back(tmp_path):
    parent, tools, client = session(tmp_path)
    result = parent.ask(READ_AGENTS)
    [child] = tools.runs
    child_requests = [r for r in client.requests if r.get("system") == CHILD_SYSTEM]
    assert child_requests[0]["messages"] == [{"role": "user", "content": READ_AGENTS}]
    assert SUBAGENT_TOOL_NAME not in {t["name"] for t in child_requests[0]["tools"]}
    assert "compact" not in {t["name"] for t in child_requests[0]["tools"]}
    assert child.stop == "end_turn" and child.calls == len(child_requests) == 3
    results = [b for m in parent.messages if isinstance(m["content"], list) for b in m["content"]
               if b["type"] == "tool_result"]
    assert len(results) == 1 and results[0]["content"].startswith("[Sub-agent report (3 calls; transcript:")
    assert child.report in results[0]["content"] and "agents/s12_worktree_isolation.py" in result.reply
    assert [name for name, _ in parent.tool_calls] == [SUBAGENT_TOOL_NAME]
    check_shape(parent.messages)


def test_the_childs_whole_conversation_is_on_disk(tmp_path):
    parent, tools, _ = session(tmp_path)
    parent.ask(READ_AGENTS)
    [child] = tools.runs
    kept = read_transcript(child.transcript)
    assert child.transcript.parent == tmp_path / "transcripts" / "subagents"
    assert kept[0] == {"role": "user", "content": READ_AGENTS} and len(kept) == 6
    assert sum(1 for m in kept for b in (m["content"] if isinstance(m["content"], list) else [])
               if b["type"] == "tool_result") == 13  # the listing and twelve reads, none of them in the parent


def test_a_child_over_its_budget_stops_and_the_parent_hears_why(tmp_path):
    parent, tools, _ = session(tmp_path, budget=5_000)
    parent.ask(READ_AGENTS)
    child = tools.runs[0]
    assert child.stop == "over_budget" and "over its budget of 5,000" in child.error
    told = outcome_of(child)  # what the parent got (micro-compaction has cleared it since)
    assert told.is_error and "stopped over its budget" in told.content and "transcript_0001.jsonl" in told.content
    assert [name for name, _ in parent.tool_calls].count("read_file") == 12  # so it did the reads itself
    assert read_transcript(child.transcript)[0]["content"] == READ_AGENTS
    check_shape(parent.messages)


def test_a_failing_child_is_an_error_result_and_the_parent_goes_on_by_itself(tmp_path):
    parent, tools, _ = session(tmp_path, fail_child=True)
    result = parent.ask(READ_AGENTS)
    [child] = tools.runs
    assert child.stop == "failed" and "invalid_request_error" in child.error
    names = [name for name, _ in parent.tool_calls]
    assert names[0] == SUBAGENT_TOOL_NAME and names.count("read_file") == 12  # it did the reads itself
    assert "agents/s12_worktree_isolation.py" in result.reply
    check_shape(parent.messages)


def test_a_child_at_its_turn_limit_is_an_error_result(tmp_path):
    parent, tools, _ = session(tmp_path, max_turns=1)
    parent.ask(READ_AGENTS)
    assert tools.runs[0].stop == "max_turns"


@pytest.mark.parametrize("bad", [{}, {"prompt": ""}, {"prompt": 3}, {"prompt": "x", "extra": 1}])
def test_a_bad_task_call_is_an_error_result_and_runs_no_child(tmp_path, bad):
    _, tools, _ = session(tmp_path)
    outcome = tools.run(SUBAGENT_TOOL_NAME, bad)
    assert outcome.is_error and "prompt" in outcome.content and tools.runs == []


def test_the_other_tools_pass_through(tmp_path):
    _, tools, _ = session(tmp_path)
    assert tools.run("list_files", {"path": "agents"}).content.startswith("agents/s01")
    assert tools.names[-1] == SUBAGENT_TOOL_NAME and "compact" in tools.names


def test_the_fake_hands_a_folder_read_to_any_tool_shaped_like_a_sub_agent():
    """Shaped as Deep Agents' task tool (description, subagent_type with a default), not derived from ours."""
    task = {"name": "task", "description": "Launch an ephemeral subagent to handle complex, multi-step tasks "
            "with isolated context windows.", "input_schema": {"type": "object", "properties": {
                "description": {"type": "string"}, "subagent_type": {"type": "string", "default": "general-purpose"}},
                "required": ["description", "subagent_type"]}}
    reply = FakeModel().client().messages.create(model="claude-haiku-4-5", max_tokens=500, tools=[task],
                                                 messages=[{"role": "user", "content": READ_AGENTS}])
    [use] = [b for b in reply.content if b.type == "tool_use"]
    assert use.name == "task" and use.input == {"description": READ_AGENTS, "subagent_type": "general-purpose"}
