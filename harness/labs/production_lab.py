"""Chapter 13's runs: the long session five ways, on the fake with automatic caching, priced call by call.

Each row adds one technique of ``harness.production`` to the one before: the
three layers; offloading at write time; a sub-agent for the folder reads;
re-injection after each summary; the summary sent over the cached prefix.
Every call goes out with the top-level ``cache_control``, so the fake's
``usage`` splits its input into cache reads, cache writes and uncached
tokens, and ``price`` turns them into dollars at ``SESSION_PRICES``. A call
is an agent call, a child's call (a sub-agent's) or a summary call, told
apart by what it sends.

A row's run keeps only numbers and texts (no session, no client), so it comes
back from a worker process as it left.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any, Callable

from matplotlib.figure import Figure

from ..core.auto import SUMMARY_PROMPT
from ..core.config import CompactionConfig
from ..core.tools import Toolbox
from ..fake import fake_client
from ..production.cached_summary import CACHED_SUMMARY_PROMPT, CacheReusingLayers
from ..production.offload import OFFLOAD_FOLDER, OFFLOAD_LIMIT, OffloadingToolbox
from ..production.reinject import REINJECT_BUDGET, ReinjectingLayers
from ..production.subagent import CHILD_BUDGET, CHILD_SYSTEM, SubagentToolbox
from ..session.runner import Session, count_re_reads
from ..strategies.three_layers import ThreeLayers
from .cost import SESSION_PRICES, AutomaticCaching, Prices, price
from .parallel import run_all
from .runs import fresh_folder
from .scenarios import LONG_SESSION
from .style import LEGEND, SINGLE_WIDE, WIDE, dollars, new_figure, thousands

ROWS = ("three layers", "+ offloading", "+ sub-agent", "+ re-injection", "+ cached-prefix summary")
TIGHT_THRESHOLD = 20_000        # tokens: tight enough that every row still compacts (at 50,000 offloading never does)
LIMITS = (250, 500, 1_000, 2_000)  # the slider's offloading limits, in tokens
CALL_KINDS = ("agent", "child", "summary")
LAST_REQUESTS = 3                # the session's last requests: the first change, the rule about tools/, an edit under tools/


class ReinjectingCachedLayers(ReinjectingLayers, CacheReusingLayers):
    """Re-injection after each summary, the summary sent over the cached prefix (the fifth row)."""
    name = "reinjecting_cached_layers"


def call_kind(request: dict[str, Any]) -> str:
    """A child's call (it sends the sub-agent's system prompt), a summary call (chapter 03's request, or the
    instruction appended to the agent's prompt), or an agent call."""
    if request.get("system") == CHILD_SYSTEM:
        return "child"
    messages = request.get("messages") or [{}]
    first, last = messages[0].get("content"), messages[-1].get("content")
    if (isinstance(first, str) and first.startswith(SUMMARY_PROMPT)) or (
            isinstance(last, str) and last.startswith(CACHED_SUMMARY_PROMPT)):
        return "summary"
    return "agent"


@dataclass(frozen=True)
class PricedCall:
    """One call's kind, the request it served (1-based), and its usage: input three ways and output."""
    kind: str
    request: int
    cache_read: int
    cache_write: int
    uncached: int
    output: int

    @property
    def context(self) -> int:
        return self.cache_read + self.cache_write + self.uncached

    def dollars(self, prices: Prices = SESSION_PRICES) -> float:
        return price(self.cache_read, self.cache_write, self.uncached, self.output, prices)


class CallRecorder(AutomaticCaching):
    """Automatic caching, and every call kept as a ``PricedCall`` of the request being served."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.calls: list[PricedCall] = []
        self.request = 0

    def create(self, **request: Any) -> Any:
        reply = super().create(**request)
        u = reply.usage
        self.calls.append(PricedCall(call_kind(request), self.request, u.cache_read_input_tokens or 0,
                               u.cache_creation_input_tokens or 0, u.input_tokens, u.output_tokens))
        return reply


@dataclass(frozen=True)
class RowRun:
    """What one row's run did and paid, as numbers and texts."""
    row: int
    limit: int
    calls: tuple[PricedCall, ...]
    compactions: int          # automatic and manual summaries
    answers: tuple[str, ...]  # the replies to the last LAST_REQUESTS requests
    saved: int                # results saved to files
    read_backs: int           # read_file calls of a saved file
    child_stops: tuple[str, ...]  # why each sub-agent stopped, in order
    restored: tuple[int, ...] # tokens put back after each summary (re-injection rows)
    re_reads: int             # reads of a file read before and not changed since

    @property
    def name(self) -> str:
        return ROWS[self.row]

    def of(self, kind: str | None = None) -> list[PricedCall]:
        return [c for c in self.calls if kind is None or c.kind == kind]

    def count(self, kind: str | None = None) -> int:
        return len(self.of(kind))

    def dollars(self, kind: str | None = None) -> float:
        return sum(c.dollars() for c in self.of(kind))

    def tokens(self, part: str, kind: str | None = None) -> int:
        return sum(getattr(c, part) for c in self.of(kind))

    @property
    def peak(self) -> int:
        """The largest context the parent sent."""
        return max(c.context for c in self.of("agent"))

    def context_per_request(self) -> list[int]:
        """The context of each request's last agent call, request by request."""
        last: dict[int, int] = {}
        for c in self.of("agent"):
            last[c.request] = c.context
        return [last.get(r, 0) for r in range(1, max(last) + 1)]

    def dollars_so_far(self) -> list[float]:
        """Dollars spent by the end of each request (every kind of call)."""
        per = [0.0] * max(c.request for c in self.calls)
        for c in self.calls:
            per[c.request - 1] += c.dollars()
        return list(accumulate(per))

    @property
    def keeps_the_rule(self) -> bool:
        """Whether the last request, an edit under tools/, was refused as the user asked early on."""
        return self.answers[-1].startswith("I will not change")


def run_row(row: int, root: str | Path, limit: int = OFFLOAD_LIMIT, threshold: int = TIGHT_THRESHOLD, *,
            budget: int = REINJECT_BUDGET, child_budget: int = CHILD_BUDGET,
            reinject: Callable[..., str | None] | None = None) -> RowRun:
    """Row ``row`` of ``ROWS`` on the long session, afresh under ``root``: ``limit`` is the offloading limit,
    ``budget`` re-injection's, ``child_budget`` each sub-agent's; ``reinject`` builds what is put back (chapter
    13's stub; None: the harness's ``reinjection``)."""
    root = fresh_folder(root)
    workspace = LONG_SESSION.build(root / "workspace")
    client = CallRecorder(fake_client())
    config = CompactionConfig(threshold=threshold, transcript_dir=root / "transcripts")
    tools: Any = Toolbox(workspace) if row == 0 else OffloadingToolbox(workspace, limit=limit)
    offloading = tools
    if row >= 2:
        tools = SubagentToolbox(tools, client, config, budget=child_budget)
    compactor = (ThreeLayers() if row < 3 else ReinjectingLayers(workspace, budget=budget, build=reinject) if row == 3
                 else ReinjectingCachedLayers(workspace, budget=budget, build=reinject))
    session = Session(client, tools, config, compactor=compactor)
    for number, request in enumerate(LONG_SESSION.requests, start=1):
        client.request = number
        session.ask(request)
    return RowRun(row, limit, tuple(client.calls), sum(e.kind in ("auto", "manual") for e in session.events),
                  tuple(session.answers[-LAST_REQUESTS:]), len(getattr(offloading, "saved", ())),
                  sum(name == "read_file" and str(i.get("path", "")).startswith(OFFLOAD_FOLDER + "/")
                      for name, i in session.tool_calls),
                  tuple(child.stop for child in getattr(tools, "runs", ())),
                  tuple(getattr(compactor, "restored", ())), count_re_reads(session.tool_calls)[0])


def run_rows(root: str | Path, reinject: Callable[..., str | None] | None = None,
             limits: tuple[int, ...] = LIMITS) -> tuple[list[RowRun], dict[int, RowRun]]:
    """Every row, then the second row (offloading alone) at each of ``limits`` but its own, for the slider:
    one sweep on every core, each run in its own folder under ``root`` (``reinject`` as in ``run_row``).
    Returns the rows and the second row by limit."""
    others = tuple(limit for limit in limits if limit != OFFLOAD_LIMIT)
    jobs = [(row, None) for row in range(len(ROWS))] + [(1, limit) for limit in others]

    def job(row: int, limit: int | None) -> RowRun:
        folder = Path(root) / (f"row{row}" if limit is None else f"limit{limit}")
        return run_row(row, folder, limit or OFFLOAD_LIMIT, reinject=reinject)
    runs = run_all(job, jobs, desc="rows", progress=False)
    rows, swept = runs[:len(ROWS)], dict(zip(others, runs[len(ROWS):]))
    return rows, dict(sorted({**swept, OFFLOAD_LIMIT: rows[1]}.items()))


def rows_figure(runs: list[RowRun], title: str) -> Figure:
    """Left: the context of each request's last agent call; right: dollars spent so far. One line a row."""
    fig = new_figure(WIDE)
    context_ax, cost_ax = fig.subplots(1, 2)
    for run in runs:
        context = run.context_per_request()
        spent = run.dollars_so_far()
        context_ax.plot(range(1, len(context) + 1), context, label=run.name)
        cost_ax.plot(range(1, len(spent) + 1), spent, label=f"{run.name} (${spent[-1]:.2f})")
    context_ax.axhline(TIGHT_THRESHOLD, color="black", linestyle="--", linewidth=1,
                       label=f"threshold ({TIGHT_THRESHOLD:,})")
    context_ax.set(xlabel="request", ylabel="tokens sent", title="context at the end of each request")
    cost_ax.set(xlabel="request", ylabel="dollars, cached", title="spent so far (every call)")
    context_ax.set_ylim(0, TIGHT_THRESHOLD * 1.6)
    context_ax.yaxis.set_major_formatter(thousands)
    cost_ax.yaxis.set_major_formatter(dollars)
    context_ax.legend(ncols=2, fontsize="small", **LEGEND)
    cost_ax.legend(fontsize="small", **LEGEND)
    fig.suptitle(title)
    return fig


def limit_figure(sweep: dict[int, RowRun], limit: int, baseline: RowRun) -> Figure:
    """The slider: offloading at ``limit`` against the three layers, context per request."""
    fig = new_figure(SINGLE_WIDE)
    ax = fig.subplots()
    for run, label in ((baseline, baseline.name), (sweep[limit], f"offloading over {limit:,} tokens")):
        context = run.context_per_request()
        ax.plot(range(1, len(context) + 1), context,
                label=f"{label}: {run.compactions} compactions, ${run.dollars():.2f}")
    ax.axhline(TIGHT_THRESHOLD, color="black", linestyle="--", linewidth=1)
    ax.set(xlabel="request", ylabel="tokens sent", title="context at the end of each request")
    ax.set_ylim(0, TIGHT_THRESHOLD * 1.5)
    ax.yaxis.set_major_formatter(thousands)
    ax.legend(**LEGEND)
    return fig
