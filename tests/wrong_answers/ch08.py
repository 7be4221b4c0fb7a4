"""Chapter 08: the mistakes students make in exercises 4 and 5, each of which its check must reject with a line
that names the kind of mistake; correct versions in other styles; wrong values and, for the exercises with
several right answers, right ones."""
from __future__ import annotations

from harness.labs.amnesia import Probe, tag_from_memory


def probe_counting_from_zero():
    return Probe("t03_edit's tag", tag_from_memory("tools/t03_edit.py"), ("v3-edit",), said_in=(18,), source="tool")


def probe_expecting_the_file():
    return Probe("t03_edit's tag", tag_from_memory("tools/t03_edit.py"), ("t03_edit",), said_in=(19,), source="tool")


def probe_with_a_longer_phrase():
    return Probe(name="the ninth", question=tag_from_memory("tools/t03_edit.py"), expect=('"v3-edit"',),
                 said_in=(19,), source="tool")


def grader_reading_a_phrase_as_its_characters(reply, tools, expect):
    said = reply.lower()
    return not tools and all(any(p.lower() in said for p in phrase) for phrase in expect)


def grader_lowering_the_reply_only(reply, tools, expect):
    said = reply.lower()
    return not tools and all(any(p in said for p in ((e,) if isinstance(e, str) else e)) for e in expect)


def grader_ignoring_tools(reply, tools, expect):
    said = reply.lower()
    return all(any(p.lower() in said for p in ((e,) if isinstance(e, str) else e)) for e in expect)


def grader_needing_every_alternative(reply, tools, expect):
    said = reply.lower()
    return not tools and all(p.lower() in said for e in expect for p in ((e,) if isinstance(e, str) else e))


def grader_by_casefold(reply, tools, expect):
    if len(tools) > 0:
        return False
    options = [[phrase] if type(phrase) is str else list(phrase) for phrase in expect]
    return all(any(o.casefold() in reply.casefold() for o in group) for group in options)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "ninth_probe": [
        (probe_counting_from_zero, "at probe.said_in[0], yours gave 18"),
        (probe_expecting_the_file, "What it accepts"),
    ],
    "answered_from_memory": [
        (grader_reading_a_phrase_as_its_characters, "yours gave True"),
        (grader_lowering_the_reply_only, "against the first file in capitals: at result, yours gave False. Hint: "
                                         "Ignoring case means on both sides"),
        (grader_ignoring_tools, "A reply that called a tool was not answered from memory"),
        (grader_needing_every_alternative, "A tuple in expect is alternatives"),
    ],
}

RIGHT = {"ninth_probe": [probe_with_a_longer_phrase], "answered_from_memory": [grader_by_casefold]}

WRONG_VALUES = {  # answer name -> [(a typical wrong value, what its line must say)]
    "ex1_kept": [({"first file changed", "constraint and its reason", "decision and its reason", "c06_storage's tag",
                   "p05_cache's tag", "c01_config's tag", "c10_metrics's tag"}, "should not be there")],
    "ex4_keep": [({"none"}, "missing")],
    "ex2_knob": [({"keep": 5}, "it still clears"), ({"trigger": 200_000}, "not trigger"),
                 ({"keep": 20, "clear_at_least": 5}, "one knob, and yours has 2"), ({"kept": 20}, "no knob named")],
    "ex3_history": [([], "not the same messages"), ("the history", "the answer is a list of messages, yours is str")],
}

RIGHT_VALUES = {"ex2_knob": [{"keep": 20}, {"exclude_tools": ("read_file", "list_files")}]}
