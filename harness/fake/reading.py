"""How the fake model reads a request: what its latest instruction asks, and which tools it may use (chapter 00).

A model acts on the latest instruction, not on every word in its context. The
latest instruction is the text of the last user message (its text blocks, not
its tool results) without the material it quotes: a block delimited by a tag
pair such as ``<conversation>...</conversation>`` is what the instruction is
about, not part of it. This is how every summary request of the course is
built (chapter 03's ``build_summary_request``: the prompt, then the history as
JSON inside ``<conversation>`` tags).

The rule: a request is a summary request when its latest instruction asks to
summarise the conversation itself: "summarise"/"summarize" (or "a summary
of") followed by a noun for it, ``conversation``, ``transcript``, ``chat``,
``dialogue``, ``discussion``, ``session``, ``exchange`` or ``history``, with
at most a determiner and one or two of ``whole``, ``entire``, ``full``,
``above``, ``below``, ... before it, and not followed by "of" ("the history of
a.py" is about a file). Tools offered or not, it makes no difference. A task
that summarises something else ("Read every .py file under agents/ and
summarise what each does.") is a task, and a request that merely quotes the
word (inside a transcript) is read by what its own instruction says.

The tools a request offers are the names in ``tools``; ``tool_choice``
``{"type": "none"}`` offers none. A summary is written from what the request
holds: the history before the last message (as JSON) and the last message's
text, transcript included.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ..core.messages import blocks

QUOTED = re.compile(r"<([A-Za-z][\w-]*)>.*</\1>", re.DOTALL)  # a tagged block, to its last closing tag
_THE = r"(?:(?:the|this|that|our|your|my)\s+)?"
_ADJECTIVES = r"(?:(?:whole|entire|full|complete|above|below|preceding|previous|following|current|recent)\s+){0,2}"
_NOUN = r"(?:conversation|transcript|chat|dialogue|discussion|session|exchange|history)s?\b(?!\s+of\b)"
SUMMARY_ASK = re.compile(rf"\b(?:summari[sz]e|summary\s+of)\s+{_THE}{_ADJECTIVES}{_NOUN}", re.IGNORECASE)


def latest_instruction(body: dict[str, Any]) -> str:
    """The text of the last user message, without any tagged block it quotes. Checked request only."""
    last = body["messages"][-1]
    if last["role"] != "user":
        return ""
    said = "\n".join(b["text"] for b in blocks(last) if b.get("type") == "text")
    return QUOTED.sub("", said).strip()


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether the latest instruction asks for a summary of the conversation (the module's rule)."""
    return bool(SUMMARY_ASK.search(latest_instruction(body)))


def summary_material(body: dict[str, Any]) -> str:
    """What a summary is written from: the earlier messages as JSON, then the last message's text."""
    *earlier, last = body["messages"]
    said = "\n".join(b["text"] for b in blocks(last) if b.get("type") == "text")
    return f"{json.dumps(earlier, ensure_ascii=False)}\n\n{said}" if earlier else said


def offered_tools(body: dict[str, Any]) -> frozenset[str]:
    """The names of the tools the model may call in this request."""
    if (body.get("tool_choice") or {}).get("type") == "none":
        return frozenset()
    return frozenset(tool["name"] for tool in body.get("tools", []))
