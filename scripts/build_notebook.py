"""Build a chapter notebook from its percent-format source and execute it.

Usage: python scripts/build_notebook.py notebooks/src/02_micro_compact.py [...]

A source file is plain Python split into cells by ``# %%`` lines;
``# %% [markdown]`` starts a markdown cell (each line prefixed by ``# ``), and
``# %% tags=["nbval-ignore-output"]`` tags a code cell. The notebook is
written next to ``notebooks/`` under the same stem, executed top to bottom in
a fresh kernel from the ``notebooks/`` folder, and saved with its outputs.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

CELL = re.compile(r"^# %%(?P<kind> \[markdown\])?(?: tags=(?P<tags>\[.*\]))?\s*$")
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def cells_of(source: str) -> list[nbformat.NotebookNode]:
    cells, kind, tags, lines = [], None, [], []

    def flush() -> None:
        body = "\n".join(lines).strip("\n")
        if kind is None or not body.strip():
            return
        if kind == "markdown":
            text = "\n".join(re.sub(r"^# ?", "", line) for line in body.splitlines())
            cells.append(nbformat.v4.new_markdown_cell(text))
        else:
            cells.append(nbformat.v4.new_code_cell(body, metadata={"tags": tags} if tags else {}))

    for line in source.splitlines():
        match = CELL.match(line)
        if match:
            flush()
            kind = "markdown" if match["kind"] else "code"
            tags, lines = json.loads(match["tags"]) if match["tags"] else [], []
        else:
            lines.append(line)
    flush()
    return cells


def execute(notebook: nbformat.NotebookNode, attempts: int = 3) -> None:
    """Run every cell in a fresh kernel. nbclient sometimes never sees an ``interact`` cell finish
    (jupyter/nbclient#312) although the kernel is idle, so a timed-out run is started again."""
    for attempt in range(1, attempts + 1):
        try:
            NotebookClient(notebook, timeout=180, kernel_name="python3", record_timing=False,
                           resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
            return
        except CellTimeoutError:
            if attempt == attempts:
                raise
            print(f"a cell timed out; running the notebook again ({attempt + 1}/{attempts})")


def build(source_path: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = cells_of(source_path.read_text(encoding="utf-8"))
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index:03d}"  # stable ids: no random churn in diffs
    execute(notebook)
    target = NOTEBOOKS / f"{source_path.stem}.ipynb"
    nbformat.write(notebook, target)
    return target


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print("built", build(Path(arg)).relative_to(NOTEBOOKS.parent))
