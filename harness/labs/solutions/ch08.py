"""Chapter 08's steps, exercises 4 and 5: a ninth fact's ``Probe``, and the probe's grader; and the values
exercises 1 to 4 ask for (``ANSWERS``), each worked out by runs of its own, out of sight. Exercises 2 and 3
have more than one right answer (any knob that clears nothing; the history as the student builds it): a
value is judged by what it does, as the chapter's own check did.

``ninth_probe`` is judged by what its Probe does: its question, its grading
(``said_in``, position, source) and which of a few replies it
accepts, so any expected phrase that picks the tag's value passes.

``answered_from_memory`` is checked on the expected phrases of every probe of
the chapter against replies in the fake's own words (a fresh read, something
said, nothing left, the first file, the rule, the refusal), the same replies
with a tool called, in capitals, with a wrong value, and one phrase list that
is empty. The cross product trips the usual hand-written graders: one that
reads a phrase string as a tuple of its characters, one that needs every
alternative of a tuple, one that ignores the tool call, one that minds case
(phrases in capitals catch one that lowers the reply only). The chapter's own replies come from its seven long runs, too slow for a
check: the templates above are the ones the fake answers with
(``harness/fake/agent.py``).
"""
from __future__ import annotations

import atexit
import copy
import json
import shutil
import tempfile
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from ...core.config import CompactionConfig
from ...strategies.one_call import OneCallPerTurn
from ...strategies.registry import all_strategies, control_strategies
from ...strategies.server_side import ServerToolClearing
from ..amnesia import PROBES, WORK_REQUESTS, Probe, probe_amnesia, tag_from_memory
from ..runs import run_scenario
from ..scenarios import TWELVE_FILES
from ..scratch import scratch_folder
from ..strategy_lab import cleared_so_far, one_call_per_turn, run_strategy
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


T03_REPLIES = {"a fresh read": f'VERSION_TAG in {T03} is "v3-edit".',
               "said earlier": f'As far as I can see, VERSION_TAG in {T03} is "v3-edit".',
               "no longer seen": f"I can no longer see anything about VERSION_TAG in {T03}.",
               "an older value": f'VERSION_TAG in {T03} is "v2-edit".',
               "another file's tag": 'VERSION_TAG in tools/t02_read.py is "v2-read".'}


def probe_grading(function, args):
    """What a Probe is judged by: its question, its grading, and which replies (by what they are) it accepts."""
    probe = function(*args)
    return {"question": probe.question, "said_in": probe.said_in, "position": probe.position, "source": probe.source,
            "accepts the reply": {kind: probe.matches(reply) for kind, reply in T03_REPLIES.items()}}


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


CAPITAL_PHRASES = (("the first file in capitals", ("S03_Todo_Write",)),
                   ("the constraint's phrases in capitals", ("TOOLS/", ("NOT", "N'T", "NEVER"), "Vendored")))


@lru_cache(maxsize=1)
def _grader_cases() -> list[tuple[Any, ...]]:
    aimed: list[tuple[Any, ...]] = [
        ("reply 'the first file named', against the first file in capitals",
         (_replies()[0][1], (), CAPITAL_PHRASES[0][1]), "case"),
        ("reply 'the first file named', read_file called, against first file changed's phrases",
         (_replies()[0][1], ("read_file",), PROBES[0].expect), "tools"),
        ("reply 'the rule quoted', against constraint and its reason's phrases",
         (_replies()[2][1], (), PROBES[1].expect), "alternatives"),
        ("reply 'the rule quoted', against the constraint's phrases in capitals",
         (_replies()[2][1], (), CAPITAL_PHRASES[1][1]), "case"),
        ("reply 'a refusal in other words', against constraint and its reason's phrases",
         (_replies()[5][1], (), PROBES[1].expect), "case")]
    expects = [(f"{p.name}'s phrases", p.expect) for p in PROBES] + list(CAPITAL_PHRASES) + [("no phrase at all", ())]
    return aimed + [(f"reply '{label}'{', read_file called' if tools else ''}, against {graded}",
                     (reply, tools, expect)) for label, reply in _replies() for graded, expect in expects
                    for tools in ((), ("read_file",))]


STEPS = [
    Step("ninth_probe", "08", ninth_probe, lambda: [("the ninth fact", ())], probe_grading, label="probe",
         hint="Ask with tag_from_memory and the file's path, and expect the tag's value; said_in counts the "
              "work requests from 1; source says where the fact lived.",
         flags={"accepts the reply": "What it accepts: a reply that names the tag's value, and no other (see "
                                     "which reply differs).",
                "said_in": "said_in counts the work requests from 1, as the exercise numbers them.",
                "source": "source: \"user\" if the user's words state the fact, \"tool\" if only a tool result does."}),
    Step("answered_from_memory", "08", answered_from_memory, _grader_cases,
         hint="No tool called, and every phrase of expect in the reply, ignoring case: a tuple is alternatives "
              "(any one will do), a string is one phrase (not its characters).",
         traps={"case": "Ignoring case means on both sides: the reply and each phrase, lowered alike.",
                "tools": "A reply that called a tool was not answered from memory.",
                "alternatives": "A tuple in expect is alternatives: any one of them will do, not all."}),
]


def longer_tail_kept() -> set[str]:
    """Exercise 1: the facts s06 keeps with a 160,000-character summary tail."""
    with TemporaryDirectory() as root:
        run = run_strategy(one_call_per_turn(all_strategies()[1]), root, config=CompactionConfig(tail_chars=160_000))
    return {fact for fact, kept in run.amnesia.remembered.items() if kept}


def ninth_fact_kept_by() -> set[str]:
    """Exercise 4: the keys of section 5's runs whose final history answers the ninth probe."""
    kept = set()
    with TemporaryDirectory() as root:
        for strategy in all_strategies() + control_strategies():
            run = run_strategy(one_call_per_turn(strategy), root)
            if probe_amnesia(run.session, (ninth_probe(),)).score == 1.0:
                kept.add(strategy.key)
    return kept


def clearing_run(knob: dict[str, Any]) -> Any:
    """Section 3's task, the 12-file one, with the API's clearing at trigger 10,000 and one knob set."""
    with scratch_folder(Path("_work/08_strategies")) as root:
        return run_scenario(TWELVE_FILES, CompactionConfig(), root / "ex2",
                            compactor=OneCallPerTurn(ServerToolClearing(trigger=10_000, **knob)))


def clears_nothing(value: Any) -> str | None:
    """Exercise 2: None when ``value`` is one knob of ServerToolClearing (not trigger) and its value that clear
    nothing on section 3's task, which still gets done; else how it is off."""
    if type(value) is not dict:
        return f"the answer is a dict of one knob and its value, yours is {type(value).__name__}"
    if len(value) != 1:
        return f"one knob, and yours has {len(value)}"
    knob, setting = next(iter(dict.items(value)))
    if knob == "trigger":
        return "not trigger: the exercise keeps it at 10,000"
    if knob not in {f.name for f in fields(ServerToolClearing)}:
        return f"ServerToolClearing has no knob named {knob!r}"
    try:
        run = clearing_run({knob: setting})
    except (TypeError, ValueError) as error:
        return f"ServerToolClearing refuses that value ({type(error).__name__})"
    cleared = cleared_so_far(run)["cleared_tool_uses"]
    if cleared:
        return f"it still clears {cleared} tool use{'s' if cleared != 1 else ''}"
    return None if run.answers[-1] else "it clears nothing, but the task is no longer done"


@lru_cache(maxsize=1)
def usage_run() -> Any:
    """Section 5's run of the usage strategy (its final history is exercise 3's), in a folder that lasts
    until the process exits."""
    folder = tempfile.mkdtemp(prefix="ch08-usage-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return run_strategy(one_call_per_turn(next(s for s in all_strategies() if s.key == "usage")), folder)


def _as_json(messages: Any) -> list[str]:
    return [json.dumps(m, sort_keys=True) for m in messages]


def codex_order() -> list[Any]:
    """Exercise 3: the usage run's final history with its summary moved to just before the first reply."""
    history = copy.deepcopy(usage_run().session.messages)
    first_reply = next(i for i, m in enumerate(history) if m["role"] == "assistant")
    return history[1:first_reply] + [history[0]] + history[first_reply:]


def summary_where_codex_puts_it(value: Any) -> str | None:
    """Exercise 3: None when ``value`` is the usage run's final history, reordered as Codex orders it, and the
    fake then names the first file changed; else how it is off."""
    session = usage_run().session
    if type(value) is not list:
        return f"the answer is a list of messages, yours is {type(value).__name__}"
    if sorted(_as_json(value)) != sorted(_as_json(session.messages)):
        return "not the same messages: only their order changes"
    mine = _as_json(value)
    first_reply = next((i for i, m in enumerate(value) if m["role"] == "assistant"), None)
    if first_reply is None or first_reply == 0 or mine[first_reply - 1] != _as_json(session.messages[:1])[0]:
        return "the summary is not right before the first assistant message"
    reordered = copy.copy(session)
    reordered.messages = [json.loads(m) for m in mine]
    if not probe_amnesia(reordered).remembered["first file changed"]:
        return "the fake still names the wrong first file"
    return None


ANSWERS = [
    Answer("ex1_kept", "08", longer_tail_kept,
           hint="A fact is kept if it came after s06's last summary, or if every summary from then on carried "
                "it; a summary cut short drops what it writes last."),
    Answer("ex4_keep", "08", ninth_fact_kept_by,
           hint="Which runs wrote a summary after request 19, and what does clearing never touch?"),
    Answer("ex2_knob", "08", lambda: {"clear_at_least": 1_000_000}, accepts=clears_nothing,
           hint="Each knob of ServerToolClearing says when or what it may clear: which one, set far enough, "
                "leaves nothing that qualifies on a 12-file task?"),
    Answer("ex3_history", "08", codex_order, accepts=summary_where_codex_puts_it,
           hint="Take the summary (the first message) out, and put it back right before the first assistant "
                "message; every other message keeps its place."),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "The long session peaks near 125,000 tokens, so under a real 200,000-token window no trigger would "
    "fire; and a strategy that fires earlier looks cheaper for that reason alone, so every trigger sits "
    "at the same share of the same window (85%) unless a system's own proportion is the point.",
    "Its summary request quotes only the last 80,000 characters of the history, and requests 2 and 3 were "
    "not in them; no summariser keeps words it was never sent.",
    "Its first two summaries kept them, but its third ran into the 2,000-token cap and was cut before its "
    "list of the user's requests, which this fake writes last: a reply stopped at max_tokens loses its end.",
    "Without caching, clearing sends the fewest tokens: it keeps the context near its trigger and writes no "
    "summary. With caching, past its trigger this fake's server clears all but the newest tool uses on every "
    "request, so the cleared point moves on each call and everything after it is written to the cache "
    "again; summaries rewrite the history only three times. clear_at_least did not help here, because "
    "every clearing after the first frees more than it asks.",
    "After every compaction it checks that the next request would be valid (else it puts the old history "
    "back) and that the context is under half the threshold, and it stops compacting when a compaction "
    "comes within 3 calls of the previous one: an HTTP 400 becomes an event, a compaction loop one stop.",
]
