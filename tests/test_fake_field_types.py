"""Every field of every block is checked for the type the SDK declares, every fault is a 400 naming the
field, and no body makes the SDK see a broken connection (harness/core/messages.py, harness/fake/request.py,
chapters 00, 02 and 10). Bodies go raw through the real SDK (``client.post``), so its own argument checks do
not stand in front of the fake's."""
from __future__ import annotations

import copy
import json
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.types.beta import (BetaAssistantMessageParam, BetaCompactionBlockParam, BetaImageBlockParam,
                                  BetaMessage, BetaRedactedThinkingBlockParam, BetaTextBlockParam,
                                  BetaThinkingBlockParam, BetaToolResultBlockParam, BetaToolUseBlockParam,
                                  BetaUserMessageParam)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import assistant, text, tool_result, tool_use, user
from harness.core.messages import BLOCK_FIELDS, MAX_DEPTH, MESSAGE_FIELDS, InvalidHistory, validate_messages
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.compaction_rules import compaction_block
from harness.fake.thinking import thinking_block

MODEL = "claude-haiku-4-5"
COMPACTION_BETA = "compact-2026-01-12"
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"  # 1x1 PNG
HISTORY = [assistant([compaction_block("Earlier: the user asked for a listing.")]),  # first, as the API asks
           user([text("List the files."), {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                        "data": PIXEL}}]),
           assistant([thinking_block("I list them."), {"type": "redacted_thinking", "data": "opaque"},
                      text("Listing."), tool_use("t1", "bash", {"command": "ls"})]),
           user([tool_result("t1", "a.py\nb.py")])]
BLOCK_AT = {"compaction": (0, 0), "text": (1, 0), "image": (1, 1), "thinking": (2, 0), "redacted_thinking": (2, 1),
            "tool_use": (2, 3), "tool_result": (3, 0)}
VALID = {"model": MODEL, "max_tokens": 500, "messages": HISTORY, "tools": FILE_TOOLS}


def nested(levels: int) -> dict[str, Any]:
    """An object ``levels`` deep."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def send(body: Any) -> Any:
    """POST a raw body with the compaction beta: the reply, or the SDK's error for an HTTP error status."""
    client = FakeModel().client()
    try:
        return client.post("/v1/messages", body=body, cast_to=BetaMessage,
                           options={"headers": {"anthropic-beta": COMPACTION_BETA}})
    except anthropic.APIStatusError as error:
        return error


NOT_A_STRING = [5, 1.5, True, None, ["x"], {"x": "y"}]
NOT_AN_OPTIONAL_STRING = [5, True, ["x"], {"x": 1}]
NOT_CACHE_CONTROL = ["yes", 5, True, ["x"], {}, {"type": "persistent"}, {"type": "ephemeral", "ttl": "2h"},
                     {"type": "ephemeral", "x": 1}]
# (block kind, field): values of the wrong type or value, one request each
WRONG: dict[tuple[str, str], list[Any]] = {
    ("text", "text"): NOT_A_STRING + ["", " ", "\n", "\u00a0"],
    ("text", "cache_control"): NOT_CACHE_CONTROL,
    ("text", "citations"): [5, "x", True, {"type": "char_location"}, [5], [{"type": "nowhere"}]],
    ("tool_use", "id"): NOT_A_STRING + [""],
    ("tool_use", "name"): NOT_A_STRING + [""],
    ("tool_use", "input"): [5, "x", ["x"], None, True, {"x": nested(MAX_DEPTH)}],
    ("tool_use", "cache_control"): NOT_CACHE_CONTROL,
    ("tool_use", "caller"): [None, 5, "direct", {"type": "indirect"}, {"type": "code_execution_20250825"},
                             {"type": "direct", "tool_id": "x"}],
    ("tool_use", "toolset_name"): NOT_AN_OPTIONAL_STRING,
    ("tool_result", "tool_use_id"): NOT_A_STRING + [""],
    ("tool_result", "content"): [5, True, None, {"x": 1}, [5], [{"type": "text", "text": 5}],
                                 [{"type": "text", "text": "a", "x": 1}], [{"type": "text", "text": " "}]],
    ("tool_result", "is_error"): [5, "yes", None, ["x"], {}],
    ("tool_result", "cache_control"): NOT_CACHE_CONTROL,
    ("tool_result", "toolset_name"): NOT_AN_OPTIONAL_STRING,
    ("compaction", "content"): [5, True, ["x"], {}, "", " ", "\n", "\u00a0", "\t\r\n"],
    ("compaction", "encrypted_content"): NOT_AN_OPTIONAL_STRING,
    ("compaction", "signature"): NOT_AN_OPTIONAL_STRING,
    ("compaction", "cache_control"): NOT_CACHE_CONTROL,
    ("compaction", "tool_changes"): [5, "x", {"type": "tool_addition"}, [5], [{"type": "tool_swap"}]],
    ("thinking", "thinking"): NOT_A_STRING,
    ("thinking", "signature"): NOT_A_STRING,
    ("redacted_thinking", "data"): NOT_A_STRING,
    ("image", "source"): [5, "x", None, {}, {"type": "path"}, {"type": "base64", "data": PIXEL},
                          {"type": "base64", "media_type": "image/bmp", "data": PIXEL}, {"type": "url"},
                          {"type": "url", "url": 5}, {"type": "file", "file_id": "f", "x": 1}],
    ("image", "cache_control"): NOT_CACHE_CONTROL,
    ("image", "transformations"): [5, "x", {"oversized_image": "shrink"}, {"x": 1}],
}
SDK_TYPES = {"text": BetaTextBlockParam, "tool_use": BetaToolUseBlockParam, "tool_result": BetaToolResultBlockParam,
             "compaction": BetaCompactionBlockParam, "thinking": BetaThinkingBlockParam,
             "redacted_thinking": BetaRedactedThinkingBlockParam, "image": BetaImageBlockParam}


def with_field(kind: str, field: str, value: Any) -> dict[str, Any]:
    messages = copy.deepcopy(HISTORY)
    i, j = BLOCK_AT[kind]
    messages[i]["content"][j][field] = value
    return {**VALID, "messages": messages}


def test_the_one_table_of_fields_is_the_sdks_and_every_field_is_tried():
    assert MESSAGE_FIELDS == set(BetaUserMessageParam.__annotations__) == set(BetaAssistantMessageParam.__annotations__)
    for kind, param in SDK_TYPES.items():
        assert BLOCK_FIELDS[kind] == set(param.__annotations__), kind
        assert {field for k, field in WRONG if k == kind} == BLOCK_FIELDS[kind] - {"type"}, kind


@pytest.mark.parametrize("kind, field, value", [(kind, field, value) for (kind, field), values in WRONG.items()
                                               for value in values], ids=repr)
def test_a_field_of_the_wrong_type_is_a_400_naming_it(kind, field, value):
    outcome = send(with_field(kind, field, value))
    assert isinstance(outcome, anthropic.BadRequestError), outcome
    message = outcome.body["error"]["message"]
    i, j = BLOCK_AT[kind]
    assert message.startswith(f"messages.{i}.content.{j}.{kind}.{field}") or (
        (kind, field) == ("text", "text") and message.startswith("messages: text content blocks must")), message


@pytest.mark.parametrize("kind", BLOCK_AT)
def test_a_field_a_block_does_not_have_is_a_400_naming_it(kind):
    misspelt = {"text": "txt", "tool_use": "inputs", "tool_result": "bontent", "compaction": "summary",
                "thinking": "thought", "redacted_thinking": "date", "image": "src"}[kind]
    outcome = send(with_field(kind, misspelt, "x"))
    assert isinstance(outcome, anthropic.BadRequestError), outcome
    i, j = BLOCK_AT[kind]
    assert outcome.body["error"]["message"].startswith(
        f"messages.{i}.content.{j}.{kind}.{misspelt}: Extra inputs are not permitted")


def test_every_optional_field_of_its_type_is_served():
    messages = copy.deepcopy(HISTORY)
    cache = {"type": "ephemeral", "ttl": "1h"}
    messages[1]["content"][0] |= {"cache_control": cache, "citations": []}
    messages[0]["content"][0] |= {"encrypted_content": "e", "cache_control": None}  # the signature: as returned
    messages[2]["content"][3] |= {"caller": {"type": "direct"}, "toolset_name": None, "cache_control": cache}
    messages[3]["content"][0] |= {"is_error": False, "toolset_name": "files", "cache_control": {"type": "ephemeral"}}
    messages[1]["content"][1] |= {"cache_control": cache, "transformations": {"oversized_image": "downsize"}}
    assert isinstance(send({**VALID, "messages": messages}), BetaMessage)


@pytest.mark.parametrize("kind, field, value", [
    ("text", "citations", [{"type": "char_location", "cited_text": "x", "document_index": 0,
                            "document_title": None, "start_char_index": 0, "end_char_index": 1}]),
    ("tool_result", "content", [{"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                               "data": "a"}}]),
])
def test_what_the_fake_does_not_serve_is_a_400_saying_so(kind, field, value):
    outcome = send(with_field(kind, field, value))
    assert isinstance(outcome, anthropic.BadRequestError), outcome
    i, j = BLOCK_AT[kind]
    assert outcome.body["error"]["message"].startswith(f"messages.{i}.content.{j}.{kind}.{field}")


# --- nothing escapes the transport ------------------------------------------------------------

def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, as the keys and indexes that lead to it."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


PLACES = [path for path in paths(VALID) if path]
HOSTILE = [None, True, 0, -1, 10**30, 1.5, "", " ", "\u00a0", "\n", "x", "ephemeral", [], [5], [None], {}, {"x": 1},
           {"type": "text"}, {"type": "compaction"}, {"type": "ephemeral"}, nested(MAX_DEPTH + 1), nested(20)]


def put(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    body = copy.deepcopy(body)
    *parents, last = path
    holder = body
    for key in parents:
        holder = holder[key]
    holder[last] = value
    return body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PLACES), st.sampled_from(HOSTILE) | st.text(max_size=3) | st.integers())
def test_no_single_field_substitution_breaks_the_transport(path, value):
    outcome = send(put(VALID, path, value))  # an APIConnectionError would escape send()
    if isinstance(outcome, anthropic.APIStatusError):
        assert outcome.status_code in (400, 404), outcome.body  # never the fake's own 500
    else:
        assert isinstance(outcome, BetaMessage)


@pytest.mark.parametrize("raw, field", [
    (b'{"role": "user", "content": NaN}', "messages.0.content"),
    (b'{"role": "user", "content": [{"type": "text", "text": "a", "citations": [Infinity]}]}',
     "messages.0.content.0.text.citations"),
    (b'{"role": "user", "content": "a\\ud800"}', "messages.0.content"),
    (b'{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "\\udfff"}]}', "messages.0.content.0"),
])
def test_values_the_sdk_cannot_send_are_a_400_from_any_other_client(raw, field):
    """NaN, infinity and lone surrogates: the SDK refuses to send them (ValueError, UnicodeEncodeError), but
    JSON text can hold them (``json.loads`` reads ``NaN`` and ``\\ud800``), so the fake checks them too."""
    body = b'{"model": "%s", "max_tokens": 10, "messages": [%s]}' % (MODEL.encode(), raw)
    response = FakeModel().handle(httpx2.Request("POST", "https://api.anthropic.com/v1/messages", content=body))
    assert response.status_code == 400, response.text
    assert json.loads(response.text)["error"]["message"].startswith(field)


def test_a_compaction_block_the_fake_returns_goes_back_verbatim():
    model = FakeModel()
    block = compaction_block("Earlier: a listing.")
    messages = [assistant([block, text("Listed.")]), user("Again.")]
    reply = model.client().beta.messages.create(model=MODEL, max_tokens=100, messages=messages,
                                                betas=[COMPACTION_BETA])
    assert reply.stop_reason in ("end_turn", "tool_use")


# --- the API's own words ---------------------------------------------------------------------

ASK = user("a")
USE = assistant([tool_use("t1", "bash", {"command": "ls"})])
API_WORDS = {  # history: (the start of the API's 400 message, our rule and where, as InvalidHistory names them)
    "unanswered tool_use": ([ASK, USE, user("b")], "messages.1: `tool_use` ids were found without `tool_result` "
                            "blocks immediately after: t1. Each `tool_use` block must have a corresponding "
                            "`tool_result` block in the next message.", "[tool_use_answered: messages[1], tool id t1]"),
    "two unanswered": ([ASK, assistant([tool_use("t1", "bash", {}), tool_use("t2", "bash", {})]),
                        user([tool_result("t2", "x")])],
                       "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1. ",
                       "[tool_use_answered: messages[1], tool id t1]"),
    "both unanswered": ([ASK, assistant([tool_use("t1", "bash", {}), tool_use("t2", "bash", {})]), user("b")],
                        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        "t1, t2. ", "[tool_use_answered"),
    "result after text": ([ASK, USE, user([text("b"), tool_result("t1", "x")])],
                          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1.",
                          "[tool_results_first: messages[2], tool id t1]"),
    "result answers nothing": ([ASK, assistant("b"), user([text("c"), tool_result("t7", "x")])],
                               "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: t7. "
                               "Each `tool_result` block must have a corresponding `tool_use` block in the "
                               "previous message.", "[tool_result_answers_previous: messages[2], block 1, tool id t7]"),
    "duplicate id": ([ASK, USE, user([tool_result("t1", "x")]), assistant([text("again"), tool_use("t1", "bash", {})]),
                      user([tool_result("t1", "y")])], "messages.3.content.1: `tool_use` ids must be unique",
                     "[unique_tool_use_id: messages[3], block 1, tool id t1]"),
    "two results for one call": ([ASK, USE, user([tool_result("t1", "x"), tool_result("t1", "y")])],
                                 "messages.2.content.1: each tool_use must have a single result. Found multiple "
                                 "`tool_result` blocks with id: t1", "[single_tool_result: messages[2], block 1"),
    "a second result after text": ([ASK, USE, user([tool_result("t1", "x"), text("and"), tool_result("t1", "y")])],
                                   "messages.2.content.2: each tool_use must have a single result.",
                                   "[single_tool_result: messages[2], block 2"),
    "empty content": ([ASK, assistant([]), user("c")], "messages.1: all messages must have non-empty content "
                      "except for the optional final assistant message", "[non_empty_content: messages[1]]"),
    "empty text": ([ASK, assistant([text("")]), user("c")], "messages: text content blocks must be non-empty",
                   "[non_empty_content: messages[1], block 0]"),
    "blank text": ([user([text(" \n")])], "messages: text content blocks must contain non-whitespace text",
                   "[non_empty_content: messages[0], block 0]"),
    "blank string": ([user("\t")], "messages: text content blocks must contain non-whitespace text",
                     "[non_empty_content: messages[0]]"),
    "ends on the assistant": ([ASK, assistant("b")], "This model does not support assistant message prefill. "
                              "The conversation must end with a user message.", "[ends_with_user: messages[1]]"),
    "no messages": ([], "messages: at least one message is required", "[non_empty_history: messages[0]]"),
}


@pytest.mark.parametrize("case", API_WORDS)
def test_a_broken_history_is_refused_in_the_apis_words(case):
    """The 400 says what the API says and nothing more; our rule's name stays on core's InvalidHistory."""
    messages, words, ours = API_WORDS[case]
    with pytest.raises(anthropic.BadRequestError) as info:
        FakeModel().client().messages.create(model=MODEL, max_tokens=100, messages=messages)
    message = info.value.body["error"]["message"]
    with pytest.raises(InvalidHistory) as raised:
        validate_messages(messages)
    assert message.startswith(words) and message == raised.value.api_message, message
    assert f"[{raised.value.rule}: {raised.value.where}]".startswith(ours)
    assert "[" not in message and info.value.details is None and "details" not in info.value.body["error"]


def test_a_fault_of_the_fake_itself_is_a_500_not_a_broken_connection(monkeypatch):
    def broken(self, body, used):
        raise KeyError("a bug in the fake")
    monkeypatch.setattr(FakeModel, "act", broken)
    with pytest.raises(anthropic.InternalServerError, match="the offline fake failed: KeyError"):
        FakeModel().client().messages.create(model=MODEL, max_tokens=100, messages=[user("hi")])
