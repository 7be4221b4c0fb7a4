"""Every request field the installed SDK declares is served, or refused as the API refuses it: none gets "not
supported by the offline fake" (harness/fake/request.py's table, options.py; chapter 00). The test walks the
SDK's own declarations, so a field added to the SDK fails it until the fake and the table say what it does."""
from __future__ import annotations

import copy
import json
import re
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from anthropic.types import message_count_tokens_params, message_create_params
from anthropic.types.beta import message_count_tokens_params as beta_count_params
from anthropic.types.beta import message_create_params as beta_create_params

from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake import request as request_module
from harness.fake.request import NOT_IN_FAKE, check_request

MODEL = "claude-haiku-4-5"
ASK = [{"role": "user", "content": "What is VERSION_TAG in agents/s01_agent_loop.py?"}]
OTHERS = {"stream", "cache_control", "compaction", "thread"}  # served by other parts of issue 30 (the table)
COUNT_OTHERS = OTHERS | {"context_management"}  # count_tokens with context_management: issue 30, point 8
BASE = {"model": MODEL, "max_tokens": 2_000, "messages": ASK}
# field -> (extra keyword arguments for the SDK's call, None for a reply or the error it must be: class, words)
SAMPLES: dict[str, tuple[dict[str, Any], tuple[type, str] | None]] = {
    "model": ({}, None),
    "max_tokens": ({"max_tokens": 0}, None),
    "messages": ({}, None),
    "system": ({"system": [{"type": "text", "text": "You are terse."}]}, None),
    "tools": ({"tools": FILE_TOOLS}, None),
    "tool_choice": ({"tools": FILE_TOOLS, "tool_choice": {"type": "tool", "name": "bash"}}, None),
    "thinking": ({"thinking": {"type": "enabled", "budget_tokens": 1024, "display": "omitted"}}, None),  # Haiku 4.5
    "stop_sequences": ({"stop_sequences": ["VERSION"]}, None),
    "metadata": ({"metadata": {"user_id": "u-1"}}, None),
    "output_config": ({"output_config": {"effort": "low", "format": {"type": "json_schema", "schema": {
        "type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}}}}, None),
    "service_tier": ({"service_tier": "standard_only"}, None),
    "speed": ({"speed": "standard"}, None),
    "inference_geo": ({"inference_geo": "us"}, None),
    "diagnostics": ({"diagnostics": {"previous_message_id": "msg_0"}}, None),
    "container": ({"container": "container_1"}, (anthropic.NotFoundError, "container: container_1")),
    "user_profile_id": ({"user_profile_id": "up_1"}, None),
    "workspace_id": ({"workspace_id": "wrkspc_1"}, None),
    "betas": ({"betas": ["context-management-2025-06-27"]}, None),
    "billing_policy": ({"billing_policy": {"type": "billing_policy", "bill_to": "self"}}, None),
    "context_management": ({"betas": ["context-management-2025-06-27"],
                            "context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}}, None),
    "fallbacks": ({"fallbacks": [{"model": "claude-sonnet-4-6"}]}, None),
    "fallback_credit_token": ({"fallback_credit_token": "tok"}, (anthropic.BadRequestError, "does not redeem")),
    "mcp_servers": ({"mcp_servers": [{"type": "url", "name": "s", "url": "https://mcp.example.com"}]},
                    (anthropic.BadRequestError, "could not connect to the MCP server")),
}

def declared(*params: Any) -> set[str]:
    return set().union(*(p.__annotations__ for p in params))


CREATE = declared(message_create_params.MessageCreateParamsBase, beta_create_params.MessageCreateParamsBase)
COUNT = declared(message_count_tokens_params.MessageCountTokensParams, beta_count_params.MessageCountTokensParams)


def test_every_declared_field_has_a_sample_and_a_row_in_the_table():
    assert CREATE - OTHERS == set(SAMPLES), "a field the SDK declares has no sample here (or one it dropped)"
    assert COUNT - COUNT_OTHERS <= set(SAMPLES)
    rows = set(re.findall(r"^``(\w+)``  ", request_module.__doc__, re.MULTILINE))
    assert CREATE | COUNT <= rows, CREATE | COUNT - rows


def outcome(call: Any, **kwargs: Any) -> Any:
    try:
        return call(**kwargs)
    except anthropic.APIStatusError as error:
        return error


@pytest.mark.parametrize("field", sorted(SAMPLES))
def test_each_field_is_served_or_refused_as_the_api_refuses_it(field):
    extra, refused = SAMPLES[field]
    client = FakeModel().client()
    got = outcome(client.beta.messages.create, **{**BASE, **extra})
    if refused is None:
        assert isinstance(got, anthropic.types.beta.BetaMessage), got
    else:
        kind, words = refused
        assert isinstance(got, kind) and words in got.message, got
    assert NOT_IN_FAKE not in str(got)
    if field in COUNT - COUNT_OTHERS:
        counted = outcome(client.beta.messages.count_tokens, **{key: value for key, value in {**BASE, **extra}.items()
                                                              if key != "max_tokens"})
        assert NOT_IN_FAKE not in str(counted)
        assert isinstance(counted, anthropic.types.beta.BetaMessageTokensCount) or refused, counted


def test_the_fields_the_sdk_sends_as_headers_are_unknown_in_the_body():
    for field in ("betas", "user_profile_id", "workspace_id"):
        with pytest.raises(request_module.RequestRejected, match=f"^{field}: Extra inputs are not permitted"):
            check_request({**BASE, field: "x"})


def test_what_the_reply_reports_of_the_options_it_was_given():
    client = FakeModel().client()
    plain = client.messages.create(**BASE)
    assert plain.usage.service_tier is None and plain.diagnostics is None  # nothing reported unasked
    asked = client.messages.create(**BASE, service_tier="auto", speed="standard", inference_geo="eu",
                                   diagnostics={"previous_message_id": "msg_x"})
    assert (asked.usage.service_tier, asked.usage.speed, asked.usage.inference_geo) == ("standard", "standard", "eu")
    assert asked.diagnostics.cache_miss_reason.type == "unavailable"
    first = client.messages.create(**BASE, diagnostics={"previous_message_id": None})
    assert first.diagnostics.cache_miss_reason is None


def test_max_tokens_zero_warms_without_a_reply():
    reply = FakeModel().client().messages.create(**{**BASE, "max_tokens": 0})
    assert (reply.content, reply.stop_reason, reply.usage.output_tokens) == ([], "max_tokens", 0)


def test_structured_output_is_a_value_of_the_schema():
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "sure": {"type": "boolean"},
                                               "n": {"type": "integer", "minimum": 1}},
              "required": ["answer", "sure", "n"], "additionalProperties": False}
    answered = ASK + [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file",
                                                         "input": {"path": "agents/s01_agent_loop.py"}}]},
                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                    "content": 'VERSION_TAG = "v1"\n'}]}]
    reply = FakeModel().client().messages.create(**{**BASE, "messages": answered}, tools=FILE_TOOLS,
                                                 output_config={"format": {"type": "json_schema", "schema": schema}})
    value = json.loads(reply.content[0].text)
    assert value == {"answer": 'VERSION_TAG in agents/s01_agent_loop.py is "v1".', "sure": False, "n": 1}


BAD_OPTIONS = [  # (field, value, the start of the 400's message)
    ("service_tier", "priority", "service_tier: Input should be 'auto' or 'standard_only'"),
    ("speed", "slow", "speed: Input should be 'standard' or 'fast'"),
    ("inference_geo", 5, "inference_geo: Input should be a valid string"),
    ("output_config", {"effort": "huge"}, "output_config.effort: Input should be"),
    ("output_config", {"format": {"type": "json_schema"}}, "output_config.format.schema: Field required"),
    ("output_config", {"task_budget": {"type": "tokens", "total": -1}}, "output_config.task_budget.total:"),
    ("output_config", {"verbosity": 1}, "output_config.verbosity: Extra inputs are not permitted"),
    ("diagnostics", {"previous_message_id": 5}, "diagnostics.previous_message_id: Input should be a valid string"),
    ("container", {"skills": [{"skill_id": "pptx", "type": "anthropic"}]}, "container.skills: skills run in"),
    ("container", {"skills": [{"skill_id": "pptx", "type": "mine"}]}, "container.skills.0.type:"),
    ("billing_policy", {"type": "billing_policy", "bill_to": "them"}, "billing_policy.bill_to: Input should be"),
    ("fallbacks", [{"model": "claude-sonnet-4-6", "seed": 1}], "fallbacks.0.seed: Extra inputs are not permitted"),
    ("fallbacks", "some", "fallbacks: Input should be 'default' or a valid list"),
    ("mcp_servers", [{"type": "stdio", "name": "s", "url": "u"}], "mcp_servers.0.type: Input should be 'url'"),
]


@pytest.mark.parametrize("field, value, words", BAD_OPTIONS, ids=repr)
def test_a_bad_option_is_a_400_naming_it(field, value, words):
    with pytest.raises(request_module.RequestRejected) as raised:
        check_request({**BASE, field: value})
    assert raised.value.status == 400 and str(raised.value).startswith(words), str(raised.value)


def test_billing_a_user_profile_needs_the_profile_header():
    body = {**BASE, "billing_policy": {"type": "billing_policy", "bill_to": "user_profile"}}
    with pytest.raises(request_module.RequestRejected) as raised:
        check_request(body, headers={})
    assert raised.value.body()["error"]["details"] == {"error_code": "user_profile_required"}
    check_request(body, headers={"anthropic-user-profile-id": "up_1"})
    client = FakeModel().client()  # the server reads the request's headers: the SDK raises its typed error
    with pytest.raises(anthropic.BadRequestError) as sent:
        client.beta.messages.create(**body)
    assert type(sent.value).__name__ == "UserProfileRequiredError" and sent.value.error_code == "user_profile_required"
    assert client.beta.messages.create(**body, user_profile_id="up_1").content


def test_a_fallback_credit_token_in_best_effort_mode_is_served_at_normal_price():
    token = {"token": "tok", "mode": "best_effort"}
    reply = FakeModel().client().beta.messages.create(**BASE, fallback_credit_token=token,
                                                      betas=["fallback-credit-2026-07-01"])
    assert reply.usage.fallback_credit.status.type == "not_applied"
    with pytest.raises(request_module.RequestRejected, match="cannot be combined with `fallbacks`"):
        check_request({**BASE, "fallback_credit_token": "tok", "fallbacks": "default"})
    with pytest.raises(request_module.RequestRejected, match="needs the anthropic-beta header"):
        check_request({**BASE, "fallback_credit_token": token}, headers={})


# --- no value inside an option breaks the transport -------------------------------------------------

def test_the_rich_request_is_served():
    reply = FakeModel().client().post("/v1/messages", body=RICH, cast_to=anthropic.types.Message)
    assert reply.content[0].type == "thinking" and reply.usage.speed == "fast"
    assert FakeModel().client().post("/v1/messages", body=TOKEN, cast_to=anthropic.types.Message,
                                     options={"headers": {"anthropic-beta": TOKEN_BETA}}).usage.fallback_credit

def places(value: Any, prefix: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value, as the keys and indexes that lead to it."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, (*prefix, index))
    return found


RICH = {**BASE, "tools": FILE_TOOLS, "system": [{"type": "text", "text": "Be terse."}], "stop_sequences": ["x", "y"],
        "thinking": {"type": "enabled", "budget_tokens": 1024, "display": "omitted",
                     "block_binding": {"prefix_mismatch_behavior": "error"}},
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}, "metadata": {"user_id": "u"},
        "output_config": {"effort": "low", "task_budget": {"type": "tokens", "total": 9, "remaining": 3},
                          "format": {"type": "json_schema", "schema": {"type": "object", "required": ["a"],
                                                                       "properties": {"a": {"type": "string"}}}}},
        "service_tier": "auto", "speed": "fast", "inference_geo": "us", "diagnostics": {"previous_message_id": None},
        "container": {"id": None, "skills": []}, "billing_policy": {"type": "billing_policy", "bill_to": "self"},
        "fallbacks": [{"model": "claude-sonnet-4-6", "max_tokens": 9, "speed": "fast", "output_config": {}}],
        "temperature": 0.5, "top_p": 0.5, "top_k": 3}
RICH_PLACES = [("rich", place) for field in sorted(RICH) if field not in ("messages", "tools", "model")
               for place in places(RICH[field], (field,))]
MCP = {**BASE, "mcp_servers": [{"type": "url", "name": "s", "url": "https://mcp.example.com",
                                "authorization_token": "t", "tool_configuration": {"allowed_tools": ["a"],
                                                                                   "enabled": True}}]}
TOKEN = {**BASE, "fallback_credit_token": {"token": "t", "mode": "best_effort"}}
TOKEN_BETA = "fallback-credit-2026-07-01"  # the object form needs it (the SDK's docstring of the field)
BODIES = {"rich": RICH, "mcp": MCP, "token": TOKEN}
PLACES = RICH_PLACES + [(name, place) for name in ("mcp", "token") for field in BODIES[name] if field not in BASE
                        for place in places(BODIES[name][field], (field,))]
json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 3000) | st.text(max_size=4)
                           | st.sampled_from(["type", "enabled", "url", "all", "thinking_turns", "json_schema"]),
                           lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=5), inner,
                                                                                         max_size=2), max_leaves=5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PLACES), json_values)
def test_no_value_inside_an_option_breaks_the_transport(where, value):
    name, place = where
    body = copy.deepcopy(BODIES[name])
    *parents, last = place
    holder = body
    for key in parents:
        holder = holder[key]
    holder[last] = value
    try:
        FakeModel().client().post("/v1/messages", body=body, cast_to=anthropic.types.Message)
    except anthropic.APIStatusError as error:
        assert error.status_code in (400, 404), error.body  # never the fake's own 500
