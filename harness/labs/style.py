"""One plot style for every chapter: sizes, number formats, legend places, colours (chapters 00-10).

Every figure builder in ``harness.labs`` takes its size, its axis formats
and its colours from here, so a curve means the same thing in every chapter:
the same strategy always has the same colour, token counts always have
thousands separators, money always has a dollar sign.
"""
from __future__ import annotations

from matplotlib.figure import Figure

WIDE = (11.0, 4.0)          # two panels side by side
TALL_WIDE = (11.0, 4.5)     # one wide panel with a three-line title
SINGLE = (7.0, 4.0)         # one panel
SINGLE_WIDE = (8.0, 4.0)    # one panel with a long title or legend
BARS_AND_CURVE = (12.0, 4.2)
SAWTOOTH = (10.0, 4.2)
RETENTION = (10.0, 4.5)     # a heat map: facts down, strategies across
LEGEND = {"loc": "upper left"}                                          # inside, where curves start low
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}    # beside, when curves fill the axes

REMEMBERED, FORGOTTEN = "#b7e4b0", "#f4b6b0"       # a fact kept / lost, light enough to write on
BASELINE = {"color": "#7f7f7f", "linestyle": "--"}  # no compaction, drawn the same way everywhere
STRATEGY_COLOURS = {                                 # one colour per strategy, in every chapter
    "none": "#7f7f7f",
    "three_layers": "#1f77b4",
    "usage_triggered": "#2ca02c",
    "structured_summary": "#9467bd",
    "clear_tool_uses_20250919": "#ff7f0e",
    "compact_20260112": "#d62728",
    "whole_conversation_layers": "#bcbd22",
    "reversible": "#17becf",
    "batched_micro": "#8c564b",
}


def thousands(value: float, _position: object = None) -> str:
    """An axis tick in tokens: 12,345."""
    return f"{value:,.0f}"


def millions(value: float, _position: object = None) -> str:
    """An axis tick in millions of tokens: 1.2M."""
    return f"{value / 1e6:,.1f}M"


def dollars(value: float, _position: object = None) -> str:
    """An axis tick in dollars: $1.23."""
    return f"${value:,.2f}"


def new_figure(size: tuple[float, float]) -> Figure:
    """A figure of a fixed size, laid out so labels never overlap, not registered with pyplot
    (nothing is drawn twice: show it with ``display(fig)`` or return it from a slider callback)."""
    return Figure(figsize=size, layout="constrained")
