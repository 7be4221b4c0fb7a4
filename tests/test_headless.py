"""A soak test: every chapter notebook run headless under nbclient twice, both runs at the same moment.

The two runs execute the same notebook in two fresh kernels that start their first cell at the
same moment, both from ``notebooks/``; with one scratch folder per run (own_scratch) they cannot
touch each other's files, and each kernel's sweep workers compete for the same cores. The per-cell timeout only detects a hang: a healthy cell
stays far below it, and the slowest cell of every run is checked against a quarter of it, so a
stall shows up as a failure here rather than as a slow build.
"""
from __future__ import annotations

import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from benchmarks.table import format_table

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
RUNS = 2                      # per notebook: one pair, both runs at the same moment
CELL_TIMEOUT = 120            # seconds: a hang detector, not a budget
SLOW_CELL = CELL_TIMEOUT / 4  # no healthy cell comes near this


@dataclass
class Run:
    notebook: str
    run: int
    seconds: float = 0.0
    cells: dict[int, float] = field(default_factory=dict)  # index of each code cell run -> seconds
    failure: str = ""

    @property
    def slowest(self) -> tuple[float, int]:
        return max((seconds, index) for index, seconds in self.cells.items())


def execute(path: Path, run: int, together: threading.Barrier, timeout: float = CELL_TIMEOUT) -> Run:
    """One run in a fresh kernel; the first cell waits until the other run of the pair is ready too."""
    record, started = Run(path.stem, run), {}

    def cell_started(cell: nbformat.NotebookNode, cell_index: int) -> None:
        started[cell_index] = time.monotonic()

    def cell_done(cell: nbformat.NotebookNode, cell_index: int, execute_reply: dict) -> None:
        record.cells[cell_index] = time.monotonic() - started[cell_index]

    client = NotebookClient(nbformat.read(path, as_version=4), timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}},
                            on_notebook_start=lambda notebook: together.wait(),
                            on_cell_execute=cell_started, on_cell_executed=cell_done)
    begin = time.monotonic()
    try:
        client.execute()
    except (CellTimeoutError, CellExecutionError, DeadKernelError, threading.BrokenBarrierError) as error:
        record.failure = f"cell {max(started, default='-')}: {type(error).__name__}: {str(error)[-600:]}"
    record.seconds = time.monotonic() - begin
    return record


def soak() -> list[Run]:
    """RUNS runs of every notebook, two at a time: each pair is two runs of the same notebook."""
    runs: list[Run] = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for path in CHAPTERS:
            for first in range(0, RUNS, 2):
                together = threading.Barrier(2, timeout=CELL_TIMEOUT)
                runs += pool.map(execute, [path, path], [first, first + 1], [together, together])
    return runs


def report(runs: list[Run], seconds: float) -> str:
    rows = []
    for path in CHAPTERS:
        mine = [r for r in runs if r.notebook == path.stem]
        times = [r.seconds for r in mine]
        slowest = max((r.slowest for r in mine if r.cells), default=(0.0, "-"))
        rows.append([path.stem, f"{min(times):.1f} s", f"{statistics.median(times):.1f} s", f"{max(times):.1f} s",
                     f"{slowest[0]:.1f} s (cell {slowest[1]})"])
    return format_table(f"Headless soak: {len(runs)} runs, two at a time, in {seconds:.0f} s "
                        f"(cell timeout {CELL_TIMEOUT} s)", ["notebook", "min", "median", "max", "slowest cell"], rows)


@pytest.mark.soak
def test_every_notebook_runs_headless_repeatedly_two_at_a_time_without_a_hang(capsys):
    assert CHAPTERS, "no chapter notebooks found"
    begin = time.monotonic()
    runs = soak()
    table = report(runs, time.monotonic() - begin)
    with capsys.disabled():
        print("\n" + table)
    failures = [f"{r.notebook} run {r.run}: {r.failure}" for r in runs if r.failure]
    assert not failures, "\n".join(failures)
    slow = [f"{r.notebook} run {r.run}: cell {r.slowest[1]} took {r.slowest[0]:.1f} s" for r in runs
            if r.slowest[0] >= SLOW_CELL]
    assert not slow, f"cells close to the {CELL_TIMEOUT} s hang timeout:\n" + "\n".join(slow) + "\n" + table


def test_a_hanging_cell_is_reported_with_its_notebook_run_and_cell(tmp_path):
    path = tmp_path / "hang.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                                    nbformat.v4.new_code_cell("import time; time.sleep(30)")]), path)
    run = execute(path, 3, threading.Barrier(1), timeout=2)
    assert (run.notebook, run.run) == ("hang", 3) and run.failure.startswith("cell 1: CellTimeoutError")
    assert list(run.cells) == [0] and run.seconds < 20
