"""The fourth held-out set of issue 31 (tests/held_out_today_4.py, written during this round's rule changes by
someone who did not read the rules, and never used to tune them), through the real SDK, with the checks of
tests/test_held_out_today.py. A case the rules do not read is marked ``xfail(strict=True)`` with why: if it ever
starts to hold, the mark must go. ``test_how_many_hold`` records the count."""
from __future__ import annotations

import pytest

import held_out_today_4 as held
from harness import assistant, build_summary_request, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.labs.scenarios import LONG_SESSION
from test_held_out_today import ANSWER, ASK, CANNOT, HISTORY, MODEL, create, run_tools, strings

S01 = held.S01
assert S01 in ASK
# the cases the rules do not read: (list, index) -> why
MISSES: dict[tuple[str, int], str] = {}


def cases(name: str, items: list) -> list:
    return [pytest.param(i, item, id=f"{name}-{i}", marks=[pytest.mark.xfail(strict=True, reason=MISSES[name, i])]
                         if (name, i) in MISSES else []) for i, item in enumerate(items)]


def execute_by_shape(tools: list[dict]):
    """Runs a held-out tool by the shape the test knows it has: one string (read, list, run), two (write),
    three (edit: path, old, new). A list tool whose parameter names a glob is run as ``ls`` on the pattern."""
    shapes = {t["name"]: t for t in tools}

    def execute(workspace, name, tool_input):
        tool = shapes[name]
        values = [tool_input[p] for p in strings(tool)]
        if tool in held.READ_TOOLS:
            return workspace.read_file(values[0])
        if tool in held.LIST_TOOLS:
            return workspace.bash(f"ls {values[0]}") if any("glob" in p for p in tool_input) else "\n".join(
                line.rsplit("/", 1)[-1] for line in workspace.list_files(values[0]).splitlines())
        if tool in held.RUN_TOOLS:
            return workspace.bash(values[0])
        if len(values) == 3:
            return workspace.edit_file(*values)
        return workspace.write_file(*values)
    return execute


@pytest.mark.parametrize("i, case", cases("SUMMARY_REQUESTS", held.SUMMARY_REQUESTS))
def test_held_out_summary_requests_get_a_summary(i, case):
    system, said = case
    kind, reply = create(HISTORY + [user(said)], system=system, tools=FILE_TOOLS)
    assert kind == "summary" and f"- User: {ASK}" in reply.content[0].text


@pytest.mark.parametrize("i, style", cases("TRANSCRIPT_STYLES", held.TRANSCRIPT_STYLES))
def test_held_out_transcript_styles_are_read(i, style):
    kind, reply = create([user(style.format(user=ASK, assistant=ANSWER))])
    assert kind == "summary"
    assert f"- User: {ASK}" in reply.content[0].text and f"- Found: {ANSWER}" in reply.content[0].text


@pytest.mark.parametrize("i, wrapper", cases("CONTINUATIONS", held.CONTINUATIONS))
def test_held_out_continuations_resume_the_pending_request(i, wrapper):
    request = build_summary_request([user(ASK)], model=MODEL, max_tokens=2_000, tail_chars=None)
    summary = FakeModel().client().messages.create(**request).content[0].text
    kind, reply = create([user(wrapper.format(summary=summary))], tools=FILE_TOOLS)
    assert kind == "agent" and [(b.type, b.input) for b in reply.content] == [("tool_use", {"path": S01})]


@pytest.mark.parametrize("i, tool", cases("READ_TOOLS", held.READ_TOOLS))
def test_held_out_read_tools_are_used_to_read(tmp_path, i, tool):
    answer, called = run_tools(LONG_SESSION.build(tmp_path), [user(ASK)], [tool], execute_by_shape([tool]))
    assert answer == ANSWER and called == [tool["name"]]


@pytest.mark.parametrize("i, pair", cases("EDIT_TOOLS", held.EDIT_TOOLS))
def test_held_out_edit_tools_are_used_to_edit(tmp_path, i, pair):
    workspace = LONG_SESSION.build(tmp_path)
    edit = 'In agents/s03_todo_write.py, change VERSION_TAG to "v4-held".'
    answer, called = run_tools(workspace, [user(edit)], list(pair), execute_by_shape(list(pair)))
    assert answer == 'Changed VERSION_TAG in agents/s03_todo_write.py to "v4-held".'
    assert 'VERSION_TAG = "v4-held"' in (workspace.root / "agents/s03_todo_write.py").read_text()


@pytest.mark.parametrize("i, tool", cases("LIST_TOOLS", held.LIST_TOOLS))
def test_held_out_list_tools_are_used_to_list(tmp_path, i, tool):
    tools = [tool, held.READ_TOOLS[0]]
    answer, called = run_tools(LONG_SESSION.build(tmp_path), [user(LONG_SESSION.requests[0])], tools,
                               execute_by_shape(tools))
    assert called[0] == tool["name"] and "What each file under agents/ does:" in answer
    assert answer.count("\n- agents/") == 12


@pytest.mark.parametrize("i, tool", cases("RUN_TOOLS", held.RUN_TOOLS))
def test_held_out_run_tools_are_used_to_run(tmp_path, i, tool):
    answer, called = run_tools(LONG_SESSION.build(tmp_path), [user("Count the lines of every .py file under agents/.")],
                               [tool], execute_by_shape([tool]))
    assert answer == "The .py files under agents/ have 1833 lines in total." and called == [tool["name"]]


@pytest.mark.parametrize("i, greeting", cases("GREETINGS", held.GREETINGS))
def test_held_out_greetings_get_a_greeting(i, greeting):
    kind, reply = create([user(greeting)], tools=FILE_TOOLS)
    assert kind == "agent" and [b.type for b in reply.content] == ["text"] and reply.content[0].text != CANNOT


@pytest.mark.parametrize("i, rule", cases("RULES", held.RULES))
def test_held_out_rules_are_kept_and_quoted(i, rule):
    _, ack = create([user(rule)], tools=FILE_TOOLS)
    said = [user(rule), assistant(ack.content[0].text)]
    _, told = create(said + [user("What did I tell you about tools/?")], tools=FILE_TOOLS)
    _, edit = create(said + [user('In tools/t03_edit.py, change VERSION_TAG to "v3-x".')], tools=FILE_TOOLS)
    assert told.content[0].text == f'You told me: "{rule}"'
    assert edit.content[0].text.startswith("I will not change tools/t03_edit.py")


@pytest.mark.parametrize("i, question", cases("FROM_MEMORY", held.FROM_MEMORY))
def test_held_out_from_memory_answers_from_what_is_visible(i, question):
    _, reply = create(HISTORY + [user(question)], tools=FILE_TOOLS)
    assert [b.type for b in reply.content] == ["text"] and '"v1-agent"' in reply.content[0].text


@pytest.mark.parametrize("i, task", cases("NOT_SUMMARIES", held.NOT_SUMMARIES))
def test_held_out_file_summaries_stay_tasks(i, task):
    assert create(HISTORY + [user(task)], tools=FILE_TOOLS)[0] == "agent"


def test_how_many_hold():
    total = sum(len(getattr(held, name)) for name in ("SUMMARY_REQUESTS", "TRANSCRIPT_STYLES", "CONTINUATIONS",
                                                        "READ_TOOLS", "EDIT_TOOLS", "LIST_TOOLS", "RUN_TOOLS",
                                                        "GREETINGS", "RULES", "FROM_MEMORY", "NOT_SUMMARIES"))
    assert total == 60
