"""The six compaction strategies and the controls on the long session, side by side (chapter 08).

Each strategy of ``all_strategies`` and ``control_strategies`` sends LONG_SESSION's 68 work
requests through the same loop and fake, one tool call per turn as chapter 08
compares them (with parallel calls a turn of twelve reads outruns a trigger
matched to the 60,000-token window), then takes the graded amnesia probe
(how many of its 8 facts each final history still answers); the table is
chapter 08's, plus the time each run took.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from harness.labs.amnesia import WORK_REQUESTS
from harness.labs.strategy_lab import StrategyRun, one_call_per_turn, run_strategy
from harness.strategies.registry import all_strategies, control_strategies

from .scratch import scratch_root
from .table import format_table, ratio, tokens


@dataclass(frozen=True)
class StrategyBench:
    requests: int
    runs: list[StrategyRun]
    seconds: dict[str, float]   # wall time of each strategy's run and probe, by key


def measure(requests: tuple[str, ...] = WORK_REQUESTS) -> StrategyBench:
    runs, seconds = [], {}
    with scratch_root() as root:
        for strategy in all_strategies() + control_strategies():
            start = time.perf_counter()
            runs.append(run_strategy(one_call_per_turn(strategy), root, requests=requests))
            seconds[strategy.key] = time.perf_counter() - start
    return StrategyBench(len(requests), runs, seconds)


def facts_kept(run: StrategyRun) -> str:
    """The graded amnesia probe's result: facts answered from memory, of those the session heard."""
    return f"{sum(run.amnesia.remembered.values())}/{len(run.amnesia.answers)}"


def render(bench: StrategyBench) -> str:
    baseline = bench.runs[0].session.stats.input_tokens_billed
    rows = []
    for run in bench.runs:
        s = run.session.stats
        rows.append([run.strategy.key, run.strategy.modelled_on, s.model_calls, s.summary_calls, s.re_reads,
                     tokens(s.peak_context), tokens(s.input_tokens_billed), ratio(s.input_tokens_billed, baseline),
                     facts_kept(run), f"{bench.seconds[run.strategy.key]:.1f} s"])
    return format_table(
        f"Strategies on the long session ({bench.requests} requests, then the amnesia probe on a copy)",
        ["strategy", "modelled on", "calls", "summaries", "re-reads", "peak context", "input billed",
         "vs none", "facts kept", "time"], rows)


if __name__ == "__main__":
    print(render(measure()))
