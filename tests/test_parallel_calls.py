"""Parallel tool calls, as this fake makes them, and ``disable_parallel_tool_use`` (harness/fake/agent.py,
chapter 00). Everything goes through the real SDK; the long session runs both ways through the course's loop."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import CompactionConfig, Toolbox, assistant, tool_result, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import AGENT_FILES, LONG_SESSION, READ_AGENTS, TWELVE_FILES
from harness.strategies.one_call import ONE_AT_A_TIME, OneCallPerTurn
from harness.strategies.three_layers import ThreeLayers

MODEL = "claude-haiku-4-5"
FILES = [f"agents/{stem}.py" for stem in AGENT_FILES]


def converse(workspace, request, model=None, **options):
    """The SDK's request/response loop on ``workspace``: (every reply, the final answer)."""
    client, messages, replies = (model or FakeModel()).client(), [user(request)], []
    for _ in range(40):
        reply = client.messages.create(model=MODEL, max_tokens=4_000, messages=messages, tools=FILE_TOOLS, **options)
        replies.append(reply)
        content = [b.model_dump(include={"type", "text", "id", "name", "input"}) for b in reply.content]
        messages.append(assistant(content))
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            return replies, "\n".join(b["text"] for b in content)
        messages.append(user([tool_result(b["id"], Toolbox(workspace).run(b["name"], b["input"]).content)
                              for b in uses]))
    raise AssertionError("no end of turn")


def final_part(answer: str) -> str:
    """A folder's reading ends with the list of what each file does; the notes before it depend on the turns."""
    return answer.split("does:\n", 1)[-1] if "What each file under" in answer else answer


def calls_of(reply):
    return [(b.name, b.input) for b in reply.content if b.type == "tool_use"]


def test_a_listing_then_one_turn_of_reads_in_the_listings_order(tmp_path):
    replies, answer = converse(TWELVE_FILES.build(tmp_path), READ_AGENTS)
    assert [len(calls_of(r)) for r in replies] == [1, 12, 0]
    assert calls_of(replies[0]) == [("list_files", {"path": "agents"})]
    assert calls_of(replies[1]) == [("read_file", {"path": p}) for p in FILES]
    assert [b.type for b in replies[1].content] == ["text"] + ["tool_use"] * 12  # its plan first, then the calls
    assert replies[1].stop_reason == "tool_use" and len({b.id for b in replies[1].content[1:]}) == 12
    sequential, same = converse(TWELVE_FILES.build(tmp_path / "b"), READ_AGENTS, tool_choice=ONE_AT_A_TIME)
    assert [len(calls_of(r)) for r in sequential] == [1] * 13 + [0]
    assert [c for r in sequential for c in calls_of(r)][1:] == calls_of(replies[1])  # the same calls, in turn
    listed = answer.split("What each file under agents/ does:")[1]
    assert same.split("What each file under agents/ does:")[1] == listed and all(f"- {p}: " in listed for p in FILES)


def test_the_files_a_question_names_are_read_together_in_the_order_named(tmp_path):
    question = "What is VERSION_TAG in core/c03_tokens.py, agents/s01_agent_loop.py and tools/t03_edit.py?"
    replies, answer = converse(LONG_SESSION.build(tmp_path), question)
    assert calls_of(replies[0]) == [("read_file", {"path": p}) for p in
                                    ("core/c03_tokens.py", "agents/s01_agent_loop.py", "tools/t03_edit.py")]
    assert answer.splitlines() == ['VERSION_TAG in core/c03_tokens.py is "v3-tokens".',
                                   'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".',
                                   'VERSION_TAG in tools/t03_edit.py is "v3-edit".']
    one, same = converse(LONG_SESSION.build(tmp_path / "b"), question, tool_choice=ONE_AT_A_TIME)
    assert [len(calls_of(r)) for r in one] == [1, 1, 1, 0] and same == answer


def test_a_call_that_needs_another_ones_result_waits_for_the_next_turn(tmp_path):
    """An edit needs the read that shows the tag line: never in the same turn."""
    replies, answer = converse(LONG_SESSION.build(tmp_path), 'In core/c06_storage.py, change VERSION_TAG to "v6".')
    assert [[name for name, _ in calls_of(r)] for r in replies] == [["read_file"], ["edit_file"], []]
    assert answer == 'Changed VERSION_TAG in core/c06_storage.py to "v6".'


@pytest.fixture(scope="module")
def long_sessions(tmp_path_factory):
    """The long session through the course's loop (three layers, the s06 defaults), with parallel calls and with
    ``disable_parallel_tool_use``. Run from a folder of its own with relative roots, as a chapter runs it: each
    summary message names its transcript's path, so the path's length moves every count after it."""
    here = Path.cwd()
    os.chdir(tmp_path_factory.mktemp("long"))
    try:
        return {"parallel": run_scenario(LONG_SESSION, CompactionConfig(), "_work/pl"),
                "one": run_scenario(LONG_SESSION, CompactionConfig(), "_work/one",
                                    compactor=OneCallPerTurn(ThreeLayers()))}
    finally:
        os.chdir(here)


def test_the_long_session_with_parallel_calls_makes_fewer_calls(long_sessions):
    parallel, one = long_sessions["parallel"], long_sessions["one"]
    widths = [len(t.tools) for t in parallel.trace if t.kind == "agent"]
    assert max(widths) == 12 and max(len(t.tools) for t in one.trace) == 1
    assert (parallel.stats.model_calls, one.stats.model_calls) == (154, 195)
    assert parallel.stats.input_tokens_billed < 0.75 * one.stats.input_tokens_billed
    assert len(parallel.answers) == len(one.answers) == len(LONG_SESSION.requests)


def test_one_call_per_turn_gives_the_answers_parallel_calls_give_but_where_results_arrive_together(long_sessions):
    """The same answers both ways, but for two requests. s06 summarises the last 80,000 characters of the
    history: right after twelve reads answered together (one message of about 91,000 characters), that tail
    holds no whole message, so the summary names no request and the model loses the plugins/ task; and the
    first change asked is then read from a later summary."""
    parallel = [final_part(a) for a in long_sessions["parallel"].answers]
    one = [final_part(a) for a in long_sessions["one"].answers]
    differ = [i for i, (a, b) in enumerate(zip(parallel, one)) if a != b]
    assert [LONG_SESSION.requests[i] for i in differ] == [
        "Read every .py file under plugins/ and summarise what each does.", "Which file did I first ask you to change?"]
    assert parallel[differ[0]] == "I have lost track of the current request. What should I do next?"
    assert one[differ[1]] == "The first file you asked me to change was plugins/p05_cache.py."
    assert parallel[-1] == one[-1] == 'Changed VERSION_TAG in tools/t05_shell.py to "v5-unsafe".'  # both ways, s06's
    # tail has long lost the rule about tools/ (an earlier summary holds it, and the tail starts after it)
