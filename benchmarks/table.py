"""Plain-text tables with right-aligned numbers, and the number formats they use."""
from __future__ import annotations

from collections.abc import Sequence


def format_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """``title``, then the headers and rows in aligned columns (first column left-aligned)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([title, line(cells[0]), rule] + [line(row) for row in cells[1:]])


def tokens(n: int) -> str:
    return f"{n:,}"


def change(before: float, after: float) -> str:
    """Relative change, e.g. ``-71.0%``."""
    return f"{(after - before) / before:+.1%}" if before else "n/a"


def ratio(value: float, reference: float) -> str:
    """``value / reference``, e.g. ``0.43x``."""
    return f"{value / reference:.2f}x" if reference else "n/a"


def millis(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"
