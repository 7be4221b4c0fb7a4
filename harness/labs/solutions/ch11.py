"""Chapter 11's steps: the memory tool's path check, and exercise 2's variant that also refuses hidden names;
the values exercises 1 and 3 ask for (``ANSWERS``), each worked out by running the chapter's sessions again in
a temporary folder.

The cases: the chapter's 24 paths (``PATHS``, the very list its compare cell
runs), more hostile and odd ones written out (``..`` at each depth, a NUL
anywhere, a look-alike prefix, case, spaces, ``...``, a trailing ``..``,
bytes and other non-strings), and 300 paths drawn from a seeded mix of the
parts that trip a hand-written check. A raised error is compared by its type
only (``PathEscape``), never by its wording. Both references agree with the
harness's ``memory_path`` on every case without a hidden name, and the second
refuses exactly the hidden ones (``tests/test_solutions_ch07_ch11.py``).
"""
from __future__ import annotations

import random
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.tools import PathEscape
from . import Answer, Step

PATHS = ("/memories", "/memories/", "/memories/a.md", "/memories/notes/a.md", "/memories/./a.md",
         "/memories//a.md", "/memories/a/./b/c.md", "/memories/a..b.md", "/memories/..a", "/memories/../x",
         "/memories/a/../../x", "/memories/a/..", "../x", "/etc/passwd", "memories/a", "/memoriesX/a",
         "/memories/a\x00b", "", None, 7, "/tmp/memories/a", "/Memories/a", "//memories/a", "/memories/ a.md")
MORE_PATHS = ("/memories/.", "/memories/./", "/memories/a/.", "/memories///a//b/", "/memories/a/b/../c",
              "/memories/..", "/memories/../memories/a", "/memories/...", "/memories/.../x", "/memories/a/...",
              "/memories/.hidden", "/memories/a/.git/config", "/memories/.well/known", "/memories/..hidden/x",
              "/memories\x00", "\x00/memories/a", "/memories/a/b\x00", "/memories/é/言.md", "/memories/a\\..\\b",
              "/memories-old/a", "/memories.md", "memories", "/", " /memories/a", "/memories /a", b"/memories/a",
              ["/memories/a"], 0.5, True)
PART_MIX = ("memories", "..", ".", "", "a", "b.md", ".hidden", "a..b", "...", "x\x00", "é", "Memories")


def my_memory_path(path):
    """The path relative to the memory folder ("" for /memories itself), or PathEscape."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise PathEscape(f"invalid path {path!r}")
    if path != "/memories" and not path.startswith("/memories/"):
        raise PathEscape(f"Path must start with /memories, got: {path}")
    parts = path.split("/")[2:]
    if ".." in parts:
        raise PathEscape(f"Path {path} would escape /memories directory")
    return "/".join(part for part in parts if part not in ("", "."))


def no_hidden_memory_path(path):
    """my_memory_path, and also PathEscape for any part that starts with "." (a lone "." is dropped)."""
    relative = my_memory_path(path)
    if any(part.startswith(".") for part in relative.split("/")):
        raise PathEscape(f"Path {path} names a hidden file or folder")
    return relative


def drawn_paths(count: int, seed: int = 11) -> list[str]:
    """``count`` paths joined from PART_MIX, most of them under /memories, the same for the same seed."""
    rng = random.Random(seed)
    drawn = []
    for _ in range(count):
        parts = [rng.choice(PART_MIX) for _ in range(rng.randint(0, 4))]
        start = rng.choice(("/memories/", "/memories/", "/memories/", "/memories", "/", ""))
        drawn.append(start + "/".join(parts))
    return drawn


@lru_cache(maxsize=1)
def _memory_paths() -> tuple[tuple[str, tuple[Any, ...]], ...]:
    paths = list(PATHS) + list(MORE_PATHS) + drawn_paths(300)
    return tuple((repr(path), (path,)) for path in paths)


def _memory_path_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return list(_memory_paths())


STEPS = [
    Step("my_memory_path", "11", my_memory_path, _memory_path_cases,
         hint="Refuse a non-string, an empty path and a NUL; the prefix is '/memories' exactly or '/memories/' "
              "(not '/memoriesX'); any '..' part; drop '' and '.' parts; raise PathEscape, nothing else."),
    Step("no_hidden_memory_path", "11", no_hidden_memory_path, _memory_path_cases,
         hint="Run your path check first, then refuse a part starting with '.' among the parts it kept "
              "(a lone '.' is dropped, not refused; '..a' is hidden)."),
]

def _viewed_paths() -> set[str]:
    """The memory paths the chapter's second session with memory viewed (exercise 1)."""
    from ..memory_lab import first_session, second_session
    with tempfile.TemporaryDirectory() as folder:
        second = second_session(first_session(Path(folder) / "first"), Path(folder) / "second")
        return {i["path"] for n, i in second.session.tool_calls if n == "memory" and i["command"] == "view"}


FRACTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)  # the chapter's sweep


@lru_cache(maxsize=1)
def _sweep() -> tuple[Any, ...]:
    from ..memory_lab import flush_sweep
    with tempfile.TemporaryDirectory() as folder:
        return tuple(flush_sweep(Path(folder) / "sweep", FRACTIONS))


def _all_kept() -> set[float]:
    """The fractions that keep as many facts as the best one (exercise 3)."""
    best = max(p.kept for p in _sweep())
    return {p.at for p in _sweep() if p.kept == best}


def _cheapest() -> float:
    """Of those, the one that costs least with caching (exercise 3)."""
    return min((p for p in _sweep() if p.at in _all_kept()), key=lambda p: p.dollars).at


ANSWERS = [
    Answer("viewed_paths", "11", _viewed_paths,
           hint="Each task views /memories once, then its folder's file and rules.md when the listing shows them; "
                "look at second_with.session.tool_calls."),
    Answer("all_kept", "11", _all_kept, hint="Compare each point's kept with the best kept in the sweep."),
    Answer("cheapest", "11", _cheapest, hint="Among the fractions that keep the most, look at the cached $ column."),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "Because a hostile path must get an error before anything is touched: once the store has made a folder "
    "or written a file, an error cannot take it back. startswith('/memories') also takes '/memoriesX/a', a "
    "folder next to the memory folder, not inside it.",
    "A string check cannot see the file system, and what it saw can change between the check and the write "
    "(a folder swapped for a link). So the store walks the checked path one folder at a time through open "
    "folder handles and refuses any symlink on the way.",
    "With the API's memory instructions alone (no notice) the fake saved after every task and kept the same 7 "
    "facts as with the notice; only the control without those instructions never wrote and kept the same 4 as "
    "no memory. So the gain comes from saving at all, and in this fake the instructions are enough; that "
    "holds by construction (the fake writes only when told to), not as a claim about Claude.",
    "A note is a snapshot: after the file changed, the agent answered from memory with the old tag and "
    "nothing looked wrong. A standing instruction to check a file before trusting a note about it fixed it, "
    "for one read.",
    "The first file changed is a fact about the history of requests, not about a file or a standing rule, and "
    "the fake's rule for what to save keeps only those; once the compaction took request 3 away, nothing "
    "held it.",
]
