"""How the fake agent uses the memory tool, when a request offers it (chapter 11).

It decides only from what it sees, as the memory tool's documentation says
Claude does (https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool:
it checks its memory directory before it starts a task):

- no view of ``/memories`` in the request: view it first;
- the task names a folder: read ``/memories/<folder>.md`` and ``/memories/rules.md``
  when the listing shows them and their text is not in view (once per task);
- a harness notice says the context will be compacted soon (or the user asks
  it to save what it learned): write what it knows and memory does not yet
  hold, one ``create`` per file, each file rewritten whole (viewed first when
  it exists and its text is not in view, so nothing already saved is lost);
- the system prompt asks it to record its progress in memory as it works
  (``records_as_it_goes``: the API adds such an instruction whenever the tool
  is offered, ``API_MEMORY_INSTRUCTIONS``): the same write at the end of every
  task in which it used a workspace tool.

What it writes follows one rule, blind to any later question: for each file it
has seen, all it knows about that file (the folder's plan, the file's purpose,
its VERSION_TAG as last read, reported or set; never from a request it may have
refused), one memory file per folder; and in ``rules.md`` the user's standing
instructions. It keeps no log of the requests. The lines are the agent's own
phrasings, so a memory file read back later counts as notes, plans and answers
in view (``view``).
"""
from __future__ import annotations

import re
from typing import Any

from .reading import CAPABILITY, SENTENCE, is_rule
from .view import NOTE, PLAN, TAG_LINE, View, argument

MEMORY = "memory"
RULES = "/memories/rules.md"
TASK_FOLDER = re.compile(r"\b([a-z]\w*)/")
TAG_KNOWN = re.compile(r'(?:VERSION_TAG in (\S+\.py) is(?: already)?|Changed VERSION_TAG in (\S+\.py) to) "([^"]+)"')
VERIFY = "check a file before you trust what memory says about it"  # a standing instruction (chapter 11)
# What the API adds to the system prompt when a request offers the memory tool, in our words (its gist as
# https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool documents it; not its wording).
API_MEMORY_INSTRUCTIONS = (
    "Before anything else, view your memory directory to check for earlier progress. "
    "As you make progress, record your status and what you learn in your memory. "
    "Assume interruption: your context window might be reset at any moment, "
    "and any progress not recorded in your memory directory would be lost.")
RECORD_AS_YOU_GO = re.compile(r"\brecord\b[^.]{0,80}\bin (?:your |the )?memory\b", re.IGNORECASE)


def records_as_it_goes(system: str) -> bool:
    """Whether the system prompt's instructions (``reading``: descriptions of a capability left out) ask
    the agent to record its progress in memory as it works."""
    return any(RECORD_AS_YOU_GO.search(s) and not CAPABILITY.search(s) for s in SENTENCE.split(system))


def folder_file(folder: str) -> str:
    return f"/memories/{folder}.md"


def known_tags(view: View) -> dict[str, str]:
    """path -> VERSION_TAG as the agent knows it: what it said or reported last, a fresh read over that."""
    tags: dict[str, str] = {}
    for text in view.all_text:
        for said, changed, value in TAG_KNOWN.findall(text):
            tags[said or changed] = value
    for path, content in view.files.items():
        if (match := TAG_LINE.search(content)):
            tags[path] = match.group(1)
    return tags


def digest(view: View) -> dict[str, str]:
    """What memory should hold, file by file, from everything in view (memory included)."""
    notes = view.notes
    plans = {folder: paths for text in view.all_text for folder, paths in PLAN.findall(text)}
    tags = known_tags(view)
    folders = sorted({p.split("/", 1)[0] for p in [*notes, *tags] if "/" in p} | set(plans))
    files = {}
    for folder in folders:
        lines = [f"Plan for {folder}/: {plans[folder]}"] if folder in plans else []
        lines += [f"Note: {p} — {notes[p]}" for p in sorted(notes) if p.startswith(folder + "/")]
        lines += [f'VERSION_TAG in {p} is "{tags[p]}".' for p in sorted(tags) if p.startswith(folder + "/")]
        files[folder_file(folder)] = "\n".join(lines) + "\n"
    rules = list(dict.fromkeys(t for t in view.user_texts if is_rule(t)))
    if rules:
        files[RULES] = "\n".join(rules) + "\n"
    return files


def pending_writes(view: View, done: set[str]) -> list[dict[str, str]]:
    """The memory calls of a flush, one per file memory does not hold as the agent knows it, in the digest's
    order: a view of a saved file whose text is not in view (its write waits for the next turn), or a create;
    [] when memory already holds what the agent knows (files in ``done`` were written already)."""
    calls = []
    for path, text in digest(view).items():
        if view.memory_files.get(path) == text or path in done:
            continue
        exists = view.memory_listing is not None and path in view.memory_listing
        if exists and path not in view.memory_files and not _viewed_in_task(view, path):
            calls.append({"command": "view", "path": path})
        else:
            calls.append({"command": "create", "path": path, "file_text": text})
    return calls


def written_since_notice(view: View) -> set[str]:
    return {p for p, index in view.memory_written.items() if index > (view.flush_notice or 0)}


def written_in_task(view: View) -> set[str]:
    return {argument(c.input, "path", "") for c in view.task_calls
            if c.name == MEMORY and argument(c.input, "command", "") == "create"}


def memory_steps(view: View, offered: Any) -> list[dict[str, str]]:
    """The memory calls to make before the task goes on, all independent of each other (the agent makes
    them in one turn, ``agent``), or [] (memory not offered, or nothing to do)."""
    if MEMORY not in offered:
        return []
    if view.flush_notice is not None and (writes := pending_writes(view, written_since_notice(view))):
        return writes
    if not view.memory_checked:
        return [{"command": "view", "path": "/memories"}]
    return [{"command": "view", "path": path} for path in relevant_files(view)
            if path not in view.memory_files and not _viewed_in_task(view, path)]


def relevant_files(view: View) -> list[str]:
    """The saved files that may bear on the task: its folder's, and the rules, if the listing shows them."""
    listed = view.memory_listing or set()
    wanted = [folder_file(f) for f in TASK_FOLDER.findall(view.task or "")[:1]] + [RULES]
    return [p for p in wanted if p in listed]


def remembered_tag(view: View, path: str) -> str | None:
    """The VERSION_TAG the agent believes ``path`` has when memory holds one for it: the latest value in
    view, memory counting as the oldest text (None if memory holds none, or if a standing instruction
    says to check files before trusting memory)."""
    if any(VERIFY in t for t in view.user_texts):
        return None
    text = view.memory_files.get(folder_file(path.split("/", 1)[0]), "")
    if not any((s or c) == path for s, c, _ in TAG_KNOWN.findall(text)):
        return None
    return known_tags(view)[path]


def _viewed_in_task(view: View, path: str) -> bool:
    return any(c.name == MEMORY and argument(c.input, "path", "") == path for c in view.task_calls)
