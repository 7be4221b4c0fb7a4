"""One whole 12-file run through the real SDK and the fake: is it fast enough for a slider? (chapter 09)

A slider that re-runs the scenario on every move needs the run to finish
in under BUDGET_MS. A run here is what such a callback does: build the
workspace afresh, then send the request through ``anthropic.Anthropic`` to
the in-process fake until the agent answers. The budget applies to the
estimate counter (the s06 default); the cl100k counter is shown beside it.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness import CompactionConfig
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES

from .scratch import scratch_root
from .table import format_table, millis, ratio
from .timing import median_seconds

BUDGET_MS = 150.0
COUNTERS = ("estimate", "tiktoken")


@dataclass(frozen=True)
class TwelveRun:
    repeats: int
    median: dict[str, float]   # seconds per run, by counter
    budget_ms: float = BUDGET_MS

    @property
    def meets_budget(self) -> bool:
        return self.median["estimate"] * 1000 < self.budget_ms


def measure(repeats: int = 15, warmup: int = 2) -> TwelveRun:
    medians = {}
    with scratch_root() as root:
        for counter in COUNTERS:
            config = CompactionConfig(counter=counter)
            medians[counter] = median_seconds(lambda: run_scenario(TWELVE_FILES, config, root),
                                              repeats=repeats, warmup=warmup)
    return TwelveRun(repeats, medians)


def verdict(r: TwelveRun) -> str:
    return "PASS" if r.meets_budget else "FAIL"


def render(r: TwelveRun) -> str:
    base = r.median["estimate"]
    rows = [[counter, millis(seconds), ratio(seconds, base),
             f"{verdict(r)} (< {r.budget_ms:.0f} ms)" if counter == "estimate" else "(not budgeted)"]
            for counter, seconds in r.median.items()]
    return format_table(f"One 12-file run through the SDK and the fake (warm, median of {r.repeats})",
                        ["counter", "per run", "vs estimate", "budget"], rows)
