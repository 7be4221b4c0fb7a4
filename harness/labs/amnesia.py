"""The amnesia probe: after a long session, quiz a copy of its history about the early turns (chapter 08).

Three things the user said only at the start of LONG_SESSION: which file
they first asked to change, a standing constraint with its reason (never
edit tools/: it is vendored code), and the decision that constraint implies
when a late request breaks it (refuse, and say why). Each probe question is
appended to a deep copy of the final history and sent once to the model
with the session's system prompt and tools; no tool is run and the session
itself is left exactly as it was. The score is the fraction answered right.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from ..core.loop import RunContext, messages_api, to_dicts
from ..core.messages import Message, check_shape, user
from ..session.runner import Session
from .scenarios import LONG_SESSION


@dataclass(frozen=True)
class Probe:
    name: str
    question: str
    expect: tuple[str, ...]   # every one of these must appear in the reply's text


PROBES = (
    Probe("first file changed", "Which file did I first ask you to change?", ("agents/s03_todo_write.py",)),
    Probe("constraint and its reason", "What did I tell you about tools/?",
          ("never edit anything under tools/", "vendored code")),
    Probe("decision and its reason", 'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".',
          ("I will not change tools/t05_shell.py", "never to edit anything under tools/")),
)
# LONG_SESSION ends with these three questions: the session to probe is everything before them.
WORK_REQUESTS = tuple(r for r in LONG_SESSION.requests if r not in {p.question for p in PROBES})


@dataclass(frozen=True)
class ProbeAnswer:
    probe: Probe
    reply: str                # the text of the reply ("" if the model only called a tool)
    tools: tuple[str, ...]    # tools the model asked for instead of answering
    correct: bool


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


def probe_amnesia(session: Session, probes: tuple[Probe, ...] = PROBES) -> AmnesiaReport:
    """Ask every probe of a deep copy of the session's final history and score the replies."""
    history = copy.deepcopy(session.messages)
    answers = []
    for probe in probes:
        reply, tools = ask_copy(session, history, probe.question)
        answers.append(ProbeAnswer(probe, reply, tools, all(e in reply for e in probe.expect)))
    return AmnesiaReport(tuple(answers))
