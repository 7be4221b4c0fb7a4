"""Figure builders and the slider callbacks of chapters 00 and 01 (harness/labs/plots.py)."""
from __future__ import annotations

import io

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from harness.labs.growth import CATEGORIES, GrowthSeries, estimate_and_count, mix_text
from harness.labs.plots import (composition_figure, estimate_ratio_figure, growth_figure,
                                session_growth_figure, token_mix_figure)

ENGLISH = "The window holds what the model can read in one call, and no more than that."
CHINESE = "模型每一次调用只能读入窗口里的内容，窗口满了就必须先整理旧的对话。"
WINDOW = 200_000


def synthetic_session(requests: int = 71) -> tuple[GrowthSeries, list[int]]:
    """A session shaped like chapter 00's: request i takes 1 + i % 4 calls, each adding tokens."""
    ends, context, calls = [], [], 0
    for i in range(requests):
        for _ in range(1 + i % 4):
            context.append((context[-1] if context else 500) + 300 + 50 * (i % 7))
            calls += 1
        ends.append(calls)
    billed = [sum(context[: k + 1]) for k in range(len(context))]
    return GrowthSeries(tuple(context), tuple(billed), tuple(context), tuple(context)), ends


SERIES, ENDS = synthetic_session()


def check_basics(fig: Figure, size: tuple[float, float], axes: int) -> None:
    assert isinstance(fig, Figure)
    assert tuple(fig.get_size_inches()) == size
    assert len(fig.axes) == axes
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
        assert ax.get_legend() is not None
    fig.savefig(io.BytesIO(), format="png")  # it draws


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


# --- chapter 00 --------------------------------------------------------------------

@pytest.mark.parametrize("requests", range(1, len(ENDS) + 1))
def test_session_growth_slider_over_its_whole_range(requests):
    before = plt.get_fignums()
    fig = session_growth_figure(SERIES, ENDS, requests, WINDOW)
    assert plt.get_fignums() == before, "not registered with pyplot: shown once, never leaked"
    assert tuple(fig.get_size_inches()) == (11.0, 4.0) and len(fig.axes) == 2
    context_ax, billed_ax = fig.axes
    calls = ENDS[requests - 1]
    context_line, billed_line = context_ax.get_lines()[0], billed_ax.get_lines()[0]
    assert list(context_line.get_ydata()) == list(SERIES.context[:calls])
    assert list(billed_line.get_ydata()) == list(SERIES.billed[:calls])
    assert context_ax.get_xlim() == billed_ax.get_xlim() == (0, len(SERIES) + 1), "axes fixed to the session"
    assert billed_ax.get_ylim()[1] >= SERIES.billed[-1]
    assert context_ax.get_ylim()[1] > WINDOW
    title = fig._suptitle.get_text()
    assert f"after {requests} of {len(ENDS)} requests: {calls} calls" in title
    assert f"{SERIES.context[calls - 1]:,} tokens" in title and f"{SERIES.billed[calls - 1]:,} billed" in title
    assert "context window (200,000 tokens)" in legend_texts(context_ax)


def test_session_growth_slider_draws_and_is_labelled():
    check_basics(session_growth_figure(SERIES, ENDS, 30, WINDOW), (11.0, 4.0), 2)


@pytest.mark.parametrize("requests", [0, len(ENDS) + 1])
def test_session_growth_slider_refuses_out_of_range(requests):
    with pytest.raises(ValueError):
        session_growth_figure(SERIES, ENDS, requests, WINDOW)


def test_growth_figure_puts_compared_runs_on_the_same_axes():
    small = SERIES.first(40)
    fig = growth_figure({"no compaction": SERIES, "compacted": small}, window=WINDOW)
    check_basics(fig, (11.0, 4.0), 2)
    context_ax, billed_ax = fig.axes
    assert legend_texts(context_ax) == ["no compaction", "compacted", "context window (200,000 tokens)"]
    assert legend_texts(billed_ax) == ["no compaction", "compacted"]
    assert context_ax.get_ylim()[1] >= WINDOW


def test_growth_figure_marks_the_refused_call_on_both_charts():
    call = len(SERIES) + 1
    fig = growth_figure({"no compaction": SERIES}, window=WINDOW, refused=(call, WINDOW + 42))
    check_basics(fig, (11.0, 4.0), 2)
    context_ax, billed_ax = fig.axes
    assert legend_texts(context_ax) == ["no compaction", "context window (200,000 tokens)",
                                        f"call {call} refused (400): 200,042 tokens"]
    assert legend_texts(billed_ax) == ["no compaction", f"call {call} refused"]
    assert context_ax.get_ylim()[1] >= WINDOW + 42


def test_growth_figure_without_window_scales_to_the_data():
    fig = growth_figure({"run": SERIES})
    assert fig.axes[0].get_ylim()[1] >= max(SERIES.context)
    assert legend_texts(fig.axes[0]) == ["run"]


def test_composition_figure_stacks_only_the_categories_present():
    parts = [dict.fromkeys(CATEGORIES, 0) for _ in range(3)]
    for i, p in enumerate(parts):
        p.update({"system": 500, "user text": 10 * (i + 1), "tool results": 1000 * i})
    fig = composition_figure(parts)
    check_basics(fig, (7.0, 4.0), 1)
    assert legend_texts(fig.axes[0]) == ["tool results", "user text", "system"], "top of the stack first"
    assert fig.axes[0].get_ylim()[1] >= 500 + 30 + 2000


def test_composition_figure_of_nothing_still_draws():
    fig = composition_figure([])
    assert len(fig.axes) == 1 and fig.axes[0].get_legend() is None
    fig.savefig(io.BytesIO(), format="png")


# --- chapter 01 --------------------------------------------------------------------

def test_estimate_ratio_figure_shows_one_ratio_per_sample():
    samples = {"code": (1_947, 1_944), "prose": (124, 95), "Chinese": (49, 190)}
    fig = estimate_ratio_figure(samples)
    check_basics(fig, (7.0, 4.0), 1)
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx([e / c for e, c in samples.values()])
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["1,947 / 1,944", "124 / 95", "49 / 190"]


@pytest.mark.parametrize("percent", range(0, 101, 10))
def test_token_mix_slider_over_its_whole_range(percent):
    fig = token_mix_figure(ENGLISH, CHINESE, percent)
    assert tuple(fig.get_size_inches()) == (7.0, 4.0) and len(fig.axes) == 1
    ax = fig.axes[0]
    estimate, counted = estimate_and_count(mix_text(ENGLISH, CHINESE, percent, 400))
    assert f"estimate {estimate:,} vs cl100k {counted:,}" in ax.get_title()
    estimate_line, count_line, marker = ax.get_lines()
    assert list(estimate_line.get_xdata()) == list(range(0, 101, 10))
    assert count_line.get_ydata()[percent // 10] == counted
    assert list(marker.get_xdata()) == [percent, percent]
    assert legend_texts(ax)[-1] == f"{percent}% Chinese"
    assert ax.get_ylim()[1] > max(max(estimate_line.get_ydata()), max(count_line.get_ydata()))


def test_token_mix_slider_draws_and_is_labelled():
    check_basics(token_mix_figure(ENGLISH, CHINESE, 50), (7.0, 4.0), 1)


@pytest.mark.parametrize("percent", [-10, 110])
def test_token_mix_slider_refuses_out_of_range(percent):
    with pytest.raises(ValueError):
        token_mix_figure(ENGLISH, CHINESE, percent)
