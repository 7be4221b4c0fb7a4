"""Lab helpers for chapter 03 (auto-compaction): the sawtooth, its slider, the order pitfall.

Pure functions of their arguments. ``threshold_run`` measures one session
(the context of every agent call and where auto-compaction fired),
``sawtooth_figure`` draws runs against the threshold, ``explore_threshold``
is the slider callback. ``placeholder_results`` and ``logged_results`` show
what a transcript lost to micro-compaction and what the session log kept.

The runs take the ``auto_compact`` to use (``compact=``, the harness's by
default): the chapter passes the student's own, as ``ThreeLayers(summarise=...)``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from ..core.auto import AutoReport, auto_compact
from ..core.config import CompactionConfig
from ..core.messages import Message, iter_tool_results, result_text, tool_names_by_id
from ..core.micro import is_placeholder
from ..session.runner import Session
from ..strategies.three_layers import ThreeLayers
from .runs import run_scenario
from .scenarios import LONG_SESSION
from .style import BASELINE, LEGEND_OUTSIDE, SAWTOOTH, STRATEGY_COLOURS, new_figure

THRESHOLD_RANGE = (10_000, 80_000, 10_000)  # slider: min, max, step
SAWTOOTH_REQUESTS = LONG_SESSION.requests[:20] # reads agents/, core/ and tools/: about 77k uncompressed

AutoCompact = Callable[..., AutoReport]  # (client, messages, config, focus) -> AutoReport, like auto_compact


@dataclass(frozen=True)
class ThresholdRun:
    """One session seen through auto-compaction."""
    threshold: int
    context: tuple[int, ...]      # estimate_tokens of the history each agent call was sent
    compactions: tuple[int, ...]  # the agent calls just before which auto-compaction fired
    model_calls: int
    summary_calls: int
    re_reads: int
    billed: int                   # reported input tokens of all calls, summaries included
    before: tuple[int, ...] = ()  # estimate_tokens of the history each compaction replaced (never sent)

    @property
    def peak(self) -> int:
        return max(self.context, default=0)


def threshold_run(session: Session) -> ThresholdRun:
    """Measure a finished session."""
    stats = session.stats
    return ThresholdRun(
        session.config.threshold,
        tuple(t.estimated for t in session.trace if t.kind == "agent"),
        tuple(e.call for e in session.events if e.kind == "auto"),
        stats.model_calls, stats.summary_calls, stats.re_reads, stats.input_tokens_billed,
        tuple(e.tokens_before for e in session.events if e.kind == "auto"))


def run_with_threshold(threshold: int, root: str | Path, requests: tuple[str, ...] = SAWTOOTH_REQUESTS,
                       compact: AutoCompact = auto_compact) -> ThresholdRun:
    """Run the long session's first requests with this THRESHOLD (defaults otherwise) under ``root``,
    summarising with ``compact``."""
    session = run_scenario(LONG_SESSION, CompactionConfig(threshold=threshold), root, requests=requests,
                           compactor=ThreeLayers(summarise=compact))
    return threshold_run(session)


def sawtooth_figure(run: ThresholdRun, uncompressed: Sequence[int], title: str,
                    uncompressed_label: str = "uncompressed") -> Figure:
    """Context per agent call, compressed and uncompressed in the same axes, with the threshold; a diamond
    at each compaction marks the history it replaced, which grew past the line and was never sent."""
    figure = new_figure(SAWTOOTH)
    axes = figure.subplots()
    axes.plot(range(1, len(uncompressed) + 1), uncompressed, **BASELINE,
              label=uncompressed_label)
    axes.plot(range(1, len(run.context) + 1), run.context, color=STRATEGY_COLOURS["three_layers"], linewidth=2,
              label="micro + auto")
    axes.axhline(run.threshold, color="#d62728", linestyle=":", label=f"THRESHOLD = {run.threshold:,}")
    for n, call in enumerate(run.compactions):
        axes.axvline(call, color="#ff7f0e", alpha=0.6, linewidth=1,
                     label="auto_compact fired" if n == 0 else None)
    if run.compactions:  # a collection, not a line: axes.lines stay the curves, the threshold and the firings
        axes.scatter(run.compactions, run.before, marker="D", s=30, color="#ff7f0e", edgecolor="black",
                     linewidth=0.5, zorder=3, label="history compacted (never sent)")
    axes.set_xlabel("agent model call")
    axes.set_ylabel("context sent (estimate_tokens)")
    axes.set_title(title, fontsize=10)
    axes.legend(**LEGEND_OUTSIDE, fontsize=9)  # outside: curves fill the axes
    return figure


def explore_threshold(threshold: int, *, uncompressed: Sequence[int], root: str | Path,
                      requests: tuple[str, ...] = SAWTOOTH_REQUESTS, compact: AutoCompact = auto_compact) -> Figure:
    """Slider callback of chapter 03: the sawtooth of the first requests for one THRESHOLD, summarised
    by ``compact`` (the student's auto_compact in the chapter)."""
    run = run_with_threshold(threshold, root, requests, compact)
    title = (f"THRESHOLD {threshold:,}: auto-compactions {len(run.compactions)}, agent calls {run.model_calls}, "
             f"re-reads {run.re_reads}, input tokens billed (no caching) {run.billed:,}")
    return sawtooth_figure(run, uncompressed, title)


def placeholder_results(messages: list[Message]) -> list[tuple[str, str]]:
    """(tool_use id, tool name) of every tool_result whose content is a micro placeholder."""
    names = tool_names_by_id(messages)
    return [(block["tool_use_id"], names.get(block["tool_use_id"], "unknown"))
            for _, _, block in iter_tool_results(messages) if is_placeholder(result_text(block))]


def logged_results(records: list[dict[str, Any]]) -> dict[str, str]:
    """tool_use id -> content of every tool_result in a SessionLog's message records."""
    logged = [r["message"] for r in records if r["kind"] == "message"]
    return {block["tool_use_id"]: result_text(block) for _, _, block in iter_tool_results(logged)}
