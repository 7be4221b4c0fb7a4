"""Every chapter's notebook and its percent-format source are one jupytext pair, in step (jupytext.toml)."""
from __future__ import annotations

from pathlib import Path

import jupytext
import pytest
from jupytext.config import load_jupytext_config
from jupytext.paired_paths import paired_paths

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
CONFIG = load_jupytext_config(str(REPO / "notebooks"))


def test_the_pairing_is_configured_for_every_chapter():
    [formats] = CONFIG.formats
    for notebook in NOTEBOOKS:
        pair = [path for path, _ in paired_paths(str(notebook.relative_to(REPO)), "ipynb", formats)]
        assert pair == [f"notebooks/{notebook.name}", f"notebooks/src/{notebook.stem}.py"]
    sources = sorted(p.stem for p in (REPO / "notebooks" / "src").glob("*.py"))
    assert sources == [p.stem for p in NOTEBOOKS] and len(NOTEBOOKS) >= 10


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_and_source_say_the_same(notebook):
    expected = jupytext.writes(jupytext.read(notebook), fmt="py:percent", config=CONFIG)
    source = (REPO / "notebooks" / "src" / f"{notebook.stem}.py").read_text(encoding="utf-8")
    assert source == expected, (f"{notebook.name} and src/{notebook.stem}.py have drifted apart: "
                                f"run `jupytext --sync notebooks/{notebook.name}`, or rebuild it with "
                                f"scripts/build_notebook.py")
