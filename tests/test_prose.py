"""Every chapter reads like a textbook, not an audit log (issue "A course people enjoy reading").

The prose is every markdown cell but the Sources list and folded cells (``jupyter.source_hidden``).
A paragraph is a block between blank lines, each list item on its own; a table (every line starting
with ``|``), a heading and a fenced code block are not prose. Each chapter:

- keeps every prose paragraph to 60 words, and has at most one sentence over 35 words;
- puts at most four numbers in a paragraph that is not a table (a citation, inline code, a link, and
  the number after "chapter", "section", "exercise" or "step" are references, not figures);
- writes at most eight label words (*any model*, *this fake*, *this design*), and only on a
  "Holds for:" line (the list that defines them in chapter 00 excepted);
- opens with its promise, what the reader will be able to do and its reading time, and has a
  Summary, Exercises and a Recap;
- folds every code cell that asserts, so the notebook still checks it and the reader sees the claim;
- stays short: 2,000 words of prose a chapter, 20,000 in all.

The reading time is ``reading_minutes``: prose at 200 words a minute, five minutes a stub, and a
quarter of a minute for every code cell the reader sees, rounded up to five minutes.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))

LONGEST_PARAGRAPH, LONG_SENTENCE, LONG_SENTENCES_ALLOWED = 60, 35, 1
MOST_NUMBERS, MOST_LABELS = 4, 8
MOST_IN_A_CHAPTER, MOST_IN_ALL, LONGEST_READ = 2_000, 20_000, 60
WORDS_A_MINUTE, MINUTES_A_STUB, MINUTES_A_CELL = 200, 5, 0.25

FENCE = re.compile(r"```.*?```", re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\](?!\()")
LINK = re.compile(r"\]\([^)]*\)|https?://\S+")
REFERENCE = re.compile(r"\b(?:[Cc]hapters?|[Ss]ections?|[Ee]xercises?|[Ss]teps?|[Ll]ayers?|[Qq]uestions?|§)\s*"
                       r"\d+(?:\s*(?:,|and|or|–|-)\s*\d+)*")
NUMBER = re.compile(r"(?<![\w.\-])\d[\d,]*(?:\.\d+)?")
LABEL = re.compile(r"\b(?:this fake|this design|any model)\b", re.IGNORECASE)
HOLDS_FOR = re.compile(r"^\s*\**Holds for:?\**", re.IGNORECASE)
DEFINITION = re.compile(r"^\s*[-*]\s+\*(?:any model|this fake|this design)\*:")
SENTENCE_END = re.compile(r"(?<=[.!?])[*_)\"”’]*\s+(?=[A-Z*_(\"“`])")
ITEM_START = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")
READING_TIME = re.compile(r"\*\*Reading time:\*\* about (\d+) minutes")
STUB = 'raise NotImplementedError("your code here")'
ASSERT = re.compile(r"^\s*assert\b", re.MULTILINE)


def folded(cell: nbformat.NotebookNode) -> bool:
    return bool(cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"))


@lru_cache(maxsize=None)
def cells_of(path: Path) -> tuple[nbformat.NotebookNode, ...]:
    return tuple(nbformat.read(path, as_version=4).cells)


def prose_cells(path: Path) -> list[str]:
    """The chapter's prose: markdown cells, without the Sources list and folded cells."""
    return [c.source for c in cells_of(path)
            if c.cell_type == "markdown" and not folded(c) and not c.source.startswith("## Sources")]


def paragraphs(markdown: str) -> list[str]:
    """The prose paragraphs of a markdown text: blocks and list items, without tables, headings, code."""
    found = []
    for block in re.split(r"\n[ \t]*\n", FENCE.sub("", markdown)):
        lines = [line for line in block.strip().splitlines() if not line.startswith("#")]
        if not lines or all(line.lstrip().startswith("|") for line in lines):
            continue
        item: list[str] = []
        for line in lines:
            if ITEM_START.match(line) and item:
                found.append(" ".join(item))
                item = []
            item.append(line.strip().lstrip(">").strip())
        found.append(" ".join(item))
    return found


def numbers_in(paragraph: str) -> list[str]:
    plain = REFERENCE.sub("", LINK.sub("", CITATION.sub("", INLINE_CODE.sub("code", paragraph))))
    return NUMBER.findall(plain)


def sentences(paragraph: str) -> list[str]:
    return [s for s in SENTENCE_END.split(paragraph) if s.strip()]


def words_in(text: str) -> int:
    return len(FENCE.sub("", text).split())


def prose_words(path: Path) -> int:
    return sum(words_in(source) for source in prose_cells(path))


def reading_minutes(path: Path) -> int:
    """Prose at 200 words a minute, five minutes a stub, a quarter minute a code cell the reader sees."""
    code = [c for c in cells_of(path) if c.cell_type == "code"]
    stubs = sum(STUB in c.source for c in code)
    seen = sum(not folded(c) for c in code)
    minutes = prose_words(path) / WORDS_A_MINUTE + stubs * MINUTES_A_STUB + seen * MINUTES_A_CELL
    return 5 * math.ceil(minutes / 5)


def chapter_paragraphs(path: Path) -> list[str]:
    return [p for source in prose_cells(path) for p in paragraphs(source)]


def short(text: str) -> str:
    return text if len(text) < 90 else text[:87] + "..."


# --- the tests ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_paragraph_is_over_sixty_words(path):
    long = [f"{len(p.split())} words: {short(p)}" for p in chapter_paragraphs(path) if len(p.split()) > LONGEST_PARAGRAPH]
    assert not long, "split these paragraphs, one claim each:\n" + "\n".join(long)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_at_most_one_long_sentence(path):
    long = [f"{len(s.split())} words: {short(s)}" for p in chapter_paragraphs(path) for s in sentences(p)
            if len(s.split()) > LONG_SENTENCE]
    assert len(long) <= LONG_SENTENCES_ALLOWED, "sentences over 35 words:\n" + "\n".join(long)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_paragraph_but_a_table_carries_more_than_four_numbers(path):
    crowded = [f"{numbers_in(p)}: {short(p)}" for p in chapter_paragraphs(path) if len(numbers_in(p)) > MOST_NUMBERS]
    assert not crowded, "the idea first, at most four figures (or a table):\n" + "\n".join(crowded)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_labels_only_on_holds_for_lines_and_few(path):
    lines = [line for source in prose_cells(path) for line in FENCE.sub("", source).splitlines()]
    stray = [short(line) for line in lines if LABEL.search(line) and not HOLDS_FOR.match(line)
             and not DEFINITION.match(line)]
    assert not stray, "labels belong on the section's 'Holds for:' line:\n" + "\n".join(stray)
    count = sum(len(LABEL.findall(line)) for line in lines if not DEFINITION.match(line))
    assert count <= MOST_LABELS, f"{count} label words (at most {MOST_LABELS})"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_chapter_has_its_frame(path):
    prose = prose_cells(path)
    opening = prose[0]
    assert "**The promise:**" in opening, "the first cell states the chapter's promise"
    assert re.search(r"you will be able to", opening, re.IGNORECASE), "the first cell says what you will be able to do"
    stated = READING_TIME.search(opening)
    assert stated, f"the first cell says '**Reading time:** about {reading_minutes(path)} minutes'"
    assert int(stated.group(1)) == reading_minutes(path), (
        f"the reading time is {reading_minutes(path)} minutes (prose, stubs, visible cells), not {stated.group(1)}")
    assert reading_minutes(path) <= LONGEST_READ, f"{reading_minutes(path)} minutes is more than an hour"
    headings = {line.strip() for source in prose for line in source.splitlines() if line.startswith("## ")}
    for heading in ("## Summary", "## Exercises", "## Recap"):
        assert heading in headings, f"no '{heading}' section"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_assert_cell_is_folded(path):
    open_asserts = [i for i, c in enumerate(cells_of(path))
                    if c.cell_type == "code" and ASSERT.search(c.source) and not folded(c)]
    assert not open_asserts, f"fold these assert cells (jupyter.source_hidden): {open_asserts}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_chapter_is_longer_than_its_budget(path):
    assert prose_words(path) <= MOST_IN_A_CHAPTER


def test_the_course_is_at_most_twenty_thousand_words():
    assert sum(prose_words(path) for path in CHAPTERS) <= MOST_IN_ALL


# --- the reader itself ----------------------------------------------------------------------------

def test_paragraphs_are_blocks_and_list_items_not_tables_headings_or_code():
    text = "## A heading\nFirst para\ncontinues.\n\n- one\n- two\n  more\n\n| a | b |\n|---|---|\n\n```\ncode\n```"
    assert paragraphs(text) == ["First para continues.", "- one", "- two more"]


def test_references_citations_and_code_are_not_figures():
    assert numbers_in("Chapter 02 and chapters 3 and 4 cite [2, 3] with `x = 10` at https://a.b/1") == []
    assert numbers_in("It saved 12,345 tokens, 1.5 times, in 3 runs of 200 calls.") == ["12,345", "1.5", "3", "200"]
    assert numbers_in("claude-haiku-4-5 costs USD 1") == ["1"]


def test_sentences_split_at_their_ends():
    assert sentences("One. Two words! *Three* here? (Four.)") == ["One.", "Two words!", "*Three* here?", "(Four.)"]


def test_labels_are_found_in_sentences_and_allowed_on_holds_for_lines():
    assert LABEL.search("which holds for *this fake* only")
    assert HOLDS_FOR.match("**Holds for:** *any model*.") and HOLDS_FOR.match("Holds for: this design")
    assert DEFINITION.match("- *any model*: a different model would do the same;")
