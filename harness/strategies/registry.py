"""The strategies chapter 07 compares, each with what it is modelled on (chapter 07).

Each ``Strategy`` is a named ``Compactor`` factory with what it is modelled
on, when it fires and what the simulation leaves out. A new strategy joins
the comparison (and the test that runs every registered strategy on the
long session) by adding an entry here.

Triggers are scaled to one pretend window, ``PRETEND_WINDOW`` tokens: LONG_SESSION
peaks near 125,000 tokens uncompressed, so against a real 200,000-token
window only the API's 100,000 default would ever fire. Each trigger keeps
the proportion its system uses (Claude Code about 85% of the window, Codex
90%, the API's 100,000 of 200,000 is half); s06 keeps its own 50,000.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..core.config import CompactionConfig
from .base import Compactor
from .structured_summary import StructuredSummary
from .three_layers import ThreeLayers
from .tool_clearing import ClearToolUses
from .usage_triggered import UsageTriggered

PRETEND_WINDOW = 60_000


@dataclass(frozen=True)
class Strategy:
    key: str
    title: str
    modelled_on: str
    fires: str          # when it compacts, in words
    simplified: str     # what the simulation leaves out
    make: Callable[[], Compactor]


def all_strategies(window: int = PRETEND_WINDOW) -> tuple[Strategy, ...]:
    """The five strategies, their triggers scaled to ``window`` (s06 keeps its own default)."""
    return (
        Strategy("none", "no compaction", "(the baseline)", "never",
                 "nothing: the history only grows", Compactor),
        Strategy("s06", "micro + one summary", "learn-claude-code s06 (chapters 02-05)",
                 f"estimate over {CompactionConfig().threshold:,} tokens",
                 "nothing: the reference defaults (keep 3, read_file preserved, 80,000-char tail)",
                 ThreeLayers),
        Strategy("usage", "usage-triggered replacement", "Codex compact.rs and seed 000",
                 f"reported usage of a round >= {int(0.9 * window):,} (90%)",
                 "seed 000's layout, the summary before the kept user messages (Codex puts it after); "
                 "the summary sees the 80,000-char tail (Codex: the whole history); user messages kept "
                 "within 20,000 characters (Codex: 20,000 tokens); no mid-turn trigger",
                 lambda: UsageTriggered(threshold=int(0.9 * window))),
        Strategy("structured", "micro + nine-section summary", "Claude Code",
                 f"count over {int(0.85 * window):,} (85%)",
                 "chapter 02's micro with s06's defaults; the whole history sent as one JSON dump; "
                 "no files re-attached, no hooks",
                 lambda: StructuredSummary(window=window, fraction=0.85)),
        Strategy("clearing", "API tool-result clearing", "Messages API clear_tool_uses_20250919",
                 f"count over {window // 2:,} (50%)",
                 "run locally, in place, with a ledger of the cleared tokens; chapter 02's placeholder",
                 lambda: ClearToolUses(trigger=window // 2, keep=3)),
    )
