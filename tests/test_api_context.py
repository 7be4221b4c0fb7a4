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
