"""A model as they are today (issue 31): tools by what they do, summary requests as real systems send them,
summaries that keep what was found and what is pending, continuations, ordinary conversation
(harness/fake/tool_roles.py, reading.py, summarizer.py, conversation_forms.py, agent.py, chapter 00). Everything
that talks to the fake goes through the real SDK; the properties draw their variety with Hypothesis."""
from __future__ import annotations

import json
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import Workspace, assistant, build_summary_request, tool_result, tool_use, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.reading import is_rule
from harness.fake.summarizer import requested_layout, summarise_text
from harness.fake.tool_roles import describe_tool
from harness.labs.scenarios import AGENT_FILES, python_module

MODEL = "claude-haiku-4-5"
STEMS = list(AGENT_FILES)
TAGS = {f"agents/{stem}.py": f"v{i}-{stem.split('_', 1)[1].split('_')[0]}" for i, stem in enumerate(STEMS, start=1)}
S01 = "agents/s01_agent_loop.py"
ASK = f"What is VERSION_TAG in {S01}?"
ANSWER = f'VERSION_TAG in {S01} is "v1-agent".'
RULE = "From now on, never edit anything under tools/; it is vendored code."
LOST = "I have lost track of the current request. What should I do next?"
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def agents_workspace() -> Workspace:
    workspace = Workspace(tempfile.mkdtemp())
    for i, stem in enumerate(STEMS, start=1):
        workspace.write_file(f"agents/{stem}.py", python_module(stem, AGENT_FILES[stem], i))
    return workspace


def create(messages, model=None, **options):
    model = model or FakeModel()
    reply = model.client().messages.create(model=MODEL, max_tokens=8_000, messages=messages, **options)
    return model.requests[-1], reply


def converse(messages, tools, execute, **options):
    """The SDK loop, ``execute(name, input)`` running each call: (the replies, the final answer)."""
    client, replies = FakeModel().client(), []
    for _ in range(30):
        reply = client.messages.create(model=MODEL, max_tokens=8_000, messages=messages, tools=tools, **options)
        replies.append(reply)
        content = [b.model_dump(include={"type", "text", "id", "name", "input"}) for b in reply.content]
        messages = messages + [assistant(content)]
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            return replies, "\n".join(b["text"] for b in content)
        messages = messages + [user([tool_result(b["id"], execute(b["name"], b["input"])) for b in uses])]
    raise AssertionError("no end of turn")


def tool(name: str, description: str, properties: dict[str, str], required: list[str]) -> dict:
    return {"name": name, "description": description, "input_schema": {
        "type": "object", "properties": {p: {"type": t} for p, t in properties.items()}, "required": required}}


# --- tools by what they do ---------------------------------------------------------------------------------

def styled(words: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "camel":
        return words[0] + "".join(w.title() for w in words[1:])
    return "".join(w.title() for w in words)


READ_NAMES = [["read"], ["read", "file"], ["view", "file"], ["open", "file"], ["cat"], ["get", "file"], ["load"],
              ["show", "file"], ["fetch", "file"]]
PATH_NAMES = ["path", "file_path", "filepath", "filename", "file", "target", "absolutePath", "relative_path",
              "pathname"]
DESCRIPTIONS = ["", "Reads a file.", "Return the text of a file in the workspace.", "Show what a file holds."]
EDIT_PAIRS = [("old_text", "new_text"), ("old_string", "new_string"), ("search", "replace"), ("find", "replace_with"),
              ("before", "after"), ("original", "updated"), ("oldStr", "newStr")]
EDIT_NAMES = [["edit"], ["edit", "file"], ["replace"], ["str", "replace"], ["modify", "file"], ["update", "file"]]


@SETTINGS
@given(st.sampled_from(READ_NAMES), st.sampled_from(["snake", "kebab", "camel", "title"]),
       st.sampled_from(PATH_NAMES), st.sampled_from(DESCRIPTIONS), st.sampled_from(STEMS))
def test_a_tool_that_reads_files_is_used_whatever_its_name_and_path_parameter(words, style, path, description, stem):
    workspace = agents_workspace()
    reader = tool(styled(words, style), description, {path: "string", "limit": "integer"}, [path])
    file = f"agents/{stem}.py"
    replies, answer = converse([user(f"What is VERSION_TAG in {file}?")], [reader],
                               lambda name, args: workspace.read_file(args[path]))
    assert [(b.name, b.input) for b in replies[0].content] == [(reader["name"], {path: file})]
    assert answer == f'VERSION_TAG in {file} is "{TAGS[file]}".'


@SETTINGS
@given(st.sampled_from(EDIT_NAMES), st.sampled_from(["snake", "camel", "title"]), st.sampled_from(EDIT_PAIRS),
       st.sampled_from(PATH_NAMES[:6]), st.sampled_from(READ_NAMES), st.sampled_from(STEMS))
def test_a_tool_that_edits_files_is_used_whatever_its_name_and_parameters(edit_words, style, pair, path, read_words,
                                                                         stem):
    workspace = agents_workspace()
    reader = tool(styled(read_words, "snake"), "", {"path": "string"}, ["path"])
    editor = tool(styled(edit_words, style), "Replace one piece of text in a file.",
                  {path: "string", pair[0]: "string", pair[1]: "string"}, [path, *pair])
    file = f"agents/{stem}.py"

    def execute(name, args):
        if name == reader["name"]:
            return workspace.read_file(args["path"])
        return workspace.edit_file(args[path], args[pair[0]], args[pair[1]])
    _, answer = converse([user(f'In {file}, change VERSION_TAG to "v9-new".')], [reader, editor], execute)
    assert answer == f'Changed VERSION_TAG in {file} to "v9-new".'
    assert 'VERSION_TAG = "v9-new"' in (workspace.root / file).read_text()


def test_claude_codes_tools_read_edit_list_and_search():
    """``Read`` numbers its lines as ``cat -n`` does; ``Glob`` and ``Grep`` take patterns: the fake reads them all."""
    read = tool("Read", "Reads a file; lines numbered as cat -n.", {"file_path": "string", "offset": "integer",
                                                                     "limit": "integer"}, ["file_path"])
    glob = tool("Glob", "Fast file pattern matching, e.g. **/*.js.", {"pattern": "string", "path": "string"},
                ["pattern"])
    grep = {"name": "Grep", "description": "Search file contents with ripgrep.", "input_schema": {
        "type": "object", "required": ["pattern"], "properties": {
            "pattern": {"type": "string"}, "path": {"type": "string"}, "glob": {"type": "string"},
            "-n": {"type": "boolean"}, "output_mode": {"type": "string", "enum": ["content", "files_with_matches"]}}}}
    assert describe_tool(glob).role == "list" and describe_tool(grep).role == "search"
    workspace = agents_workspace()

    def execute(name, args):
        if name == "Read":
            text = workspace.read_file(args["file_path"])
            return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.split("\n"), start=1))
        if name == "Glob":
            return workspace.bash(f"ls {args['path']}/{args['pattern']}")
        assert args == {"pattern": "TODO", "path": "agents", "-n": True, "output_mode": "content", "glob": "*.py"}
        return workspace.bash(f"grep -n TODO {args['path']}/{args['glob']}")
    replies, answer = converse([user("Read every .py file under agents/ and summarise what each does.")],
                               [read, glob, grep], execute)
    assert [b.name for b in replies[1].content if b.type == "tool_use"] == ["Read"] * 12
    assert all(f"- agents/{stem}.py: {AGENT_FILES[stem]}" in answer for stem in STEMS)
    _, found = converse([user("Search agents/ for TODO comments.")], [read, glob, grep], execute)
    assert found.startswith("Found ") and found.endswith("TODO comments under agents/.")


# --- parallel calls ----------------------------------------------------------------------------------------

@SETTINGS
@given(st.lists(st.sampled_from(STEMS), min_size=1, max_size=5, unique=True), st.booleans())
def test_the_files_a_question_names_are_read_in_one_turn_or_one_per_turn(stems, one_at_a_time):
    files = [f"agents/{stem}.py" for stem in stems]
    question = "What is VERSION_TAG in " + ", ".join(files) + "?"
    options = {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}} if one_at_a_time else {}
    _, reply = create([user(question)], tools=FILE_TOOLS, **options)
    calls = [(b.name, b.input["path"]) for b in reply.content if b.type == "tool_use"]
    assert calls == [("read_file", f) for f in (files[:1] if one_at_a_time else files)]


# --- summary requests as real systems send them --------------------------------------------------------------

def dumped(style: str) -> str:
    """The conversation (a rule, a question and its answer) in one of the forms a harness writes it."""
    turns = [("user", RULE), ("assistant", "Understood. From now on, never edit anything under tools/; it is "
                                           "vendored code."), ("user", ASK), ("assistant", ANSWER)]
    if style == "json":
        return json.dumps([{"role": r, "content": t} for r, t in turns])
    if style == "langchain":
        kinds = {"user": "HumanMessage", "assistant": "AIMessage"}
        return "[" + ", ".join(f"{kinds[r]}(content={t!r}, additional_kwargs={{}}, response_metadata={{}})"
                               for r, t in turns) + "]"
    labels = {"plain": ("User: {}", "Assistant: {}"), "human": ("Human: {}", "Assistant: {}"),
              "bold": ("**User:** {}", "**Assistant:** {}"), "heading": ("## USER\n\n{}", "## MODEL\n\n{}"),
              "aider": ("# USER\n{}", "# ASSISTANT\n{}"), "brackets": ("[user] {}", "[assistant] {}"),
              "arrows": ("USER > {}", "ASSISTANT > {}")}[style]
    return "\n\n".join(labels[r == "assistant"].format(t) for r, t in turns)


STYLES = ["json", "langchain", "plain", "human", "bold", "heading", "aider", "brackets", "arrows"]
INSTRUCTION_TAGS = ["instructions", "task", "role", "primary_objective", "rules", "request"]
MATERIAL_TAGS = ["conversation", "messages", "transcript", "history", "chat"]
ASKS = ["Summarise the conversation below.", "Extract the most relevant context from the conversation history below.",
        "Write a handoff summary so that another model can continue.", "Condense the chat history above.",
        "Give me a recap of what we did."]


@SETTINGS
@given(st.sampled_from(STYLES), st.sampled_from(ASKS), st.sampled_from(INSTRUCTION_TAGS + [None]),
       st.sampled_from(MATERIAL_TAGS), st.booleans())
def test_a_summary_asked_in_tags_of_a_conversation_in_any_form_keeps_the_request_the_answer_and_the_rule(
        style, ask, wrap, material, ask_first):
    said = f"<{wrap}>\n{ask}\n</{wrap}>" if wrap else ask
    quoted = f"<{material}>\n{dumped(style)}\n</{material}>"
    kind, reply = create([user(f"{said}\n\n{quoted}" if ask_first else f"{quoted}\n\n{said}")])
    summary = reply.content[0].text
    assert kind == "summary", (style, said)
    assert f"- User: {ASK}" in summary and f"- Found: {ANSWER}" in summary and f"- User: {RULE}" in summary


def test_a_system_prompt_that_makes_summarising_the_job_with_any_user_turn():
    history = [user(ASK), assistant(ANSWER)]
    for system in ("You are an assistant that summarizes conversations.",
                   "You are the component that condenses chat history into notes."):
        assert create(history + [user("Go.")], system=system)[0] == "summary"
        assert create(history + [user(ASK)], system=system)[0] == "agent"  # a request of its own is still one
    transcript = f"User: {ASK}\nAssistant: {ANSWER}"
    kind, reply = create([user("Summarize it for continuity.")], system=f"Conversation:\n{transcript}")
    assert kind == "summary" and f"- Found: {ANSWER}" in reply.content[0].text
    assert create([user("Summarize it for continuity.")])[0] == "agent"  # no conversation for "it" to mean
    assert create([user(f"Open {S01} and summarize it.")], tools=FILE_TOOLS)[0] == "agent"


# --- what a summary keeps, and the layouts asked for ----------------------------------------------------------

LAYOUT_PROMPTS = {
    "numbered": ("Summarise the conversation above in these sections:\n1. Primary Request and Intent: what was asked\n"
                 "2. Files and Code Sections: the files\n3. Key Technical Concepts: facts\n4. All user messages: "
                 "every one\n5. Pending Tasks: what remains\nReply with the <summary>...</summary> block only."),
    "labels": ("Write a handoff summary so that another model can go on. Use this format:\n- Active task:\n"
               "- Progress so far:\n- Next steps:\n- Key context / constraints / preferences:"),
    "xml": ("Summarise the conversation above as this XML:\n<state_snapshot>\n<overall_goal></overall_goal>\n"
            "<key_knowledge></key_knowledge>\n<file_system_state></file_system_state>\n<current_plan></current_plan>"
            "\n</state_snapshot>"),
    "headings": "Summarise the conversation above under these headings:\n## Goal\n## Files\n## Findings\n## Next",
}


@SETTINGS
@given(st.lists(st.sampled_from(STEMS), min_size=1, max_size=4, unique=True), st.sampled_from(sorted(LAYOUT_PROMPTS)),
       st.booleans(), st.sampled_from(STEMS))
def test_every_summary_layout_keeps_the_values_found_the_files_the_rule_and_the_open_request(stems, layout, tool_name,
                                                                                             pending_stem):
    """A history of answered tag questions (read with read_file or Claude Code's Read), a rule, and a question
    still open: every layout keeps each value found, each file, the rule and the open request, and the agent
    resumes the open request from the summary alone."""
    history = [user(RULE), assistant("Understood. From now on, never edit anything under tools/; it is vendored "
                                     "code.")]
    name, key = ("Read", "file_path") if tool_name else ("read_file", "path")
    for n, stem in enumerate(stems):
        file = f"agents/{stem}.py"
        history += [user(f"What is VERSION_TAG in {file}?"), assistant([tool_use(f"t{n}", name, {key: file})]),
                    user([tool_result(f"t{n}", python_module(stem, AGENT_FILES[stem], STEMS.index(stem) + 1))]),
                    assistant(f'VERSION_TAG in {file} is "{TAGS[file]}".')]
    pending = f"What is VERSION_TAG in agents/{pending_stem}.py?"
    history.append(user(pending))
    kind, reply = create(history + [user(LAYOUT_PROMPTS[layout])])
    summary = reply.content[0].text
    assert kind == "summary"
    for stem in stems:
        file = f"agents/{stem}.py"
        assert f'- Found: VERSION_TAG in {file} is "{TAGS[file]}".' in summary, (layout, summary)
        assert f"- read: {file}" in summary or layout == "labels" and f"- read: {file}" in summary, (layout, summary)
    assert RULE in summary and f"- In progress: {pending}" in summary
    if layout == "numbered":
        assert summary.startswith("<summary>\n1. Primary Request and Intent:\n") and summary.endswith("</summary>")
    _, resumed = create([user(f"This session continues an earlier one; its summary:\n\n{summary}\n\nPlease "
                              "continue with the last task.")], tools=FILE_TOOLS)
    assert [(b.type, getattr(b, "input", None)) for b in resumed.content] == [
        ("tool_use", {"path": f"agents/{pending_stem}.py"})]


def test_the_layouts_found_in_the_instructions():
    assert requested_layout(LAYOUT_PROMPTS["labels"])[0].titles == (
        "Active task", "Progress so far", "Next steps", "Key context / constraints / preferences")
    xml, wrapper = requested_layout(LAYOUT_PROMPTS["xml"])
    assert (xml.kind, xml.root, wrapper) == ("xml", "state_snapshot", None)
    numbered, wrapper = requested_layout(LAYOUT_PROMPTS["numbered"])
    assert numbered.titles[0] == "Primary Request and Intent" and wrapper == "summary"
    assert requested_layout("Summarise it.\n1. What was accomplished?\n2. What is the current state?\n"
                            "3. What key decisions were made?") == (None, None)  # the course's own three questions
    assert requested_layout("<conversation>\n1. a\n2. b\n</conversation>") == (None, None)  # inside the conversation
    assert requested_layout("Think in <analysis> tags, then answer.")[1] is None  # a tag for thoughts


def test_a_finished_task_and_a_pending_one():
    """An answer without a call finishes the task; a request answered by nothing yet stays open, whatever came
    before it."""
    finished = summarise_text("Summarise.\n\n<conversation>\n" + json.dumps([user(ASK), assistant(ANSWER)])
                              + "\n</conversation>")
    assert f"- Finished: {ASK}" in finished and f"- Found: {ANSWER}" in finished
    open_one = summarise_text("Summarise.\n\n<conversation>\n" + json.dumps(
        [user(ASK), assistant(ANSWER), user("Count the lines of every .py file under agents/."),
         assistant([tool_use("t1", "bash", {"command": "wc -l agents/*.py"})])]) + "\n</conversation>")
    assert "- In progress: Count the lines of every .py file under agents/." in open_one


# --- continuations ------------------------------------------------------------------------------------------

HANDED = ["This session continues a conversation that ran out of context. The summary below covers the earlier part.",
          "Here is a summary of the work so far:", "Context was compacted; another model wrote this handoff summary.",
          "The conversation so far, condensed:", ""]
GO_ON = ["Please continue from where we left off, with the last task.", "Resume the work.", "Go on.",
         "Continue with the current request without asking further questions.", ""]


@SETTINGS
@given(st.sampled_from(HANDED), st.sampled_from(GO_ON), st.sampled_from(STEMS), st.booleans())
def test_a_message_that_hands_a_summary_over_is_a_request_to_go_on(before, after, stem, tagged):
    pending = f"What is VERSION_TAG in agents/{stem}.py?"
    request = build_summary_request([user(ASK), assistant(ANSWER), user(pending)], model=MODEL, max_tokens=2_000,
                                    tail_chars=None)
    summary = FakeModel().client().messages.create(**request).content[0].text
    body = f"<summary>\n{summary}\n</summary>" if tagged else summary
    kind, reply = create([user("\n\n".join(filter(None, [before, body, after])))], tools=FILE_TOOLS)
    assert kind == "agent"
    assert [(b.type, getattr(b, "input", None)) for b in reply.content] == [("tool_use", {"path": f"agents/{stem}.py"})]


def test_a_summary_of_a_finished_task_handed_over_says_it_is_done():
    request = build_summary_request([user(ASK), assistant(ANSWER)], model=MODEL, max_tokens=2_000, tail_chars=None)
    summary = FakeModel().client().messages.create(**request).content[0].text
    _, reply = create([user(f"{summary}\n\nContinue with the last task.")], tools=FILE_TOOLS)
    assert reply.content[0].text == f"The last request is done ({ASK}). What should I do next?"


# --- ordinary conversation ---------------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from(["", "Please ", "Important: ", "One more thing. "]),
       st.sampled_from(["never edit", "do not modify", "don't change", "never touch", "must not edit",
                        "should not alter"]),
       st.sampled_from(["anything under ", "files in ", "", "any files inside ", "the "]),
       st.sampled_from(["tools/", "tools folder"]),
       st.sampled_from(["", " from now on", " going forward", "; it is vendored code",
                        " for the rest of this session"]),
       st.sampled_from(["", ".", "!"]))
def test_a_rule_in_any_words_is_kept_quoted_and_obeyed(prefix, verb, what, folder, suffix, end):
    rule = f"{prefix}{verb} {what}{folder}{suffix}{end}".strip()
    rule = rule[0].upper() + rule[1:]
    assert is_rule(rule)
    _, ack = create([user(rule)], tools=FILE_TOOLS)
    assert ack.content[0].text.startswith("Understood. From now on, ") and not ack.content[0].text.endswith(", .")
    said = [user(rule), assistant(ack.content[0].text)]
    _, told = create(said + [user("What did I tell you about tools/?")], tools=FILE_TOOLS)
    assert told.content[0].text == f'You told me: "{rule}"'
    _, edit = create(said + [user('In tools/t03_edit.py, change VERSION_TAG to "v3-x".')], tools=FILE_TOOLS)
    assert edit.content[0].text == ("I will not change tools/t03_edit.py: you asked me never to edit anything "
                                    "under tools/.")


def test_greetings_get_a_greeting_and_from_memory_answers_from_what_is_visible():
    for hello in ("Hi!", "hello there", "Good morning."):
        _, reply = create([user(hello)], tools=FILE_TOOLS)
        assert reply.content[0].text == "Hello! What would you like me to do in this workspace?"
    from_memory = f"From memory, don't read it: what is VERSION_TAG in {S01}?"
    _, reply = create([user(ASK), assistant(ANSWER), user(from_memory)], tools=FILE_TOOLS)
    assert [b.type for b in reply.content] == ["text"]
    assert reply.content[0].text == f'As far as I can see, VERSION_TAG in {S01} is "v1-agent".'
    _, blind = create([user(from_memory)], tools=FILE_TOOLS)
    assert blind.content[0].text == f"I can no longer see anything about VERSION_TAG in {S01}."


def test_files_of_any_tool_and_a_command_are_kept_by_the_summary():
    history = [user(ASK), assistant([tool_use("a", "Read", {"file_path": "a.py"}),
                                     tool_use("b", "fs_write", {"file": "b.py", "text": "x"}),
                                     tool_use("c", "bash", {"command": "cat c.py"}),
                                     tool_use("d", "apply_patch", {"input": "*** Begin Patch\n*** Update File: "
                                                                            "d.py\n@@\n-x\n+y\n*** End Patch"}),
                                     tool_use("e", "lint", {"file_path": "e.py"}),
                                     tool_use("f", "list_files", {"path": "agents"})]),
               user([tool_result(i, "ok") for i in "abcdef"])]
    summary = summarise_text("Summarise.\n\n<conversation>\n" + json.dumps(history) + "\n</conversation>")
    for line in ("- read: a.py", "- edited: b.py", "- read: c.py", "- edited: d.py", "- used: e.py"):
        assert line in summary
    assert "agents" not in summary.split("2. Current state")[0]  # a folder is no file


def test_a_read_in_cat_n_form_shows_the_file():
    numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(python_module("s01_agent_loop",
                                                                             AGENT_FILES["s01_agent_loop"], 1)
                                                                   .split("\n"), start=1))
    read = tool("Read", "", {"file_path": "string"}, ["file_path"])
    history = [user(ASK), assistant([tool_use("r", "Read", {"file_path": S01})]), user([tool_result("r", numbered)])]
    _, reply = create(history, tools=[read])
    assert reply.content[0].text == ANSWER
