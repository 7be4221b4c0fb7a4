"""Sweeps on every core: the same job for many settings, in worker processes (chapter 04).

A slider's grid, a tuning sweep and a strategy table each run one session per
setting, and the sessions do not depend on each other. ``run_all`` hands them
to joblib's loky workers, one process per core, and gives the results back in
order under a progress bar. Loky sends the job with cloudpickle, so a function
you define in a notebook cell runs in the workers as you wrote it: what runs is
always your current code, never a copy from an earlier run.

A worker works in the kernel's own working directory, so the relative paths a
chapter uses (``_work/05/...``) lead to the same files. Jobs that write the same
relative paths (a lab that rebuilds one run folder for every setting) ask for
``private=True``: each then works in a folder of its own under a temporary
directory, with the same relative paths, so the bytes and the token counts of
what they send are exactly those of a serial run. The results come back by
pickle; a session's fake client comes back as a new client of the same fake.

A worker takes a second or two to start (it imports the SDK and loads the
tokenizer), so a chapter with sweeps calls ``start_workers()`` in its setup
cell: the workers start in the background while the kernel goes on, and
the first sweep finds them ready. The workers stay for later sweeps and go
when the kernel stops (or after five idle minutes).

``HARNESS_WORKERS`` sets the number of workers (1: everything in the kernel,
one job after another). A sweep of one job runs in the kernel.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from joblib import Parallel, cpu_count, delayed
from tqdm.auto import tqdm

Result = TypeVar("Result")
WORKERS_VARIABLE = "HARNESS_WORKERS"


def workers() -> int:
    """How many worker processes a sweep uses: ``HARNESS_WORKERS`` if set, else every core."""
    value = os.environ.get(WORKERS_VARIABLE, "").strip()
    if not value:
        return cpu_count()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{WORKERS_VARIABLE} must be a whole number of at least 1, got {value!r}")
    return int(value)


def start_workers() -> None:
    """Start the sweeps' workers in the background (they import the harness and load the tokenizer);
    returns at once. Does nothing when a sweep would run in the kernel (one worker)."""
    count = workers()
    if count > 1:
        threading.Thread(target=_warm_up, args=(count,), daemon=True, name="start_workers").start()


def _warm_up(count: int) -> None:
    try:
        Parallel(n_jobs=count, backend="loky")(delayed(_ready)() for _ in range(count))
    except Exception:  # nothing to report here: a sweep that cannot start its workers raises itself
        pass


def _ready() -> bool:
    """What every job needs, loaded in a worker: the fake behind the SDK, the session, the tokenizer."""
    from ..core.tokens import encoding
    from . import runs  # noqa: F401  (the import is the point)
    encoding()
    return True


def run_all(job: Callable[..., Result], arguments: Iterable[Sequence[Any]], *, desc: str,
            private: bool = False, progress: bool = True, parallel: bool = True) -> list[Result]:
    """``[job(*args) for args in arguments]``, on every core, in order, under a progress bar (unless
    not ``progress``; all in the kernel unless ``parallel``).

    ``private``: every job works in a fresh folder of its own (removed afterwards) instead of the
    kernel's working directory, for jobs that write the same relative paths."""
    todo = [tuple(args) for args in arguments]
    count = min(workers(), len(todo)) if parallel else 1
    here = os.getcwd()
    bar = tqdm(total=len(todo), desc=desc, disable=not progress)
    results: list[Result] = []
    if count <= 1:
        for args in todo:
            results.append(_in_folder(here, private, job, args))
            bar.update()
    else:  # every worker, even when there are fewer jobs: the same pool serves every sweep
        run = Parallel(n_jobs=workers(), backend="loky", return_as="generator")
        for result in run(delayed(_in_folder)(here, private, job, args) for args in todo):
            results.append(result)
            bar.update()
    bar.close()
    return results


def _in_folder(here: str, private: bool, job: Callable[..., Result], args: tuple[Any, ...]) -> Result:
    """Run one job in ``here`` (a worker's working directory is whatever it was started in), or in a
    folder of its own under a temporary directory, then go back."""
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="job-")) if private else here
        stack.enter_context(contextlib.chdir(Path(folder)))
        return job(*args)
