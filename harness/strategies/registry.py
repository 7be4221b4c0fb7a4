"""The strategies chapter 08 compares, each with what it is modelled on (chapter 08).

Each ``Strategy`` is a named ``Compactor`` factory with what it is modelled
on, when it fires, what the simulation leaves out and the config it runs
with. A new strategy joins the comparison (and the test that runs every
registered strategy on the long session) by adding an entry here.

Triggers are set against one pretend window, ``PRETEND_WINDOW`` tokens, which
the fake enforces like a real one: LONG_SESSION peaks near 125,000 tokens
uncompressed, so against a real 200,000-token window no trigger near the
window would ever fire. Every trigger sits at 85% of the window (Claude
Code's is reported near 83.5% of a 200,000 window: unverified, chapter 07), except where a system's
own proportion is the point: Codex's 90%, and s06's own 50,000 estimated
tokens. The API's clearing default (100,000 of 200,000, half) is chapter
08's slider, not a row: compared at half the others' trigger it would look
cheaper for that reason alone.

The controls are not systems: each changes one thing of a strategy to test
what a lesson credits (chapter 08): s06 summarising the whole conversation,
usage at the matched trigger, clearing with ``clear_at_least``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..core.config import CompactionConfig
from .base import Compactor
from .controls import WholeConversationLayers
from .structured_summary import StructuredSummary
from .three_layers import ThreeLayers
from .server_side import ServerCompaction, ServerToolClearing
from .usage_triggered import UsageTriggered

PRETEND_WINDOW = 60_000
MATCHED = 0.85  # the trigger, as a fraction of the window, for every strategy that has no proportion of its own
COMPACTION_MODEL = "claude-sonnet-4-6"  # compact_20260112 does not run on Haiku 4.5 (core.models: its sources)


@dataclass(frozen=True)
class Strategy:
    key: str
    title: str
    modelled_on: str
    fires: str          # when it compacts, in words
    simplified: str     # what the simulation leaves out
    make: Callable[[], Compactor]
    model: str | None = None  # the model it needs where the course's default lacks the feature, else None


def all_strategies(window: int = PRETEND_WINDOW) -> tuple[Strategy, ...]:
    """The six strategies, their triggers set against ``window`` (s06 keeps its own default)."""
    matched = int(MATCHED * window)
    return (
        Strategy("none", "no compaction", "(the baseline)", "never",
                 "nothing: the history only grows", Compactor),
        Strategy("s06", "micro + one summary", "learn-claude-code s06 (chapters 02-05)",
                 f"estimate over {CompactionConfig().threshold:,} tokens",
                 "nothing: the reference defaults (keep 3, read_file preserved, 80,000-char tail)",
                 ThreeLayers),
        Strategy("usage", "usage-triggered replacement", "Codex compact.rs and the usage-triggered design",
                 f"reported usage of a round >= {int(0.9 * window):,} (90%)",
                 "the usage-triggered design's layout, the summary before the kept user messages "
                 "(Codex puts it after); the summary sees the 80,000-char tail (Codex: the whole history); "
                 "user messages kept within 20,000 characters (Codex: 20,000 tokens); no mid-turn trigger",
                 lambda: UsageTriggered(threshold=int(0.9 * window))),
        Strategy("structured", "micro + nine-section summary", "Claude Code",
                 f"count over {matched:,} ({MATCHED:.0%})",
                 "chapter 02's micro with s06's defaults; no files re-attached, no hooks",
                 lambda: StructuredSummary(window=window, fraction=MATCHED)),
        Strategy("clearing", "API tool-result clearing", "Messages API clear_tool_uses_20250919",
                 f"input over {matched:,} ({MATCHED:.0%}), keep 3",
                 "nothing on our side: the offline server applies the edit; its placeholder wording is unverified",
                 lambda: ServerToolClearing(trigger=matched, keep=3)),
        Strategy("compaction", "API server compaction", "Messages API compact_20260112",
                 f"input over {matched:,} ({MATCHED:.0%})",
                 "the offline server writes the summary with the fake summariser and the API's default prompt",
                 lambda: ServerCompaction(trigger=matched), COMPACTION_MODEL),
    )


CLEAR_AT_LEAST = 1 / 3  # the clearing control's clear_at_least, as a fraction of the window (20,000 of 60,000)


def control_strategies(window: int = PRETEND_WINDOW) -> tuple[Strategy, ...]:
    """Controls: a strategy with one thing changed, to isolate what a lesson credits."""
    matched, at_least = int(MATCHED * window), int(CLEAR_AT_LEAST * window)
    return (
        Strategy("s06 whole", "s06, summary of the whole conversation", "control: s06 without its tail",
                 f"estimate over {CompactionConfig().threshold:,} tokens",
                 "s06 exactly, except that its summary request is the whole conversation (as structured's is)",
                 WholeConversationLayers),
        Strategy("usage 85%", "usage at the matched trigger", "control: usage without its own 90%",
                 f"reported usage of a round >= {matched:,} ({MATCHED:.0%})",
                 "usage exactly, except that it fires at the trigger every other strategy uses",
                 lambda: UsageTriggered(threshold=matched)),
        Strategy("clear_at_least", f"clearing only {at_least:,} tokens or more", "control: clearing with clear_at_least",
                 f"input over {matched:,} ({MATCHED:.0%}), keep 3, if at least {at_least:,} tokens go",
                 "clearing exactly, with clear_at_least (the context-editing page's answer to cache invalidation)",
                 lambda: ServerToolClearing(trigger=matched, keep=3, clear_at_least=at_least)),
    )
