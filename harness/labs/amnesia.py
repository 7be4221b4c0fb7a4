"""The amnesia probe: after a long session, quiz a copy of its history about facts from all of it (chapter 08).

Eight facts of LONG_SESSION, each graded two ways the chapter can tell
apart: *when* it was said (the work requests that brought it up, and so the
early, middle or late third of the 68 in which it was first said) and
*where* it lives: in the user's own words, or only in a tool result (and the
agent's answer to it). The first three are the questions LONG_SESSION ends
with; the other five ask "Without opening any file: what is VERSION_TAG in
<path> now?", which the fake answers from what is in view (a fresh read of
the file, else the latest thing said about the tag) and never with a tool.

Each probe question is appended to a deep copy of the final history and sent
once to the model with the session's system prompt, tools and context edits;
no tool is run and the session is left exactly as it was. A fact counts as
remembered only when the reply has no tool call and contains every expected
phrase (case-insensitive; a tuple of phrases: any one of them). That is a
substring check: a real model that paraphrases further is scored as
forgetting, and one that re-reads the file to be sure is scored as not
remembering; the fake never does either.
"""
from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass

from ..core.loop import RunContext, messages_api, to_dicts
from ..core.messages import Message, check_shape, user
from ..session.runner import Session
from .scenarios import LONG_SESSION

# LONG_SESSION ends with three probe questions: the session to probe is everything before them.
CLOSING_QUESTIONS = LONG_SESSION.requests[-3:]
WORK_REQUESTS = LONG_SESSION.requests[:-3]
POSITIONS = ("early", "middle", "late")  # thirds of WORK_REQUESTS

Expected = str | tuple[str, ...]  # a phrase, or alternatives of which one must appear


@dataclass(frozen=True)
class Probe:
    """One fact and the question that tests it. ``said_in``: the work requests (1-based, in
    WORK_REQUESTS) that brought the fact up; ``source``: "user" if the user's words state it, "tool"
    if only a tool result does."""
    name: str
    question: str
    expect: tuple[Expected, ...]   # every one of these must appear in the reply's text
    said_in: tuple[int, ...] = ()
    source: str = "user"

    @property
    def position(self) -> str:
        """The third of the session in which the fact was first said ("" if not known)."""
        if not self.said_in:
            return ""
        return POSITIONS[min((self.said_in[0] - 1) * len(POSITIONS) // len(WORK_REQUESTS), len(POSITIONS) - 1)]

    def matches(self, reply: str) -> bool:
        """Whether ``reply`` contains every expected phrase (any one of a tuple's), ignoring case."""
        said = reply.lower()
        return all(any(p.lower() in said for p in ((e,) if isinstance(e, str) else e)) for e in self.expect)


def tag_from_memory(path: str) -> str:
    """The question that asks for a VERSION_TAG from memory."""
    return f"Without opening any file: what is VERSION_TAG in {path} now?"


NEGATION = ("not", "n't", "never")
BECAUSE_YOU_SAID = ("vendored", "you asked", "you told", "you said", "your instruction")
PROBES = (
    # the three questions LONG_SESSION ends with: all said in its first three requests
    Probe("first file changed", CLOSING_QUESTIONS[0], ("s03_todo_write",), (3,)),
    Probe("constraint and its reason", CLOSING_QUESTIONS[1], ("tools/", NEGATION, "vendored"), (2,)),
    Probe("decision and its reason", CLOSING_QUESTIONS[2], (NEGATION, BECAUSE_YOU_SAID), (2,)),
    # values the user set by an edit request, asked about again later
    Probe("c06_storage's tag", tag_from_memory("core/c06_storage.py"), ("v6-append-only",), (7, 21, 48)),
    Probe("p05_cache's tag", tag_from_memory("plugins/p05_cache.py"), ("v5-keyed",), (30, 49)),
    Probe("c01_config's tag", tag_from_memory("core/c01_config.py"), ("v1-validated",), (64, 65)),
    # values only a read showed (the user asked once; the agent read the file and answered)
    Probe("c04_transport's tag", tag_from_memory("core/c04_transport.py"), ("v4-transport",), (31,), source="tool"),
    Probe("c10_metrics's tag", tag_from_memory("core/c10_metrics.py"), ("v10-metrics",), (50,), source="tool"),
)


def probes_for(requests: tuple[str, ...] | list[str]) -> tuple[Probe, ...]:
    """The probes whose fact ``requests`` said (its first mention is among them): a session that
    never heard a fact cannot forget it."""
    return tuple(p for p in PROBES if p.said_in and WORK_REQUESTS[p.said_in[0] - 1] in requests)


@dataclass(frozen=True)
class ProbeAnswer:
    probe: Probe
    reply: str                # the text of the reply ("" if the model only called a tool)
    tools: tuple[str, ...]    # tools the model asked for instead of answering
    correct: bool             # answered from memory: no tool call, every expected phrase


@dataclass(frozen=True)
class AmnesiaReport:
    answers: tuple[ProbeAnswer, ...]

    @property
    def score(self) -> float:
        """The fraction of probes answered correctly."""
        return sum(a.correct for a in self.answers) / len(self.answers) if self.answers else 0.0

    @property
    def forgotten(self) -> tuple[str, ...]:
        return tuple(a.probe.name for a in self.answers if not a.correct)

    @property
    def remembered(self) -> dict[str, bool]:
        """Each probe's name and whether it was answered from memory, in probe order."""
        return {a.probe.name: a.correct for a in self.answers}

    def by(self, grade: str) -> dict[str, float]:
        """The fraction answered right per value of one grading field ("position" or "source"),
        values in the order they first appear."""
        groups: dict[str, list[bool]] = defaultdict(list)
        for a in self.answers:
            groups[str(getattr(a.probe, grade))].append(a.correct)
        return {value: sum(right) / len(right) for value, right in groups.items()}


def ask_copy(session: Session, history: list[Message], question: str) -> tuple[str, tuple[str, ...]]:
    """One model call on ``history`` + the question, sent as the session sends its calls (with its
    strategy's ``request_options``: the API's context management applies to the probe too);
    returns (reply text, tools asked for)."""
    check_shape(history)
    messages = history + [user(question)]
    run = RunContext(session.client, messages, session.config, session.system, session.toolbox.schemas,
                     None, lambda event: None, lambda trace: None)
    options = session.compactor.request_options(run)
    response = messages_api(session.client, options).create(
        model=session.config.model, max_tokens=session.config.max_tokens, system=session.system,
        tools=session.toolbox.schemas, messages=messages, **options)
    content = to_dicts(response.content)
    reply = "\n".join(b["text"] for b in content if b["type"] == "text")
    return reply, tuple(b["name"] for b in content if b["type"] == "tool_use")


def probe_amnesia(session: Session, probes: tuple[Probe, ...] | None = None) -> AmnesiaReport:
    """Ask every probe of a deep copy of the session's final history and score the replies.
    By default the probes are those whose fact the session heard, taking the session to have run
    the first ``len(session.answers)`` work requests of LONG_SESSION, as every lab of the course does."""
    if probes is None:
        probes = probes_for(WORK_REQUESTS[:len(session.answers)])
    history = copy.deepcopy(session.messages)
    answers = []
    for probe in probes:
        reply, tools = ask_copy(session, history, probe.question)
        answers.append(ProbeAnswer(probe, reply, tools, not tools and probe.matches(reply)))
    return AmnesiaReport(tuple(answers))
