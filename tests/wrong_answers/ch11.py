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


WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "viewed_paths": [({"/memories"}, "missing")],
    "all_kept": [({0.8}, "missing")],
    "cheapest": [(0.7, "too high")],  # the dearest of those that keep the most
}

def memory_path_by_parts(path):
    if type(path) is not str or path == "" or "\x00" in path:
        raise PathEscape("not a path")
    head, _, rest = path.partition("/memories")
    if head or (rest and not rest.startswith("/")):
        raise PathEscape(f"outside /memories: {path}")
    parts = [part for part in rest.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise PathEscape(f"escapes /memories: {path}")
    return "/".join(parts)


def no_hidden_by_helper(path):
    parts = memory_path_by_parts(path).split("/")
    if any(part[:1] == "." for part in parts):
        raise PathEscape(f"hidden: {path}")
    return "/".join(parts)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "my_memory_path": [(prefix_without_the_slash, "'/memoriesX/a': at result, yours returned 'a' where an error is due")],
    "no_hidden_memory_path": [(refuse_every_dot, "'/memories/./a.md': at result, yours raised PathEscape")],
}

RIGHT = {"my_memory_path": [memory_path_by_parts], "no_hidden_memory_path": [no_hidden_by_helper]}
