"""Summarise the browser test's timings: one markdown row per chapter (README's slider table).

Usage: .venv/bin/python scripts/browser_report.py [build/browser-timings.json]
The browser test (tests/test_browser.py) writes every move it timed to build/browser-timings.json.
"""
from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "build" / "browser-timings.json"


def rows(moves: list[dict]) -> list[str]:
    """| chapter | controls | moves | median ms | worst ms (control) | for every chapter with a panel."""
    by_chapter: dict[str, list[dict]] = defaultdict(list)
    for move in moves:
        by_chapter[move["chapter"]].append(move)
    lines = ["| chapter | controls | moves | median | worst (control) |", "|---|--:|--:|--:|---|"]
    for chapter, timed in sorted(by_chapter.items()):
        controls = {(m["panel"], m["control"]) for m in timed}
        worst = max(timed, key=lambda m: m["ms"])
        lines.append(f"| {chapter} | {len(controls)} | {len(timed)} | {statistics.median(m['ms'] for m in timed):.0f} ms"
                     f" | {worst['ms']:.0f} ms ({worst['control']}) |")
    return lines


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    print("\n".join(rows(json.loads(path.read_text()))))
