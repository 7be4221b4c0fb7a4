"""The models, and per-model thresholds: tokens, or a fraction of the model's window (chapter 07).

The usage-triggered design used one fixed threshold for every model. A threshold written as a
fraction (``0.8``: compact at 80% of the window) follows the model instead;
``threshold_below_window`` sets it a fixed distance below the window, leaving
room for the reply and a safety buffer.

``MODELS`` holds every model the installed SDK names (``anthropic/types/model_param.py``'s
``ModelParam``, a test keeps the two equal), each id its own entry, a dated id
(``claude-haiku-4-5-20251001``) beside its alias: an id the table lacks is an error,
never a guess, and the fake server answers it with a 404. For each: the context window,
the maximum output (``max_tokens``), the ``thinking.type`` values it accepts, whether it
runs the API's compaction, its retirement date where the SDK's
``anthropic/_data/deprecated_models.py`` gives one (a test keeps the two equal), and
where the numbers come from. The fake (chapter 00) enforces all of it and serves it as
``GET /v1/models``.

What every model here shares, so the table has no column for it:

* input plus ``max_tokens`` over the window is no 400: the reply stops at the window
  with ``stop_reason`` ``"model_context_window_exceeded"``. "This stop reason is available
  by default in Sonnet 4.5 and newer models. For earlier models, use the beta header
  model-context-window-exceeded-2025-08-26" (https://platform.claude.com/docs/en/api/handling-stop-reasons),
  and every model the SDK names is Sonnet 4.5 or newer. Input alone over the window is
  still the 400 "prompt is too long";
* context editing (``clear_tool_uses_20250919``, ``clear_thinking_20251015``) and the memory
  tool: the context-editing and memory-tool pages of platform.claude.com name Claude 4 models
  and later; taken to hold for every model here (unverified model by model);
* message threads: all but Fable 5.2 and Mythos 5.2 are in the supported models of
  https://platform.claude.com/docs/en/build-with-claude/message-threads; those two are
  newer than that list (unverified).

The models the table held before and the SDK no longer names (Sonnet 4.5, Opus 4.1, Opus 4,
Sonnet 4, Sonnet 3.7, Haiku 3.5) are gone: the SDK's models API would not list them, and the
API answers a retired id with a 404 ``not_found_error`` whose message is ``model: <id>``
(PolicyEngine/policyengine-api#3800 and vicharanashala/vibe#1259 quote it for
claude-sonnet-4-20250514), as the fake answers any id the table lacks. Sonnet 4.5 retired on
November 30, 2026 (the date anthropic 2.14's ``_data/deprecated_models.py`` gave it; 2.15 dropped it
from ``ModelParam``, ``Model`` and that table); Opus 4 and Sonnet 4 on June 15, 2026
(https://platform.claude.com/docs/en/release-notes/overview, as ottto-ai/ai-provider-watch records it).
Pass your own table to the functions below for any other model.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .config import check_count

DATED = re.compile(r"-\d{8}$")  # the snapshot date at the end of a pinned model id (its alias: the id without it)

# "between_tools" (thinking off, progress notes between tool calls as thinking blocks) is taken wherever
# "disabled" is: which models accept it is not public (this fake's rule).
ADAPTIVE_ONLY = frozenset({"adaptive"})                                          # "Adaptive (always on)"
ADAPTIVE = frozenset({"adaptive", "disabled", "between_tools"})                  # "Adaptive": can be turned off
ADAPTIVE_OR_BUDGET = frozenset({"adaptive", "enabled", "disabled", "between_tools"})
EXTENDED = frozenset({"enabled", "disabled", "between_tools"})                   # "Extended": a budget, no adaptive


@dataclass(frozen=True)
class Model:
    """One model the API serves, as the fake serves it."""
    name: str                   # the display name (``ModelInfo.display_name``)
    line: str                   # haiku, sonnet, opus, fable or mythos (``ModelInfo.line``)
    window: int                 # the context window in tokens (``max_input_tokens``)
    max_output: int             # the largest ``max_tokens`` (``ModelInfo.max_tokens``)
    thinking: frozenset[str]    # the ``thinking.type`` values it accepts; any other is a 400
    compaction: bool            # ``compact_20260112`` and on-demand ``compaction`` run on it
    source: str                 # where the numbers come from
    released: str = ""          # ISO date, "" when no page we found gives it (the API then sends the epoch)
    retires: str = ""           # ISO date, from the SDK's deprecated_models; "" for an active model


def _page(slug: str) -> str:
    return f"https://platform.claude.com/docs/en/models/{slug}/overview"


# Sources. Each model's page (``_page``) gives "Context window: 1M tokens · Max output: 128K tokens" and its
# thinking; the "How it compares to the current lineup" table on every page (seen on the Opus 5 page) lists
# Fable 5.2, Opus 5.5, Sonnet 5.5 and Haiku 5.5 at 1M/128K, Fable 5.2 and Opus 5.5 "Adaptive (always on)",
# Sonnet 5.5 and Haiku 5.5 "Adaptive". Thinking types: "thinking.type.enabled" is a 400 on Opus 5, Fable 5,
# Opus 4.8 and Sonnet 5 (handochan/aelix-ai#258, Automattic/studio#4363, Sylinko/Everywhere#410); adaptive is
# a 400 on Opus, Sonnet and Haiku 4.5 (askalf/dario#273); Fable 5 and Mythos 5 refuse "disabled" and
# "enabled" (https://platform.claude.com/docs/en/models/fable-5/migration-guide); Opus 4.7 and Mythos Preview
# accept adaptive only, Opus 4.6 and Sonnet 4.6 also the deprecated "enabled" (Amazon Bedrock's
# claude-messages-adaptive-thinking page). Compaction: the compaction page lists Mythos Preview, Opus 4.7,
# Opus 4.6 and Sonnet 4.6 (https://platform.claude.com/docs/en/build-with-claude/compaction); the later models
# are taken to run it too (unverified); the 4.5 models do not.
_FABLE_5_2 = ("https://platform.claude.com/docs/en/models/fable-5-2/migration-guide; Amazon Bedrock's model "
              "card for Mythos 5.2 (1M, 128K, launched November 9, 2026: 'the same underlying model as Claude "
              "Fable 5.2')")
_LINEUP = "the current-lineup table of " + _page("opus-5")
_MYTHOS = "shares the specifications of the Fable model of its number (" + _page("fable-5") + "), unverified"

MODELS: dict[str, Model] = {
    "claude-fable-5-2": Model("Claude Fable 5.2", "fable", 1_000_000, 128_000, ADAPTIVE_ONLY, True, _FABLE_5_2,
                              "2026-11-09"),
    "claude-mythos-5-2": Model("Claude Mythos 5.2", "mythos", 1_000_000, 128_000, ADAPTIVE_ONLY, True, _FABLE_5_2,
                               "2026-11-09"),
    "claude-haiku-5-5": Model("Claude Haiku 5.5", "haiku", 1_000_000, 128_000, ADAPTIVE, True, _LINEUP),
    "claude-sonnet-5-5": Model("Claude Sonnet 5.5", "sonnet", 1_000_000, 128_000, ADAPTIVE, True, _LINEUP),
    "claude-fable-5-1": Model("Claude Fable 5.1", "fable", 1_000_000, 128_000, ADAPTIVE_ONLY, True,
                              _LINEUP + " (an earlier copy of it, with Fable 5.1)"),
    "claude-opus-5-5": Model("Claude Opus 5.5", "opus", 1_000_000, 128_000, ADAPTIVE_ONLY, True, _LINEUP),
    "claude-mythos-5-1": Model("Claude Mythos 5.1", "mythos", 1_000_000, 128_000, ADAPTIVE_ONLY, True, _MYTHOS),
    "claude-sonnet-5": Model("Claude Sonnet 5", "sonnet", 1_000_000, 128_000, ADAPTIVE, True, _page("sonnet-5")),
    "claude-fable-5": Model("Claude Fable 5", "fable", 1_000_000, 128_000, ADAPTIVE_ONLY, True, _page("fable-5"),
                            "2026-06-09"),
    "claude-mythos-5": Model("Claude Mythos 5", "mythos", 1_000_000, 128_000, ADAPTIVE_ONLY, True,
                             _page("fable-5") + " ('It shares Claude Fable 5's specifications')", "2026-06-09"),
    "claude-opus-5": Model("Claude Opus 5", "opus", 1_000_000, 128_000, ADAPTIVE, True, _page("opus-5"),
                           "2026-07-24"),
    "claude-opus-4-8": Model("Claude Opus 4.8", "opus", 1_000_000, 128_000, ADAPTIVE, True,
                             _page("opus-4-8") + "; 'disabled' unverified"),
    "claude-opus-4-7": Model("Claude Opus 4.7", "opus", 1_000_000, 128_000, ADAPTIVE_ONLY, True,
                             "the cloud vendors' model cards (AWS Bedrock, model-card-anthropic-claude-opus-4-7; "
                             "Google Cloud, partner-models/claude/opus-4-7), unverified on platform.claude.com"),
    "claude-mythos-preview": Model("Claude Mythos Preview", "mythos", 1_000_000, 128_000, ADAPTIVE_ONLY, True,
                                   "window and output unverified (taken as Mythos 5's); thinking: Amazon Bedrock's "
                                   "adaptive-thinking page", retires="2026-06-30"),
    "claude-opus-4-6": Model("Claude Opus 4.6", "opus", 1_000_000, 128_000, ADAPTIVE_OR_BUDGET, True,
                             _page("opus-4-6")),
    "claude-sonnet-4-6": Model("Claude Sonnet 4.6", "sonnet", 1_000_000, 128_000, ADAPTIVE_OR_BUDGET, True,
                               _page("sonnet-4-6") + " (some third-party tables say 64K of output; its page 128K)"),
    "claude-haiku-4-5": Model("Claude Haiku 4.5", "haiku", 200_000, 64_000, EXTENDED, False, _page("haiku-4-5")),
    "claude-haiku-4-5-20251001": Model("Claude Haiku 4.5", "haiku", 200_000, 64_000, EXTENDED, False,
                                       _page("haiku-4-5")),
    "claude-opus-4-5": Model("Claude Opus 4.5", "opus", 200_000, 64_000, EXTENDED, False, _page("opus-4-5"),
                             retires="2027-01-22"),
    "claude-opus-4-5-20251101": Model("Claude Opus 4.5", "opus", 200_000, 64_000, EXTENDED, False,
                                      _page("opus-4-5"), retires="2027-01-22"),
}

MODEL_WINDOWS: dict[str, int] = {model: spec.window for model, spec in MODELS.items()}
MODEL_MAX_OUTPUT: dict[str, int] = {model: spec.max_output for model, spec in MODELS.items()}


def model_spec(model: str) -> Model:
    """The table's entry for ``model``; ValueError naming the known ids for any other."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; known: {', '.join(sorted(MODELS))}")
    return MODELS[model]


def context_window(model: str, windows: Mapping[str, int] = MODEL_WINDOWS) -> int:
    """The model's context window in tokens."""
    return _lookup(model, windows, "context window")


def max_output(model: str, limits: Mapping[str, int] = MODEL_MAX_OUTPUT) -> int:
    """The most output tokens the model may be asked for, looked up like ``context_window``."""
    return _lookup(model, limits, "maximum output")


def _lookup(model: str, table: Mapping[str, int], what: str) -> int:
    if model in table:
        return table[model]
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
