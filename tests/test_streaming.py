"""Streaming, as the SDK reads it: ``create(stream=True)``, ``messages.stream(...)`` and their beta twins run
unmodified against the fake, and a streamed reply accumulates to the very message the plain request gets
(harness/fake/streaming.py). Block types the fake's model does not write yet are streamed from synthetic
messages through a server that answers one fixed message, plain or streamed."""
from __future__ import annotations

import json

import anthropic
import httpx2
import pytest
from anthropic.lib.streaming._beta_messages import accumulate_event as beta_accumulate
from anthropic.types import Message
from anthropic.types.beta import BetaMessage

from harness import text, tool_result, tool_use, user
from harness.fake import FakeModel, fake_client
from harness.fake.streaming import message_events, sse_body

MODEL = "claude-haiku-4-5"
COMPACTING = "claude-sonnet-4-6"  # a model that runs compaction
READ = {"name": "read_file", "description": "Read a file of the workspace and return its text",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
QUESTION = "What is VERSION_TAG in agents/s01_agent_loop.py?"
FILE = 'VERSION_TAG = "v1-agent"\n\ndef run():\n    return "ünïcode ✓"\n'
SIGNATURE = "EqQBCkYIBxgCKkDf" + "x" * 40


# --- synthetic messages: every block type the SDK streams -------------------------------------------

def message(content: list[dict], stop: str = "end_turn", **extra) -> dict:
    usage = {"input_tokens": 1_234, "output_tokens": 56, "cache_creation_input_tokens": 100,
             "cache_read_input_tokens": 7, **extra.pop("usage", {})}
    return {"id": "msg_synthetic", "type": "message", "role": "assistant", "model": MODEL, "content": content,
            "stop_reason": stop, "stop_sequence": None, "stop_details": None, "usage": usage, **extra}


COMPACTION = {"type": "compaction", "content": "The user asked for VERSION_TAG; agents/a.py was read.",
              "encrypted_content": "opaque-1", "signature": "sig-1",
              "tool_changes": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "grep"}}]}
SYNTHETIC = {
    "text": message([text("Hello, " * 30 + "ünïcode ✓ and a newline\nat the end")]),
    "empty text": message([text("")]),
    "tool_use": message([tool_use("toolu_1", "read_file", {"path": "agents/a.py", "lines": [1, 2.5, None],
                                                           "deep": {"x": {"y": "✓" * 70}}})], "tool_use"),
    "tool_use, empty input": message([tool_use("toolu_2", "list_files", {})], "tool_use"),
    "parallel tool uses": message([text("Reading both."), tool_use("toolu_3", "read_file", {"path": "a.py"}),
                                   tool_use("toolu_4", "read_file", {"path": "b.py"})], "tool_use"),
    "thinking": message([{"type": "thinking", "thinking": "Let me think about it. " * 10, "signature": SIGNATURE},
                         text("Done.")]),
    "redacted_thinking": message([{"type": "redacted_thinking", "data": "c2VjcmV0" * 8}, text("Done.")]),
    "compaction": message([COMPACTION, text("Going on from the summary.")], usage={"iterations": [
        {"type": "compaction", "input_tokens": 160_000, "output_tokens": 900, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 0},
        {"type": "message", "input_tokens": 1_234, "output_tokens": 56, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 0}]}),
    "paused after compaction": message([COMPACTION], "compaction", usage={"input_tokens": 0, "output_tokens": 0}),
    "failed compaction": message([{**COMPACTION, "content": None}], "compaction"),
    "context management": message([text("Cleared.")], context_management={"applied_edits": [
        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 21_585}]}),
    "refusal": message([text("I can't help with")], "refusal",
                       stop_details={"type": "refusal", "category": "cyber", "explanation": None}),
    "cut by the window": message([text("a" * 100)], "model_context_window_exceeded"),
    "no content": message([], "end_turn"),
}
PLAIN_ONLY = {"compaction", "paused after compaction", "failed compaction", "context management"}  # beta types


class FixedServer:
    """Answers every Messages request with one message: JSON, or its events when the request streams."""

    def __init__(self, body: dict):
        self.body = body

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if json.loads(request.content).get("stream"):
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse_body(self.body))
        return httpx2.Response(200, json=self.body)

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key="test", max_retries=0,
                                   http_client=httpx2.Client(transport=httpx2.MockTransport(self)))


REQUEST = {"model": MODEL, "max_tokens": 1_000, "messages": [user("hi")]}


def dump(reply) -> dict:
    return reply.to_dict(mode="json")


@pytest.mark.parametrize("name", sorted(SYNTHETIC))
def test_every_block_type_streams_to_the_same_beta_message(name):
    client = FixedServer(SYNTHETIC[name]).client()
    plain = client.beta.messages.create(**REQUEST)
    with client.beta.messages.stream(**REQUEST) as stream:
        streamed = stream.get_final_message()
    assert dump(streamed) == dump(plain) == dump(BetaMessage.model_validate(SYNTHETIC[name]))
    snapshot, buffers = None, {}
    for event in client.beta.messages.create(**REQUEST, stream=True):  # the raw events, accumulated by hand
        snapshot = beta_accumulate(event=event, current_snapshot=snapshot, json_bufs=buffers,
                                   request_headers=httpx2.Headers())
    assert dump(snapshot) == dump(plain)


@pytest.mark.parametrize("name", sorted(set(SYNTHETIC) - PLAIN_ONLY))
def test_every_block_type_streams_to_the_same_message(name):
    client = FixedServer(SYNTHETIC[name]).client()
    plain = client.messages.create(**REQUEST)
    with client.messages.stream(**REQUEST) as stream:
        streamed = stream.get_final_message()
    assert dump(streamed) == dump(plain) == dump(Message.model_validate(SYNTHETIC[name]))


def test_the_events_are_the_ones_the_accumulators_expect():
    events = message_events(SYNTHETIC["parallel tool uses"])
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["message_start", "ping"] and kinds[-2:] == ["message_delta", "message_stop"]
    start = events[0]["message"]
    assert (start["content"], start["stop_reason"], start["usage"]["output_tokens"]) == ([], None, 0)
    assert start["usage"]["input_tokens"] == 1_234  # known from the start
    deltas = [e for e in events if e["type"] == "content_block_delta"]
    json_pieces = [e["delta"]["partial_json"] for e in deltas if e["delta"]["type"] == "input_json_delta"]
    assert len([p for p in json_pieces if p]) >= 4  # two tool calls, each in two pieces at least
    assert [e["index"] for e in events if e["type"] == "content_block_stop"] == [0, 1, 2]
    assert events[-2]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert events[-2]["usage"]["output_tokens"] == 56


def test_thinking_and_compaction_use_their_own_deltas():
    thinking = [e["delta"]["type"] for e in message_events(SYNTHETIC["thinking"]) if e["type"] == "content_block_delta"]
    assert thinking[0] == "thinking_delta" and thinking.count("signature_delta") == 1 and thinking[-2] == "signature_delta"
    events = message_events(SYNTHETIC["compaction"])
    start = next(e for e in events if e["type"] == "content_block_start")["content_block"]
    assert (start["content"], start["encrypted_content"], start["signature"]) == (None, None, "sig-1")
    delta = next(e for e in events if e["type"] == "content_block_delta")["delta"]
    assert delta == {"type": "compaction_delta", "content": COMPACTION["content"], "encrypted_content": "opaque-1"}
    assert events[-2]["usage"]["iterations"][0]["type"] == "compaction"  # iterations come at the end
    assert "iterations" not in events[0]["message"]["usage"]
    redacted = [e["type"] for e in message_events(SYNTHETIC["redacted_thinking"])]
    assert redacted[2:4] == ["content_block_start", "content_block_stop"]  # whole, no delta


# --- through the fake -----------------------------------------------------------------------------------

def agent_request(model: str = MODEL, max_tokens: int = 1_000, **extra) -> dict:
    return {"model": model, "max_tokens": max_tokens, "tools": [READ], "messages": [user(QUESTION)], **extra}


HISTORIES = {
    "a tool call": agent_request(),
    "an answer": agent_request(messages=[user(QUESTION), {"role": "assistant", "content": [
        tool_use("toolu_a", "read_file", {"path": "agents/s01_agent_loop.py"})]},
        user([tool_result("toolu_a", FILE)])]),
    "another model": agent_request("claude-opus-5", system="You are a careful engineer."),
    "a summary": {"model": MODEL, "max_tokens": 400, "messages": [user(
        "Summarise our conversation so far: I asked for VERSION_TAG in agents/a.py and you said v1-agent. " * 3)]},
    "cut by max_tokens": agent_request(max_tokens=3, messages=[user(QUESTION), {"role": "assistant", "content": [
        tool_use("toolu_a", "read_file", {"path": "agents/s01_agent_loop.py"})]},
        user([tool_result("toolu_a", FILE)])]),
}


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_the_fake_streams_what_it_would_send_whole(name):
    request = HISTORIES[name]
    fake = FakeModel()
    plain = fake.client().messages.create(**request)
    with fake.client().messages.stream(**request) as stream:
        texts = "".join(stream.text_stream)
        streamed = stream.get_final_message()
    assert dump(streamed) == dump(plain)  # ids included: the same request, the same message
    assert texts == "".join(b.text for b in plain.content if b.type == "text")
    events = list(fake.client().messages.create(**request, stream=True))
    assert [e.type for e in events][0] == "message_start" and events[-1].type == "message_stop"
    assert fake.requests.count("count") == 0 and len(fake.requests) == 3


def test_a_compaction_block_and_its_usage_stream_on_the_beta_route():
    history = [user("Please read every file. " + "word " * 60_000)]
    request = {"model": COMPACTING, "max_tokens": 500, "messages": history, "betas": ["compact-2026-01-12"],
               "context_management": {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens",
                                                                                          "value": 50_000}}]}}
    plain = fake_client().beta.messages.create(**request)
    assert plain.content[0].type == "compaction" and plain.usage.iterations[0].type == "compaction"
    with fake_client().beta.messages.stream(**request) as stream:
        seen = [event.type for event in stream]
        streamed = stream.get_final_message()
    assert "compaction" in seen  # the SDK's own compaction event, from the compaction_delta
    assert dump(streamed) == dump(plain)


def test_a_reply_cut_by_the_window_streams_its_stop_reason():
    request = agent_request(max_tokens=64_000)
    used = fake_client().messages.count_tokens(**{k: v for k, v in request.items() if k != "max_tokens"})
    fake = FakeModel(window=used.input_tokens + 3)  # three tokens left: the tool call is cut at the window
    plain = fake.client().messages.create(**request, timeout=600)
    assert plain.stop_reason == "model_context_window_exceeded" and plain.content == []
    with fake.client().messages.stream(**request) as stream:
        assert dump(stream.get_final_message()) == dump(plain)


def test_a_bad_request_fails_before_any_event_as_an_http_error():
    bad = agent_request(max_tokens=-1)
    with pytest.raises(anthropic.BadRequestError, match="max_tokens: Input should be greater than or equal to 0"):
        fake_client().messages.create(**bad, stream=True)
    with pytest.raises(anthropic.BadRequestError):
        with fake_client().messages.stream(**bad):
            pass
    with pytest.raises(anthropic.NotFoundError, match="model: claude-opus-4-3"):
        fake_client().beta.messages.create(**agent_request("claude-opus-4-3"), stream=True)
    with pytest.raises(anthropic.BadRequestError, match="stream: Input should be a valid boolean"):
        fake_client().messages.create(**agent_request(), extra_body={"stream": "yes"})


def test_a_streamed_reply_is_sent_as_server_sent_events():
    fake = FakeModel()
    response = fake.handle(httpx2.Request("POST", "https://api.anthropic.com/v1/messages",
                                          json={**agent_request(), "stream": True}))
    assert response.status_code == 200 and response.headers["content-type"] == "text/event-stream"
    lines = response.content.decode().split("\n")
    assert lines[0] == "event: message_start" and lines[1].startswith("data: {")
    assert response.content.endswith(b'event: message_stop\ndata: {"type": "message_stop"}\n\n')
