"""The fake model's summaries: extractive and deterministic (chapter 03).

It sees only the text of the summary request, which holds the tail of the
history, so the start of that tail is usually cut mid-message. It recovers
every whole message it can find, in whatever form the request holds the
conversation (JSON, SDK reprs, Python literals, a plain transcript:
``conversation_forms``), then keeps the user's requests
verbatim, the files touched, the notes and decisions, and the current state.
What was cut off the head is gone, exactly as with a real summariser.
A request whose instructions list numbered sections, one of them for the
user's messages (chapter 08, the Claude Code family), gets the same facts
laid out under exactly the headings it asked for, each filled by what its
title asks about. A summary quoted in the request's own tags,
``<previous_summary>`` (an incremental update) or ``<draft_summary>`` (a
self-check), is read like an earlier summary in the history (chapter 12).

A summariser that distorts, as a control (chapter 03): ``style="lossy"``
(``FakeModel(summary_style="lossy")``) extracts the same facts, then
paraphrases every request, note, decision and error to a gist (a quoted value
becomes "a new value", everything after the first ";" or " — " goes, at most
``GIST_WORDS`` words stay), merges those that then read the same, and keeps
only the ``LOSSY_BUDGET`` most recent of each (and the latest plan). So an
early instruction, or the exact value a request asked for, is gone, while
the shape of the summary is the same and later summaries read it as before.
"""
from __future__ import annotations

import re
from typing import Literal

from ..core.messages import blocks, result_text
from .conversation_forms import conversation_messages, whole_messages
from .view import FLUSH_NOTICE, IN_PROGRESS, NOTE, PLAN, SUMMARY_GOAL, is_summary_text

FOCUS = re.compile(r"^Focus especially on: (.+)$", re.MULTILINE)
DECISION = re.compile(r"^(Understood\. .+|I will not change .+)$", re.MULTILINE)
PREVIOUS_DECISION = re.compile(r"^- Decision: (.+)$", re.MULTILINE)
PREVIOUS_FILE = re.compile(r"^- (read|edited): (\S+)$", re.MULTILINE)
PREVIOUS_ERROR = re.compile(r"^- Error: (.+)$", re.MULTILINE)
HEADING = re.compile(r"^\d+\. (.+)$", re.MULTILINE)
QUOTED_SUMMARY = re.compile(r"<(previous_summary|draft_summary)>\n")  # opens a quoted summary (``quoted_summaries``)
QUOTED_VALUE = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
GIST_WORDS = 8   # a lossy gist keeps at most this many words
LOSSY_BUDGET = 3  # a lossy summary keeps only this many of the most recent requests, notes, files, decisions
SummaryStyle = Literal["extractive", "lossy"]
__all__ = ["SummaryStyle", "requested_sections", "summarise_text", "whole_messages"]


def summarise_text(request_text: str, style: SummaryStyle = "extractive") -> str:
    """A summary built only from ``request_text``: extractive, or ``"lossy"`` (the module's rule)."""
    if style not in ("extractive", "lossy"):
        raise ValueError(f"summary style must be 'extractive' or 'lossy', not {style!r}")
    quoted, rest = quoted_summaries(request_text)
    messages = [{"role": "user", "content": body} for body in quoted] + conversation_messages(rest)
    goals, notes, plans, decisions, files, errors = [], {}, {}, [], {}, []
    state = None  # (goal, finished)
    for message in messages:
        for block in blocks(message):
            kind = block.get("type")
            if kind == "text" and message["role"] == "user":
                body = block["text"]
                if FLUSH_NOTICE.search(body):
                    continue  # chapter 11: the harness's notice is not a request
                if is_summary_text(body):
                    goals += SUMMARY_GOAL.findall(body)
                    decisions += PREVIOUS_DECISION.findall(body)
                    files.update({p: a for a, p in PREVIOUS_FILE.findall(body)})
                    errors += PREVIOUS_ERROR.findall(body)
                    notes.update(dict(NOTE.findall(body)))
                    plans.update(dict(PLAN.findall(body)))
                    progress = IN_PROGRESS.findall(body)
                    state = (progress[-1], False) if progress else state
                else:
                    goals.append(body)
                    state = (body, False)
            elif kind == "text":
                notes.update(dict(NOTE.findall(block["text"])))
                plans.update(dict(PLAN.findall(block["text"])))
                decisions += DECISION.findall(block["text"])
                if state and not any(b.get("type") == "tool_use" and b.get("name") != "compact"
                                     for b in blocks(message)):
                    state = (state[0], True)
            elif kind == "tool_use" and block["name"] in ("read_file", "edit_file", "write_file") \
                    and isinstance(path := block["input"].get("path"), str):
                action = "read" if block["name"] == "read_file" else "edited"
                if files.get(path) != "edited":
                    files[path] = action
            elif kind == "tool_result" and block.get("is_error"):
                errors.append((result_text(block).splitlines() or ["(no text)"])[0])
    goals = list(dict.fromkeys(goals))  # a request both in an earlier summary and kept verbatim: once
    if style == "lossy":
        goals, notes, plans, decisions, files, errors, state = _distorted(
            goals, notes, plans, decisions, files, errors, state)
    focus = FOCUS.findall(request_text)
    headings = requested_sections(request_text)
    if headings:
        return _render_sections(headings, goals, notes, plans, decisions, files, errors, state, focus)
    return _render(goals, notes, plans, decisions, files, state, focus)


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
    words = said.split()
    return " ".join(words[:GIST_WORDS]) + ("…" if len(words) > GIST_WORDS else "")


def _distorted(goals, notes, plans, decisions, files, errors, state):
    """The lossy style's rule: merge what reads the same as a gist, then keep the most recent few."""
    goals = _recent(list(dict.fromkeys(gist(g) for g in goals)))
    notes = dict(_recent([(path, gist(purpose)) for path, purpose in notes.items()]))
    plans = dict(_recent(list(plans.items()))[-1:])
    decisions = _recent(list(dict.fromkeys(gist(d) for d in decisions)))
    files = dict(_recent(list(files.items())))
    errors = _recent(list(dict.fromkeys(gist(e) for e in errors)))
    return goals, notes, plans, decisions, files, errors, state and (gist(state[0]), state[1])


def _recent(items: list) -> list:
    return items[-LOSSY_BUDGET:]


def requested_sections(request_text: str) -> list[str]:
    """The numbered headings the instructions (the text before the conversation) ask for, when one
    of them is for the user's messages; [] for any other request."""
    instructions = request_text.split("<conversation>", 1)[0]
    headings = [h.strip() for h in HEADING.findall(instructions)]
    return headings if any("user messages" in h.lower() for h in headings) else []


def _render(goals, notes, plans, decisions, files, state, focus) -> str:
    lines = ["1. What was accomplished:"]
    lines += [f"- {action}: {path}" for path, action in sorted(files.items())] or ["- nothing recorded"]
    lines += [f"Plan for {folder}/: {paths}" for folder, paths in sorted(plans.items())]
    lines += [f"Note: {path} — {purpose}" for path, purpose in sorted(notes.items())]
    lines.append("2. Current state:")
    if state is None:
        lines.append("- No request is visible in what I was given.")
    elif state[1]:
        lines.append(f"- Finished: {state[0]}")
        lines.append("- Waiting for the next request.")
    else:
        lines.append(f"- In progress: {state[0]}")
    lines.append("3. Key decisions:")
    lines += [f"- Decision: {d}" for d in dict.fromkeys(decisions)] or ["- none recorded"]
    lines.append("User requests, verbatim, oldest first:")
    lines += [f"- User: {g}" for g in goals] or ["- none visible"]
    lines += [f"Focus: {f}" for f in focus]
    return "\n".join(lines)


def _render_sections(headings, goals, notes, plans, decisions, files, errors, state, focus) -> str:
    """The same extracted facts under the requested headings, each filled by what its title asks."""
    pending = state is not None and not state[1]
    standing = [g for g in goals if g.startswith("From now on")]
    topics = [
        ("request and intent", [f"- Standing instruction: {g}" for g in standing]
         + ([f"- Current request: {state[0]}"] if state else ["- No request is visible in what I was given."])),
        ("file", [f"- {action}: {path}" for path, action in sorted(files.items())]
         + [f"Plan for {folder}/: {paths}" for folder, paths in sorted(plans.items())]
         + [f"Note: {path} — {purpose}" for path, purpose in sorted(notes.items())] or ["- nothing recorded"]),
        ("error", [f"- Error: {e}" for e in dict.fromkeys(errors)] or ["- none recorded"]),
        ("problem", [f"- Decision: {d}" for d in dict.fromkeys(decisions)] or ["- none recorded"]),
        ("user messages", [f"- User: {g}" for g in goals] or ["- none visible"]),
        ("pending", [f"- In progress: {state[0]}"] if pending else ["- none"]),
        ("current work", ["- Working on the pending task above."] if pending
         else [f"- Finished: {state[0]}"] if state else ["- nothing visible"]),
        ("next step", ["- Continue the pending task."] if pending else ["- Wait for the next request."]),
    ]
    lines = []
    for number, heading in enumerate(headings, start=1):
        body = next((b for topic, b in topics if topic in heading.lower()), ["- none recorded"])
        lines += [f"{number}. {heading}:"] + body
    return "\n".join(lines + [f"Focus: {f}" for f in focus])
