"""Every malformed request gets an HTTP error naming the field, never a crash inside the transport
(harness/fake/request.py, chapter 00). Bodies are sent raw through the real SDK (``client.post``), so
the SDK's own argument checks do not stand in front of the fake's."""
from __future__ import annotations

import copy
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import assistant, text, tool_result, tool_use, user
from harness.core.messages import NO_PREFILL
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.request import KNOWN_COUNT, KNOWN_CREATE

MODEL = "claude-haiku-4-5"
HISTORY = [user("What is VERSION_TAG in agents/s01_agent_loop.py?"),
           assistant([text("Reading it."), tool_use("t1", "read_file", {"path": "agents/s01_agent_loop.py"})]),
           user([tool_result("t1", 'VERSION_TAG = "v1-agent"\n')]),
           assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'),
           user("Count the lines of every .py file under agents/.")]
VALID = {"model": MODEL, "max_tokens": 500, "messages": HISTORY, "system": "You are terse.", "tools": FILE_TOOLS}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**7) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6) | st.sampled_from(["text", "tool_use", "tool_result", "user", "assistant", MODEL]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "text", "id", "name", "input", "content", "role", "tool_use_id", "is_error",
                         "input_schema", "description", "path", "x"]) | st.text(max_size=4), inner, max_size=3),
    max_leaves=8)
FIELDS = sorted(KNOWN_CREATE) + ["response_format", "extra_body", "max_tokens_to_sample", "x"]


def send(body: Any, count: bool = False) -> Any:
    """POST a raw body; the SDK's error for an HTTP error status, the parsed reply otherwise."""
    client = FakeModel().client()
    path, cast = ("/v1/messages/count_tokens", anthropic.types.MessageTokensCount) if count \
        else ("/v1/messages", anthropic.types.Message)
    try:
        return client.post(path, body=body, cast_to=cast)
    except anthropic.APIStatusError as error:
        return error


def assert_names(outcome: Any, field: str) -> None:
    """A reply (streamed, for ``"stream": true``), or a 400 (404 for an unknown model or container) whose message
    starts with ``field``; the one fault the API reports without naming a field, a history that ends with the
    assistant, has the API's wording."""
    if isinstance(outcome, anthropic.APIStatusError):
        message = outcome.body["error"]["message"]
        assert outcome.status_code in (400, 404), message
        assert outcome.status_code == 400 or field in ("model", "container"), message  # ids the fake does not know
        assert message.startswith(field) or (field == "messages" and message.startswith(NO_PREFILL)), (field, message)
    elif isinstance(outcome, str):  # "stream": true, read whole: the reply's server-sent events
        assert field == "stream" and outcome.startswith("event: message_start\n"), (field, outcome[:80])
    else:
        assert isinstance(outcome, (anthropic.types.Message, anthropic.types.MessageTokensCount))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FIELDS), json_values)
def test_any_value_in_any_top_level_field(field, value):
    assert_names(send({**VALID, field: value}), field)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(KNOWN_COUNT) + ["max_tokens", "x"]), json_values)
def test_any_value_in_any_count_tokens_field(field, value):
    body = {key: value for key, value in VALID.items() if key != "max_tokens"}
    assert_names(send({**body, field: value}, count=True), field)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_value_anywhere_in_the_messages(data):
    messages = copy.deepcopy(HISTORY)
    i = data.draw(st.integers(0, len(messages) - 1))
    where = data.draw(st.sampled_from(["message", "key", "block", "block key", "nested"]))
    value = data.draw(json_values)
    blocks = messages[i]["content"] if isinstance(messages[i]["content"], list) else None
    if where == "message":
        messages[i] = value
    elif where == "key" or blocks is None:
        messages[i][data.draw(st.sampled_from(["role", "content", "name", "x"]))] = value
    elif where == "block":
        blocks[data.draw(st.integers(0, len(blocks) - 1))] = value
    elif where == "block key":
        block = blocks[data.draw(st.integers(0, len(blocks) - 1))]
        block[data.draw(st.sampled_from(sorted(block) + ["cache_control", "citations", "x"]))] = value
    else:
        blocks[0]["content" if blocks[0]["type"] == "tool_result" else "input"] = [value] \
            if blocks[0]["type"] == "tool_result" else {"path": value, "command": value, "id": value}
    assert_names(send({**VALID, "messages": messages}), "messages")


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(FILE_TOOLS) - 1), st.sampled_from(["name", "input_schema", "description", "x", "type"]),
       json_values)
def test_any_value_in_any_tool_field(index, key, value):
    tools = copy.deepcopy(FILE_TOOLS)
    tools[index][key] = value
    assert_names(send({**VALID, "tools": tools}), "tools")


@settings(max_examples=50, deadline=None)
@given(json_values)
def test_any_body_that_is_not_an_object(value):
    if not isinstance(value, dict):
        assert_names(send(value), "body")


MALFORMED = {  # named cases: (body, the field the error must name)
    "tool_result content 5": ({**VALID, "messages": HISTORY[:2] + [user([{"type": "tool_result", "tool_use_id": "t1",
                                                                        "content": 5}])]},
                              "messages.2.content.0.tool_result.content"),
    "tool_result list of non-blocks": ({**VALID, "messages": HISTORY[:2] + [user([tool_result("t1", "x") | {
        "content": [5]}])]}, "messages.2.content.0.tool_result.content.0"),
    "tool_result is_error a string": ({**VALID, "messages": HISTORY[:2] + [user([tool_result("t1", "x") | {
        "is_error": "yes"}])]}, "messages.2.content.0.tool_result.is_error"),
    "extra key on a message": ({**VALID, "messages": [{"role": "user", "content": "hi", "name": "Ann"}]},
                               "messages.0.name"),
    "extra key on a block": ({**VALID, "messages": [user([{"type": "text", "text": "hi", "x": 1}])]},
                             "messages.0.content.0.text.x"),
    "tools not a list": ({**VALID, "tools": {"name": "bash"}}, "tools"),
    "tool without a schema": ({**VALID, "tools": [{"name": "bash"}]}, "tools.0.custom.input_schema"),
    "tool names twice": ({**VALID, "tools": FILE_TOOLS + FILE_TOOLS[:1]}, "tools"),
    "system a number": ({**VALID, "system": 5}, "system"),
    "system block without text": ({**VALID, "system": [{"type": "text"}]}, "system.0.text"),
    "max_tokens a bool": ({**VALID, "max_tokens": True}, "max_tokens"),
    "max_tokens negative": ({**VALID, "max_tokens": -1}, "max_tokens"),
    "max_tokens missing": ({k: v for k, v in VALID.items() if k != "max_tokens"}, "max_tokens"),
    "model missing": ({k: v for k, v in VALID.items() if k != "model"}, "model"),
    "model a number": ({**VALID, "model": 3}, "model"),
    "model too long": ({**VALID, "model": "c" * 257}, "model"),
    "messages missing": ({k: v for k, v in VALID.items() if k != "messages"}, "messages"),
    "temperature above 1": ({**VALID, "temperature": 1.5}, "temperature"),
    "top_k negative": ({**VALID, "top_k": -1}, "top_k"),
    "stop_sequences a string": ({**VALID, "stop_sequences": "STOP"}, "stop_sequences"),
    "metadata with an unknown key": ({**VALID, "metadata": {"session": "x"}}, "metadata.session"),
    "tool_choice an unknown type": ({**VALID, "tool_choice": {"type": "some"}}, "tool_choice"),
    "tool_choice naming no offered tool": ({**VALID, "tool_choice": {"type": "tool", "name": "nope"}},
                                           "tool_choice.name"),
    "an unknown field": ({**VALID, "response_format": {"type": "json"}}, "response_format"),
    "a thinking budget below the API's minimum": ({**VALID, "thinking": {"type": "enabled", "budget_tokens": 1000}},
                                                  "thinking.enabled.budget_tokens"),
    "stream not a boolean": ({**VALID, "stream": "yes"}, "stream"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_named_malformed_bodies_get_a_400_naming_the_field(case):
    body, field = MALFORMED[case]
    outcome = send(body)
    assert isinstance(outcome, anthropic.BadRequestError), outcome
    assert outcome.body["error"]["type"] == "invalid_request_error"
    assert outcome.body["error"]["message"].startswith(f"{field}: "), outcome.body["error"]["message"]


def test_the_valid_body_and_its_optional_fields_are_served():
    extras = {"temperature": 0, "top_p": 1.0, "top_k": 5, "stop_sequences": [], "metadata": {"user_id": None},
              "stream": False, "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}
    assert isinstance(send({**VALID, **extras}), anthropic.types.Message)
    assert isinstance(send({**VALID, "system": [text("You are terse.")]}), anthropic.types.Message)


def test_a_history_that_ends_with_the_assistant_gets_the_apis_wording():
    messages = copy.deepcopy(HISTORY)
    messages[-1]["role"] = "assistant"  # what the property above once drew
    outcome = send({**VALID, "messages": messages})
    assert isinstance(outcome, anthropic.BadRequestError)
    assert outcome.body["error"]["message"].startswith(NO_PREFILL)
    assert_names(outcome, "messages")
