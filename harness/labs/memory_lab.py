"""Chapter 11's lab: two sessions on one workspace, with and without memory, and what each remembers.

``first_session`` runs the long session's opening requests under chapter 08's
pretend window with the reference agent's three layers, optionally offering
the memory tool and the flush notice, and ends by asking the agent to save
what it learned. ``second_session`` is a new conversation on a copy of that
workspace and memory folder, with requests that need what the first one
learned. ``probe_memory`` is chapter 08's graded probe for an agent with
memory: it may view its memory (read-only) before it answers, but a tool that
opens a workspace file, or writes memory, counts as not remembering. Every
session records its requests, so ``Run.dollars`` prices it with chapter 09's
cache model at ``SESSION_PRICES``, with prompt caching or without.
"""
from __future__ import annotations

import copy
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from matplotlib.figure import Figure

from ..core.config import CompactionConfig
from ..core.loop import to_dicts
from ..core.messages import Message, tool_result, user
from ..core.tools import Toolbox, Workspace
from ..fake import fake_client
from ..memory.flush import FlushBeforeCompaction
from ..memory.toolbox import MEMORY_TOOL_NAME, MemoryToolbox
from ..session.runner import Session
from ..strategies.registry import PRETEND_WINDOW
from ..strategies.three_layers import ThreeLayers
from .cost import SESSION_PRICES, cache_recorder, cost_of
from .amnesia import WORK_REQUESTS, AmnesiaReport, Probe, ProbeAnswer, probes_for
from .parallel import run_all
from .runs import fresh_folder
from .scenarios import LONG_SESSION
from .strategy_lab import retention_heatmap
from .style import WIDE, new_figure, thousands

SAVE_REQUEST = "Save what you have learned to memory before this session ends."
GUARD_REQUEST = "From now on, check a file before you trust what memory says about it."
SECOND_SESSION = (
    "Read every .py file under agents/ and summarise what each does.",
    "Read every .py file under core/ and summarise what each does.",
    "What is VERSION_TAG in agents/s03_todo_write.py?",
    "What is VERSION_TAG in core/c06_storage.py?",
    "What did I tell you about tools/?",
    'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".',
    "Which file did I first ask you to change?",
)
MEMORY_CONFIG = CompactionConfig(preserve_tools=frozenset({"read_file", MEMORY_TOOL_NAME}))


@dataclass
class Run:
    """A session and the folders it worked on."""
    session: Session
    root: Path

    @property
    def reads(self) -> int:
        """Workspace files the agent opened (read_file calls)."""
        return sum(1 for name, _ in self.session.tool_calls if name == "read_file")

    @property
    def memory_calls(self) -> int:
        return sum(1 for name, _ in self.session.tool_calls if name == MEMORY_TOOL_NAME)

    def dollars(self, caching: bool = True) -> float:
        """The session's price at SESSION_PRICES (its calls only, not a probe's), with or without caching."""
        records = self.session.client.records[:len(self.session.trace)]
        return cost_of(self.session.trace, records, SESSION_PRICES, caching=caching).dollars

    def memory_text(self) -> dict[str, str]:
        folder = self.root / "memories"
        return {f"/memories/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
                for p in sorted(folder.rglob("*")) if p.is_file()} if folder.is_dir() else {}


def open_session(root: Path, *, memory: bool, flush_at: float | None = 0.8, window: int | None = PRETEND_WINDOW,
                 config: CompactionConfig = MEMORY_CONFIG, check: Callable[[Any], str] | None = None,
                 instructions: bool = True) -> Session:
    """A session on ``root/workspace`` (and ``root/memories`` when ``memory``), three layers, pretend window;
    ``check`` is the memory path check (the harness's by default); ``instructions=False`` is the control in
    which the fake does not read the API's memory instructions; the client records every request."""
    workspace = Workspace(root / "workspace")
    toolbox = MemoryToolbox(workspace, root / "memories", check=check) if memory else Toolbox(workspace)
    compactor = FlushBeforeCompaction(ThreeLayers(), flush_at) if memory else ThreeLayers()
    client = cache_recorder(fake_client(window=window, memory_instructions=instructions))
    return Session(client, toolbox, config.with_(transcript_dir=root / "transcripts"),
                   compactor=compactor)


def first_session(root: str | Path, requests: tuple[str, ...] = WORK_REQUESTS[:30], *, memory: bool = True,
                  flush_at: float | None = 0.8, save_at_end: bool = True, **options) -> Run:
    """Build LONG_SESSION's workspace afresh under ``root`` and send ``requests`` (then SAVE_REQUEST)."""
    root = fresh_folder(root)
    LONG_SESSION.build(root / "workspace")
    session = open_session(root, memory=memory, flush_at=flush_at, **options)
    for request in requests + ((SAVE_REQUEST,) if memory and save_at_end else ()):
        session.ask(request)
    return Run(session, root)


def second_session(first: Run, root: str | Path, requests: tuple[str, ...] = SECOND_SESSION, *,
                   memory: bool = True, **options) -> Run:
    """A new conversation on a copy of the first session's workspace (and memory, if ``memory``)."""
    root = fresh_folder(root)
    shutil.copytree(first.root / "workspace", root / "workspace")
    if memory and (first.root / "memories").is_dir():
        shutil.copytree(first.root / "memories", root / "memories")
    session = open_session(root, memory=memory, **options)
    for request in requests:
        session.ask(request)
    return Run(session, root)


def probe_memory(run: Run, probes: tuple[Probe, ...] | None = None, max_views: int = 4) -> AmnesiaReport:
    """Chapter 08's probe on a copy of the final history, letting the agent view memory first."""
    session = run.session
    probes = probes if probes is not None else probes_for(WORK_REQUESTS[:len(session.answers)])
    answers = []
    for probe in probes:
        messages: list[Message] = copy.deepcopy(session.messages) + [user(probe.question)]
        reply, other = "", ()
        for _ in range(max_views + 1):
            response = session.client.messages.create(
                model=session.config.model, max_tokens=session.config.max_tokens, system=session.system,
                tools=session.toolbox.schemas, messages=messages)
            content = to_dicts(response.content)
            uses = [b for b in content if b["type"] == "tool_use"]
            reply = "\n".join(b["text"] for b in content if b["type"] == "text")
            views = [b for b in uses if b["name"] == MEMORY_TOOL_NAME and b["input"].get("command") == "view"]
            if not uses or len(views) < len(uses):
                other = tuple(b["name"] for b in uses if b not in views)
                break
            messages.append({"role": "assistant", "content": content})
            messages.append(user([tool_result(b["id"], (o := session.toolbox.run(b["name"], b["input"])).content,
                                              o.is_error) for b in views]))
        answers.append(ProbeAnswer(probe, reply, other, not other and probe.matches(reply)))
    return AmnesiaReport(tuple(answers))


WITH, WITHOUT = "#1f77b4", "#7f7f7f"  # memory offered / not


def sessions_figure(pairs: dict[str, tuple[Run, Run]]) -> Figure:
    """Workspace files read and input tokens billed per session, without and with memory, side by side."""
    fig = new_figure(WIDE)
    reads, billed = fig.subplots(1, 2)
    labels = list(pairs)
    for offset, (name, colour, pick) in enumerate((("without memory", WITHOUT, 1), ("with memory", WITH, 0))):
        xs = [i + (offset - 0.5) * 0.38 for i in range(len(labels))]
        runs = [pairs[label][pick] for label in labels]
        reads.bar(xs, [r.reads for r in runs], 0.38, label=name, color=colour)
        billed.bar(xs, [r.session.stats.input_tokens_billed for r in runs], 0.38, label=name, color=colour)
        for x, r in zip(xs, runs):
            reads.annotate(str(r.reads), (x, r.reads), ha="center", va="bottom", fontsize=8)
    for ax, title in ((reads, "workspace files read (read_file calls)"), (billed, "input tokens billed")):
        ax.set_xticks(range(len(labels)), labels)
        ax.set(xlabel="session", title=title)
        ax.legend(loc="upper right")
    reads.set_ylabel("files read")
    billed.set_ylabel("tokens")
    billed.yaxis.set_major_formatter(thousands)
    return fig


def retention_map(reports: dict[str, AmnesiaReport]) -> Figure:
    """Fact by variant: kept (green) or lost (red) in each final history."""
    return retention_heatmap(reports, lambda p: f"{p.name} (said in {', '.join(map(str, p.said_in))})",
                             xlabel="variant", ylabel="probed fact",
                             title="after 68 requests and their compactions: kept or lost")


@dataclass(frozen=True)
class FlushPoint:
    """One flush fraction's outcome on the whole long session."""
    at: float
    kept: int
    forgotten: tuple[str, ...]
    billed: int
    reads: int
    memory_calls: int
    dollars: float  # with prompt caching, at SESSION_PRICES


def flush_sweep(root: str | Path, fractions: tuple[float, ...]) -> list[FlushPoint]:
    """The long session with memory once per flush fraction, each probed (on every core, each in its folder)."""
    return run_all(flush_point, [(root, at) for at in fractions], desc="flush fractions", progress=False)


def flush_point(root: str | Path, at: float) -> FlushPoint:
    """The long session with memory and the flush notice at ``at`` (in ``root/at{at}``), probed."""
    run = first_session(Path(root) / f"at{at}", WORK_REQUESTS, flush_at=at)
    report = probe_memory(run)
    return FlushPoint(at, sum(report.remembered.values()), report.forgotten,
                      run.session.stats.input_tokens_billed, run.reads, run.memory_calls, run.dollars())


def flush_figure(points: list[FlushPoint], at: float, baseline: FlushPoint) -> tuple[str, Figure]:
    """The slider's answer: the chosen fraction's line, and facts kept and tokens billed over every fraction."""
    point = next(p for p in points if p.at == at)
    line = (f"flush at {at:.0%} of the trigger: {point.kept}/8 facts kept"
            f"{' (lost: ' + ', '.join(point.forgotten) + ')' if point.forgotten else ''}; "
            f"{point.billed:,} tokens billed, {point.reads} files read, {point.memory_calls} memory calls")
    fig = new_figure(WIDE)
    kept, billed = fig.subplots(1, 2)
    xs = [p.at for p in points]
    kept.plot(xs, [p.kept for p in points], marker="o", color=WITH, label="with memory")
    billed.plot(xs, [p.billed for p in points], marker="o", color=WITH, label="with memory")
    kept.axhline(baseline.kept, color=WITHOUT, linestyle="--", label="without memory")
    billed.axhline(baseline.billed, color=WITHOUT, linestyle="--", label="without memory")
    for ax in (kept, billed):
        ax.axvline(at, color="black", linewidth=1)
        ax.set_xlabel("flush notice at this fraction of the compaction trigger")
        ax.legend(loc="lower left")
    kept.plot([at], [point.kept], marker="o", markersize=10, color="black")
    billed.plot([at], [point.billed], marker="o", markersize=10, color="black")
    kept.set(ylabel="facts kept of 8", ylim=(0, 8.5), title="graded retention")
    billed.set(ylabel="input tokens billed", title="cost of the whole session")
    billed.yaxis.set_major_formatter(thousands)
    return line, fig
