"""Chapter 08's steps, both exercises: a ninth fact's ``Probe``, and the probe's grader; and the values
exercises 1 and 4 ask for (``ANSWERS``), each worked out by runs of its own, out of sight.

``ninth_probe`` is judged by what its Probe does: its question, its grading
(``said_in``, position, source) and which of a few replies it
accepts, so any expected phrase that picks the tag's value passes.

``answered_from_memory`` is checked on the expected phrases of every probe of
the chapter against replies in the fake's own words (a fresh read, something
said, nothing left, the first file, the rule, the refusal), the same replies
with a tool called, in capitals, with a wrong value, and one phrase list that
is empty. The cross product trips the usual hand-written graders: one that
reads a phrase string as a tuple of its characters, one that needs every
alternative of a tuple, one that ignores the tool call, one that minds case.
The chapter's own replies come from its seven long runs, too slow for a
check: the templates above are the ones the fake answers with
(``harness/fake/agent.py``).
"""
from __future__ import annotations

from functools import lru_cache
from tempfile import TemporaryDirectory
from typing import Any

from ...core.config import CompactionConfig
from ...strategies.registry import all_strategies, control_strategies
from ..amnesia import PROBES, WORK_REQUESTS, Probe, probe_amnesia, tag_from_memory
from ..strategy_lab import run_strategy
from . import Answer, Step

T03 = "tools/t03_edit.py"


def ninth_probe():
    """The Probe of t03_edit's tag (asked once, at work request 19; only a read ever showed it)."""
    return Probe("t03_edit's tag", tag_from_memory("tools/t03_edit.py"), ("v3-edit",), said_in=(19,), source="tool")


def answered_from_memory(reply, tools, expect):
    """Whether a probe's reply counts as remembered: no tool called, and every expected phrase in it."""
    if tools:
        return False
    said = reply.lower()
    for phrase in expect:
        alternatives = (phrase,) if isinstance(phrase, str) else phrase
        if not any(p.lower() in said for p in alternatives):
            return False
    return True


def _t03_replies() -> list[str]:
    return [f'VERSION_TAG in {T03} is "v3-edit".', f'As far as I can see, VERSION_TAG in {T03} is "v3-edit".',
            f"I can no longer see anything about VERSION_TAG in {T03}.", f'VERSION_TAG in {T03} is "v2-edit".',
            f'VERSION_TAG in tools/t02_read.py is "v2-read".']


def probe_grading(function, args):
    """What a Probe is judged by: its question, its grading, and which replies it accepts."""
    probe = function(*args)
    return {"question": probe.question, "said_in": probe.said_in, "position": probe.position, "source": probe.source,
            "accepts": [probe.matches(reply) for reply in _t03_replies()]}


def _tag_replies(probe: Probe) -> list[tuple[str, str]]:
    path, value = probe.question.split(" in ")[-1].removesuffix(" now?"), probe.expect[0]
    return [(f"{probe.name} read afresh", f'VERSION_TAG in {path} is "{value}".'),
            (f"{probe.name} said earlier", f'As far as I can see, VERSION_TAG in {path} is "{value}".'),
            (f"{probe.name} no longer seen", f"I can no longer see anything about VERSION_TAG in {path}."),
            (f"{probe.name} with a wrong value", f'As far as I can see, VERSION_TAG in {path} is "v0-old".'),
            (f"{probe.name} in capitals", f'VERSION_TAG IN {path.upper()} IS "{value.upper()}".')]


def _replies() -> list[tuple[str, str]]:
    said = [("the first file named", "The first file you asked me to change was agents/s03_todo_write.py."),
            ("the first file lost", "I can no longer see which file you first asked me to change."),
            ("the rule quoted", f'You told me: "{WORK_REQUESTS[1]}"'),
            ("the rule lost", "I can no longer see anything you told me about tools/."),
            ("the refusal", "I will not change tools/t01_bash.py: you asked me never to edit anything under tools/."),
            ("a refusal in other words", "I WON'T touch tools/: it is Vendored code."),
            ("an empty reply", "")]
    return said + [reply for probe in PROBES[3:] for reply in _tag_replies(probe)]


@lru_cache(maxsize=1)
def _grader_cases() -> list[tuple[str, tuple[Any, ...]]]:
    expects = [(f"{p.name}'s phrases", p.expect) for p in PROBES] + [("no phrase at all", ())]
    return [(f"reply '{label}'{', read_file called' if tools else ''}, against {graded}", (reply, tools, expect))
            for label, reply in _replies() for graded, expect in expects for tools in ((), ("read_file",))]


STEPS = [
    Step("ninth_probe", "08", ninth_probe, lambda: [("the ninth fact", ())], probe_grading, label="probe",
         hint="Ask with tag_from_memory and the file's path and expect the tag's value; said_in counts the "
              "work requests from 1; source says where the fact lived."),
    Step("answered_from_memory", "08", answered_from_memory, _grader_cases,
         hint="No tool called, and every phrase of expect in the reply, ignoring case: a tuple is alternatives "
              "(any one will do), a string is one phrase (not its characters)."),
]

def longer_tail_kept() -> set[str]:
    """Exercise 1: the facts s06 keeps with a 160,000-character summary tail."""
    with TemporaryDirectory() as root:
        run = run_strategy(all_strategies()[1], root, config=CompactionConfig(tail_chars=160_000))
    return {fact for fact, kept in run.amnesia.remembered.items() if kept}


def ninth_fact_kept_by() -> set[str]:
    """Exercise 4: the keys of section 5's runs whose final history answers the ninth probe."""
    kept = set()
    with TemporaryDirectory() as root:
        for strategy in all_strategies() + control_strategies():
            run = run_strategy(strategy, root)
            if probe_amnesia(run.session, (ninth_probe(),)).score == 1.0:
                kept.add(strategy.key)
    return kept


ANSWERS = [
    Answer("ex1_kept", "08", longer_tail_kept,
           hint="A fact is kept if some summary was sent it, or if it came after s06's last summary."),
    Answer("ex4_keep", "08", ninth_fact_kept_by,
           hint="Which runs wrote a summary after request 19, and what does clearing never touch?"),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "The long session peaks near 125,000 tokens, so under a real 200,000-token window no trigger would "
    "fire; and a strategy that fires earlier looks cheaper for that reason alone, so every trigger sits "
    "at the same share of the same window (85%) unless a system's own proportion is the point.",
    "Its summary request quotes only the last 80,000 characters of the history, and requests 2 and 3 were "
    "not in them; no summariser keeps words it was never sent. The control, the same questions asked of "
    "the whole conversation, keeps them.",
    "It lived only in a tool result: every summarising strategy summarised after request 31, and this "
    "fake's summaries keep no tool output. Clearing removes tool results but never assistant text, and "
    "the agent's own answer quoting the tag stayed in the context.",
    "Without caching, clearing sends the fewest tokens: it keeps the context near its trigger and writes no "
    "summary. With caching, past its trigger the server clears all but the newest tool uses on every "
    "request, so the cleared point moves on each call and everything after it is written to the cache "
    "again; summaries rewrite the history only three times. clear_at_least did not help here, because "
    "every clearing after the first frees more than it asks.",
    "After every compaction it checks that the next request would be valid (else it puts the old history "
    "back) and that the context is under half the threshold, and it stops compacting when a compaction "
    "comes within 3 calls of the previous one: an HTTP 400 becomes an event, a compaction loop one stop.",
]
