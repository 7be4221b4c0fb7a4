"""Timing with ``time.perf_counter``: warm up, repeat, keep the median."""
from __future__ import annotations

import statistics
import time
from typing import Callable


def elapsed(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_seconds(fn: Callable[[], object], *, repeats: int, warmup: int = 1) -> float:
    """Median of ``repeats`` timed calls, after ``warmup`` untimed ones."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        fn()
    return statistics.median(elapsed(fn) for _ in range(repeats))
