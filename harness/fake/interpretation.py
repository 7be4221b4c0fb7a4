"""How the fake took a request, said in words: what it read it as and why, and whether it is unsure (chapter 03).

The fake reads a request by rules (``reading``), and rules read from examples miss phrasings they were not
written from: about one in three of a kind nobody tuned them on (``tests/test_held_out_today.py``). Guessing
silently would leave a student unable to tell "my prompt is wrong" from "the fake is limited". So the fake
says how it read every request: each response carries an ``x-fake-reading`` header (read it with
``client.messages.with_raw_response.create(...)``), and ``explain(body)`` returns the same ``Reading`` for a
request body, without a client.

A reading is one of:

- ``summary request``: the latest instruction asks for a summary of the conversation (or the system prompt
  does, and the latest message asks nothing the agent knows): the reply is a summary;
- ``agent turn``: the latest instruction asks for something the agent knows how to do (``task`` says what),
  or for nothing it knows (it says it cannot);
- ``continuation``: there is no new instruction: the last message holds only tool results, or hands over a
  summary the fake wrote, or the request ends with an assistant message to continue: the agent goes on;
- ``memory flush``: the harness's notice that the context will be compacted: the agent saves to memory;
- ``compaction``: the API compacted the conversation and stopped there (on-demand compaction, or
  ``pause_after_compaction``): no model turn ran.

The fake is **unsure** when no reading is clearly ahead, and then says which one it chose and which it did
not:

- a summary is asked for, and the same instruction also asks for one of the agent's tasks;
- an agent task is asked for, and the system prompt asks for a summary;
- a greeting, or an instruction the agent does not know, with signs of a summary request that did not count:
  a summary word that was mentioned rather than asked for, or about something else; a conversation quoted
  in the message; the conversation named; a summary word in the system prompt; no English word it knows (the
  rules read English only).

It never changes what the fake does: the reply is the same whether or not it is sure. These signs are
*this fake*'s, not a model's: a model reads the whole meaning, and does not need them.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..core.messages import blocks
from .reading import (ASK_TAG, CONVERSATION, COUNT, EDIT, FIRST_CHANGE, GREETING, INSTRUCTION, READ_ALL,
                      RECALL_RULE, RECALL_TAG, SAVE, SEARCH, instruction_text, request_kind, summary_reading,
                      system_text)
from .view import FLUSH_NOTICE, is_summary_text

HEADER = "x-fake-reading"
READING_KINDS = ("summary request", "agent turn", "continuation", "memory flush", "compaction")
TASKS = {READ_ALL: "read every file of a folder", EDIT: "change a VERSION_TAG", RECALL_TAG:
         "say a VERSION_TAG without a tool", ASK_TAG: "say a VERSION_TAG", COUNT: "count lines",
         SEARCH: "search for TODOs", FIRST_CHANGE: "say which file it changed first", RECALL_RULE: "recall a rule",
         INSTRUCTION: "keep a standing rule", SAVE: "save to memory", GREETING: "greet"}
SUMMARY = "summary request"
AGENT = "agent turn"
UNKNOWN_TASK = "nothing it knows how to do"
PHRASING = "Summarise the conversation so far."  # a phrasing the fake reads as a summary request
# Phrasings written blind (by someone who had not read these rules) that the fake read as meant:
# set -> (phrasings, read as meant), as tests/test_held_out_today.py measures them (chapters 03 and 12).
HELD_OUT_READ = {4: (60, 39), 5: (60, 41)}


@dataclass(frozen=True)
class Reading:
    """What the fake took a request for (``kind``, one of ``READING_KINDS``), the evidence it used, whether it is sure,
    for an agent turn the task it took it to ask (``TASKS``' words, or ``UNKNOWN_TASK``), and, when unsure, the
    reading it did not take (``other``)."""
    kind: str
    evidence: str
    sure: bool = True
    task: str | None = None
    other: str | None = None

    @property
    def what(self) -> str:
        """The reading in a few words: "summary request", "agent turn (change a VERSION_TAG)"."""
        return f"{self.kind} ({self.task})" if self.task else self.kind

    def header(self) -> str:
        """The ``x-fake-reading`` header's value: ``<what> | sure|unsure | <evidence>[ | not taken: <other>]``,
        in ASCII (other characters as JSON escapes)."""
        parts = [self.what, "sure" if self.sure else "unsure", self.evidence] + (
            [f"not taken: {self.other}"] if self.other else [])
        return json.dumps(" | ".join(parts))[1:-1].replace('\\"', '"')

    @classmethod
    def from_header(cls, value: str) -> "Reading":
        """The reading a header says (``header``'s inverse)."""
        what, sure, evidence = json.loads('"' + value.replace('"', '\\"') + '"').split(" | ", 2)
        evidence, _, other = evidence.partition(" | not taken: ")
        kind, _, task = what.partition(" (")
        return cls(kind, evidence, sure == "sure", task.removesuffix(")") or None, other or None)

    def __str__(self) -> str:
        took = f"The fake took this request for {_a(self.what)}: {self.evidence}."
        return took if self.sure else f"The fake is unsure. {took} It could also be {_a(self.other or '')}."


def _a(what: str) -> str:
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether the fake reads a checked request as a request for a summary of the conversation."""
    return read_request(body).kind == SUMMARY


def read_request(body: dict[str, Any]) -> Reading:
    """How the fake reads a checked request: the reading the server acts on and reports (``FakeModel``)."""
    last, system = body["messages"][-1], system_text(body)
    said = "\n".join(b["text"] for b in blocks(last) if b.get("type") == "text") if last["role"] == "user" else ""
    latest, instructions = instruction_text(said), instruction_text(system)
    quoted = latest != said.strip()
    held = len(body["messages"]) > 1 or quoted or instructions != system.strip()
    verdict = summary_reading(latest, held)
    found = request_kind(latest)
    task = TASKS[found[0]] if found else None
    if verdict.asked:
        also = task if task and found and found[0] is not GREETING else None
        return Reading(SUMMARY, f"the latest instruction: {verdict.evidence}", also is None,
                       other=f"{AGENT} ({also})" if also else None)
    from_system = summary_reading(instructions, held) if system else None
    if said and found is None and from_system and from_system.asked:
        return Reading(SUMMARY, f"the system prompt: {from_system.evidence}; the latest message asks nothing "
                                "the agent knows")
    if last["role"] == "assistant":
        return Reading("continuation", "the request ends with an assistant message: the reply goes on from it")
    if not said:
        results = sum(1 for b in blocks(last) if b.get("type") == "tool_result")
        return Reading("continuation", f"the last message holds {results} tool result"
                                       f"{'' if results == 1 else 's'} and no instruction: the agent goes on with "
                                       "its request")
    if FLUSH_NOTICE.search(said):
        return Reading("memory flush", "the harness's notice that the context will be compacted: save to memory")
    if found is None and is_summary_text(said):
        return Reading("continuation", "the message hands over a summary the fake wrote: the agent goes on with "
                                       "the request it names as in progress")
    if found is not None and found[0] is not GREETING:
        if from_system and from_system.asked:
            return Reading(AGENT, f"the latest instruction asks to {task}, though the system prompt asks for a "
                                  f"summary ({from_system.evidence})", False, task, SUMMARY)
        return Reading(AGENT, f"the latest instruction asks to {task}", task=task)
    signs = _summary_signs(latest, quoted, verdict.near_misses, from_system)
    asked = f"the latest instruction asks to {task}" if task else "the latest instruction asks nothing the agent knows"
    if not signs:
        return Reading(AGENT, asked, task=task or UNKNOWN_TASK)
    return Reading(AGENT, f"{asked}; signs of a summary request that did not count: {'; '.join(signs)}", False,
                   task or UNKNOWN_TASK, SUMMARY)


def _summary_signs(latest: str, quoted: bool, near_misses: tuple[str, ...], from_system: Any) -> list[str]:
    """What, in a request the fake did not read as a summary request, looks like one all the same."""
    signs = [f"summary word {miss}" for miss in near_misses]
    if quoted:
        signs.append("the message quotes a conversation (a transcript or a message dump)")
    if (named := CONVERSATION.search(latest)):
        signs.append(f'it names the conversation ("{" ".join(named.group().split())}")')
    if from_system is not None and from_system.near_misses:
        signs.append(f"the system prompt has summary word {from_system.near_misses[0]}")
    words = re.findall(r"[^\W\d_]+", latest.lower())
    if len(words) >= 3 and not ENGLISH_WORDS.intersection(words):
        signs.append("no English word it knows: its rules read English only")
    return signs


# Words nearly every English instruction has; an instruction with none of them is likely in another language.
ENGLISH_WORDS = frozenset("a an the and or of to in on for with from at by this that these it its our my your you we i "
                    "is are was be do can could would please what which how so up all".split())


COMPACTION = Reading("compaction", "the API compacted the conversation and no model turn ran (on-demand compaction, "
                                    "or pause_after_compaction)")
