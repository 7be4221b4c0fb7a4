"""The Claude Code family: micro every call, one nine-section summary near the window (chapter 08).

Modelled on Claude Code as publicly described: old tool results are cleared
call by call, and when the context nears the window the whole conversation
is summarised under nine fixed headings, one of them "All user messages",
and replaces the history. (Chapter 08 cites the sources and marks what is
unverified.)

The summary request is the conversation itself, as the model has been
reading it, with the nine-section instruction as one more user message (no
tools): it costs the history's own tokens plus the instruction, so it fits
the window whenever the history left room for the reply. (Quoting the
history as JSON inside the prompt, as chapter 03 does, costs more tokens than
the messages themselves.)

Simplified here: the micro step is chapter 02's with s06's defaults (its
placeholder, keep the newest 3, read_file preserved); the replacement is
chapter 03's "[Conversation compressed ...]" message; no files are
re-attached after compacting, and there is no PreCompact hook.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.auto import AutoReport, SummaryRequestBuilder, auto_compact
from ..core.config import CompactionConfig, check_count
from ..core.loop import RunContext
from ..core.messages import Message, check_shape, user
from ..core.tokens import count_tokens
from .base import Compactor

SECTIONS = ("Primary request and intent", "Key technical concepts", "Files and code sections",
            "Errors and fixes", "Problem solving", "All user messages", "Pending tasks",
            "Current work", "Optional next step")
STRUCTURED_PROMPT = (
    "Summarise the conversation above in detail, so that the work can continue from the summary "
    "alone. Use exactly these nine sections, in this order:\n"
    + "\n".join(f"{n}. {title}" for n, title in enumerate(SECTIONS, start=1))
    + "\nUnder 'All user messages' list every message the user wrote, verbatim, oldest first."
)


def conversation_request(prompt: str) -> SummaryRequestBuilder:
    """A summary request builder: the whole conversation, then ``prompt`` as one more user message
    (no tools). The request raises InvalidHistory if the history is malformed."""
    def build(messages: list[Message], config: CompactionConfig, focus: str | None) -> dict[str, Any]:
        check_shape(messages)
        instruction = prompt + (f"\nFocus especially on: {focus}" if focus else "")
        return {"model": config.model, "max_tokens": config.summary_max_tokens,
                "messages": [*messages, user(instruction)]}
    return build


structured_request = conversation_request(STRUCTURED_PROMPT)


def structured_compact(client: Any, messages: list[Message], config: CompactionConfig,
                       focus: str | None = None) -> AutoReport:
    """Chapter 03's auto_compact with the nine-section request: transcript, summary, replacement
    in place; a failed or empty summary leaves ``messages`` as it was."""
    return auto_compact(client, messages, config, focus, build=structured_request)


@dataclass
class StructuredSummary(Compactor):
    """Micro before every call; past ``fraction`` of ``window`` tokens, the nine-section summary."""
    window: int = 200_000
    fraction: float = 0.85
    keep_recent: int = 3
    preserve_tools: frozenset[str] = frozenset({"read_file"})
    min_chars: int = 100
    name: ClassVar[str] = "structured_summary"

    def __post_init__(self) -> None:
        check_count("window", self.window, 1)
        check_count("keep_recent", self.keep_recent)
        if not 0 < self.fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {self.fraction}")

    @property
    def threshold(self) -> int:
        """Tokens (counted like the API's input_tokens) at which the summary fires."""
        return int(self.window * self.fraction)

    def before_call(self, run: RunContext) -> list[str]:
        layers = []
        knobs = run.config.with_(keep_recent=self.keep_recent, preserve_tools=self.preserve_tools,
                                 min_chars=self.min_chars)
        if run.micro(config=knobs):
            layers.append("micro")
        if count_tokens(run.messages, system=run.system, tools=run.schemas) > self.threshold:
            run.summarise_and_replace("structured", compact=structured_compact)
            layers.append("structured")
        return layers

    def on_compact(self, run: RunContext, focus: str | None) -> None:
        run.summarise_and_replace("manual", focus, compact=structured_compact)
