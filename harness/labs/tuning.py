"""The tuning lab: run settings, sweep grids, draw the evidence, pick a setting (chapter 09).

A ``Setting`` is one choice of the knobs (KEEP_RECENT, THRESHOLD, the
preserved tools, and two chapter-08 variants: reversible placeholders with
``recall``, and cache-aware batched micro-compaction). A ``Lab`` runs a
setting on one session, prices it with and without prompt caching (at
``SESSION_PRICES`` unless given others), probes
which facts the agent still knows (chapter 08's amnesia probe, fact by
fact), and keeps the ``Outcome``, so a sweep, a plot and a slider never run
the same setting twice. Tables, heatmaps and the slider line show each
fact kept or forgotten, not only how many. Figure builders and the
slider callback are pure functions of their arguments.

A setting can send the agent into a death spiral (KEEP_RECENT=0: every
result is cleared before the model reads it, so it asks again and again).
The lab then stops the session at the first request that hits the turn
limit and records a ``Spiral``: the requests after it are not run, and
every table, line and figure says that this session's numbers cover only
part of the work and are not comparable with a finished one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from ..core.config import CompactionConfig
from ..core.micro import s06_micro_compact
from ..fake import fake_client
from ..session.runner import Session, SessionStats
from ..strategies.base import Compactor
from ..strategies.batched_micro import BatchedMicro
from ..strategies.recall import recalls
from ..strategies.three_layers import ThreeLayers
from .amnesia import probe_amnesia, probes_for
from .parallel import run_all
from .cost import PARTS, SESSION_PRICES, CostReport, Prices, cache_recorder, cost_of
from .runs import run_scenario
from .scenarios import LONG_SESSION, Scenario
from .style import BASELINE, FORGOTTEN, REMEMBERED, SINGLE_WIDE, WIDE, dollars, new_figure, thousands
from .tables import Table

TUNING_REQUESTS = LONG_SESSION.requests[:12]  # three folders read, a rule, edits, questions: < 1 s a run
TUNING_PROBES = probes_for(TUNING_REQUESTS)    # the amnesia probes whose fact those requests said
READ_FILE = frozenset({"read_file"})
PRESERVE_CHOICES = (("read_file", READ_FILE), ("nothing", frozenset()),
                    ("read_file, bash", frozenset({"read_file", "bash"})))
KEEP_SLIDER = (0, 1, 3, 10)                           # the chapter's KEEP_RECENT slider: 0 spirals
THRESHOLD_SLIDER = (20_000, 40_000, 50_000, 120_000)  # the chapter's THRESHOLD slider, in tokens


@dataclass(frozen=True)
class Setting:
    """One choice of the knobs (``batch_tokens`` > 0: cache-aware batched micro; ``s06_count``: micro without
    the harness's guard, clearing results the model has not read yet, as the s06 agent does)."""
    keep_recent: int = 3
    threshold: int = 50_000
    preserve_tools: frozenset[str] = READ_FILE
    micro: bool = True
    auto: bool = True
    recall: bool = False
    batch_tokens: int = 0
    s06_count: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "preserve_tools", frozenset(self.preserve_tools))
        if sum((self.recall, bool(self.batch_tokens), self.s06_count)) > 1:
            raise ValueError("choose one of reversible placeholders, batched micro and the s06 count")
        self.config()  # validates the knobs

    def config(self) -> CompactionConfig:
        return CompactionConfig(keep_recent=self.keep_recent, threshold=self.threshold,
                                preserve_tools=self.preserve_tools, micro=self.micro, auto=self.auto)

    def compactor(self) -> Compactor | None:
        if self.s06_count:
            return ThreeLayers(micro=s06_micro_compact)
        return BatchedMicro(self.batch_tokens) if self.batch_tokens else None

    @property
    def label(self) -> str:
        if not (self.micro or self.auto):
            return "no compaction"
        parts = [f"keep {self.keep_recent}" if self.micro else "no micro",
                 f"{self.threshold // 1000}k" if self.auto else "no auto",
                 "preserve " + (", ".join(sorted(self.preserve_tools)) or "nothing")]
        if self.recall:
            parts.append("recall")
        if self.batch_tokens:
            parts.append(f"batch {self.batch_tokens // 1000}k")
        if self.s06_count:
            parts.append("s06 count")
        return " · ".join(parts)


UNCOMPRESSED = Setting(micro=False, auto=False)
GOLDFISH = Setting(keep_recent=1, threshold=20_000)   # the seed's "too aggressive"
HOARDER = Setting(keep_recent=10, threshold=120_000)  # the seed's "too conservative"


@dataclass(frozen=True)
class Spiral:
    """A session the lab stopped: request ``request`` (from 1) hit the turn limit after ``calls``
    model calls, and the ``skipped`` requests after it were not run."""
    request: int
    calls: int
    skipped: int

    def __str__(self) -> str:
        run = self.request + self.skipped
        rest = {0: "it was the last request", 1: "the remaining request was not run"}.get(
            self.skipped, f"the remaining {self.skipped} requests were not run")
        return (f"death spiral: request {self.request} hit the turn limit after {self.calls} calls; {rest}. "
                f"Its numbers cover {self.request} of {run} requests, not comparable with a finished session.")


@dataclass(frozen=True)
class Outcome:
    """What one setting did on the lab's session."""
    setting: Setting
    stats: SessionStats
    recalls: int
    context: tuple[int, ...]     # input tokens of each agent call
    spent: tuple[float, ...]     # dollars so far after each agent call, with caching
    cost: CostReport             # every call, with caching
    dollars_uncached: float
    forgotten: tuple[str, ...]   # amnesia probes answered wrong
    asked: tuple[str, ...] = ()  # every amnesia probe put to it, in probe order
    spiral: Spiral | None = None  # set when the lab stopped the session at the turn limit

    @property
    def dollars(self) -> float:
        return self.cost.dollars

    @property
    def kept(self) -> tuple[str, ...]:
        """The facts it still knew at the end."""
        return tuple(name for name in self.asked if name not in self.forgotten)

    def metric(self, name: str) -> float:
        """A number from LAB_METRICS, or for ``forgot:<fact>`` 1.0 if it forgot that fact, else 0.0."""
        if name.startswith(FORGOT):
            fact = name.removeprefix(FORGOT)
            if fact not in self.asked:
                raise KeyError(f"no probe {fact!r} was asked; asked: {self.asked}")
            return float(fact in self.forgotten)
        return LAB_METRICS[name][1](self)


FORGOT = "forgot:"  # a metric per fact: "forgot:first file changed"
FACTS = "facts"     # in a list of metrics: one such metric for every fact asked


LAB_METRICS: dict[str, tuple[str, Callable[[Outcome], float]]] = {
    "re_reads": ("files read again", lambda o: o.stats.re_reads),
    "recalls": ("recall calls", lambda o: o.recalls),
    "model_calls": ("model calls", lambda o: o.stats.model_calls),
    "input_tokens": ("input tokens billed", lambda o: o.stats.input_tokens_billed),
    "peak_context": ("peak context (tokens)", lambda o: o.stats.peak_context),
    "micro_steps": ("micro-compactions", lambda o: o.stats.compactions.get("micro", 0)),
    "summaries": ("summaries (auto-compactions)", lambda o: o.stats.compactions.get("auto", 0)),
    "cache_writes": ("tokens written to the cache", lambda o: o.cost.total("cache_write")),
    "dollars": ("$ with caching", lambda o: o.dollars),
    "dollars_uncached": ("$ without caching", lambda o: o.dollars_uncached),
    "forgotten": (f"early facts forgotten (of {len(TUNING_PROBES)})", lambda o: len(o.forgotten)),
}


def spent_per_call(report: CostReport) -> tuple[float, ...]:
    """Dollars so far after each agent call; a summary call counts with the call that shares its number."""
    by_call: dict[int, float] = {}
    for c in report.calls:
        by_call[c.call] = by_call.get(c.call, 0.0) + c.dollars
    running, out = 0.0, []
    for c in report.calls:
        if c.kind == "agent":
            running += by_call[c.call]
            out.append(running)
    return tuple(out)


@dataclass
class Lab:
    """Runs settings on one session (by default the first 12 requests of LONG_SESSION) and
    remembers every outcome. ``root`` is a scratch folder, rebuilt for every run."""
    root: Path
    scenario: Scenario = LONG_SESSION
    requests: tuple[str, ...] | None = TUNING_REQUESTS
    prices: Prices = SESSION_PRICES  # Claude Haiku 4.5, the model the sessions run on
    max_turns: int = 100      # model calls allowed per request: a death spiral stops the session here
    outcomes: dict[Setting, Outcome] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    def run(self, setting: Setting) -> Outcome:
        if setting not in self.outcomes:
            self.outcomes[setting] = self._run(setting)
        return self.outcomes[setting]

    def sweep(self, settings: Iterable[Setting], *, progress: bool = True, desc: str = "sweep") -> list[Outcome]:
        """Run every setting not run before, on every core (a progress bar counts them), and return the
        outcomes in order. Each run rebuilds the same folder, so each works in a folder of its own (one
        after another if ``root`` is absolute: it would be the same folder for all)."""
        settings = list(settings)
        todo = [s for s in dict.fromkeys(settings) if s not in self.outcomes]
        if todo:
            runs = run_all(self._run, [(s,) for s in todo], desc=desc, private=True, progress=progress,
                           parallel=not self.root.is_absolute())
            self.outcomes.update(zip(todo, runs))
        return [self.outcomes[s] for s in settings]

    def _run(self, setting: Setting) -> Outcome:
        return run_setting(setting, self.root, self.scenario, self.requests, self.prices, self.max_turns)

    def __getstate__(self) -> dict[str, object]:
        """What a worker needs to run a setting: the knobs of the lab, not the outcomes so far."""
        return {**vars(self), "outcomes": {}}


def run_setting(setting: Setting, root: Path, scenario: Scenario, requests: tuple[str, ...] | None,
                prices: Prices, max_turns: int) -> Outcome:
    """One setting on the lab's session in ``root / "run"`` (rebuilt): priced, probed, and stopped at the
    first request that hits ``max_turns``."""
    recorder = cache_recorder(fake_client())
    config = setting.config().with_(max_turns=max_turns)
    session = run_scenario(scenario, config, root / "run", client=recorder, recall=setting.recall,
                           requests=requests, compactor=setting.compactor(),
                           stop_after=lambda result: result.stop == "max_turns")
    sent = recorder.records[:len(session.trace)]
    cost = cost_of(session.trace, sent, prices)
    uncached = cost_of(session.trace, sent, prices, caching=False)
    probe = probe_amnesia(session)  # asks copies; after pricing, so not priced
    return Outcome(setting, session.stats, recalls(session),
                   tuple(t.input_tokens for t in session.trace if t.kind == "agent"),
                   spent_per_call(cost), cost, uncached.dollars, probe.forgotten,
                   tuple(a.probe.name for a in probe.answers), spiral_of(session, len(requests or scenario.requests)))


def spiral_of(session: Session, total: int) -> Spiral | None:
    """The death spiral that stopped ``session`` (of ``total`` requests), if its last request hit the turn limit."""
    if "max_turns" not in session.stats.compactions:
        return None
    before = session.ends[-2][0] if len(session.ends) > 1 else 0
    calls = sum(1 for t in session.trace[before:] if t.kind == "agent")
    return Spiral(len(session.answers), calls, total - len(session.answers))


def settings_grid(keep_values: Iterable[int], thresholds: Iterable[int],
                  preserve_tools: frozenset[str] = READ_FILE) -> list[Setting]:
    """Every (KEEP_RECENT, THRESHOLD) pair, row by row."""
    thresholds = list(thresholds)
    return [Setting(k, t, preserve_tools) for k in keep_values for t in thresholds]


def recommend(outcomes: Iterable[Outcome], *, max_peak: int | None = None) -> list[Outcome]:
    """The outcomes ranked best first: fewest early facts forgotten, then fewest dollars (with
    caching), then fewest re-reads; settings whose peak context passes ``max_peak`` are left out, and
    so are death spirals (a stopped session did not do the work, so its bill is not comparable)."""
    allowed = [o for o in outcomes
               if o.spiral is None and (max_peak is None or o.stats.peak_context <= max_peak)]
    return sorted(allowed, key=lambda o: (len(o.forgotten), o.dollars, o.stats.re_reads))


def fact_metrics(outcomes: Iterable[Outcome]) -> tuple[str, ...]:
    """``forgot:<fact>`` for every fact asked of any of the outcomes, in probe order."""
    return tuple(dict.fromkeys(FORGOT + name for o in outcomes for name in o.asked))


def expand(metrics: Iterable[str], outcomes: list[Outcome]) -> tuple[str, ...]:
    """The metrics with ``facts`` replaced by one ``forgot:<fact>`` metric per fact asked."""
    return tuple(m for name in metrics for m in (fact_metrics(outcomes) if name == FACTS else (name,)))


def metric_label(metric: str) -> str:
    return metric.removeprefix(FORGOT) if metric.startswith(FORGOT) else LAB_METRICS[metric][0]


def outcome_table(outcomes: Iterable[Outcome], metrics: tuple[str, ...] = (
        "re_reads", "recalls", "model_calls", "input_tokens", "peak_context", "dollars",
        "dollars_uncached", "forgotten")) -> Table:
    """One row per outcome, one column per metric (plain text, rendered as a table in a notebook).
    The metric ``facts`` becomes one column per fact asked, saying "kept" or "forgot"."""
    outcomes = list(outcomes)
    metrics = expand(metrics, outcomes)
    header = [m.removeprefix(FORGOT) for m in metrics]
    return Table(["setting", *header], ([row_label(o)] + [_format(m, o.metric(m)) for m in metrics]
                                        for o in outcomes))


def row_label(outcome: Outcome) -> str:
    """The setting's label; a stopped session's says so, since its numbers cover part of the work."""
    spiral = outcome.spiral
    return outcome.setting.label + (f" (stopped: death spiral in request {spiral.request}, "
                                    "numbers not comparable)" if spiral else "")


def _format(metric: str, value: float) -> str:
    if value != value:  # NaN: a setting the grid did not run
        return ""
    if metric.startswith(FORGOT):
        return "forgot" if value else "kept"
    return f"${value:.3f}" if metric.startswith("dollars") else f"{value:,.0f}"


def outcome_line(outcome: Outcome) -> str:
    """The numbers a slider shows on one line, and on a second which facts it forgot and which it kept;
    a death spiral's first line says so, and that the numbers cover only the requests run."""
    s = outcome.stats
    numbers = (f"{s.model_calls} calls · {s.re_reads} re-reads · {outcome.recalls} recalls · "
               f"peak {s.peak_context:,} · {s.input_tokens_billed:,} tokens · "
               f"${outcome.dollars:.2f} cached (${outcome.dollars_uncached:.2f} uncached) · "
               f"forgot {len(outcome.forgotten)}/{len(outcome.asked)}")
    facts = (f"forgot: {', '.join(outcome.forgotten) or 'nothing'} · "
             f"kept: {', '.join(outcome.kept) or 'nothing'}")
    lines = [numbers, facts]
    if outcome.spiral:
        lines.insert(0, str(outcome.spiral))
    return "\n".join(lines)


# --- figures ---------------------------------------------------------------------

def heatmaps_figure(outcomes: list[Outcome], metrics: tuple[str, ...] = ("re_reads", "dollars", "forgotten"),
                    title: str | None = None) -> Figure:
    """One heatmap per metric: KEEP_RECENT down, THRESHOLD across, the value written in each cell.
    A ``forgot:<fact>`` metric (``facts``: one for every fact asked) is a kept/forgot map of that fact."""
    metrics = expand(metrics, outcomes)
    keeps = sorted({o.setting.keep_recent for o in outcomes})
    thresholds = sorted({o.setting.threshold for o in outcomes})
    at = {(o.setting.keep_recent, o.setting.threshold): o for o in outcomes}
    widths = [3.0 if m.startswith(FORGOT) else 4.2 for m in metrics]
    fig = new_figure((sum(widths), 3.8))
    axes = fig.subplots(1, len(metrics), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    for ax, metric in zip(axes, metrics):
        values = [[at[k, t].metric(metric) if (k, t) in at else float("nan") for t in thresholds] for k in keeps]
        if metric.startswith(FORGOT):
            image = ax.imshow(values, cmap=ListedColormap([REMEMBERED, FORGOTTEN]), vmin=0, vmax=1, aspect="auto")
            ink, box = "black", None
        else:
            image = ax.imshow(values, cmap="viridis_r", aspect="auto")
            ink, box = "white", {"facecolor": "black", "alpha": 0.35, "pad": 1, "linewidth": 0}
            fig.colorbar(image, ax=ax, label=metric_label(metric))
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                ax.text(j, i, _format(metric, value), ha="center", va="center", color=ink, fontsize=9,
                        parse_math=False, bbox=box)
        ax.set_xticks(range(len(thresholds)), [f"{t // 1000}k" for t in thresholds])
        ax.set_yticks(range(len(keeps)), [str(k) for k in keeps])
        ax.set(xlabel="THRESHOLD (tokens)", ylabel="KEEP_RECENT")
        ax.set_title(metric_label(metric), fontsize=10, parse_math=False)
    if title:
        fig.suptitle(title, parse_math=False)
    return fig


def cost_split_figure(outcomes: list[Outcome], title: str = "where the money goes (Haiku 4.5 prices, with caching)") -> Figure:
    """Stacked bars: dollars for cache reads, cache writes, uncached input and output, per setting."""
    fig = new_figure(SINGLE_WIDE)
    ax = fig.subplots()
    labels = [o.setting.label for o in outcomes]
    bottoms = [0.0] * len(outcomes)
    for part in PARTS:
        heights = [o.cost.dollars_for(part) for o in outcomes]
        ax.barh(labels, heights, left=bottoms, label=part.replace("_", " "))
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(dollars)
    ax.set(xlabel="dollars for the session (Haiku 4.5 prices, with caching)", ylabel="setting", title=title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=len(PARTS))
    return fig


def curves_figure(outcomes: list[Outcome], title: str | None = None) -> Figure:
    """Left: context per call; right: dollars so far with caching; one line per outcome
    (no compaction drawn dashed grey, so the others read against it)."""
    fig = new_figure(WIDE)
    context_ax, money_ax = fig.subplots(1, 2)
    for o in outcomes:
        style = BASELINE if o.setting == UNCOMPRESSED else {}
        calls = range(1, len(o.context) + 1)
        context_ax.plot(calls, o.context, label=o.setting.label, **style)
        money_ax.plot(calls, o.spent, label=o.setting.label, **style)
    context_ax.set(xlabel="model call", ylabel="input tokens sent in this call", title="context per call")
    money_ax.set(xlabel="model call", ylabel="dollars so far (with caching)", title="what it has cost")
    context_ax.yaxis.set_major_formatter(thousands)
    money_ax.yaxis.set_major_formatter(dollars)
    context_ax.legend(loc="upper left")
    money_ax.legend(loc="upper left")
    if title:
        fig.suptitle(title, fontsize=10, parse_math=False)
    return fig



def lab_panel(keep_recent: int, threshold: int, preserve_tools: frozenset[str], *,
              lab: Lab) -> tuple[str, Figure]:
    """The slider callback: run (or look up) this setting; its numbers and which facts it forgot
    (``outcome_line``), and its curves drawn against no compaction (a death spiral's title says where
    it stopped)."""
    outcome = lab.run(Setting(keep_recent, threshold, preserve_tools))
    title = (f"stopped: death spiral in request {outcome.spiral.request}, the requests after it not run"
             if outcome.spiral else None)
    return outcome_line(outcome), curves_figure([lab.run(UNCOMPRESSED), outcome], title=title)
