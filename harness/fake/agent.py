"""The fake agent's policy: a pure function from what it sees to what it does (chapter 00).

It understands a small set of requests (read a folder, change a VERSION_TAG,
ask for a VERSION_TAG, count lines, search for TODOs, recall an early
instruction, say without opening a file what a VERSION_TAG is), each in the
forms a person types (``reading`` says which, and what it does not read). It needs the
fact itself in view to answer or edit, not just the file (``View.fact``): a
tag line for a tag question or an edit, a docstring for a purpose note, a
whole ``wc`` total for a count, a whole match list for a search. When
compaction has hidden the fact (or a read was cut short) it reads or runs
again, once; when its second read or run still lacks it, it says so
rather than guess. Otherwise it reads the file again (or, when a reversible placeholder
shows a recall id, recalls it: chapter 09); it answers recall questions
(chapter 08's amnesia probe) only from what is still visible, never with a tool.

It never repeats a call that already failed in the same task: it says what failed and ends its turn.

It calls only the tools the request offers. When the natural tool is missing
it uses another offered one that can do the job (``bash`` with ``cat <path>``
to read, ``ls <folder>/*.py`` to list; ``write_file`` with the whole new
content to edit; ``read_file`` instead of ``recall``); when none can, it says
so and ends its turn.

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
from .memory import MEMORY, memory_step, pending_write, remembered_tag, written_in_task
from .reading import (ASK_TAG, COUNT, EDIT, FIRST_CHANGE, INSTRUCTION, NEVER_EDIT, READ_ALL, RECALL_RULE,
                      RECALL_TAG, SAVE, SEARCH, request_arguments, request_kind)
from .view import PLAN, TAG_LINE, ToolCall, View, argument, whole_count, whole_matches

PURPOSE = re.compile(r'^"""\S+: (.+?)\.?$', re.MULTILINE)


@dataclass(frozen=True)
class Action:
    """One reply: text to say, and at most one tool to call (None: the turn ends)."""
    say: str | None = None
    tool: str | None = None
    tool_input: dict[str, Any] | None = None


Tools = frozenset[str]  # the names of the tools a request offers


def decide(view: View, offered: Tools, record_progress: bool = False, parallel: bool = True) -> Action:
    """What the agent does next, given only what it can see and the tools it is offered;
    ``record_progress``: its instructions ask it to record progress in memory as it works (chapter 11);
    ``parallel``: the request lets it call several tools in one reply (``tool_choice``'s
    ``disable_parallel_tool_use``; one call a reply, as today, honours either)."""
    if view.task is None:
        return Action("I have lost track of the current request. What should I do next?")
    if (step := memory_step(view, offered)):
        return Action(tool=MEMORY, tool_input=step)
    if (kind := request_kind(view.task)) is None:
        return Action("I do not know how to do that in this workspace.")
    pattern, arguments = kind
    action = HANDLERS[pattern](view, offered, **arguments)
    failed = next((c for c in view.task_calls if c.is_error and c.name == action.tool
                   and c.input == action.tool_input), None)
    if failed is None:
        return save_first(view, offered, action) if record_progress else action
    error = (failed.result or "").splitlines()[:1] or ["(no text)"]
    return Action("\n\n".join(filter(None, [action.say, f"{failed.name} failed: {error[0]} I cannot finish this request."])))


def read_all(view: View, offered: Tools, folder: str) -> Action:
    listing = view.listing(folder)
    if listing is None:
        if "list_files" in offered:
            return Action(tool="list_files", tool_input={"path": folder})
        if "bash" in offered:
            return Action(tool="bash", tool_input={"command": f"ls {shlex.quote(folder)}/*.py"})
        return cannot("list files")
    files = [p for p in listing if p.endswith(".py")]
    has_plan = any(f == folder for t in view.all_text for f, _ in PLAN.findall(t))
    plan = "" if has_plan else f"Plan for {folder}/: {', '.join(files)}\n"
    notes = view.notes
    fresh = {p: purpose for p in files if p not in notes and (purpose := purpose_in_view(view, p)) is not None}
    new_notes = plan + "\n".join(f"Note: {p} — {purpose}" for p, purpose in fresh.items())
    pending = [p for p in files if p not in notes and p not in fresh]
    if pending:
        return fetch(view, offered, pending[0], say=new_notes.strip() or None)
    notes.update(fresh)
    lines = "\n".join(f"- {p}: {notes[p]}" for p in files)
    return Action(f"{new_notes}\n\nWhat each file under {folder}/ does:\n{lines}".strip())


def edit_tag(view: View, offered: Tools, path: str, value: str) -> Action:
    rule = next((m for t in view.user_texts for m in NEVER_EDIT.findall(t) if path.startswith(m + "/")), None)
    if rule:
        return Action(f"I will not change {path}: you asked me never to edit anything under {rule}/.")
    if any(_changed(c, path, value) and c.result is not None and not c.is_error for c in view.task_calls):
        return Action(f'Changed VERSION_TAG in {path} to "{value}".')
    shown = view.fact(path, TAG_LINE)
    if shown is None and view.read_twice(path):
        return Action(f"I read {path} and it shows no VERSION_TAG line to change.")
    if shown is None:
        return fetch(view, offered, path)
    current = shown.group(1)
    if current == value:
        return Action(f'VERSION_TAG in {path} is already "{value}".')
    old, new = f'VERSION_TAG = "{current}"', f'VERSION_TAG = "{value}"'
    if "edit_file" in offered:
        return Action(tool="edit_file", tool_input={"path": path, "old_text": old, "new_text": new})
    if "write_file" in offered:  # the text that shows the tag line, written back whole
        return Action(tool="write_file", tool_input={"path": path, "content": shown.string.replace(old, new, 1)})
    return cannot("edit files")


def ask_tag(view: View, offered: Tools, path: str) -> Action:
    shown = view.fact(path, TAG_LINE)
    if shown is not None:
        return Action(f'VERSION_TAG in {path} is "{shown.group(1)}".')
    if MEMORY in offered and (remembered := remembered_tag(view, path)):
        return Action(f'VERSION_TAG in {path} is "{remembered}" (from memory).')
    if view.read_twice(path):
        return Action(f"I read {path} and it shows no VERSION_TAG line.")
    return fetch(view, offered, path)


def recall_tag(view: View, offered: Tools, path: str) -> Action:
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


def count_lines(view: View, offered: Tools, folder: str) -> Action:
    return _run_once(view, offered, f"wc -l {folder}/*.py", lambda out: whole_count(out) is not None,
                     lambda out: f"The .py files under {folder}/ have {whole_count(out)} lines in total.",
                     "its total")


def search_todos(view: View, offered: Tools, folder: str) -> Action:
    return _run_once(view, offered, f"grep -n TODO {folder}/*.py", whole_matches,
                     lambda out: f"Found {out.count('TODO')} TODO comments under {folder}/.", "every match")


def first_change(view: View, offered: Tools) -> Action:
    asked = [m.group("path") for t in view.user_texts if (m := EDIT.search(t))]
    if not asked:
        return Action("I can no longer see which file you first asked me to change.")
    return Action(f"The first file you asked me to change was {asked[0]}.")


def recall_rule(view: View, offered: Tools, folder: str) -> Action:
    rules = [t for t in view.user_texts if INSTRUCTION.search(t) and f"{folder}/" in t]
    if not rules:
        return Action(f"I can no longer see anything you told me about {folder}/.")
    return Action(f'You told me: "{rules[0]}"')


def acknowledge(view: View, offered: Tools, rule: str) -> Action:
    return Action(f"Understood. From now on, {rule}")


def save_to_memory(view: View, offered: Tools) -> Action:
    """Write what memory does not hold yet, file by file (chapter 11)."""
    if MEMORY not in offered:
        return cannot("save to memory")
    write = pending_write(view, written_in_task(view))
    return Action(tool=MEMORY, tool_input=write) if write else Action("Memory holds what I have learned.")


def save_first(view: View, offered: Tools, action: Action) -> Action:
    """Before a turn ends on a task that used a workspace tool, the memory write it still owes (chapter 11)."""
    worked = any(c.name != MEMORY for c in view.task_calls)
    if action.tool or MEMORY not in offered or not worked:
        return action
    write = pending_write(view, written_in_task(view))
    return Action(tool=MEMORY, tool_input=write) if write else action


def fetch(view: View, offered: Tools, path: str, say: str | None = None) -> Action:
    """Bring a file's content into view: recall it if a reversible placeholder shows its id and
    ``recall`` is offered, else read it (``read_file``, or ``cat`` through ``bash``)."""
    if path in view.recallable and "recall" in offered:
        return Action(say, "recall", {"id": view.recallable[path]})
    if "read_file" in offered:
        return Action(say, "read_file", {"path": path})
    if "bash" in offered:
        return Action(say, "bash", {"command": f"cat {shlex.quote(path)}"})
    return cannot("read files", say)


def cannot(what: str, say: str | None = None) -> Action:
    """No offered tool can do the next step: say so (after anything already to say) and end the turn."""
    return Action("\n\n".join(filter(None, [say, f"I have no tool to {what} here."])))


def _changed(call: ToolCall, path: str, value: str) -> bool:
    """A call that set ``path``'s VERSION_TAG to ``value``: an edit_file, or a write_file of the whole file."""
    written = {"edit_file": "new_text", "write_file": "content"}.get(call.name)
    return bool(written) and argument(call.input, "path", "") == path and value in argument(call.input, written, "")


def _run_once(view: View, offered: Tools, command: str, shows: Callable[[str], bool],
              answer: Callable[[str], str], needed: str) -> Action:
    """Answer from the task's latest visible output of ``command`` that ``shows`` what is needed; else run
    it (again), unless the task's latest result is its second run: then say it does not show ``needed``."""
    done = [c for c in view.task_calls if c.name == "bash" and c.input.get("command") == command
            and c.result is not None and shows(c.result)]
    if done:
        return Action(answer(done[-1].result))
    if view.ran_twice(command):
        return Action(f"I ran `{command}`, but its output does not show {needed}.")
    if "bash" not in offered:
        return cannot("run commands")
    return Action(tool="bash", tool_input={"command": command})


def purpose_in_view(view: View, path: str) -> str | None:
    """What the docstring of ``path`` says it does, from any visible text of it; "no module docstring"
    when the task's second read of it shows the file without one; None when it must be read (again)."""
    shown = view.fact(path, PURPOSE)
    if shown is not None:
        return shown.group(1)
    return "no module docstring" if view.read_twice(path) and view.content(path) is not None else None


HANDLERS: dict[re.Pattern[str], Callable[..., Action]] = {  # the request kinds of ``reading``, in its order
    READ_ALL: read_all, EDIT: edit_tag, RECALL_TAG: recall_tag, ASK_TAG: ask_tag, COUNT: count_lines,
    SEARCH: search_todos, FIRST_CHANGE: first_change, RECALL_RULE: recall_rule,
    INSTRUCTION: acknowledge, SAVE: save_to_memory,
}


def action_blocks(action: Action, tool_id: str) -> list[Block]:
    """The assistant content blocks of an action."""
    content: list[Block] = [text(action.say)] if action.say else []
    if action.tool:
        content.append({"type": "tool_use", "id": tool_id, "name": action.tool, "input": action.tool_input or {}})
    return content
