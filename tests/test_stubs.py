"""The committed notebooks are the student's versions: every step ships as a stub, checked right after, and
no complete version of it sits in a visible cell; with every stub filled by its reference the chapter runs
and gets the same numbers (harness/labs/steps.py, harness/labs/solutions/)."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from harness.labs.solutions import all_answers, all_steps

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted({step.chapter for step in all_steps().values()} | {a.chapter for a in all_answers().values()})
ANSWER_CHAPTERS = sorted({a.chapter for a in all_answers().values()})


def notebook_of(chapter: str) -> Path:
    return next(NOTEBOOKS.glob(f"{chapter}_*.ipynb"))


def python_of(cell: nbformat.NotebookNode) -> str:
    """The cell's code without IPython's magics (which are not Python)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines())


def functions_in(cell: nbformat.NotebookNode) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.parse(python_of(cell)).body if isinstance(node, ast.FunctionDef)}


def is_stub(function: ast.FunctionDef) -> bool:
    """A docstring, then ``raise NotImplementedError(...)`` and nothing else (comments are not code)."""
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    return (len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc is not None
            and "NotImplementedError" in ast.unparse(body[0].exc))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_step_ships_as_a_stub_checked_in_the_next_cell(chapter):
    cells = [c for c in nbformat.read(notebook_of(chapter), as_version=4).cells if c.cell_type == "code"]
    for name in (s.name for s in all_steps().values() if s.chapter == chapter):
        where = [i for i, cell in enumerate(cells) if name in functions_in(cell)]
        assert len(where) == 1, f"{name}: defined in {len(where)} cells"
        cell = cells[where[0]]
        assert "stub" in cell.metadata.get("tags", []), f"{name}: its cell is not tagged stub"
        assert is_stub(functions_in(cell)[name]), f"{name}: a complete version is visible"
        checks = [i for i, c in enumerate(cells) if f"{name} = check({name})" in c.source]
        assert checks and checks[0] > where[0] and all(
            "stub" in cells[i].metadata.get("tags", []) for i in range(where[0], checks[0])), name


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_stub_cell_holds_anything_but_stubs(chapter):
    for cell in nbformat.read(notebook_of(chapter), as_version=4).cells:
        if "stub" in cell.metadata.get("tags", []):
            tree = ast.parse(python_of(cell))
            assert all(isinstance(node, ast.FunctionDef) and is_stub(node) for node in tree.body)


def names_set_in(cell: nbformat.NotebookNode) -> list[str]:
    return [target.id for node in ast.parse(python_of(cell)).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)]


@pytest.mark.parametrize("chapter", ANSWER_CHAPTERS)
def test_every_answer_is_asked_for_as_none_and_checked_in_a_later_cell(chapter):
    """The value starts as ``None`` in a cell tagged answer (nothing else there); the truth is in no cell."""
    cells = [c for c in nbformat.read(notebook_of(chapter), as_version=4).cells if c.cell_type == "code"]
    for name in (a.name for a in all_answers().values() if a.chapter == chapter):
        where = [i for i, cell in enumerate(cells) if "answer" in cell.metadata.get("tags", [])
                 and name in names_set_in(cell)]
        assert len(where) == 1, f"{name}: asked for in {len(where)} answer cells"
        tree = ast.parse(python_of(cells[where[0]]))
        assert all(isinstance(node, ast.Assign) and ast.unparse(node.value) == "None" for node in tree.body), name
        assert any(f'answer("{name}", {name})' in c.source for c in cells[where[0] + 1:]), name


def filled(chapter: str) -> nbformat.NotebookNode:
    """The chapter with every stub cell replaced by the references of the functions it defines, and every
    answer cell by the truths of the values it asks for (worked out in the kernel, where the check that
    follows finds them already known)."""
    notebook = nbformat.read(notebook_of(chapter), as_version=4)
    for cell in notebook.cells:
        if "stub" in cell.metadata.get("tags", []):
            cell.source = "\n\n".join(inspect.getsource(all_steps()[name].reference) for name in functions_in(cell))
        if "answer" in cell.metadata.get("tags", []):
            cell.source = "\n".join(["from harness.labs.solutions import find_answer",
                                     "from harness.labs.steps import _truth  # worked out once, in the kernel"]
                                    + [f"{name} = _truth(find_answer({name!r}))" for name in names_set_in(cell)])
    return notebook


@pytest.mark.solutions
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_with_every_stub_filled_the_chapter_runs_on_the_students_code(chapter, tmp_path, monkeypatch):
    """Every assert of the chapter passes (the same numbers), every check says the function passes, and each
    is kept for chapter 05."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path / "yours"))
    printed = run_filled(chapter)
    steps = [s for s in all_steps().values() if s.chapter == chapter]
    for step in steps:
        assert f"{step.name}: yours passes all " in printed, step.name
        assert (tmp_path / "yours" / f"{step.name}.py").exists(), step.name
    for name in (a.name for a in all_answers().values() if a.chapter == chapter):
        assert f"{name}: correct." in printed, name
    assert "not written yet" not in printed and "differs in" not in printed and "not quite" not in printed


def run_filled(chapter: str) -> str:
    """Run the chapter with every stub filled by its reference; what it printed."""
    notebook = filled(chapter)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                   for output in cell.get("outputs", []) if output.get("output_type") == "stream")


@pytest.mark.solutions
def test_chapter_05s_agent_runs_the_layers_written_in_02_to_04(tmp_path, monkeypatch):
    """Chapters 02-04 keep what passes; chapter 05 then loads it, checks it again and runs it, with the
    same numbers."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    for chapter in ("02", "03", "04"):
        run_filled(chapter)
    printed = run_filled("05")
    for name, chapter in (("my_micro_compact", "02"), ("my_auto_compact", "03"), ("my_finish_round", "04")):
        assert f"{name}: yours, from chapter {chapter}." in printed, name
