"""Server-side context management payloads, checked against the SDK's types, offline."""
import pytest

from harness import api_context


def test_clear_tool_uses_payload_on_the_wire():
    edit = api_context.clear_tool_uses(trigger=30_000, keep=2, clear_at_least=1_000,
                                       exclude_tools=["read_file"], clear_tool_inputs=True)
    request = api_context.context_managed_request([{"role": "user", "content": "hi"}], [edit], model="m")
    body, beta = api_context.wire_request(request)
    assert beta == api_context.CONTEXT_EDITING_BETA
    assert body["context_management"] == {"edits": [{
        "type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 30_000},
        "keep": {"type": "tool_uses", "value": 2}, "clear_tool_inputs": True,
        "clear_at_least": {"type": "input_tokens", "value": 1_000}, "exclude_tools": ["read_file"]}]}
    assert "betas" not in body  # the flag travels as a header, not in the body


def test_server_compaction_payload_and_both_betas():
    edits = [api_context.server_compaction(trigger=120_000, instructions="keep goals"),
             api_context.clear_tool_uses()]
    request = api_context.context_managed_request([{"role": "user", "content": "hi"}], edits, model="m")
    body, beta = api_context.wire_request(request)
    assert beta == "compact-2026-01-12,context-management-2025-06-27"
    assert body["context_management"]["edits"][0] == {
        "type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 120_000},
        "pause_after_compaction": False, "instructions": "keep goals"}


@pytest.mark.parametrize("bad, words", [
    ({"type": "clear_tool_uses_20250919", "kep": 3}, "unknown keys ['kep']"),
    ({"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": "three"}}, "keep.value"),
    ({"type": "compact_20260112", "trigger": {"type": "tool_uses", "value": 5}}, "trigger"),
    ({"type": "nope"}, "unknown edit type"),
    ({}, "unknown edit type"),
])
def test_bad_edits_are_refused_before_sending(bad, words):
    with pytest.raises(ValueError, match=None) as error:
        api_context.check_edit(bad)
    assert words in str(error.value)
    with pytest.raises(ValueError):
        api_context.context_managed_request([{"role": "user", "content": "hi"}], [bad], model="m")


def test_clear_thinking_payload_keeps_turns_or_all_and_rides_the_context_editing_beta():
    assert api_context.clear_thinking_turns() == {"type": "clear_thinking_20251015",
                                            "keep": {"type": "thinking_turns", "value": 1}}
    assert api_context.clear_thinking_turns(keep=None)["keep"] == "all"
    edits = [api_context.clear_thinking_turns(keep=2), api_context.clear_tool_uses()]
    body, beta = api_context.wire_request(api_context.context_managed_request(
        [{"role": "user", "content": "hi"}], edits, model="m"))
    assert beta == api_context.CONTEXT_EDITING_BETA and body["context_management"]["edits"] == edits
    with pytest.raises(ValueError) as refused:
        api_context.check_edit({"type": "clear_thinking_20251015", "keep": {"type": "turns", "value": 2}})
    assert str(refused.value).splitlines()[0].startswith("clear_thinking_20251015.keep.")  # the field, first


def test_on_demand_compaction_field_is_checked_against_the_sdk_type():
    assert api_context.on_demand_compaction() == {"type": "summarize"}
    assert api_context.on_demand_compaction("") == {"type": "summarize"}  # empty counts as absent, as the SDK says
    assert api_context.on_demand_compaction("Keep the file names.") == {"type": "summarize",
                                                                        "instructions": "Keep the file names."}
    with pytest.raises(ValueError, match="compaction"):
        api_context.on_demand_compaction(5)


def test_the_client_betas_are_the_ones_the_fake_serves():
    from harness.fake.context_management import EDIT_BETAS, ON_DEMAND_BETA
    assert api_context.ON_DEMAND_COMPACTION_BETA == ON_DEMAND_BETA
    assert {kind: api_context.betas_for([{"type": kind}])[0] for kind in api_context.EDIT_TYPES} == EDIT_BETAS


def test_a_listening_client_keeps_what_each_messages_request_sent_and_is_answered_by_the_handler():
    from harness.fake import FakeModel
    model = FakeModel()
    client, sent = api_context.listening_client(model.handle)
    messages = [{"role": "user", "content": "hi"}]
    client.messages.count_tokens(model="claude-haiku-4-5", messages=messages)  # not a Messages request: not kept
    reply = client.beta.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=messages,
                                        betas=[api_context.ON_DEMAND_COMPACTION_BETA],
                                        compaction=api_context.on_demand_compaction())
    assert reply.stop_reason == "compaction" and model.requests == ["count", "compaction"]
    assert sent == [(api_context.ON_DEMAND_COMPACTION_BETA, {
        "max_tokens": 50, "messages": messages, "model": "claude-sonnet-4-6", "compaction": {"type": "summarize"}})]
