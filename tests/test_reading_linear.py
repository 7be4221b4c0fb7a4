"""The fake reads any text in time linear in its length (harness/fake/reading.py, conversation_forms.py,
summarizer.py, view.py, chapter 00): 100,000 characters of any alphabet within 20x an ordinary input of the same length.

A generous timing, not a count: both are measured in the same test, the best of two runs each, the ordinary
time floored at 5 ms, and an alarm stops a path that backtracks (on the quadratic reading, 100,000
characters took minutes). ``benchmarks/reading.py`` prints the ratios."""
from __future__ import annotations

import gc
import signal
import time
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.reading import HOSTILE, PATHS, filled, measure, render

SIZE, RATIO, FLOOR, ALARM = 100_000, 20, 0.005, 30
PIECES = st.sampled_from(["x", "a", "7", "_", "-", "/", ".", " ", "\n", "\t", "'", '"', "`", "(", ")", "[", "]", "{",
                          "}", "<", ">", ":", ";", ",", "?", "!", "role", "summary", "sum", "it", "User", "py",
                          "version tag", "to", "change", "read_file", "<a>", "</a>", "the conversation",
                          "HumanMessage(", "<instructions>", "</instructions>", "#", "1. ", "- X:", "\t", "→",
                          "extract", "from now on", "never edit", "Summary:", "the summary", "<summary>",
                          "## USER", ">>"])


def best_of_two(read, text: str) -> float:
    def once() -> float:  # no collection of other tests' garbage inside the timed read
        gc.disable()
        try:
            start = time.perf_counter()
            read(text)
            return time.perf_counter() - start
        finally:
            gc.enable()
    def backtracks(*_):
        raise TimeoutError(f"reading {len(text):,} characters took over {ALARM} s")
    signal.signal(signal.SIGALRM, backtracks)
    signal.alarm(ALARM)
    try:
        return min(once(), once())
    finally:
        signal.alarm(0)


@cache
def ordinary(name: str) -> float:
    read, text = PATHS[name]
    return max(best_of_two(read, filled(text, SIZE)), FLOOR)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=st.lists(PIECES, min_size=1, max_size=6).map("".join))
def test_any_alphabet_is_read_within_20x_an_ordinary_input_of_the_same_length(unit):
    text = filled(unit, SIZE)
    for name, (read, _) in PATHS.items():
        assert best_of_two(read, text) <= RATIO * ordinary(name), (name, unit)


def test_every_hostile_alphabet_of_the_benchmark_is_read_within_20x():
    for unit in HOSTILE.values():
        text = filled(unit, SIZE)
        for name, (read, _) in PATHS.items():
            assert best_of_two(read, text) <= RATIO * ordinary(name), (name, unit)


def test_the_benchmark_table_shows_every_path_at_every_size():
    rows = measure(sizes=(200,), repeats=1)
    assert [row[0] for row in rows] == list(PATHS) and all(row[1] == "200" for row in rows)
    assert "worst alphabet" in render(rows)
