"""Five compaction strategies behind one interface, run on the same session (chapter 07).

Each ``Strategy`` is a named ``Compactor`` factory with what it is modelled
on, when it fires and what the simulation leaves out. ``run_strategies``
sends the same requests through the same loop and fake once per strategy,
then puts the amnesia probe to each final history, so the table compares
like with like: model calls, re-reads, peak context, input tokens billed
and the fraction of early facts still known.

Triggers are scaled to one pretend window, ``PRETEND_WINDOW`` tokens: LONG_SESSION
peaks near 125,000 tokens uncompressed, so against a real 200,000-token
window only the API's 100,000 default would ever fire. Each trigger keeps
the proportion its system uses (Claude Code about 85% of the window, Codex
90%, the API's 100,000 of 200,000 is half); s06 keeps its own 50,000.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from matplotlib.figure import Figure

from .amnesia import WORK_REQUESTS, AmnesiaReport, probe_amnesia
from .compactor import Compactor, ThreeLayers
from .config import CompactionConfig
from .scenarios import LONG_SESSION, TWELVE_FILES, Scenario
from .session import Session, run_scenario
from .structured_summary import StructuredSummary
from .tool_clearing import ClearToolUses
from .usage_triggered import UsageTriggered

PRETEND_WINDOW = 60_000


@dataclass(frozen=True)
class Strategy:
    key: str
    title: str
    modelled_on: str
    fires: str          # when it compacts, in words
    simplified: str     # what the simulation leaves out
    make: Callable[[], Compactor]


def all_strategies(window: int = PRETEND_WINDOW) -> tuple[Strategy, ...]:
    """The five strategies, their triggers scaled to ``window`` (s06 keeps its own default)."""
    return (
        Strategy("none", "no compaction", "(the baseline)", "never",
                 "nothing: the history only grows", Compactor),
        Strategy("s06", "micro + one summary", "learn-claude-code s06 (chapters 02-05)",
                 f"estimate over {CompactionConfig().threshold:,} tokens",
                 "nothing: the reference defaults (keep 3, read_file preserved, 80,000-char tail)",
                 ThreeLayers),
        Strategy("usage", "usage-triggered replacement", "Codex compact.rs and seed 000",
                 f"reported usage of a round >= {int(0.9 * window):,} (90%)",
                 "seed 000's layout, the summary before the kept user messages (Codex puts it after); "
                 "the summary sees the 80,000-char tail (Codex: the whole history); user messages kept "
                 "within 20,000 characters (Codex: 20,000 tokens); no mid-turn trigger",
                 lambda: UsageTriggered(threshold=int(0.9 * window))),
        Strategy("structured", "micro + nine-section summary", "Claude Code",
                 f"count over {int(0.85 * window):,} (85%)",
                 "chapter 02's micro with s06's defaults; the whole history sent as one JSON dump; "
                 "no files re-attached, no hooks",
                 lambda: StructuredSummary(window=window, fraction=0.85)),
        Strategy("clearing", "API tool-result clearing", "Messages API clear_tool_uses_20250919",
                 f"count over {window // 2:,} (50%)",
                 "run locally, in place, with a ledger of the cleared tokens; chapter 02's placeholder",
                 lambda: ClearToolUses(trigger=window // 2, keep=3)),
    )


@dataclass
class StrategyRun:
    strategy: Strategy
    session: Session
    amnesia: AmnesiaReport

    def row(self) -> dict[str, object]:
        """The table row: what the strategy cost and what it kept."""
        stats = self.session.stats
        return {"strategy": self.strategy.key, "model calls": stats.model_calls,
                "summary calls": stats.summary_calls, "re-reads": stats.re_reads,
                "peak context": stats.peak_context, "input billed": stats.input_tokens_billed,
                "amnesia score": round(self.amnesia.score, 2)}


def run_strategy(strategy: Strategy, root: str | Path, *, config: CompactionConfig = CompactionConfig(),
                 scenario: Scenario = LONG_SESSION, requests: tuple[str, ...] = WORK_REQUESTS) -> StrategyRun:
    """One strategy on the session (workspace rebuilt under ``root/key``), then the amnesia probe."""
    session = run_scenario(scenario, config, Path(root) / strategy.key, requests=requests,
                           compactor=strategy.make())
    return StrategyRun(strategy, session, probe_amnesia(session))


def run_strategies(root: str | Path, chosen: tuple[Strategy, ...] | None = None, **options) -> list[StrategyRun]:
    """Every strategy on the same session, in registry order."""
    return [run_strategy(s, root, **options) for s in chosen or all_strategies()]


def strategy_table(runs: list[StrategyRun]) -> str:
    """The strategy table as aligned text, thousands separated."""
    rows = [run.row() for run in runs]
    headers = list(rows[0])
    cells = [headers] + [[f"{v:,}" if isinstance(v, int) else str(v) for v in row.values()] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in cells]
    return "\n".join(lines[:1] + ["  ".join("-" * w for w in widths)] + lines[1:])


def clearing_figure(root: str | Path, trigger: int = 10_000, keep: int = 3, clear_at_least: int = 0,
                    exclude_reads: bool = False, clear_inputs: bool = False) -> Figure:
    """Chapter 07's sliders: the API clearing knobs on TWELVE_FILES, drawn beside no compaction."""
    config = CompactionConfig(max_turns=60)
    plain = run_scenario(TWELVE_FILES, config, Path(root) / "none", compactor=Compactor())
    clearing = ClearToolUses(trigger=trigger, keep=keep, clear_at_least=clear_at_least,
                             exclude_tools={"read_file"} if exclude_reads else frozenset(),
                             clear_tool_inputs=clear_inputs)
    session = run_scenario(TWELVE_FILES, config, Path(root) / "clearing", compactor=clearing)
    fig = Figure(figsize=(8.0, 4.0), layout="constrained")
    ax = fig.subplots()
    for label, run in (("no compaction", plain), ("API clearing (simulated)", session)):
        context = [t.input_tokens for t in run.trace if t.kind == "agent"]
        ax.plot(range(1, len(context) + 1), context, marker=".", label=label)
    ax.axhline(trigger, color="black", linestyle="--", linewidth=1, label=f"trigger ({trigger:,})")
    outcome = "same answer" if session.answers[-1] == plain.answers[-1] else "no answer: max_turns"
    ax.set_title((
        f"cleared {len(clearing.cleared_ids)} tool uses ({clearing.cleared_tokens:,} tokens); "
        f"re-reads {session.stats.re_reads}; billed {session.stats.input_tokens_billed:,} "
        f"vs {plain.stats.input_tokens_billed:,}; {outcome}"), fontsize=9)
    ax.set(xlabel="model call", ylabel="input tokens sent in this call")
    ax.set_ylim(0, 30_000)
    ax.legend(loc="upper left")
    return fig
