"""Committed notebooks are clean: fully executed in order, no errors, no machine
paths, no API keys. Also: no key-like strings in any JSONL log or transcript."""

import json
import os
import re
from pathlib import Path

import nbformat
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))

# Absolute paths that only exist on someone's machine (POSIX or Windows).
MACHINE_PATH_RE = re.compile(r"(?<![\w.-])(/tmp/|/root/|/work/|/home/|/Users/)|\b[A-Z]:\\")

# Scanning these never makes sense and can be huge.
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__"}


def output_texts(output) -> list[str]:
    """All text an output carries: streams, text-like mime data, tracebacks."""
    texts = []
    if "text" in output:
        texts.append(output["text"])
    for mime, value in output.get("data", {}).items():
        if not mime.startswith("image/") or mime == "image/svg+xml":
            texts.append(value if isinstance(value, str) else json.dumps(value))
    texts += output.get("traceback", [])
    return texts


if NOTEBOOKS:
    notebook_params = [pytest.param(p, id=p.name) for p in NOTEBOOKS]
else:
    notebook_params = [pytest.param(None, marks=pytest.mark.skip(reason="no notebooks/*.ipynb yet"))]


@pytest.mark.parametrize("path", notebook_params)
def test_notebook_is_clean(path, key_re):
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    assert nb.nbformat == 4, f"nbformat {nb.nbformat}, expected 4"
    nbformat.validate(nb)

    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    unexecuted = [
        i for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and c.source.strip() and c.execution_count is None
    ]
    assert not unexecuted, f"code cells never executed (cell indexes): {unexecuted}"
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"execution counts {counts}: re-run the notebook top to bottom in a fresh kernel"
    )

    for i, cell in enumerate(nb.cells):
        assert not key_re.search(cell.source), f"cell {i}: key-like string in source"
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"cell {i}: error output {out.get('ename')}"
            for text in output_texts(out):
                path_hit = MACHINE_PATH_RE.search(text)
                assert not path_hit, f"cell {i}: machine path {path_hit.group()!r} in output"
                assert not key_re.search(text), f"cell {i}: key-like string in output"


def files_to_scan() -> list[Path]:
    """Every *.jsonl in the repo, plus every file inside any .transcripts folder."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(REPO_ROOT):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        here = Path(dirpath)
        in_transcripts = ".transcripts" in here.relative_to(REPO_ROOT).parts
        for name in filenames:
            if in_transcripts or name.endswith(".jsonl"):
                found.add(here / name)
    return sorted(found)


def test_no_keys_in_logs_or_transcripts(key_re):
    files = files_to_scan()
    if not files:
        pytest.skip("no *.jsonl files or .transcripts folders in the repo")
    leaks = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if key_re.search(text):
            leaks.append(str(path.relative_to(REPO_ROOT)))
    assert not leaks, f"key-like strings found in: {leaks}"


CODE_SPAN = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


@pytest.mark.parametrize("path", notebook_params)
def test_no_dollar_signs_in_markdown(path):
    """JupyterLab typesets the text between two dollar signs as LaTeX, even written ``\\$`` or ``&#36;``
    (both reach MathJax as ``$``): prose writes amounts in USD; code spans may hold a ``$``."""
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            prose = CODE_SPAN.sub("", cell.source)
            assert "$" not in prose and "&#36;" not in prose, f"cell {i}: a dollar sign in markdown (write USD)"
