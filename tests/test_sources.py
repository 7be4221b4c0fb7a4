"""Every chapter ends with a numbered "## Sources" list, cited in its text by number only (how long the
prose may be is tests/test_prose.py's)."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
HEADING = "## Sources"
ITEM = re.compile(r"^(\d+)\. (.+(?:\n {2,}.+)*)", re.MULTILINE)  # an item and its indented continuation lines
CITATION = re.compile(r"\[(\d+(?:\s*[,–-]\s*\d+)*)\](?!\()")  # [3], [2, 3], [4-6]; not a markdown link
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


@lru_cache(maxsize=None)
def markdown_of(path: Path) -> tuple[str, ...]:
    return tuple(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")


def cited(text: str) -> set[int]:
    """The source numbers a text cites, outside code."""
    numbers: set[int] = set()
    for group in CITATION.findall(CODE.sub("", text)):
        for part in re.split(r"\s*,\s*", group):
            ends = [int(n) for n in re.split(r"\s*[–-]\s*", part)]
            numbers.update(range(ends[0], ends[-1] + 1))
    return numbers


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_chapter_ends_with_its_numbered_sources(path):
    cells = nbformat.read(path, as_version=4).cells
    last = cells[-1]
    assert last.cell_type == "markdown" and last.source.splitlines()[0] == HEADING, "the last cell is not Sources"
    items = ITEM.findall(last.source)
    assert [int(n) for n, _ in items] == list(range(1, len(items) + 1)) and items, "items not numbered 1, 2, ..."
    for number, item in items:
        assert re.search(r"https?://\S+|[\w.-]+/[\w.-]+", item), f"source {number} names no address or repository"


def printed(path: Path) -> str:
    """What the chapter's code cells printed (a table may cite a source in a column)."""
    return "\n".join(output.get("text", "") if isinstance(output.get("text", ""), str) else "".join(output["text"])
                     for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
                     for output in cell.get("outputs", []) if output.get("output_type") == "stream")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_source_is_cited_by_number_and_every_number_is_a_source(path):
    *text, sources = markdown_of(path)
    listed = {int(n) for n, _ in ITEM.findall(sources)}
    citations = cited("\n".join(text))
    assert citations <= listed, f"cited but not listed: {sorted(citations - listed)}"
    unused = listed - citations - cited(printed(path))
    assert not unused, f"listed but never cited, in the text or in what a cell printed: {sorted(unused)}"


def test_citations_are_read_outside_code_and_links():
    assert cited("as the page says [2] and [3, 4], or [5-6]") == {2, 3, 4, 5, 6}
    assert cited("`results[0]` and ```\nx[1]\n``` and [the docs](https://x.y) [7](https://z)") == set()
