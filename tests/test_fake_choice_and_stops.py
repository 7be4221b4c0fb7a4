"""Forced ``tool_choice`` (``any``, ``tool``), ``none`` and ``disable_parallel_tool_use``; ``stop_sequences``
(harness/fake/choice.py, schemas.py, output.py; chapter 00)."""
from __future__ import annotations

from typing import Any

import anthropic
import pytest

from harness import text, tool_result, tool_use, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake import server
from harness.fake.output import stop_at_sequence
from harness.fake.schemas import schema_instance

MODEL = "claude-haiku-4-5"
ASK = "What is VERSION_TAG in agents/s01_agent_loop.py?"
ANSWERED = [user(ASK), {"role": "assistant", "content": [tool_use("t1", "read_file",
                                                                  {"path": "agents/s01_agent_loop.py"})]},
            user([tool_result("t1", 'VERSION_TAG = "v1-agent"\n')])]
MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}


def create(messages: list[dict[str, Any]] | None = None, **kwargs: Any) -> Any:
    request = {"model": MODEL, "max_tokens": 500, "messages": messages or [user(ASK)], "tools": FILE_TOOLS, **kwargs}
    try:
        return FakeModel().client().messages.create(**request)
    except anthropic.APIStatusError as error:
        return error


def calls(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(b.name, b.input) for b in reply.content if b.type == "tool_use"]


def test_any_is_the_call_the_agent_would_make_with_no_text_before_it():
    reply = create(tool_choice={"type": "any"})
    assert [b.type for b in reply.content] == ["tool_use"] and reply.stop_reason == "tool_use"
    assert calls(reply) == [("read_file", {"path": "agents/s01_agent_loop.py"})]


def test_any_when_the_agent_would_only_talk_calls_the_first_tool_offered():
    assert create(ANSWERED).stop_reason == "end_turn"  # unforced, it answers
    forced = create(ANSWERED, tool_choice={"type": "any"})
    [(name, tool_input)] = calls(forced)
    assert name == FILE_TOOLS[0]["name"] and [b.type for b in forced.content] == ["tool_use"]
    schema = FILE_TOOLS[0]["input_schema"]
    assert set(tool_input) == set(schema.get("required", [])) and all(isinstance(v, str) for v in tool_input.values())


def test_tool_forces_the_named_tool_with_an_input_built_for_it():
    same = create(tool_choice={"type": "tool", "name": "read_file"})
    assert calls(same) == [("read_file", {"path": "agents/s01_agent_loop.py"})]
    other = create(tool_choice={"type": "tool", "name": "bash"})
    assert calls(other) == [("bash", {"command": "agents/s01_agent_loop.py"})]  # a string from the call it had
    answered = create(ANSWERED, tool_choice={"type": "tool", "name": "bash"})
    assert calls(answered) == [("bash", {"command": 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'})]
    memory = create(tools=[*FILE_TOOLS, MEMORY_TOOL], tool_choice={"type": "tool", "name": "memory"})
    assert calls(memory) == [("memory", {"command": "view", "path": "/memories"})]


def test_none_calls_nothing_and_any_needs_a_tool():
    assert calls(create(tool_choice={"type": "none"})) == []
    got = create(tools=[], tool_choice={"type": "any"})
    assert isinstance(got, anthropic.BadRequestError) and got.body["error"]["message"].startswith("tool_choice:")


@pytest.mark.parametrize("disable, parallel", [(True, False), (False, True), (None, True)])
def test_disable_parallel_tool_use_reaches_the_agent(monkeypatch, disable, parallel):
    seen = []
    real = server.decide

    def spy(*args: Any) -> Any:
        seen.append(args[3])
        return real(*args)

    monkeypatch.setattr(server, "decide", spy)
    choice = {"type": "auto"} if disable is None else {"type": "auto", "disable_parallel_tool_use": disable}
    create(tool_choice=choice)
    assert seen == [parallel]


def test_a_schemas_smallest_value():
    schema = {"type": "object", "required": ["mode", "n", "tags", "inner", "either", "path"],
              "properties": {"mode": {"enum": ["fast", "slow"]}, "n": {"type": "integer", "minimum": 3},
                             "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                             "inner": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
                             "either": {"anyOf": [{"type": "null"}, {"type": "string"}]},
                             "path": {"type": "string"}, "extra": {"type": "string"}, "loop": {"$ref": "#"}}}
    assert schema_instance(schema, {"path": "a.py", "loop": 1}, "said") == {
        "mode": "fast", "n": 3, "tags": ["said", "said"], "inner": {"ok": False}, "either": None, "path": "a.py",
        "loop": None}


# --- stop_sequences -----------------------------------------------------------------------------

def test_a_stop_sequence_stops_the_reply_before_it():
    reply = create(ANSWERED, stop_sequences=["nothing here", " is "])
    assert reply.stop_reason == "stop_sequence" and reply.stop_sequence == " is "
    assert [b.text for b in reply.content] == ["VERSION_TAG in agents/s01_agent_loop.py"]
    plain = create(ANSWERED, stop_sequences=["nothing here"])
    assert (plain.stop_reason, plain.stop_sequence) == ("end_turn", None)


def test_the_first_match_wins_and_what_follows_is_not_sent():
    content = [text("Reading a.py first."), tool_use("t", "read_file", {"path": "a.py"})]
    assert stop_at_sequence(content, ["first", "a.py"]) == ([text("Reading ")], "a.py")
    assert stop_at_sequence(content, ["Read", "Reading"]) == ([], "Read")  # one position: the one listed first
    assert stop_at_sequence(content, ["zzz"]) == (content, None)
    assert stop_at_sequence(content, []) == (content, None)


def test_max_tokens_before_the_stop_sequence_is_a_max_tokens_stop():
    reply = create(ANSWERED, stop_sequences=["v1-agent"], max_tokens=3)
    assert (reply.stop_reason, reply.stop_sequence) == ("max_tokens", None)
    reached = create(ANSWERED, stop_sequences=["VERSION"], max_tokens=3)
    assert (reached.stop_reason, reached.stop_sequence, reached.content) == ("stop_sequence", "VERSION", [])
