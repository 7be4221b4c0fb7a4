"""The summary self-check: a second call compares the draft with the conversation (chapter 12).

After the draft summary, one more request quotes the draft in
``<draft_summary>`` tags and the conversation after it, and asks for the
corrected summary with every omission restored (Gemini CLI's "probe"
verification does this; chapter 12 cites the source). ``view_chars`` is how
much of the conversation the check is shown: the draft's own tail (the
same ``tail_chars``, None here) or more. Both calls' tokens count as the
compaction's cost.
"""
from __future__ import annotations

import json
from typing import Any

from ..core.auto import AutoReport, SummaryRequestBuilder, auto_compact, request_summary, tail_request
from ..core.config import CompactionConfig
from ..core.messages import Message, check_shape, user
from .three_layers import ThreeLayers

VERIFY_PROMPT = (
    "Check the draft summary against the conversation below. Restore every user request, decision, "
    "file and note the draft omitted, then write the corrected summary of the conversation, "
    "in the draft's three sections."
)


def verify_request(messages: list[Message], draft: str, config: CompactionConfig,
                   view_chars: int | None = None) -> dict[str, Any]:
    """The self-check request: the prompt, the draft, then the last ``view_chars`` characters of the
    history as JSON (``config.tail_chars`` when None: what the draft was written from)."""
    check_shape(messages)
    dump = json.dumps(messages, ensure_ascii=False)
    view = config.tail_chars if view_chars is None else view_chars
    prompt = (f"{VERIFY_PROMPT}\n\n<draft_summary>\n{draft}\n</draft_summary>"
              f"\n\n<conversation>\n{dump[-view:]}\n</conversation>")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}


class VerifiedSummary(ThreeLayers):
    """The reference three layers, each summary followed by a self-check that may restore omissions."""
    name = "verified_summary"

    def __init__(self, view_chars: int | None = None, build: SummaryRequestBuilder = tail_request) -> None:
        super().__init__()
        self.view_chars, self.build = view_chars, build

    def compact(self, client: Any, messages: list[Message], config: CompactionConfig,
                focus: str | None = None) -> AutoReport:
        """Transcript, draft, self-check, replacement: chapter 03's order with one more call."""
        draft_usage: list[Any] = []

        def draft_then_check(history: list[Message], cfg: CompactionConfig, focus: str | None) -> dict[str, Any]:
            draft, usage = request_summary(client, self.build(history, cfg, focus))
            draft_usage.append(usage)
            return verify_request(history, draft, cfg, self.view_chars)

        report = auto_compact(client, messages, config, focus, build=draft_then_check)
        first = draft_usage[0]
        report.summary_input_tokens += first.input_tokens
        report.summary_output_tokens += first.output_tokens
        return report
