"""Layer 2, auto-compaction: past a threshold, save everything, then summarise (chapter 03).

Order matters and is the whole point: (1) write the full transcript, (2) ask
the model for a summary, (3) only then replace the history by one user
message that names the transcript and holds the summary. If step 2 fails or
returns nothing, the history is exactly as it was and the transcript stays.

Every strategy that asks for a summary (chapters 06 and 08 too) sends it with
``request_summary``; most build it with ``build_summary_request`` and differ
only in the prompt and in how much of the history they quote. A strategy may
build its request differently and pass its builder to ``auto_compact``
(chapter 08's nine-section summary sends the conversation itself).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .config import CompactionConfig
from .error_text import error_text
from .messages import Message, check_shape, user
from .tokens import estimate_tokens
from .transcripts import write_transcript

SUMMARY_PROMPT = (
    "Summarise the conversation below so that the work can continue from the summary alone. "
    "Answer three questions:\n"
    "1. What was accomplished?\n"
    "2. What is the current state?\n"
    "3. What key decisions were made, and why?"
)
SUMMARY_PREFIX = "[Conversation compressed"  # how every summary message starts (chapters 03, 06, 08)
COMPRESSED_HEADER = SUMMARY_PREFIX + ". Transcript: {path}]"


class SummaryFailed(RuntimeError):
    """The summary call failed or returned no text; the history was left untouched."""


@dataclass
class AutoReport:
    transcript: Path
    summary: str
    messages_before: int
    tokens_before: int
    tokens_after: int
    summary_input_tokens: int
    summary_output_tokens: int


def build_summary_request(messages: list[Message], *, model: str, max_tokens: int,
                          tail_chars: int | None, prompt: str = SUMMARY_PROMPT,
                          focus: str | None = None) -> dict[str, Any]:
    """The keyword arguments of a summary call: no tools, the prompt, then the history as JSON:
    its last ``tail_chars`` characters, or all of it when ``tail_chars`` is None.
    InvalidHistory if ``messages`` is malformed."""
    check_shape(messages)
    dump = json.dumps(messages, ensure_ascii=False)
    tail = dump if tail_chars is None else dump[-tail_chars:]
    if focus:
        prompt += f"\nFocus especially on: {focus}"
    prompt += f"\n\n<conversation>\n{tail}\n</conversation>"
    return {"model": model, "max_tokens": max_tokens, "messages": [user(prompt)]}


def request_summary(client: Any, request: dict[str, Any]) -> tuple[str, Any]:
    """Send one summary request: (text, usage), or SummaryFailed for an error or an empty reply."""
    try:
        response = client.messages.create(**request)
    except Exception as error:  # any API or transport failure: report it, change nothing
        raise SummaryFailed(f"summary call failed: {error_text(error)}") from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def summarise(client: Any, messages: list[Message], config: CompactionConfig,
              focus: str | None = None) -> tuple[str, Any]:
    """Ask the model for a summary of the history's tail; returns (text, usage) or raises SummaryFailed
    (InvalidHistory, before any call, if ``messages`` is malformed)."""
    return request_summary(client, build_summary_request(
        messages, tail_chars=config.tail_chars, model=config.model, max_tokens=config.summary_max_tokens,
        focus=focus))


def compressed_message(transcript: Path, summary: str) -> Message:
    """The one user message that replaces the history."""
    return user(COMPRESSED_HEADER.format(path=transcript.as_posix()) + "\n\n" + summary)


def is_summary(message: Message) -> bool:
    """A user message that an earlier compaction wrote (any layer, any strategy).

    Unchecked, for hot loops: pass a message of a checked history."""
    content = message["content"]
    return message["role"] == "user" and isinstance(content, str) and content.startswith(SUMMARY_PREFIX)


SummaryRequestBuilder = Callable[[list[Message], CompactionConfig, "str | None"], dict[str, Any]]


def tail_request(messages: list[Message], config: CompactionConfig, focus: str | None) -> dict[str, Any]:
    """Chapter 03's summary request: the three questions, then the last ``config.tail_chars`` characters."""
    return build_summary_request(messages, model=config.model, max_tokens=config.summary_max_tokens,
                                 tail_chars=config.tail_chars, focus=focus)


def auto_compact(client: Any, messages: list[Message], config: CompactionConfig,
                 focus: str | None = None, *, build: SummaryRequestBuilder = tail_request) -> AutoReport:
    """Transcript first, then summary, then replace ``messages`` in place.

    ``build`` makes the summary request (chapter 03's by default), so other strategies reuse the
    same order (chapter 08). A malformed history raises InvalidHistory before anything is written or sent."""
    check_shape(messages)
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = write_transcript(messages, config.transcript_dir)
    summary, usage = request_summary(client, build(messages, config, focus))
    messages[:] = [compressed_message(transcript, summary)]
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      usage.input_tokens, usage.output_tokens)
