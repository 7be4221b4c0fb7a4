"""The memory tool's six commands on a folder of files, confined to it (chapter 11).

The Messages API's memory tool (``memory_20250818``) is client-side: the model
asks for ``view``, ``create``, ``str_replace``, ``insert``, ``delete`` or
``rename`` on paths under ``/memories``, and the application runs them on
storage it chooses (https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool).
Here that storage is one folder on disk. Every path goes through
``memory_path`` (the prefix, no ``..``, no NUL) and then through chapter 00's
``Workspace.resolve`` (no symlink out), so a hostile path gets an error and
touches nothing.

The command fields are the SDK's (``anthropic.types.beta.BetaMemoryTool20250818*Command``,
anthropic 2.14.0). The result and error texts follow the SDK's file-based
helper (``anthropic/lib/tools/_beta_builtin_memory_tool.py``,
``BetaLocalFilesystemMemoryTool``) with three differences, each our choice:
``create`` overwrites an existing file (the docs say "create or overwrite";
the helper refuses), a directory's size in ``view`` is the total size of the
files under it (the helper shows the file system's own directory size, which
differs between file systems), and a path must be ``/memories`` or start with
``/memories/`` (the helper also takes ``/memoriesX``).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from ..core.tools import PathEscape, ToolError, ToolOutcome, Workspace

ROOT = "/memories"
LINE_NUMBER_WIDTH = 6
FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {  # required fields of each command, and their types
    "view": {"path": str},
    "create": {"path": str, "file_text": str},
    "str_replace": {"path": str, "old_str": str, "new_str": str},
    "insert": {"path": str, "insert_line": int, "insert_text": str},
    "delete": {"path": str},
    "rename": {"old_path": str, "new_path": str},
}
OPTIONAL = {"view": {"view_range": list}}


def memory_path(path: Any) -> str:
    """The path relative to the memory folder ("" for ``/memories`` itself), or PathEscape naming the fault."""
    if not isinstance(path, str) or not path:
        raise PathEscape(f"invalid path {path!r}")
    if "\x00" in path:
        raise PathEscape(f"invalid path {path!r}: NUL byte")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise PathEscape(f"Path must start with {ROOT}, got: {path}")
    parts = PurePosixPath(path).parts[2:]
    if ".." in parts:
        raise PathEscape(f"Path {path} would escape {ROOT} directory: '..' is not allowed")
    return "/".join(p for p in parts if p != ".")


def size_text(size: int) -> str:
    """A size as the SDK's helper writes it: 0B, 512B, 1.5K, 2M."""
    if size == 0:
        return "0B"
    unit = min((size.bit_length() - 1) // 10, 3)
    value = size / 1024 ** unit
    return f"{int(value) if value == int(value) else f'{value:.1f}'}{'BKMG'[unit]}"


def check_command(tool_input: Any) -> str:
    """The command named by ``tool_input`` once its fields are right, or ToolError naming the field."""
    if not isinstance(tool_input, dict):
        raise ToolError("memory expects an object of arguments")
    command = tool_input.get("command")
    if command not in FIELDS:
        raise ToolError(f"unknown command {command!r}; use one of: {', '.join(FIELDS)}")
    required, optional = FIELDS[command], OPTIONAL.get(command, {})
    for name, kind in required.items():
        if name not in tool_input:
            raise ToolError(f"{command} is missing required field {name!r}")
    for name, value in tool_input.items():
        if name == "command":
            continue
        kind = required.get(name, optional.get(name))
        if kind is None:
            raise ToolError(f"{command} got unexpected field {name!r}")
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ToolError(f"{command} field {name!r} must be {getattr(kind, '__name__', kind)}")
    view_range = tool_input.get("view_range")
    if view_range is not None and (len(view_range) != 2 or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in view_range)):
        raise ToolError("view_range must be two line numbers [first, last] (last -1: to the end)")
    return command


class MemoryStore:
    """The memory folder and the six commands; every method returns the tool's result text or raises."""

    def __init__(self, root: str | os.PathLike[str], check: Callable[[Any], str] | None = None):
        self.folder = Workspace(root)  # chapter 00's confinement: nothing outside this folder
        self.check = check or memory_path  # chapter 11 plugs the student's path check in here

    def locate(self, path: str) -> tuple[str, Path]:
        relative = self.check(path)
        return relative, self.folder.root if not relative else self.folder.resolve(relative)

    def run(self, tool_input: Any) -> ToolOutcome:
        """One command; the model's mistakes come back as is_error outcomes, never exceptions."""
        try:
            command = check_command(tool_input)
            return ToolOutcome(getattr(self, command)(**{k: v for k, v in tool_input.items() if k != "command"}))
        except (ToolError, PathEscape) as error:
            message = str(error)
        except UnicodeError:
            message = "the file is not valid UTF-8 text"
        except OSError as error:
            message = error.strerror or type(error).__name__
        return ToolOutcome(f"Error: {message}".replace(str(self.folder.root), ROOT), is_error=True)

    def view(self, path: str, view_range: list[int] | None = None) -> str:
        _, target = self.locate(path)
        if target.is_dir():
            return self._listing(path.rstrip("/") or ROOT, target)
        if not target.is_file():
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        lines = target.read_bytes().decode("utf-8").split("\n")
        first = 1
        if view_range:
            first = max(1, view_range[0])
            lines = lines[first - 1: None if view_range[1] == -1 else view_range[1]]
        numbered = [f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{line}" for n, line in enumerate(lines, start=first)]
        return f"Here's the content of {path} with line numbers:\n" + "\n".join(numbered)

    def _listing(self, path: str, top: Path) -> str:
        rows = [f"{size_text(_size(top))}\t{path}"]
        for entry in _entries(top, depth=1):
            name = entry.relative_to(top).as_posix() + ("/" if entry.is_dir() else "")
            rows.append(f"{size_text(_size(entry))}\t{path}/{name}")
        header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
        return "\n".join([header, *rows])

    def create(self, path: str, file_text: str) -> str:
        relative, target = self.locate(path)
        if not relative or target.is_dir():
            raise ToolError(f"The path {path} is a directory.")
        self.folder.write_file(relative, file_text)
        return f"File created successfully at: {path}"

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        target, text = self._text_file(path)
        found = text.count(old_str) if old_str else 0
        if found == 0:
            raise ToolError(f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.")
        if found > 1:
            starts = [i for i in range(len(text)) if text.startswith(old_str, i)]
            lines = ", ".join(str(text[:i].count("\n") + 1) for i in starts)
            raise ToolError(f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
                            f"{lines}. Please ensure it is unique")
        changed = text[:text.find(old_str)].count("\n")
        new_text = text.replace(old_str, new_str)
        target.write_bytes(new_text.encode("utf-8"))
        lines = new_text.split("\n")
        snippet = [f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{lines[n - 1]}"
                   for n in range(max(0, changed - 2) + 1, min(len(lines), changed + 3) + 1)]
        return ("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
                + "\n".join(snippet))

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        target, text = self._text_file(path)
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not 0 <= insert_line <= len(lines):
            raise ToolError(f"Invalid `insert_line` parameter: {insert_line}. "
                            f"It should be within the range [0, {len(lines)}].")
        lines.insert(insert_line, insert_text.rstrip("\n"))
        target.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        return f"The file {path} has been edited."

    def delete(self, path: str) -> str:
        relative, target = self.locate(path)
        if not relative:
            raise ToolError(f"Cannot delete the {ROOT} directory itself")
        if target.is_dir() and not Path(self.folder.root / relative).is_symlink():
            shutil.rmtree(target)
        elif target.is_file():
            (self.folder.root / relative).unlink()
        else:
            raise ToolError(f"The path {path} does not exist")
        return f"Successfully deleted {path}"

    def rename(self, old_path: str, new_path: str) -> str:
        old_relative, old = self.locate(old_path)
        new_relative, new = self.locate(new_path)
        if not old_relative:
            raise ToolError(f"Cannot rename the {ROOT} directory itself")
        if not new_relative or new.exists():
            raise ToolError(f"The destination {new_path} already exists")
        if not old.exists():
            raise ToolError(f"The path {old_path} does not exist")
        if new.is_relative_to(old):
            raise ToolError(f"Cannot move {old_path} into itself")
        new.parent.mkdir(parents=True, exist_ok=True)
        (self.folder.root / old_relative).rename(new)
        return f"Successfully renamed {old_path} to {new_path}"

    def _text_file(self, path: str) -> tuple[Path, str]:
        _, target = self.locate(path)
        if not target.exists():
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        if not target.is_file():
            raise ToolError(f"The path {path} is not a file.")
        return target, target.read_bytes().decode("utf-8")


def _entries(top: Path, depth: int) -> list[Path]:
    """Files and folders under ``top``, two levels deep, hidden ones and symlinks left out, sorted."""
    found = []
    for entry in sorted(top.iterdir(), key=lambda p: p.name):
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        found.append(entry)
        if entry.is_dir() and depth < 2:
            found += _entries(entry, depth + 1)
    return found


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
