"""Tools by what they do, whatever they are called (chapter 00).

A model picks among the offered tools by their name, description and input
schema, not by one spelling. The fake does the same: each offered tool gets
at most one *role* (read a file, edit one, write one, list a folder, search
files, run a command), and the agent asks for a role, never a name. The rule,
*this fake*'s, reads the name's words (split at ``_``, ``-``, dots and
camelCase: ``readFile`` is "read file"), the description's words, and the
schema's properties (their names split the same way):

- a *path* property is a string whose name says path, file, filename, dir,
  directory, folder, target, location, uri, dest, dst or destination, or
  their short forms fname, fpath, dirname, dirpath (``path``, ``file_path``,
  ``filepath``, ``absolutePath``, ``file_location``, ``relative_workspace_path``,
  ``fname``), and says nothing of content; failing one, a
  property named source or src (a file's name, or its code) and nothing else
  of content is the path when no other property says content (``source``
  alone: the file to read; not ``source_code``); failing both, the one string
  property whose name says no part at all (not content, pattern, command, a
  pair's side; ``which``, ``resource``, ``p``, ``into``, ``root``) is the path
  when the tool's name or description speaks of a file, files, path, dir,
  directory, folder or location, and no other string property is unnamed;
- **run**: a command property (command, cmd, cmdline, script, ``command_line``;
  a string, or an array of strings, then filled as ``["bash", "-lc", line]``;
  ``commands``, an array of command lines, as ``[line]``) and a name or
  description that speaks of bash, shell, terminal, exec/execute, run,
  command, spawn or process; or a tool's only string property, named for no
  part (``input``), when its name or description says both a shell (bash,
  shell, terminal, CLI) and a command (``cli(input)``: "invoke a CLI ... give
  the full command"); this comes before the unnamed path above;
- **edit**: a path and an old/new pair (old*/new*, search/replace,
  find/replace*, before/after, original/updated*, original/replacement,
  original/modified); or a single string
  property on a tool whose name or description says patch or diff, filled
  with a patch in the format its description shows (``*** Begin Patch``), a
  unified diff otherwise (a patch tool with a path and a pair is an edit by
  its pair: ``apply_patch(file, before, after)``);
- **write**: a path and a content property (content, contents, text, data, body,
  source, code, payload);
- **search**: a pattern property (pattern, regex, query) on a tool whose name
  says grep, rg, ripgrep or search, or whose description speaks of regex,
  contents or matching lines;
- **list**: a path or a pattern property (pattern, glob) on a tool whose name
  says list, ls, dir, directory, glob, tree, entries or browse (or whose
  description says list, entries, glob, browse or children);
- **read**: a path property, none of the above, and a name or description that
  says read, cat, view, open, show, get, fetch, load, print, contents, peek,
  look, see, display, inspect, retrieve or slurp (the idiom for reading a
  whole file).

A tool whose name says delete, remove, rm, move, rename, mv, copy or cp has no
role, whatever its properties and description say (the words of reading are
common, and a ``copy(source, destination)`` has the shape of a write: the agent
must not delete to read, nor copy to write).

Every required property must be one the fake can fill (those above; a
boolean, sent as false; a property with a ``default``, sent as that; a number
whose name says timeout, sent as 120 seconds, 120000 when its name says ms or
millis, or the schema's ``maximum`` when lower); a tool that requires anything
else is not used.
When several tools share a role the course's own name comes first
(``read_file``, ``edit_file``, ``write_file``, ``list_files``, ``bash``), then the
first offered. A search sends ``output_mode: "content"`` when its schema
offers that value, ``-n: true`` when it has that boolean, and ``*.py`` for a
file filter (``glob``, ``include``). The tools chapter 09, 11 and 04 add are
known by their names: ``recall``, ``memory`` (the API's memory tool) and the
compaction tools ``judgement`` finds.

A call already in the history is described the same way: by the offered tool
of its name, else by its name and the keys of its input alone (a tool no
longer offered). Limits: the reading is lexical; a tool named for something
else (``helper`` with a ``path``) has no role; a description alone, with
two or more properties named otherwise (``x``, ``y``), is not enough: only a
single unnamed string is taken for the path, and only on a tool that speaks of
files, so a tool that names no part and says nothing of files (``slurp(p)``
described as "Slurp it") has none, and one that does speak of files takes its
one unnamed string as a path even when it is an id (``get_file_info(id)``
reads as a read). A write or an edit is known by its properties (a path and
content, a path and a pair; the unnamed path is the only part the name or
description may supply): their descriptions (overwrite, store, patch,
substitute) confirm nothing the properties have not said. A path named only by
a word not listed (``where``, ``loc``, ``name``) is not read as one when another
string property is unnamed too, or the tool says nothing of files. A bare command line (``input``) is read only
with both a shell word and the word command: ``run_query(sql)`` ("Run a SQL
query") is no run tool, nor a tool that says shell without command.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")  # camelCase, snake_case, kebab-case: their words
PATH_WORDS = {"path", "file", "filename", "filepath", "pathname", "fname", "fpath", "dir", "dirname", "dirpath",
              "directory", "folder", "target", "location", "uri", "dest", "dst", "destination"}
PLACE_WORDS = {"file", "files", "path", "paths", "dir", "directory", "folder", "location"}  # a tool about files
SOURCE_WORDS = {"source", "src"}  # a file's name, or its code: the path only when nothing else is content
CONTENT_WORDS = {"content", "contents", "text", "data", "body", "source", "code", "payload"}
COMMAND_WORDS = {"command", "commands", "cmd", "cmdline", "script", "commandline"}
PATTERN_WORDS = {"pattern", "regex", "query", "glob", "expression"}
FILTER_NAMES = ("glob", "include", "include_pattern", "file_pattern")
PAIRS = ((("old",), ("new",)), (("search",), ("replace", "replacement")), (("find",), ("replace", "replacement")),
         (("before",), ("after",)), (("original",), ("updated", "replacement", "modified")))
PAIR_WORDS = {w for pair in PAIRS for side in pair for w in side}
RUN_WORDS = {"bash", "shell", "sh", "zsh", "terminal", "exec", "execute", "run", "command", "cmd", "powershell",
             "spawn", "process"}
SEARCH_NAME = {"grep", "rg", "ripgrep", "search"}
SEARCH_TEXT = re.compile(r"\b(?:regex|regular expression|contents?|matching lines)\b", re.IGNORECASE)
LIST_NAME = {"list", "ls", "dir", "directory", "glob", "tree", "entries", "browse"}
LIST_TEXT = re.compile(r"\b(?:list|lists|entries|glob|browses?|children)\b", re.IGNORECASE)
READ_WORDS = {"read", "reads", "cat", "view", "open", "show", "get", "fetch", "load", "print", "contents",
              "peek", "look", "see", "display", "inspect", "retrieve", "retrieves", "slurp", "slurps"}
OTHER_NAME = {"delete", "remove", "rm", "move", "rename", "mv", "copy", "cp"}  # no role at all
RUN_TEXT = re.compile(r"\b(?:bash|shell|terminal|exec(?:ute)?s?|runs?|commands?|spawns?|process(?:es)?)\b",
                      re.IGNORECASE)
SHELL_WORDS = {"bash", "shell", "terminal", "cli"}  # where a bare command line goes
COMMAND_NOUNS = {"command", "commands", "cmd", "commandline"}
TIMEOUT_WORDS = {"timeout"}
MILLIS_WORDS = {"ms", "millis", "milliseconds"}
PATCH_TEXT = re.compile(r"\bpatch(?:es)?\b", re.IGNORECASE)
CODEX_PATCH = "*** Begin Patch"
COURSE_NAMES = {"read": "read_file", "edit": "edit_file", "write": "write_file", "list": "list_files", "run": "bash"}
TOOL_ROLES = ("read", "edit", "write", "list", "search", "run", "delegate")  # delegate: chapter 13


def words(name: str) -> set[str]:
    """The lower-case words of a name: ``readFile`` and ``read_file`` are both {"read", "file"}."""
    return {w.lower() for w in NAME_WORD.findall(name)}


@dataclass(frozen=True)
class ToolUse:
    """How to call one tool for its role: which property takes what, and what else it always gets."""
    name: str
    role: str
    path: str | None = None                 # the property naming a file or folder
    slots: tuple[tuple[str, str], ...] = ()  # (what, property): "content", "old", "new", "command", "pattern"
    fixed: tuple[tuple[str, Any], ...] = ()  # properties sent as they are (a search's output_mode, -n, a filter)
    argv: str | None = None                 # an array command: "argv" (its words) or "lines" (command lines)
    patch: str | None = None                # "codex" or "unified": the edit is one patch text

    def slot(self, what: str) -> str | None:
        return dict(self.slots).get(what)


def _typed(schema: Any) -> str:
    """A property's JSON type ("" when it declares none, or is not an object)."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, str) else ""


def _path_property(properties: dict[str, Any]) -> str | None:
    """The property naming a file or folder: one that says a path; failing that, a ``source`` when no other
    property says content."""
    said = {name: words(name) for name, schema in properties.items() if _typed(schema) in ("string", "")}
    path = next((n for n, w in said.items() if w & PATH_WORDS and not w & CONTENT_WORDS), None)
    sources = [n for n, w in said.items() if w & SOURCE_WORDS and not w & CONTENT_WORDS - SOURCE_WORDS]
    if path or len(sources) != 1 or any(words(n) & CONTENT_WORDS for n in properties if n != sources[0]):
        return path
    return sources[0]


def _property(properties: dict[str, Any], vocabulary: set[str], path: str | None) -> str | None:
    return next((name for name in properties if name != path and words(name) & vocabulary), None)


def _pair(properties: dict[str, Any]) -> tuple[str, str] | None:
    for olds, news in PAIRS:
        old = next((n for n in properties if words(n) & set(olds)), None)
        new = next((n for n in properties if n != old and words(n) & set(news)), None)
        if old and new:
            return old, new
    return None


def _unnamed_strings(properties: dict[str, Any]) -> list[str]:
    """The string properties whose names say no known part (not content, pattern, command, old or new)."""
    known = CONTENT_WORDS | PATTERN_WORDS | COMMAND_WORDS | PAIR_WORDS | PATH_WORDS
    return [n for n, s in properties.items() if _typed(s) in ("string", "") and not words(n) & known]


def _loose_command(said: set[str], properties: dict[str, Any]) -> str | None:
    """A tool's only string property, when it names nothing and the tool speaks of a shell and a command."""
    strings = [n for n, s in properties.items() if _typed(s) in ("string", "")]
    if len(strings) == 1 and strings == _unnamed_strings(properties) and said & SHELL_WORDS and said & COMMAND_NOUNS:
        return strings[0]
    return None


def _loose_path(said: set[str], properties: dict[str, Any]) -> str | None:
    """The one string property named for nothing else, on a tool whose name or description speaks of files."""
    unnamed = _unnamed_strings(properties)
    return unnamed[0] if len(unnamed) == 1 and said & PLACE_WORDS else None


def describe_tool(tool: dict[str, Any]) -> ToolUse | None:
    """The role of one tool definition and how to fill its input (the module's rule), or None."""
    name = tool.get("name", "")
    description = tool.get("description") or ""
    schema = tool.get("input_schema") or {}
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if not isinstance(properties, dict) or not isinstance(required, list) or not all(
            isinstance(r, str) for r in required):
        return None
    found = _role(name, description, properties)
    if found is None:
        return None
    filled = {found.path, *dict(found.slots).values(), *dict(found.fixed)}
    for needed in required:
        if needed in filled:
            continue
        value = _stock_value(needed, properties.get(needed))
        if value is None:
            return None  # a required property the fake cannot fill
        found = ToolUse(found.name, found.role, found.path, found.slots, (*found.fixed, (needed, value)),
                        found.argv, found.patch)
    return found


def _stock_value(name: str, schema: Any) -> Any:
    """What a required property outside the role gets (the module's rule): its default, false for a boolean,
    a timeout for a number named so; None when the fake cannot fill it."""
    kind, said = _typed(schema), words(name)
    if kind == "boolean":
        return False
    if isinstance(schema, dict) and schema.get("default") is not None:
        return schema["default"]
    if kind not in ("integer", "number") or not said & TIMEOUT_WORDS:
        return None
    wanted = 120_000 if said & MILLIS_WORDS else 120
    most = schema.get("maximum")
    return min(wanted, most) if isinstance(most, (int, float)) and not isinstance(most, bool) else wanted


def _role(name: str, description: str, properties: dict[str, Any]) -> ToolUse | None:
    named, said = words(name), words(description)
    if named & OTHER_NAME:
        return None  # a delete, a move or a copy: never called to read, write, list or run
    if (delegate := _delegate(name, description, properties)) is not None:
        return delegate
    path = _path_property(properties)
    command = _property(properties, COMMAND_WORDS, path)
    if command and (named & RUN_WORDS or RUN_TEXT.search(description)):
        array = _typed(properties[command]) == "array"
        kind = None if not array else "lines" if "commands" in words(command) else "argv"
        return ToolUse(name, "run", None, (("command", command),), argv=kind)
    if not command and (line := _loose_command(named | said, properties)):
        return ToolUse(name, "run", None, (("command", line),))
    path = path or _loose_path(named | said, properties)
    strings = [n for n, s in properties.items() if _typed(s) == "string"]
    if len(strings) == 1 and ("patch" in named or PATCH_TEXT.search(description)):
        return ToolUse(name, "edit", None, (("patch", strings[0]),),
                       patch="codex" if CODEX_PATCH in description else "unified")
    if path and (pair := _pair(properties)):
        return ToolUse(name, "edit", path, (("old", pair[0]), ("new", pair[1])))
    if path and (content := _property(properties, CONTENT_WORDS, path)):
        return ToolUse(name, "write", path, (("content", content),))
    pattern = _property(properties, PATTERN_WORDS - {"glob"}, path) or _property(properties, {"glob"}, path)
    lists = bool(named & LIST_NAME or (pattern and "glob" in words(pattern)))
    if pattern and "glob" not in words(pattern) and (
            named & SEARCH_NAME or (not lists and SEARCH_TEXT.search(description))):
        return ToolUse(name, "search", path, (("pattern", pattern),), _search_extras(properties, pattern))
    if (path or pattern) and (lists or LIST_TEXT.search(description)):
        return ToolUse(name, "list", path, (("pattern", pattern),) if pattern else ())
    if path and (named | said) & READ_WORDS:
        return ToolUse(name, "read", path, _read_parts(properties))
    return None


DELEGATE_NAME = {"task", "agent", "subagent", "delegate", "dispatch"}
DELEGATE_TEXT = re.compile(r"\b(?:sub-?agents?|child agents?|another agent|fresh agent|new agent)\b", re.IGNORECASE)
PROMPT_NAMES = ("prompt", "task", "instructions", "instruction", "description")  # the task's text, in that preference


def _delegate(name: str, description: str, properties: dict[str, Any]) -> ToolUse | None:
    """A tool that hands a task to a sub-agent (chapter 13): its name says task, agent, subagent, delegate or
    dispatch, its description speaks of a sub-agent (or a child, another, a fresh agent), and a string property
    takes the task's text (prompt, task, instructions, description: the first of them it has)."""
    if not words(name) & DELEGATE_NAME or not DELEGATE_TEXT.search(description):
        return None
    strings = {n for n, s in properties.items() if _typed(s) == "string"}
    slot = next((n for n in PROMPT_NAMES if n in strings), None)
    return ToolUse(name, "delegate", None, (("prompt", slot),)) if slot else None


START_WORDS = {"offset", "start", "from", "first"}   # a read's first line (chapter 13: reading a saved result back)
COUNT_WORDS = {"limit", "lines", "count", "max"}     # how many lines it returns


def _read_parts(properties: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """A read tool's integer properties for its first line and its line count, when it has both (chapter 13);
    a start described as 0-based is filled as such (``"offset0"``)."""
    integers = {n: s for n, s in properties.items() if _typed(s) == "integer"}
    start = next((n for n in integers if words(n) & START_WORDS), None)
    count = next((n for n in integers if n != start and words(n) & COUNT_WORDS), None)
    if start is None or count is None:
        return ()
    described = str(integers[start].get("description", "")).lower() if isinstance(integers[start], dict) else ""
    zero = "0-based" in described or "zero-based" in described or "0-indexed" in described
    return (("offset0" if zero else "offset", start), ("limit", count))


def _search_extras(properties: dict[str, Any], pattern: str) -> tuple[tuple[str, Any], ...]:
    extras: list[tuple[str, Any]] = []
    mode = properties.get("output_mode")
    if isinstance(mode, dict) and isinstance(mode.get("enum"), list) and "content" in mode["enum"]:
        extras.append(("output_mode", "content"))
    if _typed(properties.get("-n") or {}) == "boolean":
        extras.append(("-n", True))
    extras += [(name, "*.py") for name in FILTER_NAMES if name in properties and name != pattern][:1]
    return tuple(extras)


@dataclass(frozen=True)
class Toolkit:
    """The tools a request offers: their names, and for each role the tool that does it (read only)."""
    names: frozenset[str] = frozenset()
    by_role: dict[str, ToolUse] = field(default_factory=dict)
    by_name: dict[str, ToolUse] = field(default_factory=dict)

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def role(self, role: str) -> ToolUse | None:
        return self.by_role.get(role)

    def use_of(self, name: str, tool_input: dict[str, Any]) -> ToolUse | None:
        """How a call of ``name`` with ``tool_input`` is read: the offered tool of that name, else a tool
        shaped like the input (its keys, their JSON types)."""
        offered = self.by_name.get(name)
        if offered is not None or name in self.names:
            return offered
        return guess_use(name, tool_input)

    def call(self, role: str, **values: Any) -> tuple[str, dict[str, Any]] | None:
        """The (name, input) of a call doing ``role`` with ``values`` (path, command, content, old, new,
        pattern), or None when no offered tool does it."""
        use = self.role(role)
        return None if use is None else (use.name, fill(use, values))


def fill(use: ToolUse, values: dict[str, Any]) -> dict[str, Any]:
    """The input of a call of ``use`` carrying ``values`` (the module's rule)."""
    tool_input: dict[str, Any] = {}
    if use.path and values.get("path") is not None:
        tool_input[use.path] = values["path"]
    for what, prop in use.slots:
        if what == "pattern" and use.role == "list":  # with a folder property: the files there; else the glob
            tool_input[prop] = "*.py" if use.path else f"{values['path']}/*.py"
        elif what == "command" and use.argv:
            tool_input[prop] = ["bash", "-lc", values["command"]] if use.argv == "argv" else [values["command"]]
        elif what == "patch":
            tool_input[prop] = patch_text(use.patch or "unified", values["path"], values["old"], values["new"])
        elif what == "offset0" and "offset" in values:
            tool_input[prop] = values["offset"] - 1  # a 0-based start: line 1 is 0
        elif what in values:
            tool_input[prop] = values[what]
    tool_input.update(use.fixed)
    return tool_input


def patch_text(style: str, path: str, old: str, new: str) -> str:
    """A one-hunk patch replacing the line ``old`` with ``new`` in ``path``."""
    if style == "codex":
        return f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch"
    return f"--- a/{path}\n+++ b/{path}\n@@\n-{old}\n+{new}\n"


PATCHED = re.compile(r"^(?:\*\*\* (?:Update|Add) File: |\+\+\+ (?:b/)?)(\S+)$", re.MULTILINE)


def patched_path(patch: str) -> str | None:
    """The file a patch text changes (its ``*** Update File:`` or ``+++`` line)."""
    found = PATCHED.search(patch)
    return found.group(1) if found else None


def touched(use: ToolUse | None, tool_input: dict[str, Any]) -> tuple[str, str] | None:
    """("read" or "edited", the file) a call of ``use`` names: a read, an edit or a write of a path (a patch's
    file); None for any other call."""
    if use is None or use.role not in ("read", "edit", "write"):
        return None
    if use.patch:
        patch = tool_input.get(use.slot("patch") or "")
        path = patched_path(patch) if isinstance(patch, str) else None
    else:
        path = tool_input.get(use.path or "")
    if not isinstance(path, str) or not path:
        return None
    return ("read" if use.role == "read" else "edited"), path


def command_line(use: ToolUse, tool_input: dict[str, Any]) -> str:
    """The command line a run call sends (an argv ``[shell, -c, line]`` read back to ``line``)."""
    value = tool_input.get(use.slot("command") or "", "")
    if isinstance(value, list):
        parts = [str(v) for v in value]
        if len(parts) >= 3 and parts[1] in ("-c", "-lc"):
            return parts[2]
        return parts[0] if len(parts) == 1 else shlex.join(parts)
    return value if isinstance(value, str) else ""


def _input_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object"}.get(type(value), "null")


def guess_use(name: str, tool_input: dict[str, Any]) -> ToolUse | None:
    """How a call is read when no tool definition is at hand (a summary's transcript): by its name and the
    keys of its input alone."""
    return _guessed(name, tuple(sorted((k, _input_type(v)) for k, v in tool_input.items())))


EDIT_NAME = {"edit", "write", "replace", "patch", "modify", "create", "save", "update", "overwrite", "put",
             "store", "substitute"}


@lru_cache(maxsize=1_024)
def _guessed(name: str, keys: tuple[tuple[str, str], ...]) -> ToolUse | None:
    """A tool no longer offered, described from its name and its input's keys (no description); failing
    that, by its name alone when it has a path argument (``write_file(path=...)`` in a transcript)."""
    properties = {key: {"type": kind} for key, kind in keys}
    found = describe_tool({"name": name, "input_schema": {"properties": properties, "required": []}})
    path = _path_property(properties)
    if found is not None or path is None:
        return found
    named = words(name)
    if named & EDIT_NAME:
        return ToolUse(name, "edit", path)
    return ToolUse(name, "read", path) if named & READ_WORDS else None


@lru_cache(maxsize=256)
def _toolkit(tools_json: str, none: bool) -> Toolkit:
    tools = json.loads(tools_json)
    names = frozenset() if none else frozenset(t["name"] for t in tools)
    uses = [] if none else [use for tool in tools if (use := describe_tool(tool)) is not None]
    by_role = {}
    for role in TOOL_ROLES:
        doing = [u for u in uses if u.role == role]
        doing.sort(key=lambda u: u.name != COURSE_NAMES.get(role))
        if doing:
            by_role[role] = doing[0]
    return Toolkit(names, by_role, {u.name: u for u in uses})


def offered(body: dict[str, Any]) -> Toolkit:
    """The tools a checked request offers (``tool_choice`` ``none`` offers none), by role. Read once
    per distinct tool list: every call of a session sends the same one."""
    none = (body.get("tool_choice") or {}).get("type") == "none"
    return _toolkit(json.dumps(body.get("tools", []), sort_keys=True), none)


COURSE_KIT = _toolkit(json.dumps([{"name": n, "input_schema": {"properties": p, "required": r}} for n, p, r in [
    ("read_file", {"path": {"type": "string"}, "limit": {"type": "integer"}}, ["path"]),
    ("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"]),
    ("edit_file", {"path": {"type": "string"}, "old_text": {"type": "string"}, "new_text": {"type": "string"}},
     ["path", "old_text", "new_text"]),
    ("list_files", {"path": {"type": "string"}}, []),
    ("bash", {"command": {"type": "string"}}, ["command"])]], sort_keys=True), False)
