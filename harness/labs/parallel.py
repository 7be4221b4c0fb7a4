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
what they send are exactly those of a serial run. The kernel makes those
folders and removes them when the sweep ends, however it ends (an interrupt
included, when the workers are stopped mid-job). The results come back by
pickle; a session's fake client comes back as a new client of the same fake.

A job that raises stops the sweep with that error, as a loop would: the first
failing job in the order given, whichever failed first in time, with the
worker's traceback as its cause. The harness's own errors pickle as
themselves (``harness.core.errors``); an error that does not pickle arrives
as a RuntimeError naming its class and message.

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
import pickle
import shutil
import tempfile
import threading
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from joblib import Parallel, cpu_count, delayed

from .progress import ProgressBar

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
    folders = [tempfile.mkdtemp(prefix="job-") if private else here for _ in todo]
    bar = ProgressBar(len(todo), desc, enabled=progress)
    results: list[Result] = []
    try:
        if count <= 1:
            for folder, args in zip(folders, todo):
                results.append(_in_folder(folder, job, args))
                _done_with(folder, private)
                bar.update()
        else:  # every worker, even when there are fewer jobs: the same pool serves every sweep
            run = Parallel(n_jobs=workers(), backend="loky", return_as="generator")
            outcomes = run(delayed(_reported)(folder, private, job, args) for folder, args in zip(folders, todo))
            try:
                for outcome in outcomes:  # in the order given
                    if isinstance(outcome, _Failed):
                        raise outcome.error from _WorkerTraceback(outcome.trace)
                    results.append(outcome)
                    bar.update()
            finally:
                with warnings.catch_warnings():  # joblib warns that it cancelled them: the error says why
                    warnings.filterwarnings("ignore", "(?s).*still being processed", UserWarning)
                    outcomes.close()  # the jobs still running are stopped before their folders go
    finally:
        bar.close()
        if private:
            for folder in folders:
                shutil.rmtree(folder, ignore_errors=True)
    return results


@dataclass
class _Failed:
    """What a worker sends back for a job that raised: the error and the worker's traceback."""
    error: BaseException
    trace: str


class _WorkerTraceback(Exception):
    """The traceback of a job that failed in a worker, as the worker printed it."""

    def __str__(self) -> str:
        return "\n" + str(self.args[0])


def _reported(folder: str, private: bool, job: Callable[..., Result], args: tuple[Any, ...]) -> Result | _Failed:
    """One job in a worker: its result, or ``_Failed`` (an error that does not pickle, replaced by a
    RuntimeError that names it)."""
    try:
        return _in_folder(folder, job, args)
    except Exception as error:
        try:
            pickle.loads(pickle.dumps(error))
        except Exception:
            error = RuntimeError(f"{type(error).__qualname__}: {error} (the error could not be sent back "
                                 "from the worker as itself)")
        return _Failed(error, traceback.format_exc())
    finally:
        _done_with(folder, private)


def _in_folder(folder: str, job: Callable[..., Result], args: tuple[Any, ...]) -> Result:
    """Run one job in ``folder`` (a worker's working directory is whatever it was started in), then go back."""
    with contextlib.chdir(Path(folder)):
        return job(*args)


def _done_with(folder: str, private: bool) -> None:
    """A private folder's files go as soon as its job ends (the kernel removes the folder itself too)."""
    if private:
        shutil.rmtree(folder, ignore_errors=True)
