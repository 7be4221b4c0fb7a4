"""The committed notebooks are the student's versions: every exercise is a stub checked right after (a collapsed
hint cell between them at most) or a value asked for as None and checked by ``answer``, no complete version
sits in a visible cell, and no check stops Run All; with every stub filled by its reference (or by a correct
version in another style, with its helpers) the chapter runs and gets the same numbers, twice in a row in one
kernel too, and chapter 05 runs what chapters 02-04 kept (harness/labs/steps.py, harness/labs/solutions/)."""
from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from harness.labs.keeping import gather
from harness.labs.solutions import all_answers, all_steps
from wrong_answers import right_answers

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
            {"stub", "hint"} & set(cells[i].metadata.get("tags", [])) for i in range(where[0], checks[0])), name
        assert cells[checks[0]].source.strip() == f"{name} = check({name})" or all(
            line.endswith(f"= check({line.split(' = ')[0]})") for line in cells[checks[0]].source.splitlines()), \
            f"{name}: the check cell does only checks (so it can be run again on its own)"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_hint_cell_is_comments_only_and_collapsed(chapter):
    for cell in nbformat.read(notebook_of(chapter), as_version=4).cells:
        if "hint" in cell.metadata.get("tags", []):
            assert cell.cell_type == "code" and cell.metadata.get("jupyter", {}).get("source_hidden") is True
            assert all(line.startswith("#") for line in cell.source.splitlines() if line.strip())


NOTEBOOK_NAMES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOK_NAMES, ids=lambda p: p.stem)
def test_every_exercise_is_a_checked_stub_or_an_answer_and_none_stops_run_all(path):
    """No function raises NotImplementedError outside a stub cell, no cell catches it, and no value is asked
    for as None outside an answer cell (each would be an exercise that check or answer does not grade)."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        assert "except NotImplementedError" not in cell.source
        if "stub" not in tags:
            assert not [f for f in functions_in(cell).values() if is_stub(f)], cell.source[:80]
        if "answer" not in tags and "stub" not in tags:  # a cell of nothing but "name = None": a value asked for
            body = ast.parse(python_of(cell)).body
            assert not body or not all(isinstance(node, ast.Assign) and ast.unparse(node.value) == "None"
                                       for node in body), f"{path.stem}: a value asked for outside an answer cell"


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


def filled(chapter: str, style: str = "reference") -> nbformat.NotebookNode:
    """The chapter with every stub cell replaced by the function it asks for, written with the imports,
    helpers and values it uses (``style`` "reference": the reference; "another": the first correct version
    in another style of tests/wrong_answers), and every answer cell by the truths of the values it asks for
    (worked out in the kernel, where the check that follows finds them already known; an exercise that
    needs real Claude is left as it is)."""
    notebook = nbformat.read(notebook_of(chapter), as_version=4)
    for cell in notebook.cells:
        if "stub" in cell.metadata.get("tags", []):
            chosen = {name: (right_answers()[name][0] if style == "another" else all_steps()[name].reference)
                      for name in functions_in(cell)}
            steps_before = set(all_steps()) - set(chosen)  # the chapter defines them already: never shadowed
            cell.source = "\n\n\n".join(gather(function, name, steps_before).source
                                          for name, function in chosen.items())
        if "answer" in cell.metadata.get("tags", []):
            asked = [name for name in names_set_in(cell) if not all_answers()[name].live]
            if asked:
                cell.source = "\n".join(["from harness.labs.steps import _truth  # worked out once, in the kernel"]
                                        + [f"{name} = _truth({name!r})" for name in asked])
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
    for name in (a.name for a in all_answers().values() if a.chapter == chapter and not a.live):
        assert f"{name}: correct." in printed, name
    assert "not written yet" not in printed and "differs in" not in printed and "not quite" not in printed


def run_notebook(notebook: nbformat.NotebookNode, twice: bool = False) -> str:
    """Run a notebook (``twice``: all its cells, then all of them again, in one kernel); what it printed."""
    if twice:
        notebook.cells = notebook.cells + [nbformat.from_dict(dict(cell)) for cell in notebook.cells]
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                   for output in cell.get("outputs", []) if output.get("output_type") == "stream")


def run_filled(chapter: str, style: str = "reference", twice: bool = False) -> str:
    """Run the chapter with every stub filled (see ``filled``); what it printed."""
    return run_notebook(filled(chapter, style), twice)


@pytest.mark.solutions
def test_chapter_05s_agent_runs_the_layers_written_in_02_to_04_with_their_helpers(tmp_path, monkeypatch):
    """Chapters 02-04, each filled with correct versions in another style (helpers of their own, module-level
    values, another order of steps), keep what passes; chapter 05 then loads it in a namespace of its own,
    checks it again and runs it, with the same numbers."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    for chapter in ("02", "03", "04"):
        printed = run_filled(chapter, "another")
        assert "not written yet" not in printed and "differs in" not in printed and "not kept" not in printed
    printed = run_filled("05")
    for name, chapter in (("micro_compact_seen_only", "02"), ("my_auto_compact", "03"), ("my_finish_round", "04")):
        assert f"{name}: yours, from chapter {chapter}." in printed, name
    assert (tmp_path / "micro_compact_seen_only.py").exists()  # chapter 05's micro layer: 02's guarded one
    kept = (tmp_path / "my_micro_compact.py").read_text(encoding="utf-8")  # the steps it calls, with their helpers
    assert "def is_result(" in kept and "def long_enough(" in kept and "collect_tool_results = collect_with_a_helper" in kept


@pytest.mark.solutions
@pytest.mark.parametrize("chapter", ["02", "03", "04", "05"])
def test_chapters_02_to_05_pass_when_run_twice_in_a_row_in_one_kernel(chapter, tmp_path, monkeypatch):
    """As shipped (every stub a stub: each check cell run again after its first run), then filled by the
    references: every assert holds on the second run, and the second run's checks pass again."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path / "yours"))
    shipped = run_notebook(nbformat.read(notebook_of(chapter), as_version=4), twice=True)
    assert "differs in" not in shipped and "could not be checked" not in shipped
    printed = run_filled(chapter, twice=True)
    for step in (s for s in all_steps().values() if s.chapter == chapter):
        assert printed.count(f"{step.name}: yours passes all ") == 2, step.name
