"""A fact the agent needs must be visible, not just its file (harness/fake/view.py and agent.py, chapter 00).

A read cut short, a placeholder that kept the head, or a pasted docstring shows the file but not its
VERSION_TAG line: the agent reads again (once) instead of answering "". Every request goes through the
real SDK to the fake server.
"""
from __future__ import annotations

import pytest

from harness import assistant, placeholder, tool_result, tool_use, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.labs.scenarios import AGENT_FILES, python_module

MODEL = "claude-haiku-4-5"
PATH = "agents/s01_agent_loop.py"
S01 = python_module("s01_agent_loop", AGENT_FILES["s01_agent_loop"], 1)
HEAD = "\n".join(S01.splitlines()[:5])  # the docstring, not the tag line (line 10)
TAIL = "\n".join(S01.splitlines()[8:12])  # the tag line, not the docstring
ASK = f"What is VERSION_TAG in {PATH}?"
EDIT = f'In {PATH}, change VERSION_TAG to "v1-new".'
READ = {"path": PATH}
CUT_SHORTS = {
    "cut by a limit": HEAD + "\n... (140 more lines)",
    "a placeholder that kept the head": HEAD + "\n[Previous: used read_file; cut to its first 5 lines]",
    "output truncated": HEAD + "\n... (output truncated: 5,903 characters in all)",
}


def step(messages, tools=FILE_TOOLS):
    """The fake's next reply: its text and its tool calls."""
    message = FakeModel().client().messages.create(model=MODEL, max_tokens=4_000, messages=messages, tools=tools)
    said = "".join(b.text for b in message.content if b.type == "text")
    return said, [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def read(request: str, *results: str, tool_id: str = "r") -> list[dict]:
    """The request, then one read_file of PATH per result."""
    messages = [user(request)]
    for i, result in enumerate(results):
        messages += [assistant([tool_use(f"{tool_id}{i}", "read_file", READ)]),
                     user([tool_result(f"{tool_id}{i}", result)])]
    return messages


@pytest.mark.parametrize("cut", CUT_SHORTS.values(), ids=list(CUT_SHORTS))
def test_a_tag_question_reads_again_when_only_the_docstring_is_visible(cut):
    assert step(read(ASK, cut)) == ("", [("read_file", READ)])  # before: 'VERSION_TAG in ... is "".'
    assert step(read(ASK, cut, S01)) == ('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".', [])


@pytest.mark.parametrize("cut", CUT_SHORTS.values(), ids=list(CUT_SHORTS))
def test_an_edit_reads_again_rather_than_replace_an_empty_tag(cut):
    assert step(read(EDIT, cut)) == ("", [("read_file", READ)])  # before: edit_file of 'VERSION_TAG = ""'
    old, new = 'VERSION_TAG = "v1-agent"', 'VERSION_TAG = "v1-new"'
    assert step(read(EDIT, cut, S01)) == ("", [("edit_file", {"path": PATH, "old_text": old, "new_text": new})])
    tools = [t for t in FILE_TOOLS if t["name"] != "edit_file"]
    [(name, written)] = step(read(EDIT, cut, S01), tools)[1]
    assert name == "write_file" and written == {"path": PATH, "content": S01.replace(old, new, 1)}  # the whole read


def test_a_pasted_docstring_is_not_the_tag():
    pasted = f"Remember this module:\n{HEAD}"
    messages = [user(pasted), assistant("Noted."), user(ASK)]
    assert step(messages) == ("", [("read_file", READ)])  # before: answered "" from the paste


def test_the_fact_is_taken_from_any_visible_read_newest_first():
    assert step(read(ASK, S01, HEAD)) == ('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".', [])
    messages = read(ASK, S01, placeholder("read_file"))
    assert step(messages)[1] == []  # the first read still shows it: no read needed


def test_a_file_that_has_no_tag_line_is_said_so_after_a_second_read():
    no_tag = S01.replace('VERSION_TAG = "v1-agent"\n', "")
    assert step(read(ASK, no_tag)) == ("", [("read_file", READ)])
    assert step(read(ASK, no_tag, no_tag)) == (f"I read {PATH} and it shows no VERSION_TAG line.", [])
    assert step(read(EDIT, no_tag, no_tag)) == (f"I read {PATH} and it shows no VERSION_TAG line to change.", [])


def test_a_recall_question_never_answers_an_empty_tag_it_cannot_see():
    ask = f"Without opening any file: what is VERSION_TAG in {PATH} now?"
    assert step(read(ask, HEAD)) == (f"I can no longer see anything about VERSION_TAG in {PATH}.", [])


READ_ALL = "Read every .py file under agents/ and summarise what each does."
LISTING = [user(READ_ALL), assistant([tool_use("l", "list_files", {"path": "agents"})]), user([tool_result("l", PATH)])]


def read_all(*results: str) -> list[dict]:
    messages = list(LISTING)
    for i, result in enumerate(results):
        messages += [assistant([tool_use(f"r{i}", "read_file", READ)]), user([tool_result(f"r{i}", result)])]
    return messages


def test_a_purpose_note_reads_again_when_the_docstring_is_not_visible():
    assert step(read_all(TAIL))[1] == [("read_file", READ)]  # before: "no module docstring"
    said, tools = step(read_all(TAIL, S01))
    assert tools == [] and f"- {PATH}: runs the basic agent loop" in said
    said, _ = step(read_all(TAIL, TAIL))
    assert f"- {PATH}: no module docstring" in said  # read twice, still none: the file has none


WC = "wc -l agents/*.py"
GREP = "grep -n TODO agents/*.py"
WHOLE_WC = "  150 agents/a.py\n  120 agents/b.py\n  270 total"
CUT_WC = "  150 agents/a.py\n[Previous: used bash; kept its first line]"
WHOLE_GREP = "agents/a.py:12:    # TODO: one\nagents/b.py:40:    # TODO: two"
CUT_GREP = "agents/a.py:12:    # TODO: one\n... (output truncated: 90,000 characters in all)"


def ran(request: str, command: str, *outputs: str) -> list[dict]:
    messages = [user(request)]
    for i, output in enumerate(outputs):
        messages += [assistant([tool_use(f"b{i}", "bash", {"command": command})]),
                     user([tool_result(f"b{i}", output)])]
    return messages


@pytest.mark.parametrize("request_, command, whole, cut, answer, missing", [
    ("Count the lines of every .py file under agents/.", WC, WHOLE_WC, CUT_WC,
     "The .py files under agents/ have 270 lines in total.", "its total"),
    ("Search agents/ for TODO comments.", GREP, WHOLE_GREP, CUT_GREP, "Found 2 TODO comments under agents/.",
     "every match"),
])
def test_a_count_or_a_search_runs_again_when_its_output_is_cut(request_, command, whole, cut, answer, missing):
    assert step(ran(request_, command, whole)) == (answer, [])
    assert step(ran(request_, command, cut)) == ("", [("bash", {"command": command})])  # before: 150 lines, 1 TODO
    assert step(ran(request_, command, cut, whole)) == (answer, [])
    assert step(ran(request_, command, cut, cut)) == (f"I ran `{command}`, but its output does not show {missing}.",
                                                      [])


def test_a_count_of_one_file_and_a_search_without_a_match_are_whole():
    assert step(ran("Count the lines of every .py file under agents/.", WC, "  150 agents/a.py"))[0] == \
        "The .py files under agents/ have 150 lines in total."
    assert step(ran("Search agents/ for TODO comments.", GREP, "exit code 1"))[0] == \
        "Found 0 TODO comments under agents/."
