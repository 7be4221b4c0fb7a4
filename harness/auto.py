"""Layer 2, auto-compaction: past a threshold, save everything, then summarise (chapter 03).

Order matters and is the whole point: (1) write the full transcript, (2) ask
the model for a summary, (3) only then replace the history by one user
message that names the transcript and holds the summary. If step 2 fails or
returns nothing, the history is exactly as it was and the transcript stays.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import CompactionConfig
from .messages import Message, user
from .tokens import estimate_tokens
from .transcripts import write_transcript

SUMMARY_PROMPT = (
    "Summarise the conversation below so that the work can continue from the summary alone. "
    "Answer three questions:\n"
    "1. What was accomplished?\n"
    "2. What is the current state?\n"
    "3. What key decisions were made, and why?"
)
COMPRESSED_HEADER = "[Conversation compressed. Transcript: {path}]"


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


def build_summary_request(messages: list[Message], *, tail_chars: int, model: str,
                          max_tokens: int, focus: str | None = None) -> dict[str, Any]:
    """The keyword arguments of the summary call: no tools, only the history's tail as JSON."""
    tail = json.dumps(messages, ensure_ascii=False)[-tail_chars:]
    prompt = SUMMARY_PROMPT
    if focus:
        prompt += f"\nFocus especially on: {focus}"
    prompt += f"\n\n<conversation>\n{tail}\n</conversation>"
    return {"model": model, "max_tokens": max_tokens, "messages": [user(prompt)]}


def summarise(client: Any, messages: list[Message], config: CompactionConfig,
              focus: str | None = None) -> tuple[str, Any]:
    """Ask the model for a summary; returns (text, usage) or raises SummaryFailed."""
    request = build_summary_request(messages, tail_chars=config.tail_chars, model=config.model,
                                    max_tokens=config.summary_max_tokens, focus=focus)
    try:
        response = client.messages.create(**request)
    except Exception as error:  # any API or transport failure: report it, change nothing
        raise SummaryFailed(f"summary call failed: {error}") from error
    summary = "".join(b.text for b in response.content if b.type == "text").strip()
    if not summary:
        raise SummaryFailed("summary call returned no text")
    return summary, response.usage


def compressed_message(transcript: Path, summary: str) -> Message:
    """The one user message that replaces the history."""
    return user(COMPRESSED_HEADER.format(path=transcript.as_posix()) + "\n\n" + summary)


def auto_compact(client: Any, messages: list[Message], config: CompactionConfig,
                 focus: str | None = None) -> AutoReport:
    """Transcript first, then summary, then replace ``messages`` in place."""
    tokens_before, count_before = estimate_tokens(messages), len(messages)
    transcript = write_transcript(messages, config.transcript_dir)
    summary, usage = summarise(client, messages, config, focus)
    messages[:] = [compressed_message(transcript, summary)]
    return AutoReport(transcript, summary, count_before, tokens_before, estimate_tokens(messages),
                      usage.input_tokens, usage.output_tokens)
