"""The fake agent's policy: a pure function from what it sees to what it does (chapter 00).

It understands a small set of requests (read a folder, change a VERSION_TAG,
ask for a VERSION_TAG, count lines, search for TODOs, recall an early
instruction, say without opening a file what a VERSION_TAG is, keep a rule,
greet), each in the forms a person types (``reading`` says which, and what it
does not read). It needs the
fact itself in view to answer or edit, not just the file (``View.fact``): a
tag line for a tag question or an edit, a docstring for a purpose note, a
whole ``wc`` total for a count, a whole match list for a search. When
compaction has hidden the fact (or a read was cut short) it reads or runs
again, once; when its second read or run still lacks it, it says so
rather than guess. Otherwise it reads the file again (or, when a reversible placeholder
shows a recall id, recalls it: chapter 09); it answers recall questions
(chapter 08's amnesia probe) only from what is still visible, never with a tool.

It never repeats a call that already failed in the same task: it says what failed and ends its turn.

Chapter 13 (*this fake*'s rules): a read whose result says it was saved to a file (``view.SAVED_NOTICE``)
is read back from that file, ``READ_BACK_LINES`` lines at a time from the first line not yet seen, with the
read tool's start and count (a whole read of the saved file when it has none), until the fact shows or
the file ends. A folder read is handed whole to a tool that delegates to a sub-agent, when one is offered;
the child's report is the answer, and when the child fails the agent does the work itself.

It calls only the tools the request offers, and picks them by what they do,
whatever their names (``tool_roles``: Claude Code's ``Read`` with ``file_path``
reads as ``read_file`` does). When no tool does the natural job
it uses another that can (a command tool with ``cat <path>`` to read,
``ls <folder>/*.py`` to list; a write of the whole new content to edit;
a read instead of ``recall``); when none can, it says so and ends its turn.

**Parallel tool calls, as this fake makes them** (*this fake*'s rule). Current
Claude models call independent tools in parallel by default, and
``tool_choice.disable_parallel_tool_use`` turns that off (the SDK's
``ToolChoiceAutoParam``: "Whether to disable parallel tool use. Defaults to
false. If set to true, the model will output at most one tool use."). Here:
when the next step needs several calls that do not depend on each other's
results, the agent makes all of them in one turn, after its text, in the order
it would otherwise make them one by one:

- the reads of every file a listing shows and it has no note for yet, in the
  listing's order (12 files: one turn of 12 reads);
- the reads of every file a question names, in the order they are named;
- memory (chapter 11): the views of the saved files that bear on the task, and
  the writes of a flush, one per file, in the order of ``memory.digest``.

No cap on their number. A call that needs another's result waits for the
next turn: a listing comes before the reads of what it lists, a read before
the edit it informs, a view of a saved file before the write that rewrites
it. With ``disable_parallel_tool_use`` (``parallel=False``): one call per
turn, the first of those, which is call for call what this fake did before
it made parallel calls.

When a request offers the memory tool (chapter 11) it checks memory before it
works and saves what it learned when told the context will be compacted, or,
when its instructions ask it to record progress as it goes, before it ends a
task in which it used a workspace tool (``memory``); a tag it cannot see it
answers from memory, if memory holds it.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any, Callable

from ..core.messages import Block, text
from .memory import MEMORY, memory_steps, pending_writes, remembered_tag, written_in_task
from .reading import (ASK_TAG, COUNT, EDIT, FIRST_CHANGE, GREETING, INSTRUCTION, READ_ALL, RECALL_RULE,
                      RECALL_TAG, SAVE, SEARCH, is_rule, paths_in, protected_folders,
                      request_arguments, request_kind)
from .tool_roles import Toolkit
from .view import PLAN, READ_BACK_LINES, TAG_LINE, ToolCall, View, whole_count, whole_matches

PURPOSE = re.compile(r'^"""\S+: (.+?)\.?$', re.MULTILINE)
LOST = "I have lost track of the current request. What should I do next?"
CANNOT = "I do not know how to do that in this workspace."
Call = tuple[str, dict[str, Any]]  # a tool's name and its input


@dataclass(frozen=True)
class Action:
    """One reply: text to say, then the tool calls to make (none: the turn ends), in order."""
    say: str | None = None
    calls: tuple[Call, ...] = ()

    @property
    def tool(self) -> str | None:
        """The first call's tool (None: no call)."""
        return self.calls[0][0] if self.calls else None

    @property
    def tool_input(self) -> dict[str, Any] | None:
        return self.calls[0][1] if self.calls else None


def decide(view: View, kit: Toolkit, record_progress: bool = False, parallel: bool = True) -> Action:
    """What the agent does next, given only what it can see and the tools it is offered (``kit``);
    ``record_progress``: its instructions ask it to record progress in memory as it works (chapter 11);
    ``parallel``: False when the request sets ``disable_parallel_tool_use`` (one call per turn)."""
    if view.task is None:
        return Action(f"The last request is done ({view.finished}). What should I do next?" if view.finished
                      else LOST)
    if (steps := memory_steps(view, kit)):
        return _turn(Action(calls=tuple((MEMORY, step) for step in steps)), parallel)
    if (kind := request_kind(view.task)) is None:
        return Action(CANNOT)
    pattern, arguments = kind
    action = HANDLERS[pattern](view, kit, **arguments)
    fresh = tuple(call for call in action.calls if _failed(view, call) is None)
    if action.calls and not fresh:
        failed = _failed(view, action.calls[0])
        error = (failed.result or "").splitlines()[:1] or ["(no text)"]
        return Action("\n\n".join(filter(None, [action.say, f"{failed.name} failed: {error[0]} I cannot finish "
                                                                "this request."])))
    action = Action(action.say, fresh)
    return _turn(save_first(view, kit, action) if record_progress else action, parallel)


def _turn(action: Action, parallel: bool) -> Action:
    """The calls of one turn: all of them, or the first when parallel calls are off."""
    return action if parallel else Action(action.say, action.calls[:1])


def _failed(view: View, call: Call) -> ToolCall | None:
    """The task's failed call that ``call`` would repeat, if any."""
    return next((c for c in view.task_calls if c.is_error and c.name == call[0] and c.input == call[1]), None)


def read_all(view: View, kit: Toolkit, folder: str) -> Action:
    if (handed := delegated(view, kit)) is not None:
        return handed
    listing = view.listing(folder)
    if listing is None:
        call = kit.call("list", path=folder) or kit.call("run", command=f"ls {shlex.quote(folder)}/*.py")
        return Action(calls=(call,)) if call else cannot("list files")
    files = [p for p in listing if p.endswith(".py")]
    has_plan = any(f == folder for t in view.all_text for f, _ in PLAN.findall(t))
    plan = "" if has_plan else f"Plan for {folder}/: {', '.join(files)}\n"
    notes = view.notes
    fresh = {p: purpose for p in files if p not in notes and (purpose := purpose_in_view(view, p)) is not None}
    new_notes = plan + "\n".join(f"Note: {p} — {purpose}" for p, purpose in fresh.items())
    pending = [p for p in files if p not in notes and p not in fresh]
    if pending:
        return fetch(view, kit, pending, say=new_notes.strip() or None)
    notes.update(fresh)
    lines = "\n".join(f"- {p}: {notes[p]}" for p in files)
    return Action(f"{new_notes}\n\nWhat each file under {folder}/ does:\n{lines}".strip())


def delegated(view: View, kit: Toolkit) -> Action | None:
    """A folder read handed to a sub-agent when a tool offers one (chapter 13; *this fake*'s rule): the request
    itself is the task, and the child's report is the answer. None: do it here (no such tool, the task has
    begun here, or the child failed: its error is in view, and the agent goes on by itself)."""
    if kit.role("delegate") is None:
        return None
    handed = [c for c in view.task_calls if c.role == "delegate"]
    if any(c.role != "delegate" for c in view.task_calls) or any(c.is_error for c in handed):
        return None
    done = [c for c in handed if c.result is not None]
    if done:
        report = done[-1].result.partition("\n")[2].strip() or done[-1].result
        return Action(f"A sub-agent did this in its own context. Its report:\n{report}")
    call = kit.call("delegate", prompt=view.task)
    return Action(calls=(call,)) if call else None


def edit_tag(view: View, kit: Toolkit, path: str, value: str) -> Action:
    rule = next((m for t in view.user_texts for m in protected_folders(t) if path.startswith(m + "/")), None)
    if rule:
        return Action(f"I will not change {path}: you asked me never to edit anything under {rule}/.")
    if any(_changed(c, path, value) and c.result is not None and not c.is_error for c in view.task_calls):
        return Action(f'Changed VERSION_TAG in {path} to "{value}".')
    shown = view.fact(path, TAG_LINE)
    if shown is None and view.read_twice(path):
        return Action(f"I read {path} and it shows no VERSION_TAG line to change.")
    if shown is None:
        return fetch(view, kit, [path])
    current = shown.group(1)
    if current == value:
        return Action(f'VERSION_TAG in {path} is already "{value}".')
    old, new = f'VERSION_TAG = "{current}"', f'VERSION_TAG = "{value}"'
    call = (kit.call("edit", path=path, old=old, new=new)  # else the text that shows the tag line, written back whole
            or kit.call("write", path=path, content=shown.string.replace(old, new, 1)))
    return Action(calls=(call,)) if call else cannot("edit files")


def ask_tag(view: View, kit: Toolkit, path: str) -> Action:
    """The VERSION_TAG of every file the question names (each read in the same turn when not in view)."""
    answers, missing = [], []
    for named in paths_in(view.task or "") or [path]:
        shown = view.fact(named, TAG_LINE)
        if shown is not None:
            answers.append(f'VERSION_TAG in {named} is "{shown.group(1)}".')
        elif MEMORY in kit and (remembered := remembered_tag(view, named)):
            answers.append(f'VERSION_TAG in {named} is "{remembered}" (from memory).')
        elif view.read_twice(named):
            answers.append(f"I read {named} and it shows no VERSION_TAG line.")
        else:
            missing.append(named)
    return fetch(view, kit, missing) if missing else Action("\n".join(answers))


def recall_tag(view: View, kit: Toolkit, path: str) -> Action:
    """Answer from what is in view, never with a tool: the file's fresh content, else the latest
    thing said about its tag (the user's edit request, or the agent's own answer or report)."""
    shown = view.fact(path, TAG_LINE)
    if shown is not None:
        return Action(f'VERSION_TAG in {path} is "{shown.group(1)}".')
    reported = re.compile(rf'(?:VERSION_TAG in {re.escape(path)} is(?: already)?'
                          rf'|Changed VERSION_TAG in {re.escape(path)} to) "([^"]+)"')
    values = [value for t in view.all_text for line in t.splitlines() for value in _tag_said(line, path, reported)]
    if not values:
        return Action(f"I can no longer see anything about VERSION_TAG in {path}.")
    return Action(f'As far as I can see, VERSION_TAG in {path} is "{values[-1]}".')


def _tag_said(line: str, path: str, reported: re.Pattern[str]) -> list[str]:
    """The values one line gives ``path``'s tag: a request to set it (in any form ``reading`` reads),
    or the agent's own answer or report."""
    if (asked := EDIT.search(line)) and asked["path"] == path:
        return [request_arguments(asked)["value"]]
    return reported.findall(line)


def count_lines(view: View, kit: Toolkit, folder: str) -> Action:
    command = f"wc -l {folder}/*.py"
    return _run_once(view, kit.call("run", command=command), lambda c: c.role == "run" and c.command == command,
                     lambda out: whole_count(out) is not None,
                     lambda out: f"The .py files under {folder}/ have {whole_count(out)} lines in total.",
                     f"I ran `{command}`", "its total", "run commands")


def search_todos(view: View, kit: Toolkit, folder: str) -> Action:
    command = f"grep -n TODO {folder}/*.py"
    if (call := kit.call("run", command=command)) is not None:
        ran, did = (lambda c: c.role == "run" and c.command == command), f"I ran `{command}`"
    else:  # a tool that searches files, when none runs commands
        call = kit.call("search", path=folder, pattern="TODO")
        ran, did = (lambda c: c.role == "search" and call is not None and c.input == call[1]), \
            f"I searched {folder}/ for TODO"
    return _run_once(view, call, ran, whole_matches,
                     lambda out: f"Found {out.count('TODO')} TODO comments under {folder}/.", did, "every match",
                     "search files")


def first_change(view: View, kit: Toolkit) -> Action:
    asked = [m.group("path") for t in view.user_texts if (m := EDIT.search(t))]
    if not asked:
        return Action("I can no longer see which file you first asked me to change.")
    return Action(f"The first file you asked me to change was {asked[0]}.")


def recall_rule(view: View, kit: Toolkit, folder: str) -> Action:
    """The first rule the user gave about ``folder`` (``folder/`` or "the folder folder"), quoted as said."""
    about = re.compile(rf"\b{re.escape(folder)}(?:/|\s+(?:folder|directory)\b)", re.IGNORECASE)
    rules = [t for t in view.user_texts if is_rule(t) and about.search(t)]
    if not rules:
        return Action(f"I can no longer see anything you told me about {folder}/.")
    return Action(f'You told me: "{rules[0]}"')


def acknowledge(view: View, kit: Toolkit, rule: str) -> Action:
    return Action(f"Understood. From now on, {rule}")


def greet(view: View, kit: Toolkit) -> Action:
    return Action("Hello! What would you like me to do in this workspace?")


def save_to_memory(view: View, kit: Toolkit) -> Action:
    """Write what memory does not hold yet, file by file (chapter 11)."""
    if MEMORY not in kit:
        return cannot("save to memory")
    writes = pending_writes(view, written_in_task(view))
    return Action(calls=tuple((MEMORY, w) for w in writes)) if writes else Action("Memory holds what I have learned.")


def save_first(view: View, kit: Toolkit, action: Action) -> Action:
    """Before a turn ends on a task that used a workspace tool, the memory writes it still owes (chapter 11)."""
    worked = any(c.name != MEMORY for c in view.task_calls)
    if action.calls or MEMORY not in kit or not worked:
        return action
    writes = pending_writes(view, written_in_task(view))
    return Action(calls=tuple((MEMORY, w) for w in writes)) if writes else action


def fetch(view: View, kit: Toolkit, paths: list[str], say: str | None = None) -> Action:
    """Bring files' content into view, all in one turn: recall each one a reversible placeholder shows the id
    of when ``recall`` is offered, else read it (a tool that reads files, or ``cat`` through one that runs
    commands)."""
    calls = []
    for path in paths:
        if path in view.recallable and "recall" in kit:
            calls.append(("recall", {"id": view.recallable[path]}))
        elif (part := view.unread_part(path)) and (call := read_back(kit, *part)):
            calls.append(call)
        elif (call := kit.call("read", path=path) or kit.call("run", command=f"cat {shlex.quote(path)}")):
            calls.append(call)
        else:
            return cannot("read files", say)
    return Action(say, tuple(calls))


def read_back(kit: Toolkit, saved_file: str, first: int) -> Call | None:
    """The next part of a result saved to a file (chapter 13): ``READ_BACK_LINES`` lines from ``first``, by a read
    tool that takes a start and a count; else the saved file whole (a read, or ``cat``)."""
    use = kit.role("read")
    if use is not None and use.slot("limit"):
        return kit.call("read", path=saved_file, offset=first, limit=READ_BACK_LINES)
    return kit.call("read", path=saved_file) or kit.call("run", command=f"cat {shlex.quote(saved_file)}")


def cannot(what: str, say: str | None = None) -> Action:
    """No offered tool can do the next step: say so (after anything already to say) and end the turn."""
    return Action("\n\n".join(filter(None, [say, f"I have no tool to {what} here."])))


def _changed(call: ToolCall, path: str, value: str) -> bool:
    """A call that set ``path``'s VERSION_TAG to ``value``: an edit, or a write of the whole file."""
    return call.role in ("edit", "write") and call.path == path and value in call.written()


def _run_once(view: View, call: Call | None, ran: Callable[[ToolCall], bool], shows: Callable[[str], bool],
              answer: Callable[[str], str], did: str, needed: str, what: str) -> Action:
    """Answer from the task's latest visible output of a call ``ran`` recognises that ``shows`` what is needed;
    else make ``call`` (again), unless the task's latest results hold its second run: then say it does not
    show ``needed``."""
    done = [c for c in view.task_calls if ran(c) and c.result is not None and shows(c.result)]
    if done:
        return Action(answer(done[-1].result))
    if view.ran_twice(ran):
        return Action(f"{did}, but its output does not show {needed}.")
    return Action(calls=(call,)) if call else cannot(what)


def purpose_in_view(view: View, path: str) -> str | None:
    """What the docstring of ``path`` says it does, from any visible text of it; "no module docstring"
    when the task's second read of it shows the file without one; None when it must be read (again)."""
    shown = view.fact(path, PURPOSE)
    if shown is not None:
        return shown.group(1)
    return "no module docstring" if view.read_twice(path) and view.content(path) is not None else None


HANDLERS: dict[Any, Callable[..., Action]] = {  # the request kinds of ``reading``, in its order
    READ_ALL: read_all, EDIT: edit_tag, RECALL_TAG: recall_tag, ASK_TAG: ask_tag, COUNT: count_lines,
    SEARCH: search_todos, FIRST_CHANGE: first_change, RECALL_RULE: recall_rule,
    INSTRUCTION: acknowledge, SAVE: save_to_memory, GREETING: greet,
}


def action_blocks(action: Action, tool_id: str) -> list[Block]:
    """The assistant content blocks of an action: its text, then one tool_use per call, each id made from
    ``tool_id`` and the call's place (``_1``, ``_2``, ... after the first)."""
    content: list[Block] = [text(action.say)] if action.say else []
    for n, (name, tool_input) in enumerate(action.calls):
        content.append({"type": "tool_use", "id": tool_id if n == 0 else f"{tool_id}_{n}", "name": name,
                        "input": tool_input})
    return content
