"""Chapter 12's lab: what each summary of a long session still knows, and what a summary costs in wait.

``run_drift`` runs one strategy on the long session and, after the session,
puts the amnesia probe to every summary it wrote, each alone (the history
as it was right after that compaction, minus the turns kept verbatim), asking
only the facts the session had heard by then. So the curve of facts kept
after each compaction shows what the summary chain itself carries forward.

The wait a summary costs is never timed. Chapter 12 counts it in output
tokens: the tokens of the summaries written on the spot, which the user waits
for (``AheadOutcome.waited_output``). ``wait_seconds`` turns tokens into
seconds at the rates below; they are assumptions (no primary source gives a
model's output speed), not measurements; only the benchmark reports seconds.

Every run makes one tool call per turn (``OneCallPerTurn``: the API's
``disable_parallel_tool_use``; ``parallel=True`` runs with the fake's default).
At MATCHED_SETTING's 20,000-token threshold one turn of the twelve parallel reads
of a listing is larger than the threshold by itself, so compactions would come
inside a request's reads rather than between turns, and a prepared summary
would have no turn to be prepared in; the chain of many compactions is the lesson.

Money is chapter 09's cache model at the sessions' model (``SESSION_PRICES``):
``run_drift`` keeps every request the session sent (``cache_recorder``), so a
run is priced with prompt caching or without it (``DriftRun.dollars``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from matplotlib.figure import Figure

from ..core.auto import compressed_message
from ..core.config import CompactionConfig
from ..core.loop import CallTrace
from ..session.runner import Session
from ..strategies.base import Compactor
from ..fake import fake_client
from ..strategies.one_call import OneCallPerTurn
from ..strategies.prepared_summary import PreparedSummary
from .amnesia import WORK_REQUESTS, ask_copy, probes_for
from .cost import SESSION_PRICES, Segment, cache_recorder, cost_of
from .parallel import run_all
from .runs import run_scenario
from .scenarios import LONG_SESSION
from .style import LEGEND, SINGLE_WIDE, WIDE, new_figure, thousands

READ_TOKENS_PER_SECOND = 5_000   # assumption: input tokens read per second
WRITE_TOKENS_PER_SECOND = 50     # assumption: output tokens written per second
SUMMARY_KINDS = ("auto", "manual", "prepared")  # events that replaced the history with a summary


def wait_seconds(input_tokens: int, output_tokens: int) -> float:
    """The modelled wait for one call: read the input, then write the output."""
    return input_tokens / READ_TOKENS_PER_SECOND + output_tokens / WRITE_TOKENS_PER_SECOND


def blocking_wait(session: Session) -> float:
    """The modelled seconds the user waited for summaries: every summary call but those prepared ahead."""
    return round(sum(wait_seconds(t.input_tokens, t.output_tokens) for t in session.trace
                     if t.kind == "summary" and "prepare" not in t.layers), 1)


@dataclass(frozen=True)
class SummaryPoint:
    """One compaction: the request during which it happened, and the facts its summary still knew."""
    request: int
    asked: tuple[str, ...]    # the facts the session had heard by then
    kept: tuple[str, ...]     # those the summary alone answered from memory


@dataclass
class DriftRun:
    key: str
    session: Session
    points: list[SummaryPoint]
    requests: list[list[Segment]]   # every request of the session, as chapter 09's recorder cut it

    @property
    def summaries(self) -> list[CallTrace]:
        """The session's summary calls, in order."""
        return [t for t in self.session.trace if t.kind == "summary"]

    @property
    def summary_outputs(self) -> list[int]:
        """The output tokens of each summary call, in order (compare with the summary budget)."""
        return [t.output_tokens for t in self.summaries]

    def dollars(self, caching: bool) -> float:
        """The session's price at SESSION_PRICES, with prompt caching or without (chapter 09's model:
        summary calls are sent uncached either way). Not for the self-check, whose trace counts its two
        requests per compaction as one call."""
        return cost_of(self.session.trace, self.requests, SESSION_PRICES, caching=caching).dollars

    @property
    def kept(self) -> list[int]:
        """Facts kept after each compaction, in order."""
        return [len(p.kept) for p in self.points]

    @property
    def summary_tokens(self) -> int:
        """Input and output tokens of every summary call of the session."""
        return sum(t.input_tokens + t.output_tokens for t in self.session.trace if t.kind == "summary")


def request_of_calls(session: Session) -> dict[int, int]:
    """Each agent call's request (1-based, in the order sent); a request ends on a call without tools."""
    request, of_call = 1, {}
    for t in session.trace:
        if t.kind == "agent":
            of_call[t.call] = request
            request += not t.tools
    return of_call


def summary_points(session: Session) -> list[SummaryPoint]:
    """Probe every summary the session wrote, alone, on the facts heard by its request."""
    of_call, points = request_of_calls(session), []
    for event in session.events:
        if event.kind not in SUMMARY_KINDS:
            continue
        request = of_call[event.call]
        message = compressed_message(Path(event.detail["transcript"]), event.detail["summary"])
        probes = probes_for(WORK_REQUESTS[:request])
        kept = tuple(p.name for p in probes
                     if (answer := ask_copy(session, [message], p.question)) and not answer[1]
                     and p.matches(answer[0]))
        points.append(SummaryPoint(request, tuple(p.name for p in probes), kept))
    return points


def run_drift(key: str, compactor: Compactor, config: CompactionConfig, root: str | Path,
              requests: tuple[str, ...] = WORK_REQUESTS, *, parallel: bool = False) -> DriftRun:
    """One strategy on the long session (workspace rebuilt under ``root/key``), every request recorded,
    then every summary probed; one tool call per turn unless ``parallel``."""
    recorder = cache_recorder(fake_client())
    session = run_scenario(LONG_SESSION, config, Path(root) / key, requests=requests,
                           compactor=compactor if parallel else OneCallPerTurn(compactor), client=recorder)
    sent = list(recorder.records)  # before the probes, which go through the same client
    return DriftRun(key, session, summary_points(session), sent)


def drift_figure(curves: dict[str, list[int]], title: str) -> Figure:
    """Facts the summary alone still answers after each compaction, one line per strategy."""
    fig = new_figure(SINGLE_WIDE)
    ax = fig.subplots()
    for (key, kept), marker in zip(curves.items(), "osd^v"):
        ax.plot(range(1, len(kept) + 1), kept, marker=marker, label=key)
    ax.set(xlabel="compaction", ylabel="facts the summary alone answers (of 8)", title=title, ylim=(-0.3, 8.5))
    ax.legend(**LEGEND)
    return fig


def budget_figure(outputs: dict[str, list[int]], budget: int) -> Figure:
    """The output tokens of each summary, one line per chain, against the summary budget that cuts them."""
    fig = new_figure(SINGLE_WIDE)
    ax = fig.subplots()
    for (key, tokens), marker in zip(outputs.items(), "osd^v"):
        ax.plot(range(1, len(tokens) + 1), tokens, marker=marker, label=key)
    ax.axhline(budget, color="black", linestyle=":", linewidth=1, label=f"summary budget {budget:,}")
    ax.set(xlabel="compaction", ylabel="summary output tokens", title="a summary at the budget is cut short")
    ax.yaxis.set_major_formatter(thousands)
    ax.legend(**LEGEND)
    return fig


MATCHED_SETTING = CompactionConfig(threshold=20_000, tail_chars=80_000, summary_max_tokens=2_000)  # chapter 12's setting


def drift_sweep(make: dict[str, Callable[[], Compactor]], tails: tuple[int, ...], budgets: tuple[int, ...],
                root: str | Path) -> dict[tuple[str, int, int], list[int]]:
    """Facts kept after each compaction for every strategy of ``make`` at every (tail_chars, summary
    budget) of MATCHED_SETTING's threshold: {(key, tail, budget): kept list}. On every core; every run of a
    strategy rebuilds the same folder, so each works in a folder of its own (one after another if ``root``
    is absolute)."""
    grid = [(key, tail, budget) for tail in tails for budget in budgets for key in make]
    kept = run_all(_drift_kept, [(key, make[key], tail, budget, root) for key, tail, budget in grid],
                   desc="drift", private=True, progress=False, parallel=not Path(root).is_absolute())
    return dict(zip(grid, kept))


def _drift_kept(key: str, make: Callable[[], Compactor], tail: int, budget: int, root: str | Path) -> list[int]:
    config = MATCHED_SETTING.with_(tail_chars=tail, summary_max_tokens=budget)
    return run_drift(key, make(), config, root).kept


@dataclass(frozen=True)
class AheadOutcome:
    """What preparing the summary at one fraction of the threshold cost and saved (chapter 12)."""
    fraction: float
    kept: tuple[int, ...]      # facts kept after each compaction
    swaps: int                 # compactions that used a prepared summary
    blocking: int              # compactions that had to summarise on the spot
    wait: float                # modelled seconds the user waited for summaries, in all (assumed rates)
    waited_output: int         # output tokens of the summaries written on the spot, which the user waits for
    summary_tokens: int        # input + output tokens of every summary call, prepared or not
    unused_tokens: int         # of those, the tokens of summaries prepared and never swapped in
    kept_verbatim: int         # messages kept word for word after a prepared summary, in all
    billed: int                # input tokens of every call of the session
    dollars: float             # the session's price at SESSION_PRICES, with prompt caching
    dollars_uncached: float    # the same without caching


def ahead_outcome(fraction: float, root: str | Path, config: CompactionConfig = MATCHED_SETTING) -> AheadOutcome:
    """The long session with the summary prepared at ``fraction`` of the threshold (1: never ahead)."""
    strategy = PreparedSummary(fraction)
    run = run_drift(f"prepared_{fraction:.2f}", strategy, config, root)
    trace = run.session.trace
    blocking = [t for t in trace if t.kind == "summary" and "prepare" not in t.layers]
    return AheadOutcome(
        fraction, tuple(run.kept), sum(p.used for p in strategy.preparations), len(blocking),
        blocking_wait(run.session), sum(t.output_tokens for t in blocking), run.summary_tokens,
        sum(p.input_tokens + p.output_tokens for p in strategy.preparations if not p.used),
        sum(e.detail["kept_verbatim"] for e in run.session.events if e.kind == "prepared"),
        run.session.stats.input_tokens_billed, run.dollars(caching=True), run.dollars(caching=False))


def ahead_outcomes(fractions: tuple[float, ...], root: str | Path,
                   config: CompactionConfig = MATCHED_SETTING) -> dict[float, AheadOutcome]:
    """``ahead_outcome`` of every fraction, on every core (each in its own folder)."""
    outcomes = run_all(ahead_outcome, [(f, root, config) for f in fractions], desc="prepare fractions",
                       progress=False)
    return dict(zip(fractions, outcomes))


def ahead_figure(outcomes: dict[float, AheadOutcome], chosen: float) -> Figure:
    """Left: output tokens the user waits for (summaries written on the spot) against the prepare
    fraction; right: summary tokens spent, the unused part apart. The chosen fraction is marked."""
    fig = new_figure(WIDE)
    left, right = fig.subplots(1, 2)
    xs = sorted(outcomes)
    left.plot(xs, [outcomes[x].waited_output for x in xs], marker="o", label="user waits for summaries")
    right.plot(xs, [outcomes[x].summary_tokens for x in xs], marker="o", label="summary tokens, all")
    right.plot(xs, [outcomes[x].unused_tokens for x in xs], marker="s", label="of which never used")
    for ax, place in ((left, "upper left"), (right, "center left")):
        ax.axvline(chosen, color="black", linestyle=":", linewidth=1, label=f"prepare at {chosen:.2f}")
        ax.legend(loc=place)
    left.set(xlabel="prepare fraction of the threshold (1.00: summarise at the threshold)",
             ylabel="output tokens the user waits for")
    left.yaxis.set_major_formatter(thousands)
    right.set(xlabel="prepare fraction of the threshold", ylabel="tokens")
    right.yaxis.set_major_formatter(thousands)
    return fig
