"""The fake agent's policy: a pure function from what it sees to what it does (chapter 00).

It understands a small set of requests (read a folder, change a VERSION_TAG,
ask for a VERSION_TAG, count lines, search for TODOs, recall an early
instruction). It needs a file's content in view to answer about it or edit
it, so when compaction has hidden the content it reads the file again (or,
when a reversible placeholder shows a recall id, recalls it: chapter 08); it
answers recall questions only from what is still visible.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ..core.messages import Block, text
from .view import PLAN, View

READ_ALL = re.compile(r"Read every \.py file under (\S+?)/ and summarise what each does\.")
EDIT = re.compile(r'In (\S+\.py), change VERSION_TAG to "([^"]+)"\.')
ASK_TAG = re.compile(r"What is VERSION_TAG in (\S+\.py)\?")
COUNT = re.compile(r"Count the lines of every \.py file under (\S+?)/\.")
SEARCH = re.compile(r"Search (\S+?)/ for TODO comments\.")
FIRST_CHANGE = re.compile(r"Which file did I first ask you to change\?")
RECALL_RULE = re.compile(r"What did I tell you about (\S+?)/\?")
INSTRUCTION = re.compile(r"From now on, (.+)")
NEVER_EDIT = re.compile(r"never edit anything under (\S+?)/")
TAG_LINE = re.compile(r'^VERSION_TAG = "([^"]*)"$', re.MULTILINE)
PURPOSE = re.compile(r'^"""\S+: (.+?)\.?$', re.MULTILINE)


@dataclass(frozen=True)
class Action:
    """One reply: text to say, and at most one tool to call (None: the turn ends)."""
    say: str | None = None
    tool: str | None = None
    tool_input: dict[str, Any] | None = None


def decide(view: View) -> Action:
    """What the agent does next, given only what it can see."""
    if view.task is None:
        return Action("I have lost track of the current request. What should I do next?")
    for pattern, handler in HANDLERS:
        match = pattern.search(view.task)
        if match:
            return handler(view, *match.groups())
    return Action("I do not know how to do that in this workspace.")


def read_all(view: View, folder: str) -> Action:
    listing = view.listing(folder)
    if listing is None:
        return Action(tool="list_files", tool_input={"path": folder})
    files = [p for p in listing if p.endswith(".py")]
    has_plan = any(f == folder for t in view.all_text for f, _ in PLAN.findall(t))
    plan = "" if has_plan else f"Plan for {folder}/: {', '.join(files)}\n"
    notes = view.notes
    fresh = [p for p in files if p in view.files and p not in notes]
    new_notes = plan + "\n".join(f"Note: {p} — {purpose_of(view.files[p])}" for p in fresh)
    pending = [p for p in files if p not in notes and p not in fresh]
    if pending:
        return fetch(view, pending[0], say=new_notes.strip() or None)
    notes.update({p: purpose_of(view.files[p]) for p in fresh})
    lines = "\n".join(f"- {p}: {notes[p]}" for p in files)
    return Action(f"{new_notes}\n\nWhat each file under {folder}/ does:\n{lines}".strip())


def edit_tag(view: View, path: str, value: str) -> Action:
    rule = next((m for t in view.user_texts for m in NEVER_EDIT.findall(t) if path.startswith(m + "/")), None)
    if rule:
        return Action(f"I will not change {path}: you asked me never to edit anything under {rule}/.")
    if any(c.name == "edit_file" and c.input.get("path") == path and value in c.input.get("new_text", "")
           and c.result is not None and not c.is_error for c in view.task_calls):
        return Action(f'Changed VERSION_TAG in {path} to "{value}".')
    if path not in view.files:
        return fetch(view, path)
    current = tag_of(view.files[path])
    if current == value:
        return Action(f'VERSION_TAG in {path} is already "{value}".')
    return Action(tool="edit_file", tool_input={
        "path": path, "old_text": f'VERSION_TAG = "{current}"', "new_text": f'VERSION_TAG = "{value}"'})


def ask_tag(view: View, path: str) -> Action:
    if path not in view.files:
        return fetch(view, path)
    return Action(f'VERSION_TAG in {path} is "{tag_of(view.files[path])}".')


def count_lines(view: View, folder: str) -> Action:
    return _run_once(view, f"wc -l {folder}/*.py",
                     lambda out: f"The .py files under {folder}/ have {out.split()[-2]} lines in total.")


def search_todos(view: View, folder: str) -> Action:
    return _run_once(view, f"grep -n TODO {folder}/*.py",
                     lambda out: f"Found {out.count('TODO')} TODO comments under {folder}/.")


def first_change(view: View) -> Action:
    asked = [m.group(1) for t in view.user_texts if (m := EDIT.search(t))]
    if not asked:
        return Action("I can no longer see which file you first asked me to change.")
    return Action(f"The first file you asked me to change was {asked[0]}.")


def recall_rule(view: View, folder: str) -> Action:
    rules = [t for t in view.user_texts if INSTRUCTION.search(t) and f"{folder}/" in t]
    if not rules:
        return Action(f"I can no longer see anything you told me about {folder}/.")
    return Action(f'You told me: "{rules[0]}"')


def acknowledge(view: View, rule: str) -> Action:
    return Action(f"Understood. From now on, {rule}")


def fetch(view: View, path: str, say: str | None = None) -> Action:
    """Bring a file's content into view: recall it if a reversible placeholder shows its id, else read it."""
    if path in view.recallable:
        return Action(say, "recall", {"id": view.recallable[path]})
    return Action(say, "read_file", {"path": path})


def _run_once(view: View, command: str, answer: Callable[[str], str]) -> Action:
    done = [c for c in view.task_calls if c.name == "bash" and c.input.get("command") == command
            and c.result is not None]
    if done:
        return Action(answer(done[-1].result))
    return Action(tool="bash", tool_input={"command": command})


def tag_of(content: str) -> str:
    match = TAG_LINE.search(content)
    return match.group(1) if match else ""


def purpose_of(content: str) -> str:
    match = PURPOSE.search(content)
    return match.group(1) if match else "no module docstring"


HANDLERS: list[tuple[re.Pattern[str], Callable[..., Action]]] = [
    (READ_ALL, read_all), (EDIT, edit_tag), (ASK_TAG, ask_tag), (COUNT, count_lines),
    (SEARCH, search_todos), (FIRST_CHANGE, first_change), (RECALL_RULE, recall_rule),
    (INSTRUCTION, acknowledge),
]


def action_blocks(action: Action, tool_id: str) -> list[Block]:
    """The assistant content blocks of an action."""
    content: list[Block] = [text(action.say)] if action.say else []
    if action.tool:
        content.append({"type": "tool_use", "id": tool_id, "name": action.tool, "input": action.tool_input or {}})
    return content
