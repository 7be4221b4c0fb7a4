"""The recap of each chapter: a "## Recap" markdown cell, the notebook's last but its Sources list, with 3-5 questions numbered
1, 2, ... that name the solutions module holding their answers, ``RECAP`` of ``harness/labs/solutions/
chNN.py``: one answer per question, in order. ``RECAP`` is read from the module's source, a literal list of
strings, so the check does not import what the solutions import (the SDK, the fake)."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import nbformat
import pytest

import harness.labs.solutions as solutions
from harness.labs.solutions import chapters

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
HEADING = "## Recap"
QUESTION = re.compile(r"^(\d+)\. ", re.MULTILINE)  # a numbered line; its continuation lines are indented


def is_recap(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and HEADING in cell.source.splitlines()


def module_of(notebook: Path) -> str:
    """``02_micro_compact.ipynb`` -> ``ch02``."""
    return f"ch{notebook.name[:2]}"


def recap_problems(cells: list[nbformat.NotebookNode], module: str, answers: list[str]) -> list[str]:
    """What is wrong with a notebook's recap, given its solutions module's name and ``RECAP``; [] if nothing."""
    where = [i for i, cell in enumerate(cells) if is_recap(cell)]
    if len(where) != 1:
        return [f"{len(where)} recap cells"]
    recap = cells[where[0]].source
    numbers = [int(n) for n in QUESTION.findall(recap.split(HEADING, 1)[1])]
    problems = []
    sources_last = cells[-1].cell_type == "markdown" and cells[-1].source.startswith("## Sources")
    if where[0] != len(cells) - 1 - sources_last:
        problems.append(f"the recap is cell {where[0]} of {len(cells)}, not the last before the Sources")
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"the questions are numbered {numbers}")
    if not 3 <= len(numbers) <= 5:
        problems.append(f"{len(numbers)} questions, not 3 to 5")
    if len(numbers) != len(answers):
        problems.append(f"{len(numbers)} questions, {len(answers)} answers in RECAP")
    if not all(isinstance(answer, str) and answer.strip() for answer in answers):
        problems.append("an empty answer in RECAP")
    if f"harness/labs/solutions/{module}.py" not in recap:
        problems.append(f"the recap does not name harness/labs/solutions/{module}.py")
    return problems


def answers_of(module: str) -> list[str]:
    """``RECAP`` of ``harness/labs/solutions/<module>.py``, or [] if it has none."""
    tree = ast.parse((Path(solutions.__file__).parent / f"{module}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["RECAP"]:
            return ast.literal_eval(node.value)
    return []


@lru_cache(maxsize=None)
def cells_of(notebook: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(notebook, as_version=4).cells


WITH_RECAP = [nb for nb in sorted(NOTEBOOKS.glob("*.ipynb")) if any(is_recap(c) for c in cells_of(nb))]


def test_the_chapters_with_a_recap_are_found():
    assert {"ch00", "ch01", "ch02", "ch06", "ch10"} <= {module_of(nb) for nb in WITH_RECAP}


@pytest.mark.parametrize("notebook", WITH_RECAP, ids=lambda p: p.stem)
def test_the_recap_is_last_and_has_one_answer_per_question(notebook):
    module = module_of(notebook)
    assert module in chapters(), f"{notebook.name} has a recap but there is no harness/labs/solutions/{module}.py"
    assert recap_problems(cells_of(notebook), module, answers_of(module)) == []


@pytest.mark.parametrize("module", chapters())
def test_every_recap_answer_has_its_questions(module):
    """Answers held back for a chapter whose notebook asks no questions would be lost."""
    if answers_of(module):
        assert module in {module_of(nb) for nb in WITH_RECAP}, f"RECAP of {module} answers no recap cell"


def recap_cell(*questions: str) -> nbformat.NotebookNode:
    lines = [HEADING, "", "The answers are `RECAP` in `harness/labs/solutions/ch99.py`.", ""]
    return nbformat.v4.new_markdown_cell("\n".join(lines + [f"{i}. {q}" for i, q in enumerate(questions, 1)]))


QUESTIONS = ("Why?", "What for?", "How much?")
CODE = nbformat.v4.new_code_cell("x = 1")


@pytest.mark.parametrize(("cells", "answers", "says"), [
    ([recap_cell(*QUESTIONS), CODE], ["a"] * 3, "not the last"),
    ([recap_cell(*QUESTIONS)], ["a"] * 4, "3 questions, 4 answers"),
    ([recap_cell(*QUESTIONS[:2])], ["a"] * 2, "2 questions, not 3 to 5"),
    ([recap_cell(*QUESTIONS * 2)], ["a"] * 6, "6 questions, not 3 to 5"),
    ([recap_cell(*QUESTIONS)], ["a", "", "c"], "an empty answer"),
    ([recap_cell(*QUESTIONS), recap_cell(*QUESTIONS)], ["a"] * 3, "2 recap cells"),
    ([nbformat.v4.new_markdown_cell(recap_cell(*QUESTIONS).source.replace("2. ", "3. "))], ["a"] * 3,
     "numbered [1, 3, 3]"),
    ([nbformat.v4.new_markdown_cell(recap_cell(*QUESTIONS).source.replace("ch99", "ch02"))], ["a"] * 3,
     "does not name harness/labs/solutions/ch99.py"),
])
def test_a_broken_recap_is_named(cells, answers, says):
    assert any(says in problem for problem in recap_problems(cells, "ch99", answers))


def test_a_sound_recap_has_no_problem():
    assert recap_problems([CODE, recap_cell(*QUESTIONS)], "ch99", ["a", "b", "c"]) == []
