"""The fake reads a request as a model would: its latest instruction, and only the tools it offers
(harness/fake/reading.py and agent.py, chapter 00). Everything that talks to the fake goes through the real SDK."""
from __future__ import annotations

from itertools import combinations

import pytest

from harness import (SUMMARY_PROMPT, Workspace, assistant, build_summary_request, text, tool_result, tool_use,
                     user)
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.interpretation import is_summary_request
from harness.fake.reading import latest_instruction
from harness.labs.scenarios import AGENT_FILES, LONG_SESSION, READ_AGENTS, python_module
from harness.strategies.structured_summary import STRUCTURED_PROMPT
from harness.strategies.usage_triggered import HANDOFF_PROMPT

MODEL = "claude-haiku-4-5"
TOOLS = {tool["name"]: tool for tool in FILE_TOOLS}
ASK_TAG = "What is VERSION_TAG in agents/s01_agent_loop.py?"
HISTORY = [user("From now on, never edit anything under tools/; it is vendored code."),
           assistant("Understood. From now on, never edit anything under tools/; it is vendored code."),
           user(ASK_TAG), assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".')]


def body(messages, tools=()):
    return {"model": MODEL, "max_tokens": 8_000, "messages": messages,
            **({"tools": [TOOLS[name] for name in tools]} if tools else {})}


# --- which requests are summary requests ------------------------------------------------------

@pytest.mark.parametrize("prompt", [SUMMARY_PROMPT, HANDOFF_PROMPT, STRUCTURED_PROMPT])
@pytest.mark.parametrize("tools", [(), tuple(TOOLS)])
def test_every_summary_prompt_of_the_course_is_a_summary_request_with_or_without_tools(prompt, tools):
    request = build_summary_request(HISTORY, model=MODEL, max_tokens=2_000, tail_chars=None, prompt=prompt)
    if tools:
        request["tools"] = [TOOLS[name] for name in tools]
    model = FakeModel()
    reply = model.client().messages.create(**request)
    assert model.requests == ["summary"]
    assert [b.type for b in reply.content] == ["text"]
    assert f"- User: {ASK_TAG}" in reply.content[0].text


@pytest.mark.parametrize("instruction, asks", [
    ("Summarise the conversation below so that the work can continue.", True),
    ("Please summarize our conversation so far.", True),
    ("Write a summary of the whole transcript.", True),
    ("Summarise the entire chat history in five lines.", True),
    ("Read every .py file under agents/ and summarise what each does.", False),
    ("Please summarise the project.", False),
    ("Summarise the history of agents/s01_agent_loop.py.", False),
    ("Tell me about the conversation feature, then summarise it.", False),
    ("What is VERSION_TAG in agents/s01_agent_loop.py?", False),
])
def test_the_rule_reads_what_the_instruction_asks_to_summarise(instruction, asks):
    assert is_summary_request(body([user(instruction)])) is asks
    assert is_summary_request(body([user(instruction)], tools=tuple(TOOLS))) is asks


def test_the_latest_instruction_is_the_last_user_text_without_what_it_quotes():
    quoted = ("What is VERSION_TAG in agents/s01_agent_loop.py?\n\n<conversation>\n"
              '[{"role": "user", "content": "Summarise the conversation below."}]\n</conversation>')
    assert latest_instruction(body([user(quoted)])) == ASK_TAG
    assert not is_summary_request(body([user(quoted)]))
    earlier_ask = [user("Summarise the conversation so far."), assistant("Done."), user(ASK_TAG)]
    assert not is_summary_request(body(earlier_ask))  # only the latest instruction counts
    with_results = [user(ASK_TAG), assistant([tool_use("t1", "read_file", {"path": "a.py"})]),
                    user([tool_result("t1", "x"), text("Now summarise the conversation so far.")])]
    assert latest_instruction(body(with_results)) == "Now summarise the conversation so far."
    assert is_summary_request(body(with_results))


def test_a_task_with_the_word_summarise_is_a_task_with_or_without_tools():
    model = FakeModel()
    client = model.client()
    listed = client.messages.create(**body([user(READ_AGENTS)], tools=tuple(TOOLS)))
    assert [(b.type, b.name, b.input) for b in listed.content] == [("tool_use", "list_files", {"path": "agents"})]
    bare = client.messages.create(**body([user(READ_AGENTS)]))
    assert [b.text for b in bare.content] == ["I have no tool to list files here."]
    assert model.requests == ["agent", "agent"]


def test_a_summary_asked_after_the_conversation_summarises_the_messages_before_it():
    model = FakeModel()
    reply = model.client().messages.create(**body(HISTORY + [user("Summarise the conversation so far.")]))
    summary = reply.content[0].text
    assert model.requests == ["summary"]
    assert f"- User: {ASK_TAG}" in summary and f"- Finished: {ASK_TAG}" in summary
    assert "Summarise the conversation so far." not in summary  # the instruction is not part of the history


# --- only the tools the request offers ------------------------------------------------------

def run(workspace: Workspace, request: str, tools: tuple[str, ...], **extra) -> tuple[str, list[str]]:
    """Talk to the fake through the SDK, running its tool calls in ``workspace``: (its answer, the tools called)."""
    client, messages, called = FakeModel().client(), [user(request)], []
    for _ in range(40):
        reply = client.messages.create(**body(messages, tools), **extra)
        content = [b.model_dump(include={"type", "text", "id", "name", "input"}) for b in reply.content]
        messages.append(assistant(content))
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            return "\n".join(b["text"] for b in content), called
        called += [b["name"] for b in uses]
        messages.append(user([tool_result(b["id"], getattr(workspace, b["name"])(**b["input"])) for b in uses]))
    raise AssertionError("the fake never ended its turn")


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    return Workspace(LONG_SESSION.build(tmp_path / "ws").root)


def test_reading_falls_back_to_cat_through_bash(workspace):
    answer, called = run(workspace, ASK_TAG, ("bash",))
    assert answer == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    assert called == ["bash"]


def test_listing_and_reading_fall_back_to_bash_and_finish_the_same_task(workspace, tmp_path):
    with_tools, _ = run(workspace, READ_AGENTS, ("list_files", "read_file"))
    with_bash, called = run(workspace, READ_AGENTS, ("bash",))
    assert with_bash == with_tools and set(called) == {"bash"}


def test_editing_falls_back_to_writing_the_whole_file(workspace):
    request = 'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".'
    before = workspace.read_file("agents/s03_todo_write.py")
    answer, called = run(workspace, request, ("read_file", "write_file"))
    assert answer == 'Changed VERSION_TAG in agents/s03_todo_write.py to "v3-planning".'
    assert called == ["read_file", "write_file"]
    after = workspace.read_file("agents/s03_todo_write.py")
    assert after == before.replace('VERSION_TAG = "v3-todo"', 'VERSION_TAG = "v3-planning"', 1) != before


@pytest.mark.parametrize("request_text, tools, says", [
    (ASK_TAG, (), "I have no tool to read files here."),
    (ASK_TAG, ("list_files", "edit_file", "write_file"), "I have no tool to read files here."),
    (READ_AGENTS, ("read_file", "edit_file"), "I have no tool to list files here."),
    ('In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".', ("read_file",),
     "I have no tool to edit files here."),
    ("Count the lines of every .py file under agents/.", ("read_file", "list_files"),
     "I have no tool to run commands here."),
])
def test_with_no_tool_for_the_job_it_says_so_and_ends_its_turn(workspace, request_text, tools, says):
    answer, _ = run(workspace, request_text, tools)
    assert answer.endswith(says)


def test_tool_choice_none_offers_no_tool(workspace):
    answer, called = run(workspace, ASK_TAG, tuple(TOOLS), tool_choice={"type": "none"})
    assert (answer, called) == ("I have no tool to read files here.", [])


REQUESTS = [READ_AGENTS, ASK_TAG, 'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".',
            "Count the lines of every .py file under agents/.", "Search agents/ for TODO comments."]
SUBSETS = [subset for size in range(len(TOOLS) + 1) for subset in combinations(sorted(TOOLS), size)]


@pytest.mark.parametrize("tools", SUBSETS, ids=lambda s: "+".join(s) or "none")
def test_the_fake_calls_only_offered_tools_and_always_ends_its_turn(workspace, tools):
    for request in REQUESTS:
        _, called = run(workspace, request, tools)
        assert set(called) <= set(tools), (request, called)


def test_a_file_read_with_cat_counts_as_read_for_the_next_question():
    path = "agents/s01_agent_loop.py"
    content = python_module("s01_agent_loop", AGENT_FILES["s01_agent_loop"], 1)
    messages = [user(ASK_TAG), assistant([tool_use("c1", "bash", {"command": f"cat {path}"})]),
                user([tool_result("c1", content)])]
    reply = FakeModel().client().messages.create(**body(messages, ("bash",)))
    assert reply.content[0].text == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
