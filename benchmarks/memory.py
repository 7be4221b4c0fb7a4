"""Memory across sessions, with and without the memory tool (chapter 11).

Two first sessions (LONG_SESSION's first 30 requests under chapter 08's
60,000-token window, three layers, memory offered with the flush notice at
80% of the trigger or not offered), then the same seven second-session
requests on a copy of each workspace: files read and input tokens billed in
each session, the rule about tools/ kept or broken, and the time each pair
took. Then the whole long session both ways, probed: facts kept of 8.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from harness.labs.amnesia import WORK_REQUESTS, probe_amnesia
from harness.labs.memory_lab import Run, first_session, probe_memory, second_session

from .scratch import scratch_root
from .table import format_table, ratio, tokens


@dataclass(frozen=True)
class MemoryBench:
    runs: dict[bool, tuple[Run, Run]]     # memory offered -> (first, second)
    kept: dict[bool, int]                 # memory offered -> facts kept of 8 after the whole session
    seconds: dict[bool, float]


def measure(requests: tuple[str, ...] = WORK_REQUESTS[:30], whole: tuple[str, ...] = WORK_REQUESTS) -> MemoryBench:
    runs, kept, seconds = {}, {}, {}
    with scratch_root() as root:
        for memory in (False, True):
            start = time.perf_counter()
            first = first_session(root / f"first_{memory}", requests, memory=memory)
            runs[memory] = (first, second_session(first, root / f"second_{memory}", memory=memory))
            seconds[memory] = time.perf_counter() - start
            full = first_session(root / f"whole_{memory}", whole, memory=memory, save_at_end=False)
            report = probe_memory(full) if memory else probe_amnesia(full.session)
            kept[memory] = sum(report.remembered.values())
    return MemoryBench(runs, kept, seconds)


def render(bench: MemoryBench) -> str:
    rows = []
    for memory in (False, True):
        first, second = bench.runs[memory]
        rule_kept = second.session.answers[5].startswith("I will not change") if len(second.session.answers) > 5 else "n/a"
        rows.append(["with memory" if memory else "without", first.reads, tokens(first.session.stats.input_tokens_billed),
                     second.reads, tokens(second.session.stats.input_tokens_billed),
                     ratio(second.session.stats.input_tokens_billed,
                           bench.runs[False][1].session.stats.input_tokens_billed),
                     rule_kept, f"{bench.kept[memory]}/8", f"{bench.seconds[memory]:.1f} s"])
    return format_table(
        "Memory across sessions (chapter 11): a first session, then a new conversation on the same workspace",
        ["variant", "1st: reads", "1st: billed", "2nd: reads", "2nd: billed", "2nd vs without", "rule kept",
         "facts kept (whole)", "time (both sessions)"], rows)
