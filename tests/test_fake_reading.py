"""The fake reads instructions by meaning, as a student would write them (harness/fake/reading.py, chapter 00).

Every phrasing goes through the real SDK where a request is involved. The phrasings the rule was written
from are in the first tests; ``HELD_OUT_*`` were written before the rule and are tested only at the end."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import SUMMARY_PROMPT, Workspace, assistant, build_summary_request, tool_result, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.reading import (ASK_TAG, COUNT, EDIT, FIRST_CHANGE, INSTRUCTION, READ_ALL, RECALL_RULE, RECALL_TAG,
                                  REQUEST_KINDS, SAVE, SEARCH, asks_for_summary, request_kind)
from harness.fake.interpretation import is_summary_request
from harness.labs.scenarios import LONG_SESSION

MODEL = "claude-haiku-4-5"
CANNOT = "I do not know how to do that in this workspace."
S01 = "agents/s01_agent_loop.py"
HISTORY = [user("From now on, never edit anything under tools/; it is vendored code."),
           assistant("Understood. From now on, never edit anything under tools/; it is vendored code."),
           user(f"What is VERSION_TAG in {S01}?"), assistant(f'VERSION_TAG in {S01} is "v1-agent".')]


def ask(messages, system=None, tools=FILE_TOOLS, model=None):
    model = model or FakeModel()
    options = {**({"tools": tools} if tools else {}), **({"system": system} if system else {})}
    reply = model.client().messages.create(model=MODEL, max_tokens=4_000, messages=messages, **options)
    return model.requests[-1], reply


# --- summary requests, in other words ----------------------------------------------------------

SUMMARY_ASKS = [
    "Summarise what we've done so far.",
    "Write a handoff note for whoever continues this session.",
    "summarize our chat",
    "give me a recap of what we did",
    "condense the conversation above",
    "Write a handover for whoever picks this up.",
    "compress the history below into notes",
    "what have we done so far? summarise it",
    "TL;DR of this session",
    "Summarise.",
    "Please give me a summary of our progress",
    "Could you sum up the discussion so far?",
    "Summarise the conversation in the system prompt.",
]
NOT_SUMMARIES = [
    "Summarise what each file under agents/ does.",
    "give me a summary of a.py",
    "summarise the history of a.py",
    "Read every .py file under agents/ and summarise what each does.",
    "Please summarise the project.",
    "Tell me about the conversation feature, then summarise it.",
    "You can compact the conversation with the compact tool. What is VERSION_TAG in agents/s01_agent_loop.py?",
]


@pytest.mark.parametrize("instruction", SUMMARY_ASKS)
def test_a_summary_asked_in_other_words_is_a_summary_with_or_without_tools(instruction):
    for tools in (FILE_TOOLS, None):
        kind, reply = ask(HISTORY + [user(instruction)], tools=tools)
        summary = reply.content[0].text
        assert kind == "summary" and f"- User: {HISTORY[2]['content']}" in summary, (instruction, summary)
        assert f"- Finished: {HISTORY[2]['content']}" in summary


@pytest.mark.parametrize("instruction", NOT_SUMMARIES)
def test_a_task_about_a_file_or_code_stays_a_task(instruction):
    kind, reply = ask([user(instruction)])
    assert kind == "agent"
    assert not (reply.content[0].type == "text" and reply.content[0].text.startswith("1. What was accomplished"))


def test_the_conversation_in_the_system_prompt_with_a_one_line_instruction_is_summarised():
    transcript = "\n".join(f"{m['role'].title()}: {m['content']}" for m in HISTORY)
    in_system = "Summarise the conversation in the system prompt."
    for system, go in [("You summarise conversations.\n\n" + transcript, "Go."),
                       ("You summarise conversations.\n\n" + transcript, in_system),
                       ("Here is a conversation:\n\n" + transcript, in_system)]:
        kind, reply = ask([user(go)], system=system)
        assert kind == "summary", (system, go)
        assert f"- User: {HISTORY[2]['content']}" in reply.content[0].text
        assert f"- Finished: {HISTORY[2]['content']}" in reply.content[0].text


@pytest.mark.parametrize("system", [
    "You are a coding agent. You can compact your context with the compact tool.",
    "You are a coding agent. When the conversation gets long, call the compact tool to compress history.",
    "You are a careful coding agent working in a small repository.",
])
def test_a_system_prompt_that_describes_the_agent_is_no_summary_request(system):
    assert ask([user("Go.")], system=system)[0] == "agent"
    kind, reply = ask([user(f"What's the VERSION_TAG in {S01}?")], system=system)
    assert kind == "agent" and reply.content[0].name == "read_file"


def test_a_system_that_summarises_does_not_turn_a_task_or_a_tool_turn_into_a_summary():
    system = "You summarise conversations."
    assert ask([user(f"What is VERSION_TAG in {S01}?")], system=system)[0] == "agent"
    first = ask([user(f"What is VERSION_TAG in {S01}?")])[1].content[0]
    call = first.model_dump(include={"type", "id", "name", "input"})
    mid_task = [user(f"What is VERSION_TAG in {S01}?"), assistant([call]), user([tool_result(first.id, "no such file")])]
    assert ask(mid_task, system=system)[0] == "agent"


def test_the_course_summary_requests_are_still_summary_requests():
    request = build_summary_request(HISTORY, model=MODEL, max_tokens=2_000, tail_chars=None, prompt=SUMMARY_PROMPT)
    assert is_summary_request(request)
    compressed = "[Conversation compressed. Transcript: t.jsonl]\n\n1. What was accomplished:\n- nothing recorded"
    assert not asks_for_summary(compressed)  # a past form states, it does not ask


VERBS = ["summarise", "summarize", "sum up", "recap", "condense", "compress", "give me a summary of",
         "write a recap of", "give me a TL;DR of", "write a handoff note about", "give me the gist of"]
OBJECTS = ["the conversation", "our chat so far", "everything above", "what we have done so far", "the messages above",
           "this session", "the whole transcript", "our progress", "what happened", "the discussion below"]
POLITE = ["", "please ", "could you ", "can you please ", "I'd like you to ", "now "]
TAILS = ["", " so far", " for the next engineer", " in five lines", " so that someone else can continue"]
PUNCTUATION = ["", ".", "?", "!", " please."]
CASES = [str, str.lower, str.upper, str.capitalize]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(POLITE), st.sampled_from(VERBS), st.sampled_from(OBJECTS), st.sampled_from(TAILS),
       st.sampled_from(PUNCTUATION), st.sampled_from(CASES))
def test_any_composed_summary_ask_is_a_summary(polite, verb, obj, tail, punctuation, case):
    assert asks_for_summary(case(f"{polite}{verb} {obj}{tail}{punctuation}"))


FILE_OBJECTS = [S01, "the README", "each file under core/", "the code in tools/", "the history of core/c01_config.py",
                "what every module in plugins/ does", "the project", "agents/"]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(POLITE), st.sampled_from(VERBS), st.sampled_from(FILE_OBJECTS),
       st.sampled_from(PUNCTUATION), st.sampled_from(CASES))
def test_any_composed_summary_of_a_file_or_code_is_a_task(polite, verb, obj, punctuation, case):
    assert not asks_for_summary(case(f"{polite}{verb} {obj}{punctuation}"))


# --- the agent's requests, in the forms a person types -----------------------------------------

COURSE = {
    "ask": f"What is VERSION_TAG in {S01}?",
    "edit": 'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".',
    "count": "Count the lines of every .py file under agents/.",
    "search": "Search agents/ for TODO comments.",
    "read": "Read every .py file under agents/ and summarise what each does.",
}
VARIANTS = [
    ("ask", f"what's the version tag in {S01}"), ("ask", f"Tell me VERSION_TAG of {S01}"),
    ("ask", f"What's the VERSION_TAG in {S01}?"), ("ask", f"could you tell me the `VERSION_TAG` in {S01}, please?"),
    ("edit", "set VERSION_TAG in agents/s03_todo_write.py to 'v3-planning'"),
    ("edit", "Please update the version tag of agents/s03_todo_write.py to v3-planning."),
    ("edit", 'change VERSION_TAG to "v3-planning" in agents/s03_todo_write.py'),
    ("count", "Please count the lines in every .py file in agents"),
    ("count", "How many lines of code are there in the agents folder?"),
    ("search", "Find TODOs in agents/"), ("search", "grep agents for TODO comments"),
    ("search", "are there any todos in agents/?"),
    ("read", "read all the python files in agents and tell me what each one does"),
    ("read", "Summarise what each file under agents/ does."),
]


def run(workspace: Workspace, request: str) -> str:
    """Talk to the fake through the SDK, running its tool calls in ``workspace``: its final answer."""
    client, messages = FakeModel().client(), [user(request)]
    for _ in range(40):
        reply = client.messages.create(model=MODEL, max_tokens=8_000, messages=messages, tools=FILE_TOOLS)
        content = [b.model_dump(include={"type", "text", "id", "name", "input"}) for b in reply.content]
        messages.append(assistant(content))
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            return "\n".join(b["text"] for b in content)
        messages.append(user([tool_result(b["id"], getattr(workspace, b["name"])(**b["input"])) for b in uses]))
    raise AssertionError("the fake never ended its turn")


@pytest.mark.parametrize("kind, variant", VARIANTS, ids=[v for _, v in VARIANTS])
def test_a_request_in_a_persons_words_gets_the_course_phrasings_reply(tmp_path, kind, variant):
    course = run(LONG_SESSION.build(tmp_path / "a"), COURSE[kind])
    assert course != CANNOT
    assert run(LONG_SESSION.build(tmp_path / "b"), variant) == course


@pytest.mark.parametrize("request_text", ["Tell me a joke.", "Deploy the app to production.",
                                          "Condense agents/s01_agent_loop.py into fewer lines."])
def test_a_request_the_agent_cannot_do_gets_an_honest_cannot(request_text):
    kind, reply = ask([user(request_text)])
    assert kind == "agent" and [b.text for b in reply.content] == [CANNOT]


def test_every_request_of_the_long_session_reads_as_the_same_kind_with_the_same_arguments():
    """The course's own phrasings: one kind each, and the arguments the exact old patterns captured."""
    kinds = {READ_ALL: "read", EDIT: "edit", RECALL_TAG: "recall", ASK_TAG: "ask", COUNT: "count",
             SEARCH: "search", FIRST_CHANGE: "first", RECALL_RULE: "rule", INSTRUCTION: "rule-set", SAVE: "save"}
    seen = {kinds[request_kind(r)[0]] for r in LONG_SESSION.requests}
    assert seen == {"read", "edit", "ask", "count", "search", "first", "rule", "rule-set"}
    assert request_kind('In core/c06_storage.py, change VERSION_TAG to "v6-append-only".')[1] == \
        {"path": "core/c06_storage.py", "value": "v6-append-only"}
    assert request_kind("Search plugins/ for TODO comments.")[1] == {"folder": "plugins"}
    assert request_kind("What did I tell you about tools/?")[1] == {"folder": "tools"}
    assert request_kind("From now on, never edit anything under tools/; it is vendored code.")[1] == \
        {"rule": "never edit anything under tools/; it is vendored code."}
    assert request_kind("Without opening any file: what is VERSION_TAG in core/c01_config.py now?")[0] is RECALL_TAG
    assert request_kind("Save what you have learned to memory before the context is compacted.")[0] is SAVE


OPENERS = ["What is", "What's", "what's the", "Tell me", "Could you tell me", "Please tell me", "Show me",
           "Give me", "Which value has"]
TAGS = ["VERSION_TAG", "the VERSION_TAG", "version tag", "`VERSION_TAG`", "Version-Tag"]
PATHS = [S01, "core/c06_storage.py", "plugins/p05_cache.py"]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(OPENERS), st.sampled_from(TAGS), st.sampled_from(["in", "of", "from", "for"]),
       st.sampled_from(PATHS), st.sampled_from(["", "?", ".", " please?"]), st.sampled_from(CASES[:3]))
def test_any_composed_tag_question_asks_for_that_files_tag(opener, tag, preposition, path, punctuation, case):
    said = case(f"{opener} {tag} {preposition} {path}{punctuation}")
    pattern, arguments = request_kind(said)
    assert pattern is ASK_TAG and arguments == {"path": case(path)}


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["", "Please ", "Could you "]), st.sampled_from(["change", "set", "update", "bump"]),
       st.sampled_from(TAGS), st.sampled_from(PATHS), st.sampled_from(['"v2-x"', "'v2-x'", "`v2-x`", "v2-x"]),
       st.booleans(), st.sampled_from(["", ".", "!"]))
def test_any_composed_edit_sets_that_value_in_that_file(polite, verb, tag, path, value, path_first, punctuation):
    said = (f"{polite}{verb} {tag} in {path} to {value}{punctuation}" if path_first
            else f"{polite}{verb} {tag} to {value} in {path}{punctuation}")
    pattern, arguments = request_kind(said)
    assert pattern is EDIT and arguments == {"path": path, "value": "v2-x"}


# --- held out: written before the rule, tested only once it was done ---------------------------

HELD_OUT_SUMMARIES = [
    "Can you sum up where we are?", "recap please", "Give me a quick rundown of what we've covered so far.",
    "Before we stop, write up a handover summary for the next person.",
    "Condense everything above into a short brief.", "tl;dr?",
    "Please compress our discussion into a few bullet points",
    "Could you give me the gist of this thread?", "Summarize the messages above, please!",
    "Hand this session off: write notes so someone else can continue.",
    "What happened so far? Summarise it for me.", "Make a summary of our work until now.",
    "Catch me up on what we did.",
]
HELD_OUT_TASKS = [
    "Summarise the README for me.", "Give me a summary of core/c01_config.py.",
    "Summarise what the functions in tools/t01_read.py do.", "Condense agents/s01_agent_loop.py into fewer lines.",
    "Tell me a joke.", "Summarise the project's architecture.", "Recap the history of core/c06_storage.py.",
]
HELD_OUT_REQUESTS = {
    "what's VERSION_TAG in agents/s02_tool_use.py": "What is VERSION_TAG in agents/s02_tool_use.py?",
    "Could you tell me the version tag of core/c01_config.py?": "What is VERSION_TAG in core/c01_config.py?",
    "VERSION_TAG of tools/t03_edit.py?": "What is VERSION_TAG in tools/t03_edit.py?",
    "please update the VERSION_TAG in agents/s03_todo_write.py to v3-planning":
        'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".',
    "Change agents/s03_todo_write.py's version tag to `v3-planning`.":
        'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".',
    "How many lines of code are in core/?": "Count the lines of every .py file under core/.",
    "any TODO comments in the plugins folder?": "Search plugins/ for TODO comments.",
    "Go through all the .py files in tools and tell me what each one does.":
        "Read every .py file under tools/ and summarise what each does.",
}


@pytest.mark.parametrize("instruction", HELD_OUT_SUMMARIES)
def test_held_out_summary_asks_are_summaries(instruction):
    assert ask(HISTORY + [user(instruction)])[0] == "summary"


@pytest.mark.parametrize("instruction", HELD_OUT_TASKS)
def test_held_out_tasks_are_tasks(instruction):
    assert ask([user(instruction)])[0] == "agent"


@pytest.mark.parametrize("variant", list(HELD_OUT_REQUESTS))
def test_held_out_requests_get_the_course_phrasings_reply(tmp_path, variant):
    assert run(LONG_SESSION.build(tmp_path / "b"), variant) == \
        run(LONG_SESSION.build(tmp_path / "a"), HELD_OUT_REQUESTS[variant])


@pytest.mark.parametrize("edit", ["set the version tag in agents/s03_todo_write.py to 'v3-typed'",
                                  "Please update VERSION_TAG in agents/s03_todo_write.py to v3-typed",
                                  'In agents/s03_todo_write.py, change VERSION_TAG to "v3-typed".'])
def test_a_recall_answers_from_an_edit_asked_in_any_form(edit):
    """Without the file in view, the agent answers from the latest request that set the tag, whatever its words."""
    messages = [user(edit), assistant("Done."), user("Without opening any file: what is VERSION_TAG in "
                                                     "agents/s03_todo_write.py now?")]
    _, reply = ask(messages)
    assert reply.content[0].text == 'As far as I can see, VERSION_TAG in agents/s03_todo_write.py is "v3-typed".'


def test_a_call_that_failed_is_not_made_again_in_the_same_task():
    """A model that saw a call fail does not send the same call again: it says what failed and stops."""
    request = "Read every .py file under nowhere/ and summarise what each does."
    messages = [user(request), assistant([{"type": "tool_use", "id": "toolu_1", "name": "list_files",
                                           "input": {"path": "nowhere"}}]),
                user([tool_result("toolu_1", "Error: nowhere: no such file or directory", is_error=True)])]
    _, reply = ask(messages)
    assert reply.stop_reason == "end_turn" and [b.type for b in reply.content] == ["text"]
    assert reply.content[0].text == ("list_files failed: Error: nowhere: no such file or directory "
                                     "I cannot finish this request.")
    _, first = ask(messages[:1])  # the first try is made
    assert first.content[-1].type == "tool_use" and first.content[-1].input == {"path": "nowhere"}


def test_a_summary_cut_after_its_first_heading_is_a_summary_not_a_request():
    """A summary reply cut by its budget before "2. Current state" names no request: the agent says it lost
    track instead of reading the summary's words (file names, "read") as a task."""
    cut = ("[Conversation compressed. Transcript: grid/transcripts/transcript_0001.jsonl]\n\n"
           "1. What was accomplished:\n- read: agents/s01_agent_loop.py\nNote: agents/s01_agent_loop.py — runs every"
           " loop\n2. Current state:\n-")
    _, reply = ask([user(cut)])
    assert reply.content[0].text == "I have lost track of the current request. What should I do next?"


def test_a_long_dense_text_is_read_in_linear_time():
    """A hang guard, not a timing: 40,000 request-like words used to take minutes in the edit rule (three
    unbounded gaps); with bounded gaps every rule reads it at once. The alarm only stops a regression."""
    import random
    import signal

    rng = random.Random(1)
    words = ["change", "the", "version tag", "to", "in", "agents/", "a.py", "set", "every", "read", "lines",
             "count", "todo", "what", "=", "save", "memory", "summarise"]
    text = " ".join(rng.choice(words) for _ in range(40_000))
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("a request rule backtracks")))
    signal.alarm(20)
    try:
        for kind in REQUEST_KINDS:
            kind.search(text)
        assert EDIT.search(text + '\nIn agents/a.py, change VERSION_TAG to "v9".') is not None
    finally:
        signal.alarm(0)
