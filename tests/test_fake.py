"""The offline fake of Claude behind the real SDK (harness/fake/, chapter 00)."""
from __future__ import annotations

import re

import anthropic
import pytest

from harness import (CompactionConfig, assistant, build_summary_request, count_tokens, exact_tokens,
                     placeholder, summarise, text, tool_result, tool_use, user)
from harness.core.messages import InvalidHistory, validate_messages
from harness.core.tokens import block_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel, fake_client
from harness.fake.agent import decide
from harness.fake.tool_roles import offered
from harness.fake.view import build_view
from harness.labs.scenarios import AGENT_FILES, python_module

MODEL = "claude-haiku-4-5"
S01 = python_module("s01_agent_loop", AGENT_FILES["s01_agent_loop"], 1)
ASK_S01 = "What is VERSION_TAG in agents/s01_agent_loop.py?"
OFFERED = offered({"tools": FILE_TOOLS})


def reply(messages, model=None, **kwargs):
    client = (model or FakeModel()).client()
    return client.messages.create(model=MODEL, max_tokens=100, messages=messages, **kwargs)


def read_round(content: str) -> list[dict]:
    return [user(ASK_S01), assistant([tool_use("r1", "read_file", {"path": "agents/s01_agent_loop.py"})]),
            user([tool_result("r1", content)])]


# --- the wire ---------------------------------------------------------------------


def test_reply_is_a_real_sdk_message_with_usage_counted_from_the_request():
    messages = read_round(S01)
    model = FakeModel()
    message = reply(messages, model, system="You are terse.", tools=FILE_TOOLS)
    assert isinstance(message, anthropic.types.Message)
    assert message.role == "assistant" and message.model == MODEL
    assert message.stop_reason == "end_turn"
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    assert message.usage.input_tokens == count_tokens(messages, system="You are terse.", tools=FILE_TOOLS)
    assert message.usage.output_tokens == block_tokens(text(message.content[0].text))
    assert model.requests == ["agent"]


def test_a_tool_call_comes_back_as_a_tool_use_block():
    message = reply([user(ASK_S01)], tools=FILE_TOOLS)
    assert message.stop_reason == "tool_use"
    [block] = message.content
    assert (block.type, block.name, block.input) == ("tool_use", "read_file", {"path": "agents/s01_agent_loop.py"})
    assert block.id.startswith("toolu_")


BROKEN = {
    "unanswered tool_use": ([user("a"), assistant([tool_use("t1", "bash", {"command": "ls"})]), user("b")],
                            "tool_use_answered", 1, "t1"),
    "result after text": ([user("a"), assistant([tool_use("t1", "bash", {"command": "ls"})]),
                           user([text("b"), tool_result("t1", "x")])], "tool_results_first", 2, "t1"),
    "result answers nothing": ([user("a"), assistant("b"), user([tool_result("t7", "x")])],
                               "tool_result_answers_previous", 2, "t7"),
    "duplicate id": ([user("a"), assistant([tool_use("d", "bash", {})]), user([tool_result("d", "x")]),
                      assistant([tool_use("d", "bash", {})]), user([tool_result("d", "y")])],
                     "unique_tool_use_id", 3, "d"),
    "ends with assistant": ([user("a"), assistant("b")], "ends_with_user", 1, None),
    "empty content": ([user("a"), assistant(""), user("c")], "non_empty_content", 1, None),
    "system role": ([{"role": "system", "content": "a"}, user("b")], "role", 0, None),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_broken_histories_get_http_400_naming_the_violation(case):
    messages, rule, index, tool_id = BROKEN[case]
    model = FakeModel()
    with pytest.raises(anthropic.BadRequestError) as info:
        reply(messages, model)
    error = info.value
    assert error.status_code == 400
    assert error.body["error"]["type"] == "invalid_request_error"
    message = error.body["error"]["message"]
    with pytest.raises(InvalidHistory) as raised:  # our rule, where and tool id: on core's error, not the 400's
        validate_messages(messages)
    assert (raised.value.rule, raised.value.index, raised.value.tool_id) == (rule, index, tool_id)
    assert message == raised.value.api_message  # the API's own wording, nothing after it
    if tool_id:
        assert tool_id in message
    assert model.requests == []  # rejected before the model ran
    with pytest.raises(anthropic.BadRequestError) as counted:  # the count endpoint checks too
        model.client().messages.count_tokens(model=MODEL, messages=messages)
    assert counted.value.body["error"]["message"] == message


def test_tools_without_a_schema_are_refused():
    with pytest.raises(anthropic.BadRequestError, match=r"tools\.1\.custom\.input_schema: Field required"):
        reply([user("hi")], tools=[FILE_TOOLS[0], {"name": "broken"}])


def test_same_request_same_bytes():
    messages = read_round(S01)
    first = FakeModel().client().messages.with_raw_response.create(
        model=MODEL, max_tokens=100, messages=messages, tools=FILE_TOOLS)
    client = FakeModel().client()
    again = [client.messages.with_raw_response.create(model=MODEL, max_tokens=100, messages=messages,
                                                      tools=FILE_TOOLS) for _ in range(2)]
    assert first.http_response.content == again[0].http_response.content == again[1].http_response.content
    other = client.messages.with_raw_response.create(model=MODEL, max_tokens=100, messages=[user(ASK_S01)],
                                                     tools=FILE_TOOLS)
    assert other.parse().id != first.parse().id


def test_count_tokens_endpoint_matches_the_offline_count():
    messages = read_round(S01)
    model = FakeModel()
    client = model.client()
    counted = client.messages.count_tokens(model=MODEL, messages=messages, system="sys", tools=FILE_TOOLS)
    assert counted.input_tokens == count_tokens(messages, system="sys", tools=FILE_TOOLS)
    assert exact_tokens(client, messages, model=MODEL) == count_tokens(messages)
    assert model.requests == ["count", "count"]


# --- summaries --------------------------------------------------------------------

RULE = "From now on, never edit anything under tools/; it is vendored code."


def rule_then_reading(files: int = 8) -> list[dict]:
    """An early instruction, then a long reading task (the instruction is far from the tail)."""
    messages = [user(RULE), assistant("Understood. From now on, never edit anything under tools/; it is vendored code."),
                user("Read every .py file under agents/ and summarise what each does.")]
    for n, (stem, purpose) in enumerate(list(AGENT_FILES.items())[:files], start=1):
        path = f"agents/{stem}.py"
        messages.append(assistant([text(f"Note: {path} — {purpose}"), tool_use(f"r{n}", "read_file", {"path": path})]))
        messages.append(user([tool_result(f"r{n}", python_module(stem, purpose, n))]))
    return messages


def test_summary_keeps_what_the_tail_holds():
    history = rule_then_reading()
    config = CompactionConfig(tail_chars=1_000_000)
    summary, usage = summarise(fake_client(), history, config)
    assert f"- User: {RULE}" in summary
    assert "- Decision: Understood. From now on, never edit anything under tools/; it is vendored code." in summary
    assert "Note: agents/s01_agent_loop.py — runs the basic agent loop" in summary
    assert "- read: agents/s08_background_tasks.py" in summary


def test_summary_loses_what_the_tail_cut_off():
    history = rule_then_reading()
    config = CompactionConfig(tail_chars=20_000)
    request_text = build_summary_request(history, tail_chars=20_000, model=MODEL, max_tokens=10)["messages"][0]["content"]
    assert "tools/" not in request_text  # the setup: the rule is outside the tail
    summary, _ = summarise(fake_client(), history, config)
    assert "tools/" not in summary and "Understood" not in summary
    assert "Note: agents/s08_background_tasks.py" in summary  # the recent part survives
    assert "Note: agents/s01_agent_loop.py" not in summary


@pytest.mark.parametrize("tail_chars", [3_000, 20_000, 60_000, 1_000_000])
def test_summary_contains_only_what_the_request_contains(tail_chars):
    history = rule_then_reading()
    request_text = build_summary_request(history, tail_chars=tail_chars, model=MODEL,
                                         max_tokens=10)["messages"][0]["content"]
    summary, _ = summarise(fake_client(), history, CompactionConfig(tail_chars=tail_chars))
    facts = re.findall(r"^(?:- User: |- Decision: |Note: |- (?:read|edited): )(.+)$", summary, re.MULTILINE)
    assert bool(facts) == (tail_chars > 3_000)  # 3,000 characters hold no whole message
    for fact in facts:
        assert fact in request_text


def test_summary_failures_on_purpose():
    model = FakeModel(fail_summaries=2)
    client = model.client()
    request = build_summary_request(rule_then_reading(2), tail_chars=10_000, model=MODEL, max_tokens=50)
    for _ in range(2):
        with pytest.raises(anthropic.InternalServerError):
            client.messages.create(**request)
    assert client.messages.create(**request).content[0].text.startswith("1. What was accomplished:")
    assert model.requests == ["summary"] * 3

    empty = fake_client(empty_summaries=True).messages.create(**request)
    assert empty.content == [] and empty.stop_reason == "end_turn" and empty.usage.output_tokens == 0


def test_a_summary_request_is_read_from_its_instruction_not_from_tools_or_a_word():
    model = FakeModel()
    reply([user("Please summarise the project.")], model, tools=FILE_TOOLS)
    reply([user("Please summarise the project.")], model)
    reply([user("Summarise the conversation so far.")], model, tools=FILE_TOOLS)
    assert model.requests == ["agent", "agent", "summary"]


# --- the fake agent: a pure function of what it sees ------------------------------------------


def test_agent_reads_again_when_the_content_is_a_placeholder():
    assert decide(build_view(read_round(S01)), OFFERED).say == \
        'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    action = decide(build_view(read_round(placeholder("read_file"))), OFFERED)
    assert (action.tool, action.tool_input) == ("read_file", {"path": "agents/s01_agent_loop.py"})


STAND_INS = [placeholder("read_file"), "[tool result cleared]", "[Old tool result content cleared]",
             "Output removed to save space.", "(content elided)", ""]


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_a_read_replaced_by_any_wording_is_read_again(stand_in):
    action = decide(build_view(read_round(stand_in)), OFFERED)
    assert (action.tool, action.tool_input) == ("read_file", {"path": "agents/s01_agent_loop.py"})


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_through_the_sdk_a_hidden_read_is_read_again_and_a_visible_one_answered(stand_in):
    hidden = reply(read_round(stand_in), tools=FILE_TOOLS)
    assert [(b.type, b.name, b.input) for b in hidden.content if b.type == "tool_use"] == \
        [("tool_use", "read_file", {"path": "agents/s01_agent_loop.py"})]
    shown = reply(read_round(S01), tools=FILE_TOOLS)
    assert shown.stop_reason == "end_turn" and shown.content[0].text == \
        'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'


def test_a_read_cut_short_before_the_module_shows_is_read_again():
    action = decide(build_view(read_round(S01[:10] + "\n... (output truncated)")), OFFERED)
    assert action.tool == "read_file"


def command_round(task: str, command: str, output: str) -> list[dict]:
    return [user(task), assistant([tool_use("b1", "bash", {"command": command})]), user([tool_result("b1", output)])]


COUNT_TASK, COUNT_COMMAND = "Count the lines of every .py file under core/.", "wc -l core/*.py"
SEARCH_TASK, SEARCH_COMMAND = "Search core/ for TODO comments.", "grep -n TODO core/*.py"


@pytest.mark.parametrize("stand_in", STAND_INS)
@pytest.mark.parametrize("task, command", [(COUNT_TASK, COUNT_COMMAND), (SEARCH_TASK, SEARCH_COMMAND)])
def test_a_command_output_replaced_by_any_wording_is_run_again(task, command, stand_in):
    action = decide(build_view(command_round(task, command, stand_in)), OFFERED)
    assert (action.tool, action.tool_input) == ("bash", {"command": command})


@pytest.mark.parametrize("task, command, output, answer", [
    (COUNT_TASK, COUNT_COMMAND, "  150 core/a.py\n  160 core/b.py\n  310 total", "have 310 lines in total"),
    (SEARCH_TASK, SEARCH_COMMAND, "core/a.py:12:# TODO: retry\ncore/b.py:3:# TODO: log", "Found 2 TODO"),
    (SEARCH_TASK, SEARCH_COMMAND, "exit code 1", "Found 0 TODO"),
])
def test_a_command_output_that_shows_its_facts_is_used(task, command, output, answer):
    assert answer in decide(build_view(command_round(task, command, output)), OFFERED).say


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_a_listing_replaced_by_any_wording_is_listed_again(stand_in):
    task = "Read every .py file under core/ and summarise what each does."
    messages = [user(task), assistant([tool_use("l1", "list_files", {"path": "core"})]),
                user([tool_result("l1", stand_in)])]
    action = decide(build_view(messages), OFFERED)
    assert (action.tool, action.tool_input) == ("list_files", {"path": "core"})


def test_facts_are_used_wherever_they_are_visible():
    paste = [user("Here is the file:\n" + S01), assistant("Thanks."), user(ASK_S01)]
    assert decide(build_view(paste), OFFERED).say == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    edited = paste[:2] + [user('In agents/s01_agent_loop.py, change VERSION_TAG to "v9".'), assistant([tool_use(
        "e1", "edit_file", {"path": "agents/s01_agent_loop.py", "old_text": "a", "new_text": "b"})]),
        user([tool_result("e1", "Edited agents/s01_agent_loop.py")]), assistant("Done."), user(ASK_S01)]
    assert decide(build_view(edited), OFFERED).tool == "read_file"  # the paste is stale after an edit
    cat = [user(ASK_S01), assistant([tool_use("c1", "bash", {"command": "cat agents/s01_agent_loop.py"})]),
           user([tool_result("c1", S01)])]
    assert decide(build_view(cat), OFFERED).say == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'


def test_agent_answers_recall_questions_only_from_visible_text():
    asked = [user('In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".'),
             assistant('Changed VERSION_TAG in agents/s03_todo_write.py to "v3-planning".')]
    question = user("Which file did I first ask you to change?")
    assert decide(build_view(asked + [question]), OFFERED).say == \
        "The first file you asked me to change was agents/s03_todo_write.py."
    assert decide(build_view([question]), OFFERED).say == \
        "I can no longer see which file you first asked me to change."


RECALL_S01 = "Without opening any file: what is VERSION_TAG in agents/s01_agent_loop.py now?"
NOTHING_SEEN = "I can no longer see anything about VERSION_TAG in agents/s01_agent_loop.py."


@pytest.mark.parametrize("seen, says", [
    (read_round(S01), 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'),  # a fresh read
    (read_round(placeholder("read_file")) + [assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".')],
     'As far as I can see, VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'),  # its own answer
    ([user('In agents/s01_agent_loop.py, change VERSION_TAG to "v1-loop".'), assistant("Done.")],
     'As far as I can see, VERSION_TAG in agents/s01_agent_loop.py is "v1-loop".'),  # the user's request
    (read_round(S01) + [assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'),
                        user('In agents/s01_agent_loop.py, change VERSION_TAG to "v1-loop".'),
                        assistant([tool_use("e1", "edit_file", {"path": "agents/s01_agent_loop.py",
                                                                "old_text": "a", "new_text": "b"})]),
                        user([tool_result("e1", "Edited agents/s01_agent_loop.py")]),
                        assistant('Changed VERSION_TAG in agents/s01_agent_loop.py to "v1-loop".')],
     'As far as I can see, VERSION_TAG in agents/s01_agent_loop.py is "v1-loop".'),  # stale read: the latest said
    (read_round(placeholder("read_file")) + [assistant("Read it.")], NOTHING_SEEN),
    ([user('In agents/s02_tool_use.py, change VERSION_TAG to "v2-x".'), assistant("Done.")],
     NOTHING_SEEN),  # another file's tag
])
def test_a_tag_asked_from_memory_is_answered_from_what_is_visible_never_with_a_tool(seen, says):
    action = decide(build_view(seen + [user(RECALL_S01)]), OFFERED)
    assert (action.say, action.tool) == (says, None)


@pytest.mark.parametrize("policy, compacts", [("never", False), ("after_task", True), (10, True), (10_000, False)])
def test_compact_policy(policy, compacts):
    tools = FILE_TOOLS + [{"name": "compact", "input_schema": {"type": "object", "properties": {}}}]
    message = reply(read_round(S01), FakeModel(compact_policy=policy), tools=tools)
    names = [b.name for b in message.content if b.type == "tool_use"]
    assert names == (["compact"] if compacts else [])
    assert message.content[0].text == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    # mid-task (a tool to call) it never compacts, and without the tool offered it cannot
    assert [b.name for b in reply([user(ASK_S01)], FakeModel(compact_policy=policy), tools=tools).content] == \
        ["read_file"]
    assert all(b.type == "text" for b in reply(read_round(S01), FakeModel(compact_policy=policy),
                                               tools=FILE_TOOLS).content)
