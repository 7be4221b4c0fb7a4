"""Tables of numbers: aligned text where text is read, a rendered table in JupyterLab (chapters 08, 09).

A ``Table`` is a ``str``: the plain-text table, columns aligned, so ``print``
and tests read it as text. Displayed in a notebook it also carries the same
rows as a markdown table, which JupyterLab renders. nbval compares both, so
every number in a table is a checked output.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence


class Table(str):
    """A table of strings: the first column left-aligned (row labels), the others right-aligned."""
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __new__(cls, header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> "Table":
        header = tuple(str(h) for h in header)
        rows = tuple(tuple(str(c) for c in row) for row in rows)
        if any(len(row) != len(header) for row in rows):
            raise ValueError(f"every row needs {len(header)} cells")
        table = super().__new__(cls, plain_text((header, *rows)))
        table.header, table.rows = header, rows
        return table

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_markdown_(self) -> str:
        lines = [markdown_row(self.header), "|" + "|".join([":--"] + ["--:"] * (len(self.header) - 1)) + "|"]
        return "\n".join(lines + [markdown_row(row) for row in self.rows])


def plain_text(rows: Sequence[Sequence[str]]) -> str:
    """The rows as text, columns padded to one width each, a rule under the first row (the header)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    return "\n".join(lines[:1] + ["  ".join("-" * w for w in widths)] + lines[1:])


def markdown_row(cells: Sequence[str]) -> str:
    """One markdown row. A dollar sign is written ``\\\\$``: Markdown makes it ``\\$``, which MathJax shows
    as a plain ``$``. (``&#36;`` or ``\\$`` alone reach MathJax as ``$``, and two of them are typeset as LaTeX.)"""
    return "| " + " | ".join(c.replace("|", "\\|").replace("$", "\\\\$") for c in cells) + " |"
