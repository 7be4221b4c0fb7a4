"""Which summary words ask for the conversation: a file named like a conversation is a file, a conversation
about a file is a conversation, and a negation right before the word asks for nothing
(harness/fake/reading.py, chapter 00). Each is also asked through the real SDK."""
from __future__ import annotations

import pytest

from harness import user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.reading import asks_for_summary

MODEL = "claude-haiku-4-5"
HISTORY = [user("What is VERSION_TAG in agents/a.py?"), {"role": "assistant", "content": 'It is "v1".'}]
FILE_SUMMARIES = ["Summarise conversation.py.", "Give me a summary of the chat.py module.",
                  "Summarise the chat.py module.", "Summarise chat-log.md.", "Recap history/session.py for me."]
CONVERSATION_SUMMARIES = ["Summarise our conversation about a.py.", "Summarise the discussion regarding agents/.",
                          "Recap the session on core/c01_config.py."]
NEGATED = {"Do not summarise.": "Summarise.", "Don't summarise the conversation.": "Summarise the conversation.",
           "Never compact the context.": "Compact the context.", "No recap.": "Recap.",
           "Please do not summarise this session.": "Please summarise this session."}


def kind_of(instruction: str) -> str:
    model = FakeModel()
    model.client().messages.create(model=MODEL, max_tokens=4_000, messages=HISTORY + [user(instruction)],
                                   tools=FILE_TOOLS)
    return model.requests[-1]


@pytest.mark.parametrize("instruction", FILE_SUMMARIES)
def test_a_file_whose_name_holds_a_conversation_word_is_a_file(instruction):
    assert not asks_for_summary(instruction)
    assert kind_of(instruction) == "agent"


@pytest.mark.parametrize("instruction", CONVERSATION_SUMMARIES)
def test_a_conversation_about_a_file_is_a_conversation(instruction):
    assert asks_for_summary(instruction)
    assert kind_of(instruction) == "summary"


@pytest.mark.parametrize("instruction", NEGATED)
def test_a_negation_right_before_the_summary_word_asks_for_nothing_and_elsewhere_changes_nothing(instruction):
    plain = NEGATED[instruction]
    assert not asks_for_summary(instruction) and kind_of(instruction) == "agent"
    assert asks_for_summary(plain) and asks_for_summary(f"Don't stop: {plain[0].lower()}{plain[1:]}")
