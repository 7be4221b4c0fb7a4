"""Execute chapter notebooks from their paired percent-format sources.

Usage: python scripts/build_notebook.py notebooks/src/02_micro_compact.py [...]

Each chapter is a jupytext pair (see ``jupytext.toml``): the source
``notebooks/src/NN_name.py`` and the notebook ``notebooks/NN_name.ipynb``.
Jupytext turns one into the other; this script only adds the execution:
it reads the source, runs it top to bottom in a fresh kernel from
``notebooks/``, and writes the notebook with its outputs, stable cell ids
and no timing metadata, so that a rebuild changes only what really changed.
"""
from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def execute(notebook: nbformat.NotebookNode) -> None:
    """Run every cell in a fresh kernel. The per-cell timeout only detects a hang: no cell comes near it."""
    NotebookClient(notebook, timeout=180, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()


def build(source_path: Path) -> Path:
    notebook = jupytext.read(source_path, fmt="py:percent")
    notebook.metadata = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index:03d}"  # stable ids: no random churn in diffs
    execute(notebook)
    target = NOTEBOOKS / f"{source_path.stem}.ipynb"
    nbformat.write(notebook, target)
    return target


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print("built", build(Path(arg)).relative_to(NOTEBOOKS.parent))
