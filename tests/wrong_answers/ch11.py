"""Chapter 11's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

from harness.core.tools import PathEscape
from harness.labs.solutions import find_step


def prefix_without_the_slash(path):
    if not isinstance(path, str) or not path or "\x00" in path:
        raise PathEscape(f"invalid path {path!r}")
    if not path.startswith("/memories"):
        raise PathEscape(f"Path must start with /memories, got: {path}")
    parts = path.split("/")[2:]
    if ".." in parts:
        raise PathEscape(f"Path {path} would escape /memories directory")
    return "/".join(part for part in parts if part not in ("", "."))


def refuse_every_dot(path):
    if not isinstance(path, str) or any(part.startswith(".") for part in path.split("/")):
        raise PathEscape(f"hidden or relative part in {path!r}")
    return find_step("my_memory_path").reference(path)


WRONG_VALUES = {  # answer -> (a typical wrong value, what the line must say)
    "viewed_paths": ({"/memories"}, "missing"),
    "all_kept": ({0.8}, "missing"),
    "cheapest": (0.8, "too low"),
}

WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "my_memory_path": (prefix_without_the_slash, "'/memoriesX/a': at result, yours gave 'a'"),
    "no_hidden_memory_path": (refuse_every_dot, "'/memories/./a.md': at result, yours raised PathEscape"),
}
