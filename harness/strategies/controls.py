"""Controls: a strategy with one thing changed, to test what a lesson credits (chapter 08).

Chapter 08's nine-section summary keeps the three early facts s06 forgets.
It differs from s06 in two ways: its prompt asks for every user message
verbatim, and its request carries the whole conversation rather than the
last 80,000 characters of a JSON dump. ``WholeConversationLayers`` is s06
with only the second changed: its own three questions, asked of the whole
conversation, sent like the nine-section request. The registry's other two
controls need no class of their own (usage at the matched trigger, clearing
with ``clear_at_least``).
"""
from __future__ import annotations

from ..core.auto import SUMMARY_PROMPT
from .structured_summary import conversation_request
from .three_layers import ThreeLayers

THREE_QUESTIONS_ABOVE = SUMMARY_PROMPT.replace("the conversation below", "the conversation above")


class WholeConversationLayers(ThreeLayers):
    """s06's three layers, its summary asked of the whole conversation with s06's own prompt."""
    name = "whole_conversation_layers"
    summary_request = staticmethod(conversation_request(THREE_QUESTIONS_ABOVE))
