"""The incremental summary: merge the new turns into the previous summary (chapter 12).

Chapter 03's request quotes the last ``tail_chars`` characters of the
history. After the first compaction that history starts with the previous
summary, so once the turns since then outgrow the tail, the previous summary
is cut off the head and a summary of a summary forgets everything older.
The incremental request spends the same character budget differently: the
previous summary first, whole, in its own ``<previous_summary>`` tags, then
the tail of the turns after it in the room left, with the instruction to
merge the two. Gemini CLI asks for the same merge when its history holds an
earlier ``<state_snapshot>`` (chapter 12 cites the source).
"""
from __future__ import annotations

import json
from typing import Any

from ..core.auto import SUMMARY_PROMPT, is_summary, tail_request
from ..core.config import CompactionConfig
from ..core.messages import Message, check_shape, user
from .three_layers import ThreeLayers

MERGE_PROMPT = (
    "Summarise the conversation below by updating the previous summary: keep every fact of the "
    "previous summary that still holds and add what the new turns say. Answer three questions:\n"
    + SUMMARY_PROMPT.split("\n", 1)[1]
)


def previous_summary(message: Message) -> str:
    """The summary text of a compressed message, without its ``[Conversation compressed ...]`` line."""
    return message["content"].split("\n\n", 1)[-1]


def merge_request(messages: list[Message], config: CompactionConfig, focus: str | None) -> dict[str, Any]:
    """The incremental summary request. A history that does not start with a summary gets chapter
    03's request. Otherwise: the merge prompt, the previous summary whole, then the last characters
    of the later turns as JSON, so that summary and turns together stay within ``config.tail_chars``."""
    check_shape(messages)
    if not is_summary(messages[0]):
        return tail_request(messages, config, focus)
    previous = previous_summary(messages[0])
    dump = json.dumps(messages[1:], ensure_ascii=False)
    room = max(config.tail_chars - len(previous), 0)
    prompt = MERGE_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    prompt += (f"\n\n<previous_summary>\n{previous}\n</previous_summary>"
               f"\n\n<conversation>\n{dump[max(len(dump) - room, 0):]}\n</conversation>")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}


class IncrementalSummary(ThreeLayers):
    """The reference three layers, whose summary merges the new turns into the previous summary."""
    name = "incremental_summary"
    summary_request = staticmethod(merge_request)
