"""Figure builders for the growth and token-count charts (chapters 00 and 01).

Each builder is a pure function: data in, a fixed-size ``matplotlib`` Figure
out, with labelled axes and a legend. The figures are not registered with
pyplot, so nothing is drawn twice: show one with ``display(fig)``, or return
it from a slider panel's callback (``harness.labs.panel``).
"""
from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .growth import CATEGORIES, GrowthSeries, calls_after_requests, estimate_and_count, mix_text
from .style import SINGLE, WIDE, millions, new_figure, thousands

CATEGORY_COLOURS = dict(zip(CATEGORIES, ("#7f7f7f", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
                                         "#bcbd22", "#17becf")))


def growth_figure(runs: dict[str, GrowthSeries], *, window: int | None = None,
                  extent: GrowthSeries | None = None, title: str | None = None,
                  refused: tuple[int, int] | None = None) -> Figure:
    """Left: context sent per agent call; right: input tokens billed so far. One line per run.
    ``window`` draws the context window as a dashed line; ``extent`` fixes both axes to a
    larger series so that a growing run can be watched against its end. ``refused`` (introduced by chapter 00)
    marks the call the API refused, as (call, input tokens): a cross on the left, a dotted line on both."""
    fig = new_figure(WIDE)
    context_ax, billed_ax = fig.subplots(1, 2)
    for label, series in runs.items():
        context_ax.plot(list(series.calls), series.context, label=label)
        billed_ax.plot(list(series.calls), series.billed, label=label)
    if window:
        context_ax.axhline(window, color="black", linestyle="--", linewidth=1,
                           label=f"context window ({window:,} tokens)")
    if refused:
        mark_refused(context_ax, billed_ax, *refused)
    tallest = max([max(s.context, default=0) for s in runs.values()]
                  + [window or 0, refused[1] if refused else 0])
    if extent is not None and len(extent):
        tallest = max(tallest, max(extent.context))
        context_ax.set_xlim(0, len(extent) + 1)
        billed_ax.set_xlim(0, len(extent) + 1)
        billed_ax.set_ylim(0, extent.billed[-1] * 1.05)
    context_ax.set(xlabel="model call", ylabel="input tokens sent in this call",
                   title="context per call")
    billed_ax.set(xlabel="model call", ylabel="input tokens billed so far",
                  title="cumulative input tokens billed")
    context_ax.set_ylim(0, max(tallest, 1) * 1.35)  # headroom: the legend sits above the curves
    context_ax.yaxis.set_major_formatter(thousands)
    billed_ax.yaxis.set_major_formatter(millions)
    context_ax.legend(loc="upper left")
    billed_ax.legend(loc="upper left")
    if title:
        fig.suptitle(title)
    return fig


def mark_refused(context_ax: Axes, billed_ax: Axes, call: int, tokens: int) -> None:
    """The refused call: a red cross at its input tokens, a dotted line at its number on both axes."""
    context_ax.plot([call], [tokens], marker="X", markersize=9, color="#d62728", linestyle="none",
                    label=f"call {call} refused (400): {tokens:,} tokens")
    context_ax.axvline(call, color="#d62728", linestyle=":", linewidth=1)
    billed_ax.axvline(call, color="#d62728", linestyle=":", linewidth=1, label=f"call {call} refused")


def session_growth_figure(series: GrowthSeries, request_ends: list[int], requests: int,
                          window: int) -> Figure:
    """The ch00 slider: the growth curves after the first ``requests`` requests of a session,
    drawn on the axes of the whole session (``request_ends[i]``: calls after request i+1)."""
    calls = calls_after_requests(request_ends, requests)
    so_far = series.first(calls)
    title = (f"after {requests} of {len(request_ends)} requests: {calls} calls, "
             f"last context {so_far.context[-1]:,} tokens, {so_far.billed[-1]:,} billed")
    return growth_figure({"no compaction": so_far}, window=window, extent=series, title=title)


def composition_figure(compositions: list[dict[str, int]], title: str = "what the context is made of"
                       ) -> Figure:
    """Stacked areas: tokens of each category in every request, in ``CATEGORIES`` order.
    Categories that are empty in every request are left out of the chart and its legend."""
    fig = new_figure(SINGLE)
    ax = fig.subplots()
    present = [c for c in CATEGORIES if any(parts[c] for parts in compositions)]
    calls = list(range(1, len(compositions) + 1))
    if present:
        ax.stackplot(calls, [[parts[c] for parts in compositions] for c in present],
                     labels=present, colors=[CATEGORY_COLOURS[c] for c in present])
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles[::-1], labels[::-1], loc="upper left")  # same order as the stack
    ax.set(xlabel="model call", ylabel="input tokens", title=title)
    ax.yaxis.set_major_formatter(thousands)
    return fig


def estimate_ratio_figure(samples: dict[str, tuple[int, int]]) -> Figure:
    """One bar per sample: seed estimate / cl100k count (1.0 would be exact), each bar
    labelled with both numbers."""
    fig = new_figure(SINGLE)
    ax = fig.subplots()
    names = list(samples)
    ratios = [samples[n][0] / samples[n][1] for n in names]
    bars = ax.bar(names, ratios, width=0.5, color="#1f77b4", label="estimate / cl100k count")
    ax.bar_label(bars, [f"{samples[n][0]:,} / {samples[n][1]:,}" for n in names], padding=3)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="estimate = count")
    ax.set_ylim(0, max(1.5, max(ratios) * 1.2))
    ax.set(xlabel="sample", ylabel="estimate / cl100k count",
           title="len(str(messages)) // 4 against tiktoken cl100k")
    ax.legend(loc="upper right")
    return fig


def token_mix_figure(english: str, chinese: str, chinese_percent: int, length: int = 400) -> Figure:
    """The ch01 slider: estimate and cl100k count of ``length`` characters that are
    ``chinese_percent`` % Chinese, on the curves for every multiple of 10 %."""
    estimate, counted = estimate_and_count(mix_text(english, chinese, chinese_percent, length))
    shares = list(range(0, 101, 10))
    curves = [estimate_and_count(mix_text(english, chinese, s, length)) for s in shares]
    fig = new_figure(SINGLE)
    ax = fig.subplots()
    ax.plot(shares, [e for e, _ in curves], marker=".", label="estimate len(str(messages)) // 4")
    ax.plot(shares, [c for _, c in curves], marker=".", label="tiktoken cl100k")
    ax.axvline(chinese_percent, color="black", linestyle=":", linewidth=1,
               label=f"{chinese_percent}% Chinese")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, max(max(pair) for pair in curves) * 1.1)
    ax.set(xlabel=f"share of Chinese characters in {length} characters (%)", ylabel="tokens",
           title=f"estimate {estimate:,} vs cl100k {counted:,} "
                 f"(estimate / count = {estimate / counted:.2f})")
    ax.legend(loc="upper left")
    return fig
