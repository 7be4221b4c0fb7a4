"""Chapter 08's lab: every registered strategy on the same session, side by side.

``run_strategies`` sends the same requests through the same loop and fake
once per strategy, then puts the amnesia probe to each final history, so
the table compares like with like: model calls, re-reads, peak context,
input tokens billed and the fraction of probed facts still known. The
retention table and heat map break that fraction down fact by fact, each
fact with its grading (when it was said, and where it lives).

The fake enforces the pretend window on every call, summaries included, so
a strategy whose request does not fit gets the API's 400. The baseline
cannot fit by construction: it runs on the model's real window, and
chapter 08 shows where the pretend one refuses it.

Chapter 08 runs every strategy with one tool call per turn (``one_call_per_turn``):
with parallel calls a turn of twelve reads adds about 25,000 tokens at once, more
than the room a matched trigger leaves under the pretend window, and the chapter
compares strategies, not margins. The clearing sliders do the same, so their
first position is the chapter's section 3.

Every run is also priced in dollars, with and without prompt caching
(chapter 09's cache model), at the list prices of the model it ran on
(``cost.prices_for``): ``SESSION_PRICES`` for Haiku 4.5, Sonnet 4.6's for the
API's compaction, which Haiku 4.5 does not run. The cache sees each request
as the model sees it: after the server's context management, so a clearing
that rewrites an old block costs a cache write, as it would on the API.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.colors import ListedColormap

from ..core.config import CompactionConfig
from ..fake import fake_client
from ..fake.context_management import apply_context_management, compaction_blocks
from ..fake.request import request_tokens
from ..session.runner import Session
from ..strategies.base import Compactor
from ..strategies.one_call import OneCallPerTurn
from ..strategies.registry import PRETEND_WINDOW, Strategy, all_strategies
from ..strategies.server_side import ServerCompaction, ServerToolClearing
from .blit import Blitted
from .amnesia import WORK_REQUESTS, AmnesiaReport, Probe, probe_amnesia
from .cost import CostReport, Prices, Segment, cost_of, prices_for, request_segments
from .parallel import run_all
from .recording import RecordingClient
from .runs import run_scenario
from .scenarios import LONG_SESSION, TWELVE_FILES, Scenario
from .tables import Table
from .style import FORGOTTEN, REMEMBERED, RETENTION, SINGLE_WIDE, STRATEGY_COLOURS, new_figure


def one_call_per_turn(strategy: Strategy) -> Strategy:
    """``strategy`` with the model asked for at most one tool call per turn (``OneCallPerTurn``)."""
    return replace(strategy, make=lambda: OneCallPerTurn(strategy.make()))


@dataclass
class StrategyRun:
    strategy: Strategy
    session: Session
    amnesia: AmnesiaReport
    cached: CostReport     # dollars with prompt caching (chapter 09's model)
    uncached: CostReport   # the same calls, no caching
    model: str = ""        # the model it ran on, whose list prices both reports use

    def row(self) -> dict[str, object]:
        """The table row: what the strategy cost (tokens, then dollars without and with caching) and
        what it kept."""
        stats = self.session.stats
        return {"strategy": self.strategy.key, "model calls": stats.model_calls,
                "summary calls": stats.summary_calls, "re-reads": stats.re_reads,
                "peak context": stats.peak_context, "input billed": stats.input_tokens_billed,
                "USD no cache": round(self.uncached.dollars, 2), "USD cached": round(self.cached.dollars, 2),
                "amnesia score": round(self.amnesia.score, 2), "priced at": self.model}


def run_strategy(strategy: Strategy, root: str | Path, *, config: CompactionConfig = CompactionConfig(),
                 scenario: Scenario = LONG_SESSION, requests: tuple[str, ...] = WORK_REQUESTS,
                 window: int | None = PRETEND_WINDOW, prices: Prices | None = None) -> StrategyRun:
    """One strategy on the session (workspace rebuilt under ``root/key``), priced with and without
    caching, then the amnesia probe (not priced).
    The fake enforces ``window`` (None: the model's real one; the baseline always runs on that). A strategy
    that needs its own model (``Strategy.model``) runs on it. Every run is priced at ``prices``, by default
    the list prices of the model it ran on (``prices_for``), so a row's model and its price agree."""
    window = None if strategy.key == "none" else window
    recorder = RecordingClient(fake_client(window=window), seen_segments)
    config = config.with_(model=strategy.model) if strategy.model else config
    prices = prices or prices_for(config.model)
    session = run_scenario(scenario, config, Path(root) / strategy.key, client=recorder, requests=requests,
                           compactor=strategy.make())
    sent = aligned_requests(session, recorder.records)
    return StrategyRun(strategy, session, probe_amnesia(session), cost_of(session.trace, sent, prices),
                       cost_of(session.trace, sent, prices, caching=False), config.model)


def seen_segments(request: dict[str, Any]) -> list[Segment]:
    """A request's cache segments as the model sees it: after the server's context management
    (the fake's own edit, ``apply_context_management``), else as sent."""
    body = {key: value for key, value in request.items() if key != "betas"}
    betas = ",".join(request.get("betas") or ())
    if betas or "context_management" in body or compaction_blocks(body["messages"]):
        body = apply_context_management(body, betas, request_tokens).body
    return request_segments(body["messages"], body.get("system"), body.get("tools"))


def aligned_requests(session: Session, records: list[list[Segment]]) -> list[list[Segment]]:
    """One request per call of the trace. A server compaction's summarising step is traced but is
    no request of its own: it stands as one uncached segment of what it read."""
    sent = iter(records)
    return [[Segment(("server compaction step",), t.input_tokens)]
            if t.kind == "summary" and t.layers == (ServerCompaction.name,) else next(sent)
            for t in session.trace]


def run_strategies(root: str | Path, chosen: tuple[Strategy, ...] | None = None, **options) -> list[StrategyRun]:
    """Every strategy on the same session, in registry order, on every core (each in its own folder)."""
    return run_all(_run_strategy, [(s, root, options) for s in chosen or all_strategies()],
                   desc="strategies", progress=False)


def _run_strategy(strategy: Strategy, root: str | Path, options: dict[str, object]) -> StrategyRun:
    return run_strategy(strategy, root, **options)


def strategy_table(runs: list[StrategyRun]) -> Table:
    """The strategy table, thousands separated."""
    rows = [run.row() for run in runs]
    return Table(list(rows[0]), [[f"{v:,}" if isinstance(v, int) else str(v) for v in row.values()]
                                   for row in rows])


GRADES = ("said in", "position", "source")


def retention_table(runs: list[StrategyRun]) -> Table:
    """Fact by strategy: each probed fact with its grading, then "yes" where the strategy's final
    history still answered it from memory, "no" where not; the last row counts the facts kept."""
    probes = [a.probe for a in runs[0].amnesia.answers]
    rows = [[p.name, ", ".join(map(str, p.said_in)), p.position, p.source]
            + ["yes" if run.amnesia.remembered[p.name] else "no" for run in runs] for p in probes]
    kept = [f"{sum(run.amnesia.remembered.values())}/{len(probes)}" for run in runs]
    return Table(["fact", *GRADES, *(run.strategy.key for run in runs)],
                   rows + [["facts kept"] + [""] * len(GRADES) + kept])



def retention_figure(runs: list[StrategyRun]) -> Figure:
    """A heat map of the retention table: one row per fact (its grading in the label), one column per
    strategy, green where the fact was answered from memory, red where it was not."""
    return retention_heatmap(
        {run.strategy.key: run.amnesia for run in runs},
        lambda p: f"{p.name} (said in {', '.join(map(str, p.said_in))}; {p.position}, {p.source})",
        xlabel="strategy", ylabel="probed fact (grading)",
        title="amnesia probe, fact by fact: kept (green) or lost (red) in the final history")


def retention_heatmap(reports: dict[str, AmnesiaReport], fact_label: Callable[[Probe], str], *,
                      xlabel: str, ylabel: str, title: str) -> Figure:
    """Fact by column (a strategy, a variant; chapters 08 and 11): kept (green) or lost (red), each
    column labelled with how many it kept."""
    names = list(reports)
    probes = [a.probe for a in reports[names[0]].answers]
    kept = [[float(reports[n].remembered[p.name]) for n in names] for p in probes]
    fig = new_figure(RETENTION)
    ax = fig.subplots()
    ax.imshow(kept, cmap=ListedColormap([FORGOTTEN, REMEMBERED]), vmin=0, vmax=1, aspect="auto")
    for row, values in enumerate(kept):
        for column, value in enumerate(values):
            ax.text(column, row, "kept" if value else "lost", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(names)), [f"{n}\n{sum(reports[n].remembered.values())}/{len(probes)} kept" for n in names],
                  fontsize=8)
    ax.set_yticks(range(len(probes)), [fact_label(p) for p in probes], fontsize=8)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    return fig


CLEARING_CONFIG = CompactionConfig(max_turns=60)


def listed(answer: str) -> str:
    """A folder reading's answer without the notes before its list (with parallel calls the last turn may hold
    all twelve notes, or only some: the list is the answer)."""
    return answer.rpartition("does:\n")[2] if "What each file under" in answer else answer


class ClearingKnobs:
    """Chapter 08's slider callback: the API's clearing knobs on TWELVE_FILES, beside no compaction, one tool
    call per turn (as section 3).

    The baseline runs once, and one figure is laid out once with its still parts drawn once; every
    call runs the clearing session for its knobs and redraws only what moved (a new figure per move
    costs more than the run). Each call returns the same ``Blitted``: draw it before the next call."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.plain = run_scenario(TWELVE_FILES, CLEARING_CONFIG, self.root / "none",
                                  compactor=OneCallPerTurn(Compactor()))
        self.figure = new_figure(SINGLE_WIDE)
        self.ax = self.figure.subplots()
        baseline = agent_context(self.plain)
        self.ax.plot(range(1, len(baseline) + 1), baseline, marker=".", label="no compaction",
                     color=STRATEGY_COLOURS["none"])
        (self.curve,) = self.ax.plot([], [], marker=".", label="API clearing",
                                     color=STRATEGY_COLOURS[ServerToolClearing.name])
        self.trigger_line = self.ax.axhline(0, color="black", linestyle="--", linewidth=1, label="trigger")
        self.ax.set(xlabel="model call", ylabel="input tokens sent in this call",
                    xlim=(0, CLEARING_CONFIG.max_turns + 1), ylim=(0, 30_000))
        self.title = self.ax.set_title("", fontsize=9)
        self.legend = self.ax.legend(loc="upper left")
        self.laid_out = False
        self.drawing = Blitted(self.figure, [self.curve, self.trigger_line, self.legend, self.title])

    def __call__(self, trigger: int = 10_000, keep: int = 3, clear_at_least: int = 0,
                 exclude_reads: bool = False, clear_inputs: bool = False) -> Blitted:
        clearing = ServerToolClearing(trigger=trigger, keep=keep, clear_at_least=clear_at_least or None,
                                      exclude_tools=("read_file",) if exclude_reads else (),
                                      clear_tool_inputs=clear_inputs)
        session = run_scenario(TWELVE_FILES, CLEARING_CONFIG, self.root / "clearing",
                               compactor=OneCallPerTurn(clearing))
        context = agent_context(session)
        self.curve.set_data(range(1, len(context) + 1), context)
        self.trigger_line.set_ydata([trigger, trigger])
        label = f"trigger ({trigger:,})"
        self.trigger_line.set_label(label)
        self.legend.get_texts()[2].set_text(label)
        last = cleared_so_far(session)
        same = listed(session.answers[-1]) == listed(self.plain.answers[-1])
        outcome = "same answer" if same else "no answer: max_turns"
        self.title.set_text(
            f"last call: {last['cleared_tool_uses']} tool uses cleared ({last['cleared_input_tokens']:,} tokens); "
            f"re-reads {session.stats.re_reads}; billed {session.stats.input_tokens_billed:,} "
            f"vs {self.plain.stats.input_tokens_billed:,}; {outcome}")
        if not self.laid_out:  # lay out once; later moves keep the places and only redraw
            self.figure.draw_without_rendering()
            self.figure.set_layout_engine("none")
            self.laid_out = True
        return self.drawing


def agent_context(session: Session) -> list[int]:
    """Input tokens of every agent call of a session, in order."""
    return [t.input_tokens for t in session.trace if t.kind == "agent"]


def summary_requests(session: Session) -> tuple[int, ...]:
    """The request (1-based, in the order sent) during which each summary was written. A request
    ends on the agent call that asks for no tool, so a session where a request stopped at
    ``max_turns`` or on the ``compact`` tool is miscounted after it."""
    request, of_call = 1, {}
    for t in session.trace:
        if t.kind == "agent":
            of_call[t.call] = request
            request += not t.tools
    return tuple(of_call[t.call] for t in session.trace if t.kind == "summary")


def cleared_so_far(session: Session) -> dict[str, int]:
    """What the server's clearing took out of the session's latest request that it cleared
    (the edit runs afresh on every request, so that is everything cleared by then); zeros if none."""
    edits = [e.detail for e in session.events if e.kind == ServerToolClearing.name]
    return edits[-1] if edits else {"cleared_tool_uses": 0, "cleared_input_tokens": 0}
