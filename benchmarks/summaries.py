"""Chapter 12's summaries on the long session at one matched setting, side by side.

Summary of summaries (chapter 03's request), the incremental merge, each with
a self-check, and the summary prepared ahead of time (at 0.7 of the
threshold), all with the same trigger, summary budget and tail: summary
calls, summary tokens, the modelled wait for summaries, the facts the last
summary alone still answers, and the time each run took.
"""
from __future__ import annotations

import time

from harness.labs.amnesia import WORK_REQUESTS
from harness.labs.summary_lab import MATCHED_SETTING, blocking_wait, run_drift
from harness.strategies.incremental_summary import IncrementalSummary
from harness.strategies.prepared_summary import PreparedSummary
from harness.strategies.three_layers import ThreeLayers
from harness.strategies.verified_summary import VerifiedSummary

from .scratch import scratch_root
from .table import format_table, tokens

STRATEGIES = {
    "summary of summaries": ThreeLayers,
    "incremental merge": IncrementalSummary,
    "self-check, same view": VerifiedSummary,
    "self-check, whole history": lambda: VerifiedSummary(view_chars=10**7),
    "prepared at 0.7": lambda: PreparedSummary(0.7),
}


def measure(requests: tuple[str, ...] = WORK_REQUESTS) -> list[list[object]]:
    rows = []
    with scratch_root() as root:
        for key, make in STRATEGIES.items():
            start = time.perf_counter()
            run = run_drift(key.replace(" ", "_").replace(",", ""), make(), MATCHED_SETTING, root, requests)
            seconds = time.perf_counter() - start
            rows.append([key, len(run.points), tokens(run.summary_tokens), f"{blocking_wait(run.session):.1f} s",
                         f"{run.kept[-1] if run.kept else 0}/{len(run.points[-1].asked) if run.points else 0}",
                         f"{seconds:.1f} s"])
    return rows


def render(rows: list[list[object]]) -> str:
    return format_table(
        f"Summaries on the long session (threshold {MATCHED_SETTING.threshold:,}, tail {MATCHED_SETTING.tail_chars:,} chars, "
        f"budget {MATCHED_SETTING.summary_max_tokens:,} tokens)",
        ["strategy", "compactions", "summary tokens", "modelled wait", "last summary knows", "time"], rows)


if __name__ == "__main__":
    print(render(measure()))
