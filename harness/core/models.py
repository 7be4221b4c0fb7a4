"""Per-model thresholds: a threshold in tokens, or a fraction of the model's context window (chapter 07).

Seed 000 used one fixed threshold for every model. A threshold written as a
fraction (``0.8``: compact at 80% of the window) follows the model instead;
``threshold_below_window`` sets it a fixed distance below the window, leaving
room for the reply and a safety buffer.

The tables hold standard context windows and maximum outputs in tokens; a
dated model id such as ``claude-sonnet-4-5-20250929`` uses the entry of its
base name. An unlisted model is an error, never a guess. Sonnet 4 and 4.5
also offer 1M tokens behind a beta header: pass your own table for that, or
for any model not listed. Chapter 10 names Opus 4.6, Sonnet 4.6 and Opus 4.7
as the models that run server compaction; all three are listed (each entry's
source is in a comment beside the tables). The fake server (chapter 00) enforces both limits.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from .config import check_count

DATED = re.compile(r"-\d{8}$")  # the release date at the end of a pinned model id

# Sources: each model's page, https://platform.claude.com/docs/en/models/<model>/overview (for example
# .../models/opus-4-6/overview: "Context window: 1M tokens · Max output: 128K tokens"). Opus 4.6, Sonnet 4.6
# and Opus 4.8 have such a page (1M and 128K each). Opus 4.7 has none we could find: its 1M window and
# 128K output are from the cloud vendors' model cards (AWS Bedrock, model-card-anthropic-claude-opus-4-7;
# Google Cloud, partner-models/claude/opus-4-7), unverified on platform.claude.com. For Sonnet 4.6 some
# third-party tables say 64K of output; its own page says 128K, and that is what is used here.
# Haiku 4.5 (the sessions' DEFAULT_MODEL) is a legacy model on its page (.../models/haiku-4-5/overview; Haiku 5.5
# is current): the course keeps it for its 200K window, 64K output.
MODEL_WINDOWS: dict[str, int] = {  # standard windows, from the model pages of platform.claude.com
    "claude-opus-5-5": 1_000_000,
    "claude-sonnet-5-5": 1_000_000,
    "claude-haiku-5-5": 1_000_000,
    "claude-fable-5-1": 1_000_000,
    "claude-opus-5": 1_000_000,
    "claude-sonnet-5": 1_000_000,
    "claude-opus-4-8": 1_000_000,
    "claude-opus-4-7": 1_000_000,  # unverified on platform.claude.com: see above
    "claude-opus-4-6": 1_000_000,
    "claude-sonnet-4-6": 1_000_000,
    "claude-opus-4-5": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-opus-4-1": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-3-5-haiku": 200_000,
}


# The most output tokens one reply may ask for (``max_tokens``), from the same model pages: 128K for
# the 5.x models (Opus 5 and Sonnet 5 pages, and the "current lineup" table on every model page, which
# lists Fable 5.1, Opus 5.5, Sonnet 5.5 and Haiku 5.5) and for Opus 4.8, Opus 4.6 and Sonnet 4.6 (their
# own pages; Opus 4.7 from the vendors' model cards, as above), 64K for Opus 4.5, Sonnet 4.5 and Haiku 4.5
# (their own pages). Unverified on a platform.claude.com page (retired or not found there), taken from
# third-party tables that agree with each other: Opus 4.1 and 4 at 32K, Sonnet 4 and 3.7 at 64K,
# Haiku 3.5 at 8,192.
MODEL_MAX_OUTPUT: dict[str, int] = {
    "claude-opus-5-5": 128_000,
    "claude-sonnet-5-5": 128_000,
    "claude-haiku-5-5": 128_000,
    "claude-fable-5-1": 128_000,
    "claude-opus-5": 128_000,
    "claude-sonnet-5": 128_000,
    "claude-opus-4-8": 128_000,
    "claude-opus-4-7": 128_000,
    "claude-opus-4-6": 128_000,
    "claude-sonnet-4-6": 128_000,
    "claude-opus-4-5": 64_000,
    "claude-haiku-4-5": 64_000,
    "claude-sonnet-4-5": 64_000,
    "claude-opus-4-1": 32_000,
    "claude-opus-4": 32_000,
    "claude-sonnet-4": 64_000,
    "claude-3-7-sonnet": 64_000,
    "claude-3-5-haiku": 8_192,
}


def context_window(model: str, windows: Mapping[str, int] = MODEL_WINDOWS) -> int:
    """The model's context window in tokens, by its id or, for a dated id, by its base name."""
    return _lookup(model, windows, "context window")


def max_output(model: str, limits: Mapping[str, int] = MODEL_MAX_OUTPUT) -> int:
    """The most output tokens the model may be asked for, looked up like ``context_window``."""
    return _lookup(model, limits, "maximum output")


def _lookup(model: str, table: Mapping[str, int], what: str) -> int:
    for name in (model, DATED.sub("", model)):
        if name in table:
            return table[name]
    raise ValueError(f"no {what} known for model {model!r}; known: {', '.join(sorted(table))}")


def check_threshold(threshold: int | float) -> int | float:
    """``threshold`` if it is tokens (an int >= 1) or a fraction of the window (a float in (0, 1])."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError(f"threshold must be tokens (int) or a fraction of the window (float), got {threshold!r}")
    if isinstance(threshold, int) and threshold < 1:
        raise ValueError(f"a threshold in tokens must be >= 1, got {threshold}")
    if isinstance(threshold, float) and not 0 < threshold <= 1:
        raise ValueError(f"a fractional threshold must be in (0, 1], got {threshold}; give tokens as an int")
    return threshold


def resolve_threshold(threshold: int | float, model: str, windows: Mapping[str, int] = MODEL_WINDOWS) -> int:
    """A threshold in tokens: an int is tokens already; a float is that fraction of the model's window."""
    if isinstance(check_threshold(threshold), int):
        return threshold
    return max(1, round(threshold * context_window(model, windows)))


def threshold_below_window(model: str, *, output_reserve: int, buffer: int,
                           windows: Mapping[str, int] = MODEL_WINDOWS) -> int:
    """A threshold in tokens: the model's window minus ``output_reserve`` (room for the reply the next
    request asks for, its ``max_tokens``) minus ``buffer`` (room for what the history gains between the
    check and that request, and for counting errors). Chapter 07 introduces it. ValueError for a negative
    reserve or buffer, or for two that leave no input at all."""
    window = context_window(model, windows)
    check_count("output_reserve", output_reserve)
    check_count("buffer", buffer)
    if output_reserve + buffer >= window:
        raise ValueError(f"output_reserve {output_reserve:,} + buffer {buffer:,} leave no room for input in "
                         f"the {window:,}-token window of {model}")
    return window - output_reserve - buffer
