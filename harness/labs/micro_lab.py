"""Lab helpers for chapter 02 (micro-compaction): what its cells print and its sliders draw.

Everything here is a pure function of its arguments: ``outline`` renders a
history one block a line, ``measure_micro`` applies a micro-compaction function
(``micro_compact``, or the student's own) to a copy of a history and runs the
12-file task with it and the same knobs, and ``micro_figure`` draws both.
With parallel calls (this fake's default) the task is a listing, one turn of
twelve reads and the answer; ``price_micro(one_call=True)`` runs it one call a
turn instead, where clearing between calls shows in the cache.
``MicroKnobs`` is the slider callback: one ``MicroPicture`` laid out once and
redrawn in place for every setting. ``price_micro`` prices the task with and
without prompt caching (chapter 09's cache model).

The student's function edits the history in place and returns a count, or
nothing; the loop wants a ``MicroReport``. ``micro_layer`` bridges the two: it
runs the function and reports what changed, by comparing every tool result
before and after. ``ThreeLayers(micro=layer)`` is the reference strategy with
such a layer as its micro layer.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure

from ..core.config import CompactionConfig
from ..core.messages import (Message, blocks, check_shape, iter_tool_results, iter_tool_uses, result_text,
                             tool_names_by_id)
from ..core.micro import Cleared, MicroReport, micro_compact
from ..core.tokens import estimate_tokens
from ..fake import fake_client
from ..strategies.one_call import OneCallPerTurn
from ..strategies.three_layers import ThreeLayers
from .blit import Blitted
from .cost import CostReport, Prices, cache_recorder, cost_of
from .runs import run_scenario
from .scenarios import TWELVE_FILES
from .style import BARS_AND_CURVE, BASELINE, STRATEGY_COLOURS, new_figure

PRESERVABLE_TOOLS = ("read_file", "list_files")  # the tools the 12-file task uses
KEEP_RECENT_RANGE = (0, 13)  # slider bounds: 13 tool results in the 12-file task
LAB_MAX_TURNS = 40  # the task needs 14 calls; a death spiral shows well before 40

MicroLayer = Callable[[list[Message], int, frozenset[str], int], MicroReport]


def micro_layer(clear: Callable[..., object]) -> MicroLayer:
    """``clear`` as a micro layer the loop and this lab can run. ``clear`` takes micro_compact's four
    arguments, edits the history in place and may return anything (a count, nothing, a report); the
    layer returns the MicroReport of what it changed. A ``clear`` that adds, removes or moves a
    tool_result raises ValueError: micro-compaction only rewrites their content."""
    def layer(messages: list[Message], keep_recent: int, preserve_tools: frozenset[str],
              min_chars: int) -> MicroReport:
        before = [(i, j, block["tool_use_id"], copy.deepcopy(block.get("content", "")))
                  for i, j, block in iter_tool_results(messages)]
        clear(messages, keep_recent, preserve_tools, min_chars)
        after = iter_tool_results(messages)
        if [(i, j, block["tool_use_id"]) for i, j, block in after] != [place[:3] for place in before]:
            raise ValueError(f"{getattr(clear, '__name__', 'the function')} added, removed or moved tool "
                             "results: micro-compaction may only rewrite their content")
        names = tool_names_by_id(messages)
        return MicroReport([Cleared(i, j, tool_id, names.get(tool_id, "unknown"), old, block.get("content", ""))
                            for (i, j, tool_id, old), (_, _, block) in zip(before, after)
                            if block.get("content", "") != old])
    return layer



def preserve_set(read_file: bool, list_files: bool) -> frozenset[str]:
    """The preserve_tools set that two checkboxes describe."""
    return frozenset(name for name, on in zip(PRESERVABLE_TOOLS, (read_file, list_files)) if on)


def result_label(name: str, tool_input: dict) -> str:
    """A short label for one tool call: the file name it read, or the tool and its path."""
    path = str(tool_input.get("path", ""))
    if name == "read_file" and path:
        return path.rsplit("/", 1)[-1]
    return f"{name} {path}".strip()


def result_labels(messages: list[Message]) -> list[str]:
    """One label per tool_result, oldest first (from the tool_use that asked for it)."""
    uses = {block["id"]: block for _, block in iter_tool_uses(messages)}
    labels = []
    for _, _, block in iter_tool_results(messages):
        use = uses.get(block["tool_use_id"])
        labels.append(result_label(use["name"], use["input"]) if use else "unknown")
    return labels


def result_chars(messages: list[Message]) -> list[int]:
    """Each tool result's length in characters, oldest first."""
    return [len(result_text(block)) for _, _, block in iter_tool_results(messages)]


def result_tokens(messages: list[Message]) -> list[int]:
    """Each tool_result's content, estimated like the seed does (characters // 4)."""
    return [chars // 4 for chars in result_chars(messages)]


def outline(messages: list[Message], width: int = 60) -> list[str]:
    """The history one block a line: role, block type and a short view of the content."""
    check_shape(messages)
    lines = []
    for i, message in enumerate(messages):
        for block in blocks(message):
            kind = block.get("type")
            if kind == "tool_use":
                body = f"{block['name']}({', '.join(f'{k}={v!r}' for k, v in block['input'].items())})"
            elif kind == "tool_result":
                content = result_text(block)
                short = len(content) <= width and "\n" not in content
                body = content if short else f"<{len(content):,} characters>"
            else:
                first = block.get("text", "").splitlines()[0] if block.get("text") else ""
                body = first if len(first) <= width else first[: width - 3] + "..."
            lines.append(f"[{i:>2}] {message['role']:<9} {kind:<11} {body}")
    return lines


@dataclass(frozen=True)
class MicroLab:
    """What one setting of the knobs does, statically and in the loop."""
    keep_recent: int
    preserve_tools: frozenset[str]
    labels: tuple[str, ...]        # one per tool_result of the history
    before: tuple[int, ...]        # estimated tokens of each result before micro
    after: tuple[int, ...]         # ... and after
    tokens_before: int             # estimate_tokens of the whole history
    tokens_after: int
    cleared: int
    context: tuple[int, ...]       # reported input tokens of each call of a loop run
    model_calls: int
    re_reads: int
    hit_max_turns: bool

    @property
    def saved_percent(self) -> float:
        return 100 * (self.tokens_before - self.tokens_after) / self.tokens_before


def measure_micro(history: list[Message], keep_recent: int, preserve_tools: frozenset[str],
                  root: str | Path, *, clear: Callable[..., object] = micro_compact) -> MicroLab:
    """Micro-compact a copy of ``history`` with ``clear`` (``micro_compact``'s arguments; yours, say),
    and run the 12-file task under ``root`` with ``clear`` as the micro layer and the same knobs."""
    config = CompactionConfig(keep_recent=keep_recent, preserve_tools=preserve_tools, auto=False,
                              max_turns=LAB_MAX_TURNS)
    layer = micro_layer(clear)
    check_shape(history)  # before the copy: a history too deep for deepcopy is InvalidHistory, not RecursionError
    compacted = copy.deepcopy(history)
    report = layer(compacted, config.keep_recent, config.preserve_tools, config.min_chars)
    session = run_scenario(TWELVE_FILES, config, root, compactor=ThreeLayers(micro=layer))
    stats = session.stats
    return MicroLab(
        keep_recent, frozenset(preserve_tools), tuple(result_labels(history)),
        tuple(result_tokens(history)), tuple(result_tokens(compacted)),
        estimate_tokens(history), estimate_tokens(compacted), len(report.cleared),
        tuple(t.input_tokens for t in session.trace), stats.model_calls, stats.re_reads,
        "max_turns" in stats.compactions)


def price_micro(root: str | Path, prices: Prices, clear: Callable[..., object] | None = micro_compact,
                keep_recent: int = 3, preserve_tools: frozenset[str] = frozenset(), *,
                one_call: bool = False) -> tuple[CostReport, CostReport]:
    """The 12-file task priced (with caching, without) at ``prices``: ``clear`` as its micro layer with
    these knobs, or no micro-compaction at all when ``clear`` is None; with ``one_call``, the model is
    asked for one tool call per turn (``OneCallPerTurn``)."""
    recorder = cache_recorder(fake_client())
    compactor = ThreeLayers() if clear is None else ThreeLayers(micro=micro_layer(clear))
    if clear is None:
        config = CompactionConfig(micro=False, auto=False)
    else:
        config = CompactionConfig(keep_recent=keep_recent, preserve_tools=preserve_tools, auto=False,
                                  max_turns=LAB_MAX_TURNS)
    session = run_scenario(TWELVE_FILES, config, root, client=recorder,
                           compactor=OneCallPerTurn(compactor) if one_call else compactor)
    return (cost_of(session.trace, recorder.records, prices, caching=True),
            cost_of(session.trace, recorder.records, prices, caching=False))


class MicroPicture:
    """Chapter 02's figure, laid out once and redrawn in place. Left: each tool_result before and after
    micro. Right: context per call, with and without micro. ``show(lab)`` puts one setting's numbers
    on it; what changes between settings is only the blue bars, the blue curve and the two titles."""

    def __init__(self, labels: Sequence[str], before: Sequence[int], baseline: Sequence[int], *,
                 fixed_axes: bool = False) -> None:
        self.figure = new_figure(BARS_AND_CURVE)
        self.fixed_axes = fixed_axes  # for a slider: room for every setting, so only the data moves
        self.bars_ax, self.curves_ax = self.figure.subplots(1, 2, width_ratios=(3, 2))
        x = range(len(labels))
        self.bars_ax.bar(x, before, color="#c8c8c8", label="before micro_compact")
        self.after = self.bars_ax.bar(x, [0] * len(labels), width=0.5, color="#1f77b4", label="after micro_compact")
        self.bars_ax.set_xticks(list(x), labels, rotation=60, ha="right", fontsize=8)
        self.bars_ax.set(xlabel="tool_result, oldest first", ylabel="estimated tokens (characters / 4)",
                         ylim=(0, 1.3 * max(before, default=1)))
        self.bars_ax.legend(loc="upper left", ncols=2)
        (self.curve,) = self.curves_ax.plot([], [], color=STRATEGY_COLOURS["three_layers"], linewidth=2.5,
                                            label="this setting")
        self.curves_ax.plot(range(1, len(baseline) + 1), baseline, **BASELINE, label="no micro_compact")
        self.curves_ax.set(xlabel="model call", ylabel="input tokens of the call (reported)")
        if fixed_axes:  # a death spiral runs LAB_MAX_TURNS calls; micro never grows a call's input
            self.curves_ax.set(xlim=(0, max(LAB_MAX_TURNS, len(baseline)) + 1), ylim=(0, 1.15 * max(baseline)))
        self.curves_ax.legend(loc="upper left")
        self.laid_out = False
        self.moving = [*self.after.patches, self.curve, self.bars_ax.get_legend(), self.curves_ax.get_legend(),
                       self.bars_ax.title, self.curves_ax.title]  # what changes, and what may lie over it

    def show(self, lab: MicroLab) -> Figure:
        """The figure with ``lab``'s numbers (the same Figure every time: draw it before the next show)."""
        for bar, tokens in zip(self.after, lab.after):
            bar.set_height(tokens)
        preserved = ", ".join(sorted(lab.preserve_tools)) or "nothing"
        self.bars_ax.set_title(f"keep_recent={lab.keep_recent}, preserve {preserved}: history "
                               f"{lab.tokens_before:,} -> {lab.tokens_after:,} tokens ({lab.saved_percent:.0f}% saved)",
                               fontsize=10)
        self.curve.set_data(range(1, len(lab.context) + 1), lab.context)
        if not self.fixed_axes:
            self.curves_ax.relim()
            self.curves_ax.autoscale_view()
        outcome = "death spiral (max_turns)" if lab.hit_max_turns else "task done"
        self.curves_ax.set_title(f"the loop: {lab.model_calls} calls, {lab.re_reads} re-reads, {outcome}",
                                 fontsize=10)
        if not self.laid_out:  # lay out once; later settings keep the places and only redraw
            self.figure.draw_without_rendering()
            self.figure.set_layout_engine("none")
            self.laid_out = True
        return self.figure


def micro_figure(lab: MicroLab, baseline: Sequence[int]) -> Figure:
    """One setting's figure, on a picture of its own."""
    return MicroPicture(lab.labels, lab.before, baseline).show(lab)


class MicroKnobs:
    """Slider callback of chapter 02: the figure for one setting of KEEP_RECENT and the toggles, with
    ``clear`` (yours) as the micro-compaction, on one picture whose still parts are drawn once."""

    def __init__(self, history: list[Message], baseline: Sequence[int], root: str | Path,
                 clear: Callable[..., object] = micro_compact) -> None:
        self.history, self.root, self.clear = history, root, clear
        self.picture = MicroPicture(result_labels(history), result_tokens(history), baseline, fixed_axes=True)
        self.drawing = Blitted(self.picture.figure, self.picture.moving)

    def __call__(self, keep_recent: int, preserve_read_file: bool, preserve_list_files: bool) -> Blitted:
        lab = measure_micro(self.history, keep_recent, preserve_set(preserve_read_file, preserve_list_files),
                            self.root, clear=self.clear)
        self.picture.show(lab)
        return self.drawing
