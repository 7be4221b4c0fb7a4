"""What the fake model can see in a request, and nothing more (chapter 00).

The fake agent decides only from this view, and the view is built from
content alone: the fake knows the API's message format, not the harness's
placeholder texts. Each call is read by what its tool does (``tool_roles``:
the tools the request offers, or for one no longer offered its name and
input), never by its name alone. A file's content counts as visible when a whole read of it
(any tool that reads files, with no part asked for, ``offset``, ``limit``, ...;
or a command ``cat <path>``) still shows it (its
``VERSION_TAG`` line or its docstring are in the text, whatever replaced the
rest; a read in ``cat -n`` form, each line after its number and a tab or an
arrow, is read without the numbers) and no later edit or write of it (any
tool's, a patch's) made it stale; a folder's listing, when a
listing (any tool that lists, by folder or by a ``<folder>/*.py`` pattern; or
``ls <folder>/*.py``) shows it, a bare name taken to be in the folder; a note
or a user instruction counts as visible when its text is somewhere in the
request; a module a user pasted counts too, until an edit of it. A result
that shows a recall id (chapter 09) hides the content but
says how to bring it back; a recalled copy counts as a read. A summary the
fake wrote earlier is recognised by its own lines (``- User: ...``), in any
layout and wherever it stands in a message (a message that hands it over
with other words around it included): its ``- User:`` and ``- Rule:`` lines
count as the user's words, and its ``- In progress:`` line is the request
being worked on (none: the agent has lost track, or the last one is done).

A visible read is not a visible fact. What the agent needs from a file (its
``VERSION_TAG`` line, its docstring) is looked up in every fresh visible
read of it and in a pasted copy (``View.fact``), newest first; a read cut
short, or a placeholder that kept only the head, may show the docstring and
not the tag line. When no visible text shows the fact, the agent reads again
(``agent``), once: when the task's latest results (the results of its
latest turn, several with parallel calls) hold its second read of the
file (``View.read_twice``) and the fact is still not shown, the file itself
lacks it, and the agent says so. (Once, not never: the latest read may be
the one a placeholder cut.) The same holds for a count or a search run twice
(``View.ran_twice``). A count or a
search needs its whole output, judged from its text: ``wc -l`` output whose
last line is its total (or, for one file, its only count line), ``grep -n``
output whose every line is a match (or grep's "no match"). Limit: the fake
cannot tell a read cut after the tag line from a whole one, so a
``write_file`` it builds from such a read would write the cut text.

Saved results (chapter 13): a whole read whose result's first line says the output was saved to a file
(``SAVED_NOTICE``: saved, written, stored, persisted or offloaded, to / in / at a path), with which lines
follow (``Lines 1-6``, ``first 5 lines``; none said: none counted) and how many there are, is a read of
its preview; a later read of that file, whole or a part, counts as a fresh read of those lines of the
original file, until an edit of the original makes the saved copy stale. A handed-over summary's message
may hold more than the summary: a line that states a standing rule counts as the user's words, and a
module shown whole in it as pasted (chapter 13's re-injection).

Memory (chapter 11): when a ``memory`` call's result still shows a file of
``/memories`` (or a listing of it), or a ``create`` call shows the text it
wrote, that text is in view; it counts as older than anything else in the
request, so the conversation overrides it. A harness notice that the context
will be compacted soon is seen as a notice, not as the user's next request.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from ..core.messages import Message, blocks, result_text
from .reading import is_rule
from .tool_roles import COURSE_KIT, Toolkit, ToolUse, command_line, patched_path

NOTE = re.compile(r"^Note: (\S+) — (.+)$", re.MULTILINE)
PLAN = re.compile(r"^Plan for (\S+?)/: (.+)$", re.MULTILINE)
SUMMARY_GOAL = re.compile(r"^- (?:User|Rule): (.+)$", re.MULTILINE)
IN_PROGRESS = re.compile(r"^- In progress: (.+)$", re.MULTILINE)
FINISHED = re.compile(r"^- Finished: (.+)$", re.MULTILINE)
SUMMARY_LINE = re.compile(  # its own lines, the first heading included (a reply cut after it)
    r"^- (User|Rule|In progress|Finished|Found): |^- No request is visible|^1\. What was accomplished:$", re.MULTILINE)
TAG_LINE = re.compile(r'^VERSION_TAG = "([^"]*)"$', re.MULTILINE)  # a module's tag line
FILE_SHOWN = re.compile(r'^VERSION_TAG = "|^"""\S+: ', re.MULTILINE)  # what a read of a course module shows
PATH_LINE = re.compile(r"^[\w./\\-]+$")          # one line of a listing (escaped names: harness.core.names)
COUNT_LINE = re.compile(r"^\s*\d+ \S+$", re.MULTILINE)  # a line of ``wc -l`` output
MATCH_LINE = re.compile(r"^\S+:\d+:|^exit code 1$", re.MULTILINE)  # a ``grep -n`` match, or grep's "no match"
WC_TOTAL = re.compile(r"^\s*(\d+) total$")  # the last line of ``wc -l`` over several files
GREP_MATCH = re.compile(r"^\S+:\d+:")  # one line of ``grep -n`` output
PASTED_MODULE = re.compile(r'^"""(\S+): ', re.MULTILINE)  # the name a pasted module's docstring opens with
RECALL_ID = re.compile(r"; recall id (\S+)\]$")
FLUSH_NOTICE = re.compile(r"^\[harness\] .*save what you need to memory", re.IGNORECASE)  # chapter 11
MEMORY_SHOWN = re.compile(r"^Here're the files and directories up to 2 levels deep in |^Here's the content of ")
MEMORY_LISTED = re.compile(r"^\S+\t(/memories/\S+?)/?$", re.MULTILINE)
NUMBERED = re.compile(r" *\d+(?:\t|→)")  # a line of a read in ``cat -n`` form: its number, then a tab or an arrow
SAVED_NOTICE = re.compile(  # a result saved to a file as it was written (chapter 13), in the words harnesses use
    r"\b(?:saved|written|stored|persisted|offloaded)\s+(?:(?:in|to|at|as|into):?\s+)(?:the\s+filesystem\s+at\s+"
    r"(?:this\s+path:?\s*)?|a\s+file:?\s*|file:?\s*)?[`'\"]?(?P<path>[\w./-]*\w)[`'\"]?", re.IGNORECASE)
SHOWN_LINES = re.compile(r"\b[Ll]ines 1\s*[-–]\s*(\d+)\b|\bfirst (\d+) lines\b", re.IGNORECASE)
ALL_LINES = re.compile(r"\b(\d[\d,]*) lines\b")
MORE_LINES = re.compile(r"\n\.\.\. \((\d+) more lines\)$")  # the course's read_file, after a part
READ_BACK_LINES = 50  # how many lines the agent reads back from a saved result at a time (this fake's choice)
PARTIAL = {"limit", "offset", "start_line", "end_line", "view_range", "line_range", "lines", "max_lines", "head",
           "tail"}  # an argument that makes a read return part of a file


@dataclass
class ToolCall:
    index: int  # the message that holds the tool_use
    name: str
    input: dict
    result: str | None  # None: no result yet; placeholders count as no content
    is_error: bool
    read: str | None = None  # the file it read whole, without error (for a recall: the read it brought back)
    use: ToolUse | None = None  # what the tool does (``tool_roles``); None for memory, recall, compaction, unknown
    batch: int = -1  # the message whose results answered it
    read_back: str | None = None  # the file whose saved result this call read (part of) back (chapter 13)

    @property
    def role(self) -> str | None:
        return self.use.role if self.use else None

    @property
    def path(self) -> str | None:
        """The file or folder the call names: its path argument, or the file its patch changes."""
        if self.use is None:
            return None
        if self.use.patch:
            patch = self.input.get(self.use.slot("patch") or "")
            return patched_path(patch) if isinstance(patch, str) else None
        value = self.input.get(self.use.path or "")
        return value if isinstance(value, str) else None

    @property
    def command(self) -> str:
        """The command line of a run call ("" for any other)."""
        return command_line(self.use, self.input) if self.role == "run" else ""

    def written(self) -> str:
        """What an edit or a write puts in the file: the new text, the content, the patch."""
        if self.use is None:
            return ""
        slot = {"edit": "patch" if self.use.patch else "new", "write": "content"}.get(self.role or "")
        value = self.input.get(self.use.slot(slot) or "") if slot else None
        return value if isinstance(value, str) else ""


@dataclass
class SavedRead:
    """A whole read of a file whose result was saved to another file as it was written (chapter 13)."""
    file: str    # where the result was saved
    total: int   # its lines, as the notice says (0: not said)
    shown: int   # the lines seen so far, from the first: the preview's, then each part read back


@dataclass
class View:
    user_texts: list[str] = field(default_factory=list)   # every user request visible, oldest first
    all_text: list[str] = field(default_factory=list)     # every text block, oldest first
    task: str | None = None                               # the request being worked on
    finished: str | None = None                           # no task: the request a summary says is finished
    task_calls: list[ToolCall] = field(default_factory=list)  # tool calls made since that request
    files: dict[str, str] = field(default_factory=dict)   # path -> fresh visible content
    listings: dict[str, list[str]] = field(default_factory=dict)  # folder -> visible listing
    recallable: dict[str, str] = field(default_factory=dict)  # path -> recall id of its hidden, fresh content
    pasted: dict[str, str] = field(default_factory=dict)  # module name -> a module a user pasted, not edited since
    reads: dict[str, list[str]] = field(default_factory=dict)  # path -> every fresh visible read of it, oldest first
    last_calls: list[ToolCall] = field(default_factory=list)  # the calls the task's latest results answer
    # chapter 11, memory: what the memory tool showed or was given, and the latest compaction notice
    memory_checked: bool = False                          # a view of /memories is in the request
    memory_listing: set[str] | None = None                # the paths the latest visible listing of /memories shows
    memory_files: dict[str, str] = field(default_factory=dict)  # memory path -> its text as last seen or written
    memory_written: dict[str, int] = field(default_factory=dict)  # memory path -> message of its latest create
    flush_notice: int | None = None                       # message index of the latest visible notice
    saved: dict[str, SavedRead] = field(default_factory=dict)  # path -> where its read's result was saved (ch. 13)

    def content(self, path: str) -> str | None:
        """The fresh content of ``path`` in view: from a read of it, else from a user's paste of the module."""
        return self.files.get(path, self.pasted.get(module_name(path)))

    def fact(self, path: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """``pattern`` in the newest fresh visible text of ``path`` that shows it (its reads, then a paste)."""
        texts = [*reversed(self.reads.get(path, [])), self.pasted.get(module_name(path), "")]
        return next((match for text in texts if (match := pattern.search(text))), None)

    def read_twice(self, path: str) -> bool:
        """Whether the task's latest results hold a whole read of ``path`` (or a recall of one), and the
        task's second at least: the fact still missing, the file itself lacks it."""
        if (saved := self.saved.get(path)) is not None and saved.total and saved.shown >= saved.total:
            return any(call.read_back == path for call in self.last_calls)  # every saved line read back
        return (any(call.read == path for call in self.last_calls)
                and sum(call.read == path for call in self.task_calls) >= 2)

    def unread_part(self, path: str) -> tuple[str, int] | None:
        """(saved file, first line not seen) of ``path``'s saved read, while lines of it are unseen."""
        saved = self.saved.get(path)
        if saved is None or (saved.total and saved.shown >= saved.total):
            return None
        return saved.file, saved.shown + 1

    def ran_twice(self, ran: Callable[[ToolCall], bool]) -> bool:
        """Whether the task's latest results hold the output of a call ``ran`` recognises (a command run by
        any tool that runs commands, a search), its second."""
        return any(map(ran, self.last_calls)) and sum(map(ran, self.task_calls)) >= 2

    def listing(self, folder: str) -> list[str] | None:
        """The files of ``folder``: from a visible list_files result, else from a visible plan."""
        if folder in self.listings:
            return self.listings[folder]
        plans = [paths for text in self.all_text for f, paths in PLAN.findall(text) if f == folder]
        return plans[-1].split(", ") if plans else None

    @property
    def notes(self) -> dict[str, str]:
        return {path: purpose for text in self.all_text for path, purpose in NOTE.findall(text)}


def build_view(messages: list[Message], kit: Toolkit = COURSE_KIT) -> View:
    """What the fake model reads in a request, its calls read by what their tools do (``kit``: the tools the
    request offers). Unchecked: the fake server validates the request first."""
    view = View()
    calls: dict[str, ToolCall] = {}
    last_edit: dict[str, int] = {}  # path -> the message of its latest edit
    task_start = 0
    for index, message in enumerate(messages):
        for block in blocks(message):
            kind = block.get("type")
            if kind == "text":
                view.all_text.append(block["text"])
                if message["role"] == "user" and FLUSH_NOTICE.search(block["text"]):
                    view.flush_notice = index
                elif message["role"] == "user":
                    _add_user_text(view, block["text"])
                    task_start, view.last_calls = index, []
            elif kind == "tool_use":
                call = calls[block["id"]] = ToolCall(index, block["name"], block["input"], None, False)
                if block["name"] == "memory":
                    _memory_use(view, block["input"], index)
                    continue
                call.use = kit.use_of(block["name"], block["input"])
                if call.role in ("edit", "write") and (path := call.path):
                    view.files.pop(path, None)
                    view.reads.pop(path, None)
                    view.recallable.pop(path, None)
                    view.saved.pop(path, None)
                    view.pasted.pop(module_name(path), None)
                    last_edit[path] = index
            elif kind == "tool_result" and block.get("tool_use_id") in calls:
                call = calls[block["tool_use_id"]]
                content = result_text(block)
                call.is_error = bool(block.get("is_error"))
                source = _origin(call, calls)
                if view.last_calls and view.last_calls[-1].batch != index:
                    view.last_calls = []
                call.batch = index
                view.last_calls.append(call)
                if source.role == "read" and NUMBERED.match(content):
                    content = unnumbered(content)
                if not call.is_error and (origin := _saved_origin(view, call)) is not None:
                    _read_back(view, call, origin, content)
                    continue
                call.read = None if call.is_error else read_path(source)
                call.result = content if shows_output(source, content) else None
                if call.read and not call.is_error and call is source:
                    _note_saved(view, call.read, content)
                if call.name == "memory":
                    _memory_result(view, call)
                else:
                    _remember(view, call, content, _file_read(source, last_edit))
    view.task_calls = [c for c in calls.values() if c.index > task_start]
    if view.memory_files:  # memory is older than the conversation: what the request says overrides it
        remembered = list(view.memory_files.values())
        view.all_text = remembered + view.all_text
        view.user_texts = [line for text in remembered for line in text.splitlines() if line] + view.user_texts
    return view


def unnumbered(text: str) -> str:
    """A read in ``cat -n`` form without its line numbers, when every line has one; else as it is."""
    lines = text.split("\n")
    if not all(NUMBERED.match(line) for line in lines if line.strip()):
        return text
    return "\n".join(line[NUMBERED.match(line).end():] if NUMBERED.match(line) else line for line in lines)


def _memory_use(view: View, tool_input: dict, index: int) -> None:
    """A memory call as the model made it: a view of the root, or the text it wrote."""
    command, path = argument(tool_input, "command", ""), argument(tool_input, "path", "")
    if command == "view" and path.rstrip("/") == "/memories":
        view.memory_checked = True
    elif command == "create" and path:
        view.memory_files[path] = argument(tool_input, "file_text", "")
        view.memory_written[path] = index
        if view.memory_listing is not None:
            view.memory_listing.add(path)


def _memory_result(view: View, call: ToolCall) -> None:
    """What a memory call's result shows: a listing, or a file's lines without their numbers."""
    if call.result is None or call.is_error or argument(call.input, "command", "") != "view":
        return
    header, _, body = call.result.partition("\n")
    if header.startswith("Here're the files"):
        view.memory_listing = set(MEMORY_LISTED.findall(body))
    elif not call.input.get("view_range"):
        view.memory_files[argument(call.input, "path", "")] = "\n".join(
            line.partition("\t")[2] for line in body.split("\n"))


def module_name(path: str) -> str:
    """The name a course module's docstring starts with: its file name without ``.py``."""
    return path.rsplit("/", 1)[-1].removesuffix(".py")


def is_summary_text(text: str) -> bool:
    """A summary this fake wrote earlier: it has the summariser's own lines."""
    return bool(SUMMARY_LINE.search(text))


def shows_output(call: ToolCall, content: str) -> bool:
    """Whether a tool result still shows what the tool returned, judged from its text alone, whatever
    stands in its place: a read must show the module, a listing must be paths, a count must show a
    count, a search its matches (or grep's "no match"), an edit must name the file it changed.
    ``call`` is the call that produced the output (for a recall, the call it brought back)."""
    if call.is_error:
        return True  # an error is shown as it reads
    if call.name == "memory":
        return bool(MEMORY_SHOWN.search(content)) or argument(call.input, "command", "") != "view"
    if call.role == "read" or read_path(call) is not None:
        return bool(FILE_SHOWN.search(content))
    if listed_folder(call) is not None:
        lines = content.splitlines()
        return content == "(empty)" or (bool(lines) and all(PATH_LINE.match(line) for line in lines))
    words = _run_words(call)
    if words[:1] in (["wc"], ["grep"]):
        return bool((COUNT_LINE if words[0] == "wc" else MATCH_LINE).search(content))
    if call.role == "search":
        return bool(MATCH_LINE.search(content))
    if call.role in ("edit", "write"):
        return (call.path or "\0") in content
    return bool(content.strip())


def whole_count(wc_output: str) -> str | None:
    """The total of ``wc -l`` output that shows it: its last line's "N total", or the count of its only
    line; None when the output is cut (its last line is no count) or holds no count."""
    lines = wc_output.rstrip().splitlines()
    if not lines:
        return None
    if (total := WC_TOTAL.match(lines[-1])):
        return total.group(1)
    return lines[0].split()[0] if len(lines) == 1 and COUNT_LINE.match(lines[0]) else None


def whole_matches(grep_output: str) -> bool:
    """Whether ``grep -n`` output shows all its matches: every line a match, or grep's "no match" alone."""
    lines = grep_output.rstrip().splitlines()
    return grep_output.strip() == "exit code 1" or (bool(lines) and all(GREP_MATCH.match(line) for line in lines))


def argument(tool_input: dict, name: str, default: str) -> str:
    """A string argument of a tool call; ``default`` when it is missing or not a string."""
    value = tool_input.get(name, default)
    return value if isinstance(value, str) else default


def read_path(call: ToolCall) -> str | None:
    """The file this call read whole: a read (by any tool that reads files) asking for no part of it, or a
    command running ``cat <path>``."""
    if call.role == "read":
        return None if PARTIAL & call.input.keys() else (call.path or ".")
    words = _run_words(call)
    return words[1] if len(words) == 2 and words[0] == "cat" else None


def listed_folder(call: ToolCall) -> str | None:
    """The folder this call listed: a listing (by any tool that lists), or a command ``ls <folder>/*.py``.
    A listing by pattern alone lists the pattern's folder."""
    if call.role == "list":
        if call.path is not None or call.use is None or call.use.slot("pattern") is None:
            return (call.path or ".").rstrip("/") or "."
        pattern = call.input.get(call.use.slot("pattern"))
        folder = pattern.rpartition("/")[0] if isinstance(pattern, str) else ""
        return folder or "."
    words = _run_words(call)
    if len(words) == 2 and words[0] == "ls" and words[1].endswith("/*.py"):
        return words[1].removesuffix("/*.py")
    return None


def _run_words(call: ToolCall) -> list[str]:
    """The words of a run call's command line ([] for any other call, or a line that does not parse)."""
    if call.role != "run":
        return []
    return list(_command_words(call.command))


@lru_cache(maxsize=4_096)
def _command_words(command: str) -> tuple[str, ...]:
    """A command line's words, split once per distinct line (every request holds the same calls again)."""
    try:
        return tuple(shlex.split(command))
    except ValueError:
        return ()


def _origin(call: ToolCall, calls: dict[str, ToolCall]) -> ToolCall:
    """The call whose output this call's result holds: itself, or for a recall, the call it brings back."""
    source = call
    while source.name == "recall" and (origin := calls.get(argument(source.input, "id", ""))) \
            and origin.index < source.index:
        source = origin
    return source


def _file_read(source: ToolCall, last_edit: dict[str, int]) -> str | None:
    """The path whose current content ``source``'s output holds: a whole read, provided the
    file was not edited after that read."""
    path = read_path(source)
    return path if path is not None and source.index > last_edit.get(path, -1) else None


def _remember(view: View, call: ToolCall, content: str, file_path: str | None) -> None:
    if call.is_error:
        if call.name == "recall" and file_path:
            view.recallable.pop(file_path, None)  # recall failed: read the file instead
        return
    if call.result is None:
        reversible = RECALL_ID.search(content)
        if file_path and reversible:
            view.recallable[file_path] = reversible.group(1)
        return
    if file_path:
        view.files[file_path] = call.result
        view.reads.setdefault(file_path, []).append(call.result)
    elif (folder := listed_folder(call)) is not None:
        view.listings[folder] = [_under(folder, line) for line in call.result.splitlines() if line != "(empty)"]


def _saved_origin(view: View, call: ToolCall) -> str | None:
    """The file whose saved result this read reads back: a read (whole or a part) of a saved file."""
    if call.role != "read" or call.path is None:
        return None
    return next((origin for origin, saved in view.saved.items() if saved.file == call.path.removeprefix("./")), None)


def _note_saved(view: View, path: str, content: str) -> None:
    """A whole read of ``path`` whose result says it was saved to a file: remember where, and the lines shown."""
    notice = content.split("\n", 1)[0]
    if not (found := SAVED_NOTICE.search(notice)):
        view.saved.pop(path, None)
        return
    shown = SHOWN_LINES.search(notice)
    total = ALL_LINES.search(notice)
    view.saved[path] = SavedRead(found.group("path").removeprefix("./"),
                                 int(total.group(1).replace(",", "")) if total else 0,
                                 int(shown.group(1) or shown.group(2)) if shown else 0)


def _read_back(view: View, call: ToolCall, origin: str, content: str) -> None:
    """A part of ``origin``'s saved result read back: it counts as a fresh read of ``origin``'s lines."""
    use = call.use
    start_slot = use.slot("offset") if use else None
    zero_slot = use.slot("offset0") if use else None
    start = call.input.get(start_slot or zero_slot or "", 0 if zero_slot else 1)
    start = (start + 1 if zero_slot else start) if isinstance(start, int) and not isinstance(start, bool) else 1
    part = MORE_LINES.sub("", content)
    call.read_back, call.result = origin, part
    saved = view.saved[origin]
    if start <= saved.shown + 1:
        saved.shown = max(saved.shown, start + len(part.split("\n")) - 1)
    limit = call.input.get(use.slot("limit") or "") if use else None
    if not saved.total and not MORE_LINES.search(content) and (
            not isinstance(limit, int) or len(part.split("\n")) < limit):
        saved.total = saved.shown  # a part shorter than asked for, or the whole file: the end of the result
    view.reads.setdefault(origin, []).append(part)


def _under(folder: str, entry: str) -> str:
    """A listed entry as a workspace path: a bare name is taken to be inside the listed folder."""
    return entry if "/" in entry or folder in (".", "") else f"{folder}/{entry}"


def _handed_over(view: View, text: str) -> None:
    """What a harness put beside a summary in the message that hands it over (chapter 13's re-injection): a line
    that states a standing rule counts as the user's words, and each module shown whole as pasted, from its
    docstring to the next one. The summary's own lines (``- Label: ...``) are read as the summary."""
    rules, modules = handed_over(text)
    view.user_texts.extend(rules)
    view.pasted.update(modules)


@lru_cache(maxsize=256)
def handed_over(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(rules, (module name, module) pairs) of a handover message, read once per text: the message is the same in
    every call until the next compaction. A rule after a label ("Standing instruction: Never ...") is the rule."""
    rules = tuple(_rule_of(line) for line in text.splitlines() if not line.startswith("- ") and is_rule(line))
    starts = [m.start() for m in PASTED_MODULE.finditer(text)]
    modules = tuple((PASTED_MODULE.match(module).group(1), module)
                    for module in (text[start:end] for start, end in zip(starts, [*starts[1:], len(text)]))
                    if TAG_LINE.search(module))
    return rules, modules


def _rule_of(line: str) -> str:
    """A rule line without a label before it: what follows the first ": " when that alone states the rule."""
    label, colon, rest = line.partition(": ")
    return rest if colon and len(label.split()) <= 6 and is_rule(rest) else line


def _add_user_text(view: View, text: str) -> None:
    if is_summary_text(text):  # a summary the fake wrote, in any layout, or a message that hands one over
        view.user_texts.extend(SUMMARY_GOAL.findall(text))
        _handed_over(view, text)
        in_progress = IN_PROGRESS.findall(text)
        view.task = in_progress[-1] if in_progress else None
        finished = FINISHED.findall(text)
        view.finished = None if in_progress or not finished else finished[-1]
    else:
        view.user_texts.append(text)
        view.task, view.finished = text, None
        if FILE_SHOWN.search(text):
            view.pasted.update((name, text) for name in PASTED_MODULE.findall(text))
