"""Timing with ``time.perf_counter``: warm up, repeat, keep the median."""
from __future__ import annotations

import gc
import statistics
import time
from typing import Callable


def elapsed(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def elapsed_without_collection(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes with no garbage collection during it: the time of ``fn`` itself, not
    of a collection of what earlier calls left (those run between calls)."""
    gc.disable()
    try:
        return elapsed(fn)
    finally:
        gc.enable()


def median_seconds(fn: Callable[[], object], *, repeats: int, warmup: int = 1, collect: bool = True) -> float:
    """Median of ``repeats`` timed calls, after ``warmup`` untimed ones; with ``collect=False`` no
    garbage collection runs inside a timed call."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        fn()
    timed = elapsed if collect else elapsed_without_collection
    return statistics.median(timed(fn) for _ in range(repeats))
