"""The fake model's summaries: extractive and deterministic (chapter 03).

It sees only the text of the summary request, which may hold only the tail
of the history, so the start of that tail is usually cut mid-message. It
recovers every whole message it can find, in whatever form the request holds
the conversation (JSON, SDK reprs, LangChain's message reprs, Python literals,
a plain transcript: ``conversation_forms``), then keeps, as a model told to
keep what the work needs would:

- the user's requests verbatim (``- User: ...``), the standing rules among
  them once more (``- Rule: ...``, ``reading.is_rule``: a rule in any words);
- every file a tool touched: any tool whose input names a file by a path
  argument (``tool_roles``: a read, ``- read: a.py``; an edit or a write,
  ``- edited: a.py``; ``cat a.py`` through a command), and ``- used: a.py`` for
  a file named by a tool that does something else;
- the notes and plans the agent wrote, its decisions ("Understood. ...") and
  the errors it met;
- what the assistant found: each value it reported in an answer
  (``- Found: VERSION_TAG in a.py is "v2".``, a line count, a search result),
  the latest per subject (a file's tag, a folder's count or search);
- the open request: ``- In progress: ...`` while the latest request has no
  answer, ``- Finished: ...`` once the agent ended its turn without a call.

What was cut off the head is gone, exactly as with a real summariser.

**The layout.** By default three numbered parts, the course's three questions
(what was accomplished, the current state, the key decisions), then the user's
requests. When the instructions ask for a layout of their own, the same facts
are laid out in it, each part filled by what its title asks about (``TOPICS``):
a numbered list of sections (the longest list the instructions hold; Claude
Code's nine sections, chapter 08's), bullet labels (``- Active task:``, Codex's),
markdown headings (``## Goal``), or an XML template (a tag holding two or more
child tags, Gemini CLI's ``<state_snapshot>``). The instructions are what the
request says outside the conversation it quotes: the system prompt and the
last user text, without a ``<conversation>``, ``<messages>``, ``<transcript>``,
``<history>`` or ``<chat>`` block, and without the lines of a conversation in
another form (a message dump, a transcript: ``reading.MATERIAL_LINE``). When they ask for the summary inside a tag
(a sentence naming ``<summary>`` or ``<summary>...</summary>`` with "respond",
"reply", "output", "return", "wrap", "enclose", "inside", "within", "block" or
"tags"; not a tag for thoughts, ``<analysis>``, ``<scratchpad>``), the
whole summary is wrapped in it. The fake's own lines (``- User:``, ``- In
progress:``, ...) start their lines in every layout, so the fake reads its own
summary back in any of them (``view``). A summary quoted in the request's own
tags, ``<previous_summary>`` (an incremental update) or ``<draft_summary>`` (a
self-check), is read like an earlier summary in the history (chapter 12).

A summariser that distorts, as a control (chapter 03): ``style="lossy"``
(``FakeModel(summary_style="lossy")``) extracts the same facts, then
paraphrases every request, note, decision, error and finding to a gist (a quoted value
becomes "a new value", everything after the first ";" or " — " goes, at most
``GIST_WORDS`` words stay), merges those that then read the same, and keeps
only the ``LOSSY_BUDGET`` most recent of each (and the latest plan). So an
early instruction, or the exact value a request asked for, is gone, while
the shape of the summary is the same and later summaries read it as before.

Limits: the layout is found lexically (a format described in prose, "first
the goal, then the files", is not seen); a title that names none of the
topics gets "- none recorded"; a finding is a line of an answer, so a value
stated inside a longer sentence of prose is kept with its sentence.
"""
from __future__ import annotations

import re
import shlex
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Literal

from ..core.messages import blocks, result_text
from .conversation_forms import conversation_messages, whole_messages
from .reading import MATERIAL_LINE, TAG_MARK, instruction_text, is_rule
from .tool_roles import PATH_WORDS, ToolUse, command_line, guess_use, touched, words
from .view import FLUSH_NOTICE, IN_PROGRESS, NOTE, PLAN, SUMMARY_GOAL, is_summary_text

FOCUS = re.compile(r"^Focus especially on: (.+)$", re.MULTILINE)
DECISION = re.compile(r"^(Understood\. .+|I will not change .+)$", re.MULTILINE)
PREVIOUS_DECISION = re.compile(r"^- Decision: (.+)$", re.MULTILINE)
PREVIOUS_FILE = re.compile(r"^- (read|edited|used): (\S+)$", re.MULTILINE)
PREVIOUS_ERROR = re.compile(r"^- Error: (.+)$", re.MULTILINE)
PREVIOUS_FOUND = re.compile(r"^- Found: (.+)$", re.MULTILINE)
PREVIOUS_FINISHED = re.compile(r"^- Finished: (.+)$", re.MULTILINE)
NUMBERED_TITLE = re.compile(r"^[ \t]*(\d{1,2})\. +([^\n]+)$", re.MULTILINE)
LABEL = re.compile(r"^[ \t]*[-*] +([A-Z][^\n:]{0,60}):[ \t]*$", re.MULTILINE)
MARKDOWN = re.compile(r"^(#{1,4}) +([^\n#]{1,80})$", re.MULTILINE)
QUOTED_SUMMARY = re.compile(r"<(previous_summary|draft_summary)>\n")  # opens a quoted summary (``quoted_summaries``)
QUOTED_VALUE = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
CONVERSATION_TAGS = {"conversation", "messages", "transcript", "history", "chat", "previous_summary", "draft_summary"}
THOUGHT_TAGS = {"analysis", "scratchpad", "thinking", "thoughts", "reasoning"}
WRAP_WORDS = re.compile(r"\b(?:respond|reply|output|return|wrap|enclose|inside|within|block|tags?)\b", re.IGNORECASE)
SENTENCE_MARK = re.compile(r"[.!?\n]")
NOT_FOUND = ("I have lost track", "I do not know", "I have no tool", "Hello!", "The last request is done",
             "Memory holds", "What each file under", "Understood", "I will not change", "Got it", "Thank",
             "OK", "Okay", "Sure")  # lines that report no value: an acknowledgement, a refusal, a heading
FOUND_SUBJECT = re.compile(r'^(?:VERSION_TAG in (\S+?) is|Changed VERSION_TAG in (\S+?) to|As far as I can see, '
                           r'VERSION_TAG in (\S+?) is|The \.py files under (\S+?) have|Found \d+ TODO comments '
                           r'under (\S+?)\.$)')
GIST_WORDS = 8   # a lossy gist keeps at most this many words
LOSSY_BUDGET = 3  # a lossy summary keeps only this many of the most recent requests, notes, files, decisions
SummaryStyle = Literal["extractive", "lossy"]
__all__ = ["SummaryStyle", "requested_layout", "summarise_text", "whole_messages"]


@dataclass
class Facts:
    """What a summary keeps (the module's rule), extracted from the messages in view."""
    goals: list[str] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    plans: dict[str, str] = field(default_factory=dict)
    decisions: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    found: dict[str, str] = field(default_factory=dict)  # subject -> the latest answer about it
    state: tuple[str, bool] | None = None  # (the latest request, finished)

    @property
    def rules(self) -> list[str]:
        return [g for g in self.goals if is_rule(g)]

    @property
    def pending(self) -> bool:
        return self.state is not None and not self.state[1]


def summarise_text(request_text: str, style: SummaryStyle = "extractive") -> str:
    """A summary built only from ``request_text``: extractive, or ``"lossy"`` (the module's rule). Its layout
    is the one asked for before the ``<conversation>`` the text quotes (all of it, when it quotes none)."""
    if style not in ("extractive", "lossy"):
        raise ValueError(f"summary style must be 'extractive' or 'lossy', not {style!r}")
    quoted, rest = quoted_summaries(request_text)
    conversation = conversation_messages(rest, instruction_text(rest))
    facts = extract([{"role": "user", "content": body} for body in quoted] + conversation)
    if style == "lossy":
        facts = _distorted(facts)
    focus = FOCUS.findall(request_text)
    layout, wrapper = requested_layout(request_text.split("<conversation>", 1)[0])
    text = _render_layout(layout, facts, focus) if layout else _render(facts, focus)
    return f"<{wrapper}>\n{text}\n</{wrapper}>" if wrapper else text


def extract(messages: list[dict]) -> Facts:
    """The facts of the messages, oldest first (the module's rule)."""
    facts = Facts()
    for message in messages:
        calls = summary = False
        for block in blocks(message):
            kind = block.get("type")
            if kind == "text" and (message["role"] == "user" or is_summary_text(block["text"])):
                summary |= message["role"] == "assistant"  # a summary the model wrote earlier: read as one
                _user_text(facts, block["text"])
            elif kind == "text":
                said = block["text"]
                facts.notes.update(dict(NOTE.findall(said)))
                facts.plans.update(dict(PLAN.findall(said)))
                facts.decisions += DECISION.findall(said)
            elif kind == "tool_use" and isinstance(block.get("input"), dict):
                calls |= block.get("name") != "compact"
                if (file := _file_of(block["name"], block["input"])) and facts.files.get(file[1]) != "edited":
                    facts.files[file[1]] = file[0]
            elif kind == "tool_result" and block.get("is_error"):
                facts.errors.append((result_text(block).splitlines() or ["(no text)"])[0])
        if message["role"] == "assistant" and not calls and not summary:
            _answered(facts, message)
    facts.goals = list(dict.fromkeys(facts.goals))  # a request both in an earlier summary and kept verbatim: once
    return facts


def _user_text(facts: Facts, said: str) -> None:
    if FLUSH_NOTICE.search(said):
        return  # chapter 11: the harness's notice is not a request
    if not is_summary_text(said):
        facts.goals.append(said)
        facts.state = (said, False)
        return
    facts.goals += SUMMARY_GOAL.findall(said)
    facts.decisions += PREVIOUS_DECISION.findall(said)
    facts.files.update({p: a for a, p in PREVIOUS_FILE.findall(said)})
    facts.errors += PREVIOUS_ERROR.findall(said)
    facts.notes.update(dict(NOTE.findall(said)))
    facts.plans.update(dict(PLAN.findall(said)))
    for value in PREVIOUS_FOUND.findall(said):
        facts.found.pop(subject := _finding_subject(value), None)
        facts.found[subject] = value
    progress, finished = IN_PROGRESS.findall(said), PREVIOUS_FINISHED.findall(said)
    facts.state = (progress[-1], False) if progress else (finished[-1], True) if finished else facts.state


def _answered(facts: Facts, message: dict) -> None:
    """An assistant turn without a call ends the task: it is finished, and its answer's lines are findings."""
    if facts.state:
        facts.state = (facts.state[0], True)
    for block in blocks(message):
        for line in block.get("text", "").splitlines() if block.get("type") == "text" else []:
            line = line.strip()
            if line and not line.startswith(("Note: ", "Plan for ", "- ", *NOT_FOUND)):
                facts.found.pop(subject := _finding_subject(line), None)
                facts.found[subject] = line


def _finding_subject(line: str) -> str:
    """What a finding is about: a file's tag, a folder's count or search; else the line itself."""
    found = FOUND_SUBJECT.match(line)
    if found is None:
        return line
    tag = next((g for g in found.groups()[:3] if g), None)
    return f"tag {tag}" if tag else f"count {found.group(4)}" if found.group(4) else f"todo {found.group(5)}"


def _file_of(name: str, tool_input: dict) -> tuple[str, str] | None:
    """("read" | "edited" | "used", path) for a call that names a file: by what its tool does, else by a
    path argument naming a file."""
    use = guess_use(name, tool_input)
    if (file := touched(use, tool_input)):
        return file
    if use is not None and use.role == "run":
        words = _command_parts(use, tool_input)
        return ("read", words[1]) if len(words) == 2 and words[0] == "cat" else None
    named = [v for k, v in tool_input.items() if isinstance(v, str) and _pathish(k) and "." in v.rsplit("/", 1)[-1]]
    return ("used", named[0]) if named and use is None and name != "memory" else None


def _command_parts(use: ToolUse, tool_input: dict) -> list[str]:
    try:
        return shlex.split(command_line(use, tool_input))
    except ValueError:
        return []


def _pathish(key: str) -> bool:
    return bool(words(key) & PATH_WORDS)


def quoted_summaries(request_text: str) -> tuple[list[str], str]:
    """The summaries quoted in ``<previous_summary>``/``<draft_summary>`` tags, each to the first closing tag
    of its name on a line of its own, and the text without them. Once a closing tag is missing, later
    openings of that name cannot close either, so the text is read in linear time."""
    bodies, kept, cursor, missing = [], [], 0, set()
    for opening in QUOTED_SUMMARY.finditer(request_text):
        name = opening.group(1)
        if opening.start() < cursor or name in missing:
            continue
        if (close := request_text.find(f"\n</{name}>", opening.end())) < 0:
            missing.add(name)
            continue
        bodies.append(request_text[opening.end():close])
        kept.append(request_text[cursor:opening.start()])
        cursor = close + len(name) + 4
    return bodies, "".join(kept) + request_text[cursor:]


def gist(said: str) -> str:
    """A lossy paraphrase: quoted values become "a new value", everything after the first ";" or
    " — " goes, and at most ``GIST_WORDS`` words stay."""
    said = re.split(r";| — ", QUOTED_VALUE.sub("a new value", said), maxsplit=1)[0].strip()
    kept = said.split()
    return " ".join(kept[:GIST_WORDS]) + ("…" if len(kept) > GIST_WORDS else "")


def _distorted(facts: Facts) -> Facts:
    """The lossy style's rule: merge what reads the same as a gist, then keep the most recent few."""
    found = _recent(list(dict.fromkeys(gist(v) for v in facts.found.values())))
    return Facts(
        goals=_recent(list(dict.fromkeys(gist(g) for g in facts.goals))),
        notes=dict(_recent([(path, gist(purpose)) for path, purpose in facts.notes.items()])),
        plans=dict(_recent(list(facts.plans.items()))[-1:]),
        decisions=_recent(list(dict.fromkeys(gist(d) for d in facts.decisions))),
        files=dict(_recent(list(facts.files.items()))),
        errors=_recent(list(dict.fromkeys(gist(e) for e in facts.errors))),
        found={value: value for value in found},
        state=facts.state and (gist(facts.state[0]), facts.state[1]))


def _recent(items: list) -> list:
    return items[-LOSSY_BUDGET:]


# --- the layout the instructions ask for -----------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """The parts a request asks for: their titles, and how each is written (numbered, label, heading, tag)."""
    kind: Literal["numbered", "label", "heading", "xml"]
    titles: tuple[str, ...]
    root: str | None = None  # the xml template's outer tag
    marks: tuple[str, ...] = ()  # a heading's ``#`` marks


def without_conversation(said: str) -> str:
    """The instructions without the conversation they quote: blocks of ``CONVERSATION_TAGS`` and the lines of
    another form of it (``reading.MATERIAL_LINE``). One scan of the tags."""
    tags = list(TAG_MARK.finditer(said))
    last_close = {tag.group(2).lower(): tag.start() for tag in tags if tag.group(1)}
    kept, cursor = [], 0
    for tag in tags:
        name = tag.group(2).lower()
        close = last_close.get(name, -1)
        if tag.start() >= cursor and not tag.group(1) and name in CONVERSATION_TAGS and close >= tag.end():
            kept.append(said[cursor:tag.start()])
            cursor = close + len(name) + 3
    return MATERIAL_LINE.sub("", "".join(kept) + said[cursor:])


def requested_layout(instructions: str) -> tuple[Layout | None, str | None]:
    """(the layout the instructions ask for, the tag to wrap the summary in): each None when not asked. The
    course's three questions are the default layout's, so they ask for none."""
    said = without_conversation(instructions)
    layout = _xml_template(said) or _numbered(said) or _labels(said) or _headings(said)
    if layout and _is_default(layout.titles):
        layout = None
    return layout, _wrapper(said, layout)


def _numbered(said: str) -> Layout | None:
    """The longest numbered list (a list restarts at 1), its titles cut at their first ":" or "?"."""
    lists: list[list[str]] = []
    for number, line in NUMBERED_TITLE.findall(said):
        if number == "1" or not lists:
            lists.append([])
        lists[-1].append(re.split(r"[:?]", line, maxsplit=1)[0].strip())
    best = max(lists, key=len, default=[])
    titles = tuple(dict.fromkeys(t for t in best if t))
    return Layout("numbered", titles) if len(titles) >= 2 else None


def _labels(said: str) -> Layout | None:
    titles = tuple(dict.fromkeys(t.strip() for t in LABEL.findall(said)))
    return Layout("label", titles) if len(titles) >= 2 else None


def _headings(said: str) -> Layout | None:
    found = MARKDOWN.findall(said)
    titles = tuple(dict.fromkeys(t.strip() for _, t in found))
    return Layout("heading", titles, marks=tuple(m for m, _ in found)) if len(titles) >= 2 else None


def _xml_template(said: str) -> Layout | None:
    """A tag that holds two or more child tags, each opened and closed: the outer tag and the children, in
    order. One scan of the tags, with a stack."""
    stack: list[tuple[str, list[str]]] = []
    best: Layout | None = None
    for tag in TAG_MARK.finditer(said):
        closing, name = tag.group(1), tag.group(2)
        if not closing:
            stack.append((name, []))
        elif stack and stack[-1][0] == name:
            done, children = stack.pop()
            if stack:
                stack[-1][1].append(done)
            parts = tuple(dict.fromkeys(c for c in children if c.lower() not in THOUGHT_TAGS))
            if len(parts) >= 2 and done.lower() not in ("example", "examples") and (
                    best is None or len(parts) > len(best.titles)):
                best = Layout("xml", parts, root=done)
    return best


def _wrapper(said: str, layout: Layout | None) -> str | None:
    """The tag the instructions ask the summary to come in (the module's rule), the last one named. The
    sentence ends are found once and each sentence that names a tag is searched once: linear."""
    ends = [m.start() for m in SENTENCE_MARK.finditer(said)]
    by_sentence: dict[int, list[str]] = {}
    for tag in TAG_MARK.finditer(said):
        by_sentence.setdefault(bisect_left(ends, tag.start()), []).append(tag.group(2))
    wanted = None
    for at, names in by_sentence.items():
        start, end = ends[at - 1] + 1 if at else 0, ends[at] if at < len(ends) else len(said)
        if WRAP_WORDS.search(said, start, end):
            wanted = next((n for n in reversed(names) if n.lower() not in THOUGHT_TAGS
                           and (layout is None or n != layout.root)), wanted)
    return wanted


def _is_default(titles: tuple[str, ...]) -> bool:
    topics = ("accomplished", "state", "decision")
    return len(titles) == 3 and all(t in title.lower() for t, title in zip(topics, titles))


# --- writing the summary ---------------------------------------------------------------------------

def _render(facts: Facts, focus: list[str]) -> str:
    lines = ["1. What was accomplished:"]
    lines += [f"- {action}: {path}" for path, action in sorted(facts.files.items())] or ["- nothing recorded"]
    lines += [f"Plan for {folder}/: {paths}" for folder, paths in sorted(facts.plans.items())]
    lines += [f"Note: {path} — {purpose}" for path, purpose in sorted(facts.notes.items())]
    lines += [f"- Found: {value}" for value in facts.found.values()]
    lines.append("2. Current state:")
    lines += _state(facts)
    lines.append("3. Key decisions:")
    lines += [f"- Decision: {d}" for d in dict.fromkeys(facts.decisions)] or ["- none recorded"]
    lines.append("User requests, verbatim, oldest first:")
    lines += [f"- User: {g}" for g in facts.goals] or ["- none visible"]
    lines += [f"Focus: {f}" for f in focus]
    return "\n".join(lines)


def _state(facts: Facts) -> list[str]:
    if facts.state is None:
        return ["- No request is visible in what I was given."]
    if facts.state[1]:
        return [f"- Finished: {facts.state[0]}", "- Waiting for the next request."]
    return [f"- In progress: {facts.state[0]}"]


def _file_lines(facts: Facts) -> list[str]:
    return ([f"- {action}: {path}" for path, action in sorted(facts.files.items())]
            + [f"Plan for {folder}/: {paths}" for folder, paths in sorted(facts.plans.items())]
            + [f"Note: {path} — {purpose}" for path, purpose in sorted(facts.notes.items())])


def _found(facts: Facts) -> list[str]:
    return [f"- Found: {value}" for value in facts.found.values()]


def _request(facts: Facts) -> list[str]:
    return [f"- Rule: {r}" for r in facts.rules] + _state(facts)[:1]


def _pending(facts: Facts) -> list[str]:
    return [f"- In progress: {facts.state[0]}"] if facts.pending else ["- none"]


def _completed(facts: Facts) -> list[str]:
    done = [g for g in facts.goals if not (facts.pending and g == facts.state[0])]
    return [f"- Done: {g}" for g in done[-5:]] + _file_lines(facts) + _found(facts)


TOPICS = (  # (words a title may hold, what fills the part), tried in order: the first that a title holds wins
    (("user message", "all user", "i wanted", "i asked", "user wanted", "user asked", "i want", "user want"),
     lambda f: [f"- User: {g}" for g in f.goals] or ["- none visible"]),
    (("pending", "next step", "remaining", "todo", "to do", "plan"), _pending),
    (("current work", "working on", "recent action"), lambda f: _state(f) + _found(f)[-3:]),
    (("completed", "progress", "accomplish", "done"), _completed),
    (("request", "intent", "goal", "objective", "active task", "task"), _request),
    (("constraint", "preference", "rule", "instruction", "directive"), lambda f: [f"- Rule: {r}" for r in f.rules]),
    (("file", "code"), _file_lines),
    (("error", "fix"), lambda f: [f"- Error: {e}" for e in dict.fromkeys(f.errors)]),
    (("problem", "decision"), lambda f: [f"- Decision: {d}" for d in dict.fromkeys(f.decisions)]),
    (("knowledge", "fact", "finding", "found", "learn", "concept", "context", "data", "result", "value"),
     lambda f: [f"- Rule: {r}" for r in f.rules] + _found(f)),
)


def _part(title: str, facts: Facts) -> list[str]:
    said = " ".join(re.split(r"[_\W]+", title.lower()))
    fill = next((fill for words, fill in TOPICS if any(w in said for w in words)), None)
    return (fill(facts) if fill else []) or ["- none recorded"]


def _render_layout(layout: Layout, facts: Facts, focus: list[str]) -> str:
    """The facts under the requested parts, each filled by what its title asks (``TOPICS``); the open request
    goes under the first part about the task when no part took it."""
    parts = [(title, _part(title, facts)) for title in layout.titles]
    if facts.pending and not any(f"- In progress: {facts.state[0]}" in body for _, body in parts):
        at = next((n for n, (t, _) in enumerate(parts) if re.search(r"task|goal|request|work|state|plan", t, re.I)), 0)
        parts[at] = (parts[at][0], [l for l in parts[at][1] if l != "- none recorded"] + _pending(facts))
    lines: list[str] = []
    for number, (title, body) in enumerate(parts, start=1):
        if layout.kind == "numbered":
            lines += [f"{number}. {title}:", *body]
        elif layout.kind == "label":
            lines += [f"- {title}:", *body]
        elif layout.kind == "heading":
            lines += [f"{layout.marks[min(number - 1, len(layout.marks) - 1)]} {title}", *body]
        else:
            lines += [f"<{title}>", *body, f"</{title}>"]
    if layout.kind == "xml":
        lines = [f"<{layout.root}>", *lines, f"</{layout.root}>"]
    return "\n".join(lines + [f"Focus: {f}" for f in focus])
