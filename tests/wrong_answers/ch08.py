"""Chapter 08's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

from harness.labs.amnesia import Probe, tag_from_memory


def probe_counting_from_zero():
    return Probe("t03_edit's tag", tag_from_memory("tools/t03_edit.py"), ("v3-edit",), said_in=(18,), source="tool")


def grader_reading_a_phrase_as_its_characters(reply, tools, expect):
    said = reply.lower()
    return not tools and all(any(p.lower() in said for p in phrase) for phrase in expect)


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "ninth_probe": (probe_counting_from_zero, "at probe.said_in[0], yours gave 18"),
    "answered_from_memory": (grader_reading_a_phrase_as_its_characters,
                             "reply 'the first file named', against c06_storage's tag's phrases: at result, "
                             "yours gave True"),
}


WRONG_VALUES = {  # answer name -> (a typical wrong value, what its line must say)
    "ex1_kept": ({"first file changed", "constraint and its reason", "decision and its reason", "c06_storage's tag",
                  "p05_cache's tag", "c01_config's tag", "c10_metrics's tag"}, "should not be there"),
    "ex4_keep": ({"none"}, "missing"),
}
