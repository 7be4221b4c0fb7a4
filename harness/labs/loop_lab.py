"""Labs for the compact tool and the three-layer loop (chapters 04 and 05).

The memory picture of a history: working memory (the newest KEEP_RECENT tool
results, in full), short-term memory (placeholders), long-term memory (the
summary in the context, the transcripts on disk). Runs of the long session
keyed by their knobs and cached: a run takes seconds and the same knobs always
give the same run. A slider's runs are made up front (``compact_tool_runs``,
``three_layer_runs``, under a progress bar) and its callback only cuts one with
``Session.first`` and draws. Every cached run records the memory picture of each
agent request it sent, and the cache segments of every request (``run_cost``:
chapter 09's cache model). Each run
takes the loop to run (``loop``, the harness's ``run_agent`` by default;
chapters 04 and 05 pass the student's); a run folder belongs to one loop, so
two loops need two roots. The figures are plain matplotlib Figures, not
registered with pyplot, so a slider can redraw them as often as it likes.
"""
from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from ..core.auto import SUMMARY_PREFIX
from ..core.config import CompactionConfig, check_count
from ..core.loop import RunResult, run_agent
from ..core.messages import Message, blocks, iter_tool_results
from ..core.micro import is_placeholder
from ..core.tokens import MESSAGE_OVERHEAD, block_tokens, count_tokens, text_tokens
from ..core.transcripts import read_transcript
from ..fake import fake_client
from ..session.runner import Session, SessionPart
from .cost import SESSION_PRICES, CostReport, Prices, cache_recorder, cost_of
from .growth import growth_series
from .parallel import run_all
from .recording import RecordingClient
from .runs import run_scenario
from .scenarios import LONG_SESSION
from .style import STRATEGY_COLOURS, TALL_WIDE, new_figure, thousands

# --- the memory picture (chapter 05) --------------------------------------------

ON_DISK = "long-term: transcripts"
MEMORY_NAMES = ("working", "kept in full", "short-term", "long-term: summary", "conversation", "framing",
                ON_DISK)
MEMORY_COLOURS = dict(zip(MEMORY_NAMES, ("#1f77b4", "#aec7e8", "#ff7f0e", "#2ca02c", "#c7c7c7", "#7f7f7f",
                                         "#2ca02c")))


@dataclass(frozen=True)
class MemoryPart:
    """One kind of memory: how many items, how many tokens, and where it lives."""
    name: str
    where: str      # "context" or "disk"
    items: int
    tokens: int


def memory_picture(messages: list[Message], *, keep_recent: int, transcript_dir: str | Path | None = None,
                   system: str | None = None, tools: list[dict[str, Any]] | None = None) -> list[MemoryPart]:
    """A history taken apart as memory, in ``MEMORY_NAMES`` order.

    In the context: working (the newest ``keep_recent`` tool results), kept in full (older
    results micro leaves alone: preserved tools, short outputs), short-term (placeholders),
    the long-term summary (compressed messages), conversation (requests, replies, tool calls)
    and framing (system prompt, tool schemas, each message's allowance). Their tokens add up
    to ``count_tokens(messages, system, tools)``. On disk: the transcripts in ``transcript_dir``.
    """
    check_count("keep_recent", keep_recent)
    results = list(iter_tool_results(messages))
    newest = {(i, j) for i, j, _ in results[max(0, len(results) - keep_recent):]}
    items = dict.fromkeys(MEMORY_NAMES, 0)
    tokens = dict.fromkeys(MEMORY_NAMES, 0)
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message)):
            name = _memory_name(block, (i, j) in newest)
            items[name] += 1
            tokens[name] += block_tokens(block)
    items["framing"] = len(messages)
    tokens["framing"] = (MESSAGE_OVERHEAD * len(messages) + (text_tokens(system) if system else 0)
                         + (text_tokens(json.dumps(tools, sort_keys=True)) if tools else 0))
    paths = sorted(Path(transcript_dir).glob("transcript_*.jsonl")) if transcript_dir else []
    items[ON_DISK] = len(paths)
    tokens[ON_DISK] = sum(_stored_tokens(str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    return [MemoryPart(n, "disk" if n == ON_DISK else "context", items[n], tokens[n]) for n in MEMORY_NAMES]


def _memory_name(block: dict[str, Any], newest: bool) -> str:
    kind = block.get("type")
    if kind == "tool_result":
        if newest:
            return "working"
        return "short-term" if is_placeholder(block.get("content")) else "kept in full"
    if kind == "text" and block["text"].startswith(SUMMARY_PREFIX):
        return "long-term: summary"
    return "conversation"


@lru_cache(maxsize=256)
def _stored_tokens(path: str, mtime_ns: int, size: int) -> int:
    """Tokens of one transcript file (cached per version of the file)."""
    return count_tokens(read_transcript(path))


def memory_of(session: Session) -> list[MemoryPart]:
    """The memory picture of a session's live history and of its transcripts on disk."""
    return memory_picture(session.messages, keep_recent=session.config.keep_recent,
                          transcript_dir=session.config.transcript_dir, system=session.system,
                          tools=session.toolbox.schemas)


def context_tokens(picture: list[MemoryPart]) -> int:
    """Tokens of the parts that live in the context."""
    return sum(p.tokens for p in picture if p.where == "context")


def memory_recorder(inner: Any, keep_recent: int, transcript_dir: Path) -> RecordingClient:
    """A client that keeps the memory picture of each agent request (one with tools) as it was
    sent, after micro and auto had their turn."""
    def picture(request: dict[str, Any]) -> list[MemoryPart] | None:
        if not request.get("tools"):
            return None
        return memory_picture(request["messages"], keep_recent=keep_recent, transcript_dir=transcript_dir,
                              system=request.get("system"), tools=request["tools"])
    return RecordingClient(inner, picture)


def memory_table(pictures: dict[str, list[MemoryPart]]) -> str:
    """Pictures side by side as text: items and tokens of every part."""
    labels = list(pictures)
    lines = [f"{'memory':23} {'where':8}" + "".join(f"{label:>26}" for label in labels)]
    for k, name in enumerate(MEMORY_NAMES):
        cells = "".join(f"{p[k].items:>10} items {p[k].tokens:>10,}" for p in pictures.values())
        lines.append(f"{name:23} {pictures[labels[0]][k].where:8}{cells}")
    return "\n".join(lines)


def memory_figure(runs: dict[str, list[list[MemoryPart]]],
                  title: str = "what the context holds at every call, and what waits on disk") -> Figure:
    """One panel per run: the memory picture of every agent request stacked by kind (they add up
    to the request's tokens), and the transcripts on disk as a dashed line."""
    fig = new_figure(TALL_WIDE)
    axes = fig.subplots(1, len(runs), sharey=True, squeeze=False)[0]
    in_context = [n for n in MEMORY_NAMES if n != ON_DISK]
    for ax, (label, pictures) in zip(axes, runs.items()):
        calls = list(range(1, len(pictures) + 1))
        ax.stackplot(calls, [[p[k].tokens for p in pictures] for k in range(len(in_context))],
                     labels=[f"{n} (context)" for n in in_context],
                     colors=[MEMORY_COLOURS[n] for n in in_context])
        ax.plot(calls, [p[-1].tokens for p in pictures], color=MEMORY_COLOURS[ON_DISK], linestyle="--",
                linewidth=2, label=f"{ON_DISK} (disk)")
        ax.set(xlabel="agent model call", title=label)
        ax.yaxis.set_major_formatter(thousands)
    axes[0].set_ylabel("tokens (cl100k)")
    axes[-1].legend(loc="upper left", fontsize="small")
    fig.suptitle(title)
    return fig


# --- cached runs of the long session (chapters 04 and 05) -----------------------

AGENT_MARGIN = 0.97


def agent_limit(threshold: int) -> int:
    """Where the chapter 05 agent calls ``compact`` itself: at the end of a task, once its
    request passes 97% of THRESHOLD (a tidy break just before auto would cut in mid-task)."""
    return int(threshold * AGENT_MARGIN)


def _check_requests(requests: int) -> None:
    total = len(LONG_SESSION.requests)
    if isinstance(requests, bool) or not isinstance(requests, int) or not 1 <= requests <= total:
        raise ValueError(f"requests must be an integer between 1 and {total}, got {requests!r}")


Loop = Callable[..., RunResult]
_FOLDER_LOOPS: dict[Path, str] = {}  # the name of the loop each run folder belongs to


def _claim(folder: Path, loop: Loop) -> None:
    """Refuse a run folder a loop of another name ran in: its cached run's transcripts would be
    overwritten. (A loop redefined under the same name, a notebook cell run again, may reuse it.)"""
    name = getattr(loop, "__name__", repr(loop))
    owner = _FOLDER_LOOPS.setdefault(folder.resolve(), name)
    if owner != name:
        raise ValueError(f"{folder} holds a run of the loop {owner}, not {name}; give each loop a root of its own")


RunKey = tuple[str, str, int, CompactionConfig, Any, Loop]  # root, name, requests, config, compact policy, loop
_RUNS: OrderedDict[RunKey, Session] = OrderedDict()         # the runs made so far, newest last
_KEPT_RUNS = 64


def _make_run(root: str, name: str, requests: int, config: CompactionConfig, compact_policy: Any,
              loop: Loop) -> Session:
    folder = Path(root) / name
    client = memory_recorder(cache_recorder(fake_client(compact_policy=compact_policy)), config.keep_recent,
                             folder / "transcripts")
    # fsync off: the log is read back, never recovered after a crash; flushing it each round made a run
    # 30% to 80% slower on the 2-core machine the chapters were built on, and the log's bytes are the same
    return run_scenario(LONG_SESSION, config, folder, client=client,
                        requests=LONG_SESSION.requests[:requests], log=True, loop=loop, fsync=False)


def _runs(keys: list[RunKey], desc: str, progress: bool = True) -> list[Session]:
    """The run of every key: made once (the missing ones on every core, under a progress bar), then
    looked up. Each run has its own folder, so the workers write where a serial run would."""
    missing = [key for key in dict.fromkeys(keys) if key not in _RUNS]
    for root, name, *_, loop in missing:
        _claim(Path(root) / name, loop)
    for key, session in zip(missing, run_all(_make_run, missing, desc=desc, progress=progress)):
        _RUNS[key] = session
        if len(_RUNS) > _KEPT_RUNS:
            _RUNS.popitem(last=False)
    for key in keys:
        _RUNS.move_to_end(key)
    return [_RUNS[key] for key in keys]


def _run(root: str, name: str, requests: int, config: CompactionConfig, compact_policy: Any,
         loop: Loop) -> Session:
    return _runs([(root, name, requests, config, compact_policy, loop)], desc=name, progress=False)[0]


def three_layer_run(keep_recent: int, threshold: int, requests: int, root: str | Path,
                    loop: Loop = run_agent) -> Session:
    """The first ``requests`` requests of LONG_SESSION with all three layers: micro keeping
    ``keep_recent`` results, auto past ``threshold``, an agent that compacts at ``agent_limit``.

    Written under ``root/k{keep_recent}-t{threshold}-r{requests}`` with a session log; cached,
    so treat it as read-only. ``session.client.records`` holds the memory picture of every
    agent request."""
    return _run(*_three_layer_key(keep_recent, threshold, requests, root, loop))


def _three_layer_key(keep_recent: int, threshold: int, requests: int, root: str | Path, loop: Loop) -> RunKey:
    _check_requests(requests)
    config = CompactionConfig(keep_recent=keep_recent, threshold=threshold)
    return (str(root), f"k{keep_recent}-t{threshold}-r{requests}", requests, config, agent_limit(threshold), loop)


def manual_only_run(limit: int, requests: int, root: str | Path, loop: Loop = run_agent) -> Session:
    """The first ``requests`` requests of LONG_SESSION with micro and auto off: only the agent's
    own ``compact`` calls shrink the context (after a task, once its request passes ``limit``)."""
    return _run(*_manual_key(limit, requests, root, loop))


def _manual_key(limit: int, requests: int, root: str | Path, loop: Loop) -> RunKey:
    _check_requests(requests)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be an integer >= 0, got {limit!r}")
    return (str(root), f"manual-l{limit}-r{requests}", requests, CompactionConfig(micro=False, auto=False), limit,
            loop)


def uncompressed_run(requests: int, root: str | Path, loop: Loop = run_agent) -> Session:
    """The first ``requests`` requests of LONG_SESSION with every layer off (cached)."""
    _check_requests(requests)
    return _run(str(root), f"none-r{requests}", requests, CompactionConfig(micro=False, auto=False), "never",
                loop)


def compact_tool_runs(limits: Iterable[int], requests: int, root: str | Path,
                      loop: Loop = run_agent) -> dict[int, Session]:
    """The runs of chapter 04's slider, made up front under a progress bar: ``manual_only_run`` of
    the first ``requests`` requests for each limit (the slider cuts them with ``Session.first``)."""
    limits = list(limits)
    keys = [_manual_key(limit, requests, root, loop) for limit in limits]
    return dict(zip(limits, _runs(keys, desc="runs, one per limit")))


def run_cost(session: Session, prices: Prices = SESSION_PRICES, *, caching: bool) -> CostReport:
    """A cached run's calls priced by chapter 09's cache model, with or without prompt caching: its
    client recorded every request's cache segments (summary calls included) beneath the memory pictures."""
    return cost_of(session.trace, session.client.inner.records, prices, caching=caching)


def three_layer_runs(keep_recents: Iterable[int], thresholds: Iterable[int], requests: int, root: str | Path,
                     loop: Loop = run_agent) -> dict[tuple[int, int], Session]:
    """The runs of chapter 05's slider, made up front under a progress bar: ``three_layer_run`` of the
    first ``requests`` requests for each (keep_recent, threshold) (the slider cuts them with ``Session.first``)."""
    grid = list(product(keep_recents, thresholds))
    keys = [_three_layer_key(k, t, requests, root, loop) for k, t in grid]
    return dict(zip(grid, _runs(keys, desc="runs, one per KEEP_RECENT and THRESHOLD")))


# --- where each layer fired, and the growth curves ------------------------------

SessionOrPart = Session | SessionPart  # a whole run, or its first requests

LAYERS = ("micro", "auto", "manual")
LAYER_STYLE = {"micro": ("o", "#ff7f0e", 30), "auto": ("v", "#d62728", 90), "manual": ("D", "#2ca02c", 70)}


@dataclass(frozen=True)
class LayerMarker:
    """A layer that fired at agent call ``call``, drawn on the curve at that call's input tokens:
    micro and auto act just before the call (the low point after the cut), manual just after it
    (the high point the agent chose to cut)."""
    layer: str
    call: int
    tokens: int


def layer_markers(session: SessionOrPart) -> list[LayerMarker]:
    """One marker per micro, auto or manual event of the session, in order."""
    context = {t.call: t.input_tokens for t in session.trace if t.kind == "agent"}
    return [LayerMarker(e.kind, e.call, context[e.call]) for e in session.events if e.kind in LAYERS]


def layers_figure(compressed: SessionOrPart, uncompressed: SessionOrPart, *, limit: int | None = None,
                  limit_label: str = "THRESHOLD", title: str | None = None) -> Figure:
    """Both runs' context per agent call in one axes, a marker wherever a layer fired in the
    compressed run, and ``limit`` as a dashed line."""
    fig = new_figure(TALL_WIDE)
    ax = fig.subplots()
    for session, label, colour in ((uncompressed, "no compaction", STRATEGY_COLOURS["none"]),
                                   (compressed, "with compaction", STRATEGY_COLOURS["three_layers"])):
        series = growth_series(session.trace)
        ax.plot(list(series.calls), series.context, color=colour, linewidth=1.2, label=label)
    markers = layer_markers(compressed)
    for layer in LAYERS:
        points = [m for m in markers if m.layer == layer]
        if points:
            shape, colour, size = LAYER_STYLE[layer]
            ax.scatter([m.call for m in points], [m.tokens for m in points], marker=shape, s=size,
                       color=colour, edgecolors="black", linewidths=0.5, zorder=3,
                       label=f"{layer} fired ({len(points)}x)")
    if limit is not None:
        ax.axhline(limit, color="black", linestyle="--", linewidth=1, label=f"{limit_label} ({limit:,})")
    ax.set(xlabel="agent model call", ylabel="input tokens sent in this call", title=title or "")
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(thousands)
    ax.legend(loc="upper left", fontsize="small")
    return fig


def run_line(session: SessionOrPart) -> str:
    """One line of a run's numbers: calls, peak context, input tokens billed, re-reads, layers."""
    stats = session.stats
    fired = ", ".join(f"{kind} {n}" for kind, n in stats.compactions.items()) or "none"
    return (f"{stats.model_calls} calls, peak {stats.peak_context:,}, billed "
            f"{stats.input_tokens_billed / 1e6:.2f}M, re-reads {stats.re_reads}, fired: {fired}")


def three_layers_lab(keep_recent: int, threshold: int, requests: int, *,
                     runs: Mapping[tuple[int, int], Session], uncompressed: Session) -> Figure:
    """The chapter 05 slider: growth curves of the first ``requests`` requests with and without
    the three layers, cut from ``runs[keep_recent, threshold]`` (``three_layer_runs``) and from
    ``uncompressed``: a look-up and a drawing, no run."""
    compressed = runs[keep_recent, threshold].first(requests)
    uncompressed = uncompressed.first(requests)
    title = (f"KEEP_RECENT={keep_recent}, THRESHOLD={threshold:,}, first {requests} requests\n"
             f"with: {run_line(compressed)}\nwithout: {run_line(uncompressed)}")
    return layers_figure(compressed, uncompressed, limit=threshold,
                         limit_label="THRESHOLD, on estimate_tokens", title=title)


def compact_tool_lab(limit: int, requests: int, *, runs: Mapping[int, Session], uncompressed: Session) -> Figure:
    """The chapter 04 slider: an agent that compacts itself after a task once its request
    passes ``limit`` tokens (micro and auto off), against no compaction: the first ``requests``
    requests cut from ``runs[limit]`` (``compact_tool_runs``) and from ``uncompressed``."""
    compressed = runs[limit].first(requests)
    uncompressed = uncompressed.first(requests)
    title = (f"the agent calls compact after a task above {limit:,} tokens, first {requests} requests\n"
             f"with: {run_line(compressed)}\nwithout: {run_line(uncompressed)}")
    return layers_figure(compressed, uncompressed, limit=limit, limit_label="the agent's limit", title=title)
