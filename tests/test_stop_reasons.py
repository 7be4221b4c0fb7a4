"""Every stop reason the SDK types has its handling in run_agent (harness/core/loop.py): a paused turn goes back,
a refused one is not kept, a cut one runs none of its tool calls, and no tool_use without its result ever enters
the history. The fake pauses and refuses nothing, so a scripted server plays those replies; the fake's own cut at
the window is run too."""
from __future__ import annotations

import copy
import typing

import pytest
from anthropic.types import Message, StopReason
from anthropic.types.beta import BetaStopReason

from harness import CompactionConfig, Toolbox, text, tool_use, user
from harness.core.loop import PAUSED, UNFINISHED, run_agent
from harness.core.messages import validate_messages
from harness.fake import FakeModel
from harness.labs.scenarios import TWELVE_FILES
from harness.strategies.base import Compactor

ASK = "What is VERSION_TAG in agents/s01_agent_loop.py?"
READ = tool_use("toolu_r1", "read_file", {"path": "agents/s01_agent_loop.py"})


def reply(content: list[dict], stop: str, n: int = 1) -> Message:
    return Message.model_validate({"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "m",
                                   "content": content, "stop_reason": stop, "stop_sequence": None,
                                   "usage": {"input_tokens": 100 * n, "output_tokens": 10}})


class Scripted:
    """A client whose ``messages.create`` answers from a script and keeps a copy of each request's messages."""

    def __init__(self, *replies: Message):
        self.replies, self.sent = list(replies), []
        self.messages = self

    def create(self, **request):
        self.sent.append(copy.deepcopy(request["messages"]))
        return self.replies.pop(0)


def run(client, tmp_path, **config):
    messages = [user(ASK)]
    result = run_agent(client, messages, system="You are terse.", tools=Toolbox(TWELVE_FILES.build(tmp_path / "ws")),
                       config=CompactionConfig(**config), compactor=Compactor())
    return result, messages


def valid_next_request(messages):
    validate_messages(messages + [user("next")] if messages[-1]["role"] == "assistant" else messages)


def test_every_stop_reason_the_sdk_types_is_handled():
    handled = {"tool_use", "end_turn", "stop_sequence", *UNFINISHED, *PAUSED}
    assert set(typing.get_args(BetaStopReason)) | set(typing.get_args(StopReason)) == handled


def test_a_paused_turn_is_sent_back_as_it_came_and_no_tool_runs(tmp_path):
    client = Scripted(reply([text("Searching first."), READ], "pause_turn"),
                      reply([text("VERSION_TAG is v1-agent.")], "end_turn", 2))
    result, messages = run(client, tmp_path)
    assert result.stop == "end_turn" and result.reply == "VERSION_TAG is v1-agent." and result.tool_calls == []
    assert client.sent[1][-1] == {"role": "assistant", "content": [text("Searching first.")]}  # no call left open
    assert [(e.kind, e.detail) for e in result.events] == [("pause_turn", {"dropped_tool_uses": ["read_file"]})]
    assert len(result.trace) == 2
    assert messages[-1]["role"] == messages[-2]["role"] == "assistant"  # the continuation follows the paused turn


def test_a_refused_turn_is_not_kept(tmp_path):
    client = Scripted(reply([text("I can't help with"), READ], "refusal"))
    result, messages = run(client, tmp_path)
    assert result.stop == "refusal" and result.reply == "I can't help with" and result.tool_calls == []
    assert messages == [user(ASK)]
    assert [(e.kind, e.detail) for e in result.events] == [("refusal", {"dropped_tool_uses": ["read_file"]})]


@pytest.mark.parametrize("stop", ["max_tokens", "model_context_window_exceeded"])
def test_a_tool_call_cut_short_never_runs_and_never_enters_the_history(stop, tmp_path):
    cut = tool_use("toolu_r2", "read_file", {"path": "agents/s0"})  # the input as far as it got
    client = Scripted(reply([text("Reading both."), READ, cut], stop))
    result, messages = run(client, tmp_path)
    assert result.stop == stop and result.tool_calls == [] and len(client.sent) == 1
    assert messages == [user(ASK), {"role": "assistant", "content": [text("Reading both.")]}]
    assert result.events[0].kind == stop and result.events[0].detail == {"dropped_tool_uses": ["read_file"] * 2}
    valid_next_request(messages)


def test_a_cut_reply_with_nothing_but_a_tool_call_leaves_no_message(tmp_path):
    result, messages = run(Scripted(reply([READ], "max_tokens")), tmp_path)
    assert (result.stop, messages) == ("max_tokens", [user(ASK)])


def test_text_cut_by_max_tokens_is_kept_and_the_run_says_why_it_ended(tmp_path):
    result, messages = run(Scripted(reply([text("VERSION_TAG is")], "max_tokens")), tmp_path)
    assert result.stop == "max_tokens" and messages[-1] == {"role": "assistant", "content": [text("VERSION_TAG is")]}


def test_a_stop_sequence_ends_the_turn_with_its_own_reason(tmp_path):
    result, messages = run(Scripted(reply([text("VERSION_TAG is v1")], "stop_sequence")), tmp_path)
    assert result.stop == "stop_sequence" and messages[-1]["content"] == [text("VERSION_TAG is v1")]


def test_the_fake_cuts_a_reply_at_its_window_and_the_loop_stops_there(tmp_path):
    workspace = TWELVE_FILES.build(tmp_path / "ws")
    toolbox = Toolbox(workspace)
    probe = FakeModel().client().messages.count_tokens(model="claude-haiku-4-5", system="You are terse.",
                                                         tools=toolbox.schemas, messages=[user(ASK)])
    fake = FakeModel(window=probe.input_tokens + 3)  # three tokens left for the reply: a tool call does not fit
    messages = [user(ASK)]
    result = run_agent(fake.client(), messages, system="You are terse.", tools=toolbox, config=CompactionConfig(),
                       compactor=Compactor())
    assert result.stop == "model_context_window_exceeded" and result.tool_calls == []
    assert fake.requests == ["agent"] and messages == [user(ASK)]  # the call did not fit: nothing kept
