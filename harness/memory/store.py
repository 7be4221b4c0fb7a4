"""The memory tool's six commands on a folder of files, confined to it (chapter 11).

The Messages API's memory tool (``memory_20250818``) is client-side: the model
asks for ``view``, ``create``, ``str_replace``, ``insert``, ``delete`` or
``rename`` on paths under ``/memories``, and the application runs them on
storage it chooses (https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool).
Here that storage is one folder on disk. Every path goes through
``memory_path`` (the prefix, no ``..``, no NUL; chapter 11 plugs the student's
check in its place), and then, whatever that check let through, the store
refuses an absolute path, a NUL and a ``..`` step itself, and reaches the
file through ``harness.memory.confined``: step by step through folder
descriptors, refusing a symlink at any step (even one that stays inside), so
a folder swapped for a symlink between a check and a use cannot lead out.
The rules, each tested in ``tests/test_memory.py``:

- every write is atomic (a temporary file in the same folder, then
  ``os.replace``): a hard link to an outside file is replaced, never written
  through;
- a refused command leaves the folder as it was: the folders it made are
  removed again (``create`` of ``/memories/new/deeper/<too long>.md`` leaves
  no ``new/``);
- names are shown by the one rule of ``harness.core.names`` (a byte that is
  not UTF-8 as ``\\xhh``, a backslash doubled), so every result can be sent,
  and a path's escapes are read back, so a shown name reaches its file;
- ``view`` lists files and folders only (not FIFOs, sockets or symlinks);
- no path has more than ``MAX_STEPS`` steps below ``/memories`` (a ``rename`` counts the folders
  it moves), so every walk of the store stays shallow; a tree made deeper by hand is still
  listed and removed (``harness.memory.confined`` walks without recursion).

The command fields are the SDK's (``anthropic.types.beta.BetaMemoryTool20250818*Command``,
anthropic 2.14.0). The result and error texts follow the SDK's file-based
helper (``anthropic/lib/tools/_beta_builtin_memory_tool.py``,
``BetaLocalFilesystemMemoryTool``) with three differences, each our choice:
``create`` overwrites an existing file (the docs say "create or overwrite";
the helper refuses), a directory's size in ``view`` is the total size of the
files under it (the helper shows the file system's own directory size, which
differs between file systems), and a path must be ``/memories`` or start with
``/memories/`` (the helper also takes ``/memoriesX``).

What that helper does for the same dangers, read in its code (anthropic
2.14.0): ``str_replace`` and ``insert`` write a temporary file, ``fsync`` it
and ``os.replace`` it, as we do (we do not ``fsync``); its ``create`` opens
with ``O_EXCL``, so it never writes through a link, but it refuses to
overwrite. It resolves each path (following symlinks) and refuses one that
ends outside, then uses the resolved path string: a swap after that check is
not caught, except for reads, which open the last step with ``O_NOFOLLOW``.
It makes missing folders (mode 0o700) and does not remove them when the
command then fails, and it lists names as Python decodes them, so a name that
is not UTF-8 reaches the JSON encoder as a lone surrogate.
"""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from ..core.names import meant, shown
from ..core.tools import PathEscape, ToolError, ToolOutcome
from .confined import Walk, height, tree

ROOT = "/memories"
MAX_STEPS = 32  # steps below /memories, a file's name included: our limit (the SDK's helper sets none)
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

    root: Path  # resolved, absolute

    def __init__(self, root: str | os.PathLike[str], check: Callable[[Any], str] | None = None):
        Path(root).mkdir(parents=True, exist_ok=True)
        self.root = Path(os.path.realpath(root))
        self.check = check or memory_path  # chapter 11 plugs the student's path check in here

    def steps(self, path: str) -> tuple[str, list[str]]:
        """The checked relative path, and its steps as file names (escapes read back); PathEscape if
        the check let through something the store will not walk (absolute, NUL, ``..``)."""
        relative = self.check(path)
        if not isinstance(relative, str) or relative.startswith("/") or "\x00" in relative:
            raise PathEscape(f"invalid path {path!r}")
        names = [meant(name) for name in relative.split("/") if name not in ("", ".")]
        if ".." in names:
            raise PathEscape(f"Path {path} would escape {ROOT} directory: '..' is not allowed")
        if len(names) > MAX_STEPS:
            raise ToolError(too_deep(path, len(names)))
        return relative, names

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
        return ToolOutcome(f"Error: {message}".replace(str(self.root), ROOT), is_error=True)

    def view(self, path: str, view_range: list[int] | None = None) -> str:
        _, names = self.steps(path)
        missing = ToolError(f"The path {path} does not exist. Please provide a valid path.")
        with Walk(self.root, path) as walk:
            if not names:
                return _listing(path.rstrip("/") or ROOT, walk.top)
            try:
                folder = walk.folder(names[:-1])
            except (FileNotFoundError, NotADirectoryError):
                raise missing from None
            kind = walk.kind(folder, names[-1])
            if kind == "folder":
                return _listing(path.rstrip("/"), walk.folder(names[-1:], start=folder))
            if kind == "symlink":
                raise walk.symlink_refused()
            if kind != "file":
                raise missing
            lines = walk.read(folder, names[-1]).decode("utf-8").split("\n")
        first = 1
        if view_range:
            first = max(1, view_range[0])
            lines = lines[first - 1: None if view_range[1] == -1 else view_range[1]]
        numbered = [f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{line}" for n, line in enumerate(lines, start=first)]
        return f"Here's the content of {path} with line numbers:\n" + "\n".join(numbered)

    def create(self, path: str, file_text: str) -> str:
        relative, names = self.steps(path)
        if not names:
            raise ToolError(f"The path {path} is a directory.")
        data = file_text.encode("utf-8")
        with Walk(self.root, path) as walk:
            try:
                folder = walk.folder(names[:-1], make=True)
            except NotADirectoryError:
                raise ToolError(f"{relative}: a parent folder is a file") from None
            kind = walk.kind(folder, names[-1])
            if kind == "folder":
                raise ToolError(f"The path {path} is a directory.")
            if kind == "symlink":
                raise walk.symlink_refused()
            walk.write(folder, names[-1], data)
        return f"File created successfully at: {path}"

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        with Walk(self.root, path) as walk:
            folder, name, text = self._text_file(walk, path)
            found = text.count(old_str) if old_str else 0
            if found == 0:
                raise ToolError(f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.")
            if found > 1:
                lines = ", ".join(map(str, _lines_of(text, old_str)))
                raise ToolError(f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
                                f"{lines}. Please ensure it is unique")
            changed = text[:text.find(old_str)].count("\n")
            new_text = text.replace(old_str, new_str)
            walk.write(folder, name, new_text.encode("utf-8"))
        lines = new_text.split("\n")
        snippet = [f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{lines[n - 1]}"
                   for n in range(max(0, changed - 2) + 1, min(len(lines), changed + 3) + 1)]
        return ("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
                + "\n".join(snippet))

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        with Walk(self.root, path) as walk:
            folder, name, text = self._text_file(walk, path)
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()
            if not 0 <= insert_line <= len(lines):
                raise ToolError(f"Invalid `insert_line` parameter: {insert_line}. "
                                f"It should be within the range [0, {len(lines)}].")
            lines.insert(insert_line, insert_text.rstrip("\n"))
            walk.write(folder, name, ("\n".join(lines) + "\n").encode("utf-8"))
        return f"The file {path} has been edited."

    def delete(self, path: str) -> str:
        _, names = self.steps(path)
        if not names:
            raise ToolError(f"Cannot delete the {ROOT} directory itself")
        missing = ToolError(f"The path {path} does not exist")
        with Walk(self.root, path) as walk:
            try:
                folder = walk.folder(names[:-1])
            except (FileNotFoundError, NotADirectoryError):
                raise missing from None
            kind = walk.kind(folder, names[-1])
            if kind == "symlink":
                raise walk.symlink_refused()
            if kind not in ("folder", "file"):
                raise missing
            walk.remove(folder, names[-1], kind)
        return f"Successfully deleted {path}"

    def rename(self, old_path: str, new_path: str) -> str:
        _, old_names = self.steps(old_path)
        new_relative, new_names = self.steps(new_path)
        if not old_names:
            raise ToolError(f"Cannot rename the {ROOT} directory itself")
        if not new_names:
            raise ToolError(f"The destination {new_path} already exists")
        with Walk(self.root, old_path) as old, Walk(self.root, new_path) as new:
            try:
                taken = new.kind(new.folder(new_names[:-1]), new_names[-1]) is not None
            except FileNotFoundError:
                taken = False  # its folder is made below
            except NotADirectoryError:
                raise ToolError(f"{new_relative}: a parent folder is a file") from None
            if taken:
                raise ToolError(f"The destination {new_path} already exists")
            try:
                old_folder = old.folder(old_names[:-1])
            except (FileNotFoundError, NotADirectoryError):
                old_folder = None
            kind = None if old_folder is None else old.kind(old_folder, old_names[-1])
            if kind == "symlink":
                raise old.symlink_refused()
            if old_folder is None or kind is None:
                raise ToolError(f"The path {old_path} does not exist")
            if new_names[:len(old_names)] == old_names:
                raise ToolError(f"Cannot move {old_path} into itself")
            steps = len(new_names) + (height(old_folder, old_names[-1]) if kind == "folder" else 0)
            if steps > MAX_STEPS:
                raise ToolError(too_deep(new_path, steps))
            new_folder = new.folder(new_names[:-1], make=True)
            os.rename(old_names[-1], new_names[-1], src_dir_fd=old_folder, dst_dir_fd=new_folder)
        return f"Successfully renamed {old_path} to {new_path}"

    def _text_file(self, walk: Walk, path: str) -> tuple[int, str, str]:
        """The folder descriptor, the name and the text of the file ``path`` names."""
        _, names = self.steps(path)
        if not names:
            raise ToolError(f"The path {path} is not a file.")
        try:
            folder = walk.folder(names[:-1])
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.") from None
        kind = walk.kind(folder, names[-1])
        if kind is None:
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        if kind == "symlink":
            raise walk.symlink_refused()
        if kind != "file":
            raise ToolError(f"The path {path} is not a file.")
        return folder, names[-1], walk.read(folder, names[-1]).decode("utf-8")


def too_deep(path: str, steps: int) -> str:
    return f"The path {path} would be {steps} levels deep; the memory store allows at most {MAX_STEPS}"


def _lines_of(text: str, part: str) -> list[int]:
    """The line number (1-based) of every place ``part`` starts in ``text``, overlapping ones too, in one
    pass over ``text``."""
    numbers, line, counted = [], 1, 0
    start = text.find(part)
    while start != -1:
        line += text.count("\n", counted, start)
        counted = start
        numbers.append(line)
        start = text.find(part, start + 1)
    return numbers


def _listing(path: str, folder: int) -> str:
    """The view of a folder: its size and path, then its files and folders two levels deep."""
    total, rows = tree(folder, levels=2)
    lines = [f"{size_text(total)}\t{path}", *(f"{size_text(size)}\t{path}/{shown(name)}" for name, size in rows)]
    header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
    return "\n".join([header, *lines])
