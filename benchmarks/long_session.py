"""Cumulative input tokens of the long session, with and without compaction (chapter 05).

Every model call sends the whole history again, so what a session costs is
the sum of the reported input tokens of all its calls, summary calls
included. The same LONG_SESSION runs three times through the SDK and the
fake: no compaction, the s06 defaults, and the defaults with nothing
preserved (read_file results cleared too).
"""
from __future__ import annotations

from dataclasses import dataclass

from harness import CompactionConfig
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.session.runner import SessionStats

from .scratch import scratch_root
from .table import format_table, ratio, tokens

CONFIGS: dict[str, CompactionConfig] = {
    "no compaction": CompactionConfig(micro=False, auto=False),
    "s06 defaults": CompactionConfig(),
    "s06, nothing preserved": CompactionConfig(preserve_tools=frozenset()),
}


@dataclass(frozen=True)
class LongSession:
    requests: int
    stats: dict[str, SessionStats]   # by CONFIGS name, "no compaction" first


def measure(requests: tuple[str, ...] = LONG_SESSION.requests) -> LongSession:
    stats = {}
    with scratch_root() as root:
        for name, config in CONFIGS.items():
            stats[name] = run_scenario(LONG_SESSION, config, root, requests=requests).stats
    return LongSession(len(requests), stats)


def render(r: LongSession) -> str:
    baseline = r.stats["no compaction"].input_tokens_billed
    rows = [[name, s.model_calls, s.summary_calls, s.re_reads, tokens(s.peak_context),
             tokens(s.input_tokens_billed), ratio(s.input_tokens_billed, baseline)]
            for name, s in r.stats.items()]
    return format_table(
        f"Long session ({r.requests} requests): input tokens billed over all calls",
        ["config", "calls", "summaries", "re-reads", "peak context", "input billed", "vs none"], rows)
