"""The held-out phrasings of issue 31, four sets, through the real SDK (tests/held_out_today.py and _2, _3, _4):
each written by someone who had not read the rules that read it. Each set was held out until it was measured,
then its misses were read by new rules, and from then on it is training data; the latest set stays held out.
A case the rules do not read is marked ``xfail(strict=True)`` with why: if it ever starts to hold, the mark must
go. ``test_how_many_hold`` records the counts, and README gives them at each step.

Set 1 (61) was written before the first round's rules; sets 2 and 3 (60 each) before this round's changes, set 4
(60) during them, none read by its author's rules. Set 4 is the one still held out."""
from __future__ import annotations

import pytest

import held_out_today
import held_out_today_2
import held_out_today_3
import held_out_today_4
import held_out_today_5
from harness import assistant, build_summary_request, tool_result, user
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.interpretation import HELD_OUT_READ
from harness.labs.scenarios import LONG_SESSION

SETS = {1: held_out_today, 2: held_out_today_2, 3: held_out_today_3, 4: held_out_today_4, 5: held_out_today_5}
LISTS = ("SUMMARY_REQUESTS", "TRANSCRIPT_STYLES", "CONTINUATIONS", "READ_TOOLS", "EDIT_TOOLS", "LIST_TOOLS",
         "RUN_TOOLS", "GREETINGS", "RULES", "FROM_MEMORY", "NOT_SUMMARIES")

MODEL = "claude-haiku-4-5"
S01 = held_out_today.S01
ASK = f"What is VERSION_TAG in {S01}?"
ANSWER = f'VERSION_TAG in {S01} is "v1-agent".'
HISTORY = [user(LONG_SESSION.requests[1]), assistant("Understood. From now on, never edit anything under tools/; "
                                                      "it is vendored code."),
           user(ASK), assistant(ANSWER)]
CANNOT = "I do not know how to do that in this workspace."
# the cases the rules do not read: (set, list, index) -> why. Sets 1-3 were read after they were measured
# (README gives each count before); set 4 is held out, its misses as measured.
MISSES: dict[tuple[int, str, int], str] = {
    (2, "SUMMARY_REQUESTS", 5): "asks for its own headings (Goal, Done so far, Next steps): the requests go under "
                                "them as '- Finished:' and '- Done:' lines, and this check wants the default '- User:'",
    (3, "SUMMARY_REQUESTS", 6): "French: the rules read English only (greetings aside)",
    (4, "SUMMARY_REQUESTS", 1): "'Reduce the chat history now.': reduce is not a summary word, and the system "
                                "prompt's 'rewrite the chat history as a shorter summary' is not asked ('when asked')",
    (4, "SUMMARY_REQUESTS", 3): "'give the next speaker a summary of it': a summary after an indirect object is not "
                                "read as asked (the word before its determiner is 'speaker', not a request verb)",
    (4, "SUMMARY_REQUESTS", 5): "'a short summary is fine' reads as a statement about a summary, 'what did we cover' "
                                "has no summary word, and the opening 'hey' makes it a greeting",
    (4, "TRANSCRIPT_STYLES", 0): "a JSON array whose string holds unescaped quotes does not parse, and a message that "
                                 "does not parse is skipped, never guessed",
    (4, "TRANSCRIPT_STYLES", 1): "Llama's [INST] ... [/INST] markup is not a speaker form the reader knows",
    (4, "TRANSCRIPT_STYLES", 3): "Student: and Tutor: are not speakers' names",
    (4, "TRANSCRIPT_STYLES", 4): "'You:' beside 'Claude:' is not the user: you is a speaker only beside me",
    (4, "TRANSCRIPT_STYLES", 5): "a CSV export (role,text rows) is not a transcript form the reader knows",
    (4, "EDIT_TOOLS", 0): "existing/replacement is not an old/new pair the tool reading knows",
    (4, "EDIT_TOOLS", 1): "literal/substitution is not an old/new pair the tool reading knows",
    (4, "EDIT_TOOLS", 3): "put(where, what): two unnamed strings, neither read as the path or the content",
    (4, "LIST_TOOLS", 0): "folder_contents reads as a read tool ('contents'); listing words are not in its name",
    (4, "LIST_TOOLS", 2): "enumerate is not a listing word",
    (4, "RUN_TOOLS", 2): "sh(line): 'line' names no command, and the description does not say command",
    (4, "RULES", 0): "'must stay untouched': a staying form reads read-only, off-limits or frozen, not untouched",
    (4, "RULES", 1): "'treat every file in tools/ as locked': 'every file' and 'locked' are not in the treat form",
    (4, "RULES", 2): "'don't make any modifications in it': the folder is a pronoun",
    (4, "RULES", 4): "'we can't change the tools/ folder' reports a rule rather than forbidding, and 'in there' is "
                     "a pronoun",
    (4, "RULES", 5): "'leave the contents of tools/ unmodified': 'the contents of' and 'unmodified' are not in the "
                     "leave form",
    (4, "FROM_MEMORY", 1): "'Just answer from that.': 'that' points back to a lookup; not read as without a tool",
    (4, "FROM_MEMORY", 4): "'You don't need to look it up again.': 'don't need to look' is not a no-looking form",
    (5, "SUMMARY_REQUESTS", 7): "'I have to hand in a summary ... can you make one for me': the summary is the "
                                "object of 'hand in', and 'make one' is a pronoun (the fake says it is unsure)",
    (5, "SUMMARY_REQUESTS", 8): "German: the rules read English only (the fake says it is unsure: no English word)",
    (5, "TRANSCRIPT_STYLES", 0): "'User says:' / 'Assistant says:' is not a speaker form the reader knows",
    (5, "TRANSCRIPT_STYLES", 1): "ChatMessage(role=MessageRole.USER, ...) reprs are not a transcript form it knows",
    (5, "TRANSCRIPT_STYLES", 2): "Slack's '@dev:' / '@assistant-bot:' handles are not speakers' names",
    (5, "TRANSCRIPT_STYLES", 3): "dicts keyed 'name' (user_proxy) rather than 'role' are not a message dump it knows",
    (5, "TRANSCRIPT_STYLES", 4): "a completion prompt ending 'Summary:' asks by form, not by a request verb: read as "
                                 "an agent turn (the fake says it is unsure)",
    (5, "TRANSCRIPT_STYLES", 5): "'> **Me:**' / '> **AI:**' quoted Markdown is not a speaker form it knows",
    (5, "READ_TOOLS", 4): "'load' with an fs_path: neither the name nor 'Load a text file' is a reading form it knows",
    (5, "EDIT_TOOLS", 0): "find_text/new_text is not an old/new pair the tool reading knows",
    (5, "EDIT_TOOLS", 1): "from/to is not an old/new pair the tool reading knows",
    (5, "EDIT_TOOLS", 3): "store_document(doc_location, document): neither name reads as a path or the content",
    (5, "LIST_TOOLS", 1): "match_paths with a wildcard pattern: matching is not a listing word",
    (5, "RULES", 1): "'tools/** is protected. Edits ... are not allowed': 'protected' and 'not allowed' are not "
                     "forbidding forms it knows",
    (5, "RULES", 2): "'we're not allowed to modify it, so don't': the folder is a pronoun",
    (5, "RULES", 5): "'writing to it is forbidden': the folder is a pronoun",
    (5, "FROM_MEMORY", 1): "'use what you found before instead of opening it again' is not a no-looking form",
    (5, "FROM_MEMORY", 2): "'From your memory of this conversation only' is not a without-a-tool form it knows",
    (5, "FROM_MEMORY", 4): "'No need to go back to the file.' is not a no-looking form",
}
COUNTS = {1: (61, 61), 2: (60, 59), 3: (60, 59), 4: (60, 39), 5: (60, 41)}  # (phrasings, read as meant)


def create(messages, system=None, tools=None, model=None):
    model = model or FakeModel()
    options = {**({"system": system} if system else {}), **({"tools": tools} if tools else {})}
    reply = model.client().messages.create(model=MODEL, max_tokens=4_000, messages=messages, **options)
    return model.requests[-1], reply


def cases(name: str) -> list:
    """Every set's items of list ``name``, each ``(set, index, item)``, an expected failure where MISSES says."""
    return [pytest.param(n, i, item, id=f"set{n}-{name}-{i}",
                         marks=[pytest.mark.xfail(strict=True, reason=MISSES[n, name, i])] if (n, name, i) in MISSES
                         else []) for n, held in SETS.items() for i, item in enumerate(getattr(held, name))]


def run_tools(workspace, messages, tools, execute, **options) -> tuple[str, list[str]]:
    """The SDK loop with ``execute(name, input)`` running each call: (the final answer, the tools called)."""
    client, called = FakeModel().client(), []
    for _ in range(40):
        reply = client.messages.create(model=MODEL, max_tokens=4_000, messages=messages, tools=tools, **options)
        content = [b.model_dump(include={"type", "text", "id", "name", "input"}) for b in reply.content]
        messages = messages + [assistant(content)]
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            return "\n".join(b["text"] for b in content), called
        called += [b["name"] for b in uses]
        messages = messages + [user([tool_result(b["id"], execute(workspace, b["name"], b["input"])) for b in uses])]
    raise AssertionError("no end of turn")


def strings(tool: dict) -> list[str]:
    return [p for p, s in tool["input_schema"]["properties"].items() if s["type"] == "string"]


def execute_by_shape(held, tools: list[dict]):
    """Runs a held-out tool of set ``held`` by the shape the test knows it has: one string (read, list, run),
    two (write), three (edit: path, old, new). A list tool whose parameter names a glob is run as ``ls``."""
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


@pytest.mark.parametrize("n, i, case", cases("SUMMARY_REQUESTS"))
def test_held_out_summary_requests_get_a_summary(n, i, case):
    system, said = case
    kind, reply = create(HISTORY + [user(said)], system=system, tools=FILE_TOOLS)
    assert kind == "summary" and f"- User: {ASK}" in reply.content[0].text


@pytest.mark.parametrize("n, i, style", cases("TRANSCRIPT_STYLES"))
def test_held_out_transcript_styles_are_read(n, i, style):
    kind, reply = create([user(style.format(user=ASK, assistant=ANSWER))])
    assert kind == "summary"
    assert f"- User: {ASK}" in reply.content[0].text and f"- Found: {ANSWER}" in reply.content[0].text


@pytest.mark.parametrize("n, i, wrapper", cases("CONTINUATIONS"))
def test_held_out_continuations_resume_the_pending_request(n, i, wrapper):
    request = build_summary_request([user(ASK)], model=MODEL, max_tokens=2_000, tail_chars=None)
    summary = FakeModel().client().messages.create(**request).content[0].text
    kind, reply = create([user(wrapper.format(summary=summary))], tools=FILE_TOOLS)
    assert kind == "agent" and [(b.type, b.input) for b in reply.content] == [("tool_use", {"path": S01})]


@pytest.mark.parametrize("n, i, tool", cases("READ_TOOLS"))
def test_held_out_read_tools_are_used_to_read(tmp_path, n, i, tool):
    answer, called = run_tools(LONG_SESSION.build(tmp_path), [user(ASK)], [tool], execute_by_shape(SETS[n], [tool]))
    assert answer == ANSWER and called == [tool["name"]]


@pytest.mark.parametrize("n, i, pair", cases("EDIT_TOOLS"))
def test_held_out_edit_tools_are_used_to_edit(tmp_path, n, i, pair):
    workspace = LONG_SESSION.build(tmp_path)
    edit = 'In agents/s03_todo_write.py, change VERSION_TAG to "v3-held".'
    answer, called = run_tools(workspace, [user(edit)], list(pair), execute_by_shape(SETS[n], list(pair)))
    assert answer == 'Changed VERSION_TAG in agents/s03_todo_write.py to "v3-held".'
    assert 'VERSION_TAG = "v3-held"' in (workspace.root / "agents/s03_todo_write.py").read_text()


@pytest.mark.parametrize("n, i, tool", cases("LIST_TOOLS"))
def test_held_out_list_tools_are_used_to_list(tmp_path, n, i, tool):
    tools = [tool, SETS[n].READ_TOOLS[0]]
    answer, called = run_tools(LONG_SESSION.build(tmp_path), [user(LONG_SESSION.requests[0])], tools,
                               execute_by_shape(SETS[n], tools))
    assert called[0] == tool["name"] and "What each file under agents/ does:" in answer
    assert answer.count("\n- agents/") == 12


@pytest.mark.parametrize("n, i, tool", cases("RUN_TOOLS"))
def test_held_out_run_tools_are_used_to_run(tmp_path, n, i, tool):
    answer, called = run_tools(LONG_SESSION.build(tmp_path), [user("Count the lines of every .py file under agents/.")],
                               [tool], execute_by_shape(SETS[n], [tool]))
    assert answer == "The .py files under agents/ have 1833 lines in total." and called == [tool["name"]]


@pytest.mark.parametrize("n, i, greeting", cases("GREETINGS"))
def test_held_out_greetings_get_a_greeting(n, i, greeting):
    kind, reply = create([user(greeting)], tools=FILE_TOOLS)
    assert kind == "agent" and [b.type for b in reply.content] == ["text"] and reply.content[0].text != CANNOT


@pytest.mark.parametrize("n, i, rule", cases("RULES"))
def test_held_out_rules_are_kept_and_quoted(n, i, rule):
    _, ack = create([user(rule)], tools=FILE_TOOLS)
    said = [user(rule), assistant(ack.content[0].text)]
    _, told = create(said + [user("What did I tell you about tools/?")], tools=FILE_TOOLS)
    _, edit = create(said + [user('In tools/t03_edit.py, change VERSION_TAG to "v3-x".')], tools=FILE_TOOLS)
    assert told.content[0].text == f'You told me: "{rule}"'
    assert edit.content[0].text.startswith("I will not change tools/t03_edit.py")


@pytest.mark.parametrize("n, i, question", cases("FROM_MEMORY"))
def test_held_out_from_memory_answers_from_what_is_visible(n, i, question):
    _, reply = create(HISTORY + [user(question)], tools=FILE_TOOLS)
    assert [b.type for b in reply.content] == ["text"] and '"v1-agent"' in reply.content[0].text


@pytest.mark.parametrize("n, i, task", cases("NOT_SUMMARIES"))
def test_held_out_file_summaries_stay_tasks(n, i, task):
    assert create(HISTORY + [user(task)], tools=FILE_TOOLS)[0] == "agent"


def test_how_many_hold():
    for n, held in SETS.items():
        total = sum(len(getattr(held, name)) for name in LISTS)
        assert (total, total - sum(1 for m in MISSES if m[0] == n)) == COUNTS[n], n
    assert {n: COUNTS[n] for n in HELD_OUT_READ} == HELD_OUT_READ  # what chapters 03 and 12 say
