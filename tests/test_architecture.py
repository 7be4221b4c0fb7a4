"""The package's layout is its architecture: rooms, what each may import, one definition of every name."""
from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HARNESS = REPO / "harness"
# What each room may import from the rest of harness (itself always allowed).
ALLOWED = {
    "core": set(),
    "fake": {"core"},
    "session": {"core"},
    "strategies": {"core", "session", "api_context"},  # chapter 10's strategies build their edits there
    "labs": {"core", "session", "strategies", "fake", "clients", "memory", "api_context", "production"},  # ch10's edit exercise
    "production": {"core", "strategies"},  # chapter 13: what production agents add to the three layers
    "memory": {"core", "strategies"},  # chapter 11: the memory tool, and a flush before a strategy compacts
    "clients": {"fake"},
    "api_context": set(),
}
PER_CHAPTER = {"STEPS", "RECAP", "ANSWERS"}  # every harness/labs/solutions/chNN.py has its own (harness.labs.solutions)
FAKE_MAY_USE = {"harness.core.messages", "harness.core.tokens", "harness.core.models", "harness.core.errors",
                "harness.core.images", "harness.core.error_text"}  # the format (and how errors print), not the layers


def modules() -> list[Path]:
    return sorted(p for p in HARNESS.rglob("*.py") if "__pycache__" not in p.parts)


def dotted(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def harness_imports(path: Path) -> set[str]:
    """Every harness module this file imports, resolved to a dotted name."""
    package = dotted(path) if path.name == "__init__.py" else dotted(path).rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.startswith("harness"):
                found.add(name)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("harness")}
    return found


def room(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("path", [p for p in modules() if p.parent != HARNESS or p.name != "__init__.py"],
                         ids=lambda p: str(p.relative_to(HARNESS)))
def test_each_room_imports_only_the_rooms_below_it(path):
    mine = room(dotted(path))
    for target in harness_imports(path):
        other = room(target)
        assert other == mine or other in ALLOWED[mine], f"{dotted(path)} imports {target}"
        if mine == "fake" and other == "core":
            assert target in FAKE_MAY_USE, f"the fake depends on {target}, not only the message format"


def test_import_harness_is_light():
    probe = ("import harness, sys; heavy = {'matplotlib', 'ipywidgets', 'tqdm', 'harness.fake', 'harness.labs',"
             " 'harness.strategies', 'harness.session'} & set(sys.modules); print(sorted(heavy))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.strip() == "[]"




def test_no_module_level_name_is_defined_twice():
    homes = defaultdict(list)
    for path in modules():
        if path.name == "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                names = []
            for name in names:
                homes[name].append(dotted(path))
    twice = {name: where for name, where in homes.items() if len(where) > 1
             and not (name in PER_CHAPTER and all(w.startswith("harness.labs.solutions.ch") for w in where))}
    assert twice == {}


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(HARNESS)))
def test_every_module_says_which_chapter_introduces_it(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert "chapter" in docstring.lower() or path.name == "__init__.py" and docstring, path


def test_nothing_refers_to_files_outside_the_project():
    outside = ("DESIGN" + ".md", "REFERENCE" + ".md", "../" + "shared", "seeds" + "/")
    texts = [p for p in REPO.glob("**/*") if p.suffix in {".py", ".md", ".ipynb", ".toml", ".cfg", ".yml"}
             and not any(part.startswith(".") or part in {"build", "_work"} for part in p.relative_to(REPO).parts)]
    found = [(p.relative_to(REPO), word) for p in texts for word in outside if word in p.read_text(encoding="utf-8")]
    assert found == []
