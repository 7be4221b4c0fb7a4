"""A piece of a summary request that does not parse is skipped, never raised (harness/fake/conversation_forms.py,
chapter 03): the messages around it are kept, and through the client the reply is a summary, never a 500."""
from __future__ import annotations

import pytest

from harness import user
from harness.fake import FakeModel
from harness.fake.conversation_forms import conversation_messages, whole_messages

MODEL = "claude-haiku-4-5"
BEFORE, AFTER = '{"role": "user", "content": "Read a.py."}', '{"role": "user", "content": "Read b.py."}'
UNPARSED = {
    "minus a string": "{'role': 'user', 'content': -'x'}",
    "minus None": "{'role': 'user', 'content': -None}",
    "a list as a dict key": "{'role': 'user', 'content': 'hi', ['a']: 1}",
    "a dict as a dict key": "{'role': 'user', 'content': 'hi', {'a': 1}: 1}",
    "JSON 1,500 deep": '{"role": "user", "content": ' + "[" * 1_500 + "]" * 1_500 + "}",
    "a 5,000-digit JSON integer": '{"role": "user", "content": "hi", "n": ' + "7" * 5_000 + "}",
    "minus None in an SDK repr": '{"role": "user", "content": ["TextBlock(text=-None, type=\'text\')"]}',
}


@pytest.mark.parametrize("piece", UNPARSED.values(), ids=UNPARSED.keys())
def test_a_piece_that_does_not_parse_is_skipped_and_its_neighbours_kept(piece):
    found = whole_messages(f"[{BEFORE}, {piece}, {AFTER}]")
    assert [m["content"] for m in found][:1] == ["Read a.py."] and found[-1]["content"] == "Read b.py."
    assert all(m["content"] != "hi" for m in found)
    conversation_messages(piece)  # alone: nothing, or a transcript's words, but no error


def test_a_transcript_call_that_does_not_parse_is_text_only():
    found = conversation_messages("User: Read a.py.\nAssistant: On it. read_file({'path': -'x'})")
    assert found[1]["content"] == [{"type": "text", "text": "On it. read_file({'path': -'x'})"}]


@pytest.mark.parametrize("piece", UNPARSED.values(), ids=UNPARSED.keys())
def test_a_summary_request_holding_a_piece_that_does_not_parse_gets_a_summary_not_a_500(piece):
    request = f"Summarise the conversation so far.\n<conversation>[{BEFORE}, {piece}, {AFTER}]</conversation>"
    reply = FakeModel().client().messages.create(model=MODEL, max_tokens=4_000, messages=[user(request)])
    assert reply.stop_reason == "end_turn"
    assert "- User: Read a.py." in reply.content[0].text and "- User: Read b.py." in reply.content[0].text
