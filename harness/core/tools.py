"""The agent's hands: a workspace folder, five file tools and a dispatcher (chapter 00).

Every path the model names is resolved inside one folder, the workspace, and
refused if it leaves it (absolute, `..`, or a symlink pointing out). File
names go out, and come back, by one rule (``harness.core.names``): a name that
is not valid UTF-8, or holds a backslash, is shown escaped, so every result can
be sent, and the file tools read the escaped name back to the file. `bash` is
not a shell: one allowlisted program, its arguments checked like paths, run
without a shell. `Toolbox.run` turns the model's mistakes into error results
it can read, instead of exceptions that would stop the loop.
"""
from __future__ import annotations

import glob
import json
import os
import shlex
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from .manual import COMPACT_ACK, COMPACT_TOOL, COMPACT_TOOL_NAME
from .names import meant, shown

ALLOWED_PROGRAMS = ("ls", "cat", "head", "tail", "wc", "grep", "sort", "uniq", "diff", "echo",
                    "pwd")
FORBIDDEN_CHARS = "|;&><`$\n\r\x00"  # pipes, chaining, redirects, substitution, variables
GLOB_CHARS = "*?["
# Options that would read or write a path we cannot check (a value glued to a
# short flag, a list of file names), run a program, or follow symlinks out.
RISKY_SHORT = {"ls": "L", "grep": "fR", "sort": "oT", "diff": "X"}
RISKY_LONG = {
    "ls": ("--dereference",),
    "wc": ("--files0-from",),
    "grep": ("--dereference-recursive",),
    "sort": ("--compress-program", "--files0-from"),
}
# diff compares the files inside folder operands and follows symlinks there
FORCED_OPTIONS = {"diff": ["--no-dereference"]}
BASH_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
BASH_TIMEOUT = 10.0  # seconds
MAX_OUTPUT = 50_000  # characters


class PathEscape(ValueError):
    """A path that leaves the workspace."""


class ToolError(Exception):
    """A tool failed in a way the model should hear about."""


class Workspace:
    """A folder the agent may touch, and nothing outside it."""

    root: Path  # resolved, absolute

    def __init__(self, root: str | os.PathLike[str]):
        Path(root).mkdir(parents=True, exist_ok=True)
        self.root = Path(os.path.realpath(root))

    def resolve(self, path: str) -> Path:
        """The real location of `path` (relative to the root), or PathEscape."""
        if not path or "\x00" in path:
            raise PathEscape(f"invalid path {path!r}")
        if Path(path).is_absolute():
            raise PathEscape(f"{path}: absolute paths are not allowed, use a relative path")
        target = Path(os.path.realpath(self.root / path))  # follows every symlink in the chain
        if not target.is_relative_to(self.root):
            raise PathEscape(f"{path}: leads outside the workspace")
        return target

    def _named(self, path: str) -> Path:
        """The real location of the file a tool's ``path`` names, escapes read back (``names.meant``)."""
        return self.resolve(meant(path))

    def read_file(self, path: str, limit: int | None = None, offset: int | None = None) -> str:
        """The file's text; with ``limit``, at most that many lines; with ``offset`` (chapter 13's read
        tool offers it), from that line on (1 is the first). Lines left out after the part read are
        counted at its end."""
        text = self._named(path).read_bytes().decode("utf-8")
        if limit is None and offset is None:
            return text
        if limit is not None and limit < 1:
            raise ToolError(f"limit must be at least 1, got {limit}")
        if offset is not None and offset < 1:
            raise ToolError(f"offset must be at least 1, got {offset}")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        start = (offset or 1) - 1
        if start >= len(lines) and offset is not None:
            raise ToolError(f"{path}: offset {offset} is past the end of the file ({len(lines)} lines)")
        end = len(lines) if limit is None else min(len(lines), start + limit)
        if start == 0 and end == len(lines):
            return text
        rest = len(lines) - end
        return "\n".join(lines[start:end]) + (f"\n... ({rest} more lines)" if rest else "")

    def write_file(self, path: str, content: str) -> str:
        target = self._named(path)
        data = content.encode("utf-8")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise ToolError(f"{path}: a parent folder is a file") from None
        target.write_bytes(data)
        return f"Wrote {len(data)} bytes to {path}"

    def edit_file(self, path: str, old_text: str, new_text: str) -> str:
        if not old_text:
            raise ToolError("old_text must not be empty")
        target = self._named(path)
        text = target.read_bytes().decode("utf-8")
        if old_text not in text:
            raise ToolError(f"{path}: old_text not found")
        target.write_bytes(text.replace(old_text, new_text, 1).encode("utf-8"))
        return f"Edited {path}"

    def list_files(self, path: str = ".") -> str:
        top = self._named(path)
        if top.is_file():
            found: list[tuple[str, str | None]] = [(os.fspath(top), None)]
        elif top.is_dir():
            found = _files_under(top, self.root)
        else:
            raise ToolError(f"{path}: no such file or directory")
        lines = (shown(Path(name).relative_to(self.root).as_posix()) + (f" ({mark})" if mark else "")
                 for name, mark in found)
        return "\n".join(sorted(lines)) or "(empty)"

    def bash(self, command: str) -> str:
        program, *words = _parse(command)
        if program == "pwd":
            return "."  # the root as the agent sees it; the machine path stays private
        argv = [program, *FORCED_OPTIONS.get(program, []), *self._arguments(program, words)]
        return _hide_root(_execute(argv, self.root), self.root)

    def _arguments(self, program: str, words: list[str]) -> list[str]:
        """Expand globs inside the workspace, then check every resulting argument."""
        args = []
        for word in words:
            expanded = [word] if word.startswith("-") else self._expand(word)
            for arg in expanded:
                self._check_argument(program, arg)
            args += expanded
        return args

    def _expand(self, word: str) -> list[str]:
        self._check_operand(word)  # before globbing, so no pattern looks outside
        if not any(c in word for c in GLOB_CHARS):
            return [word]
        return sorted(glob.glob(word, root_dir=self.root)) or [word]

    def _check_argument(self, program: str, arg: str) -> None:
        if arg.startswith("--"):
            name, _, value = arg.partition("=")
            # GNU tools accept any unambiguous prefix of a long option
            risky = RISKY_LONG.get(program, ())
            if len(name) > 2 and any(option.startswith(name) for option in risky):
                raise ToolError(f"option {name} is not allowed for {program}")
            self._check_operand(value)
        elif arg.startswith("-"):
            if set(arg[1:]) & set(RISKY_SHORT.get(program, "")):
                raise ToolError(f"option {arg} is not allowed for {program}")
        else:
            self._check_operand(arg)

    def _check_operand(self, arg: str) -> None:
        if not arg:
            return  # an empty argument names nothing
        if ".." in PurePosixPath(arg).parts:
            raise PathEscape(f"{arg}: '..' is not allowed in bash arguments")
        self.resolve(arg)


def _parse(command: str) -> list[str]:
    """Split a command into words; refuse shell syntax and unknown programs."""
    for char in FORBIDDEN_CHARS:
        if char in command:
            raise ToolError(f"{char!r} is not allowed: run one program, "
                            "without pipes, redirects, variables or chaining")
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise ToolError(f"cannot parse command: {error}") from None
    if not words:
        raise ToolError("empty command")
    if words[0] not in ALLOWED_PROGRAMS:
        allowed = ", ".join(ALLOWED_PROGRAMS)
        raise ToolError(f"program {words[0]!r} is not allowed; allowed: {allowed}")
    return words


def _execute(argv: list[str], cwd: Path) -> str:
    """Run argv without a shell; stdout, labelled stderr and a non-zero exit code, as text."""
    try:
        done = subprocess.run(argv, cwd=cwd, env=BASH_ENV, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=BASH_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{argv[0]} timed out after {BASH_TIMEOUT:g} s") from None
    except OSError as error:
        raise ToolError(f"cannot run {argv[0]}: {error.strerror}") from None
    parts = [done.stdout.decode("utf-8", "replace").rstrip("\n")]
    stderr = done.stderr.decode("utf-8", "replace").rstrip("\n")
    if stderr:
        parts.append(f"[stderr]\n{stderr}")
    if done.returncode:
        parts.append(f"exit code {done.returncode}")
    text = "\n".join(p for p in parts if p) or "(no output)"
    if len(text) > MAX_OUTPUT:
        text = text[:MAX_OUTPUT] + f"\n... (output truncated: {len(text)} characters in all)"
    return text


LOOP, BROKEN, UNREADABLE = "symlink loop, not followed", "broken symlink", "folder not readable"


def _files_under(top: Path, root: Path) -> list[tuple[str, str | None]]:
    """Every file below the real folder ``top``, as ``os.walk`` finds them (symlinked folders are not
    entered), without those that are symlinks leading outside ``root``, each with None or a mark
    saying why it could not be looked into: a symlink loop, a broken symlink, a folder not readable.
    Only symlinks need resolving: below a real folder, walked without following links, every other
    entry is where it seems."""
    found: list[tuple[str, str | None]] = []
    folders = [os.fspath(top)]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:  # unreadable, or gone meanwhile
            if folder != os.fspath(top) and os.path.isdir(folder):
                found.append((folder, UNREADABLE))
            continue
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:  # following the link failed: a loop (ELOOP), or no permission on the way
                found.append((entry.path, LOOP if entry.is_symlink() else UNREADABLE))
                continue
            if is_folder:
                if not entry.is_symlink():
                    folders.append(entry.path)
            elif not entry.is_symlink():
                found.append((entry.path, None))
            elif Path(os.path.realpath(entry.path)).is_relative_to(root):
                found.append((entry.path, None if os.path.exists(entry.path) else BROKEN))
    return found


def _hide_root(text: str, root: Path) -> str:
    """The workspace is '.' to the agent: never show the machine path of the root."""
    return text.replace(str(root), ".")


@dataclass(frozen=True)
class ToolOutcome:
    content: str
    is_error: bool = False


def _schema(name: str, description: str, properties: dict[str, Any],
            required: list[str]) -> dict[str, Any]:
    input_schema = {"type": "object", "properties": properties, "required": required}
    return {"name": name, "description": description, "input_schema": input_schema}


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


PATH_ARG = _text("Path relative to the workspace root.")
LIMIT_ARG = {"type": "integer", "minimum": 1, "description": "Read at most this many lines."}
FILE_TOOLS: list[dict[str, Any]] = [
    _schema("read_file", "Read a text file from the workspace.",
            {"path": PATH_ARG, "limit": LIMIT_ARG}, ["path"]),
    _schema("write_file", "Create or overwrite a text file; missing parent folders are created.",
            {"path": PATH_ARG, "content": _text("The full new content.")}, ["path", "content"]),
    _schema("edit_file", "Replace the first occurrence of old_text with new_text in a file.",
            {"path": PATH_ARG, "old_text": _text("Exact text to find."),
             "new_text": _text("Text to put in its place.")}, ["path", "old_text", "new_text"]),
    _schema("list_files", "List every file under a folder of the workspace, recursively.",
            {"path": _text("Folder relative to the workspace root (default '.').")}, []),
    _schema("bash", f"Run one program in the workspace: {', '.join(ALLOWED_PROGRAMS)}. No pipes, "
            "redirects, variables or chaining; paths must stay inside the workspace.",
            {"command": _text("The command line, e.g. grep -n TODO *.py")}, ["command"]),
]

JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string",
              list: "array", dict: "object", type(None): "null"}


def _json_type(value: Any) -> str:
    return JSON_TYPES.get(type(value), type(value).__name__)


def _subject(tool_input: dict[str, Any]) -> str:
    """What an error message should name: the path, or the bash command."""
    return tool_input.get("path", tool_input.get("command", "."))


def _check_input(schema: dict[str, Any], tool_input: Any) -> None:
    """Raise ToolError unless tool_input has exactly the arguments the schema allows."""
    name, spec = schema["name"], schema["input_schema"]
    if not isinstance(tool_input, dict):
        raise ToolError(f"{name} expects an object of arguments, got {_json_type(tool_input)}")
    for key in spec.get("required", []):
        if key not in tool_input:
            raise ToolError(f"{name} is missing required argument {key!r}")
    for key, value in tool_input.items():
        if key not in spec["properties"]:
            raise ToolError(f"{name} got unexpected argument {key!r}")
        expected = spec["properties"][key]["type"]
        if _json_type(value) != expected:
            raise ToolError(f"{name} argument {key!r} must be {expected}, got {_json_type(value)}")


def _tool_definitions(include_compact: bool) -> list[dict[str, Any]]:
    return FILE_TOOLS + [COMPACT_TOOL] if include_compact else FILE_TOOLS


@lru_cache(maxsize=2)
def _definitions_json(include_compact: bool) -> str:
    return json.dumps(_tool_definitions(include_compact))


class Toolbox:
    """The tools the agent can call, their schemas, and a dispatcher."""

    def __init__(self, workspace: Workspace, *, include_compact: bool = True):
        self.workspace = workspace
        self.include_compact = include_compact

    def _definitions(self) -> list[dict[str, Any]]:
        return _tool_definitions(self.include_compact)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        """A fresh copy of the tool definitions: callers may edit theirs freely."""
        return json.loads(_definitions_json(self.include_compact))  # a tenth of copy.deepcopy's time

    @property
    def names(self) -> list[str]:
        return [schema["name"] for schema in self.schemas]

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        """Call one tool; the model's mistakes come back as is_error outcomes, never exceptions."""
        schema = next((s for s in self._definitions() if s["name"] == name), None)
        if schema is None:
            return ToolOutcome(f"Error: unknown tool {name!r}", is_error=True)
        try:
            _check_input(schema, tool_input)
            if name == COMPACT_TOOL_NAME:
                return ToolOutcome(COMPACT_ACK)
            content = getattr(self.workspace, name)(**tool_input)
            return ToolOutcome(_hide_root(content, self.workspace.root))
        except (ToolError, PathEscape) as error:
            message = str(error)
        except UnicodeError:
            message = f"{_subject(tool_input)}: not valid UTF-8 text"
        except OSError as error:
            message = f"{_subject(tool_input)}: {error.strerror or type(error).__name__}"
        return ToolOutcome(_hide_root(f"Error: {message}", self.workspace.root), is_error=True)
