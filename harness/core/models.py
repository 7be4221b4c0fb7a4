"""Per-model thresholds: a threshold in tokens, or a fraction of the model's context window (chapter 06).

Seed 000 used one fixed threshold for every model. A threshold written as a
fraction (``0.8``: compact at 80% of the window) follows the model instead.
The table holds standard context windows in tokens; a dated model id such
as ``claude-sonnet-4-5-20250929`` uses the entry of its base name. An
unlisted model is an error, never a guess. Sonnet 4 and 4.5 also offer 1M
tokens behind a beta header: pass your own table for that, or for any model
not listed.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

DATED = re.compile(r"-\d{8}$")  # the release date at the end of a pinned model id

MODEL_WINDOWS: dict[str, int] = {  # standard windows, from the model pages of platform.claude.com
    "claude-opus-5-5": 1_000_000,
    "claude-sonnet-5-5": 1_000_000,
    "claude-haiku-5-5": 1_000_000,
    "claude-fable-5-1": 1_000_000,
    "claude-opus-5": 1_000_000,
    "claude-sonnet-5": 1_000_000,
    "claude-opus-4-5": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-opus-4-1": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-3-5-haiku": 200_000,
}


def context_window(model: str, windows: Mapping[str, int] = MODEL_WINDOWS) -> int:
    """The model's context window in tokens, by its id or, for a dated id, by its base name."""
    for name in (model, DATED.sub("", model)):
        if name in windows:
            return windows[name]
    raise ValueError(f"no context window known for model {model!r}; known: {', '.join(sorted(windows))}")


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
