"""The fake summariser reads any form of the conversation, and a lossy one distorts on purpose
(harness/fake/conversation_forms.py and summarizer.py, chapter 03). Summaries are asked through the real SDK."""
from __future__ import annotations

import json

import pytest
from anthropic.types import TextBlock, ToolUseBlock

from harness import assistant, build_summary_request, text, tool_result, tool_use, user
from harness.fake import FakeModel
from harness.fake.conversation_forms import conversation_messages, transcript_messages, whole_messages
from harness.fake.summarizer import summarise_text

MODEL = "claude-haiku-4-5"
RULE = "From now on, never edit anything under tools/; it is vendored code."
READ = "Read every .py file under agents/ and summarise what each does."
EDIT = 'In agents/s03_todo_write.py, change VERSION_TAG to "v3-planning".'
NOTE = "Note: agents/s01_agent_loop.py — runs the basic agent loop"
DECISION = "Understood. From now on, never edit anything under tools/; it is vendored code."
DONE = 'Changed VERSION_TAG in agents/s03_todo_write.py to "v3-planning".'
EXPECTED = [f"- User: {RULE}", f"- User: {READ}", f"- User: {EDIT}", NOTE, "- read: agents/s01_agent_loop.py",
            "- edited: agents/s03_todo_write.py", f"- Decision: {DECISION}", f"- Finished: {EDIT}"]


def sdk_history() -> list[dict]:
    """The history as a student's loop keeps it: the assistant's turns are the SDK's response blocks."""
    def said(words: str) -> TextBlock:
        return TextBlock(citations=None, text=words, type="text")

    def call(tool_id: str, name: str, tool_input: dict) -> ToolUseBlock:
        return ToolUseBlock(id=tool_id, input=tool_input, name=name, type="tool_use")
    return [
        {"role": "user", "content": RULE}, {"role": "assistant", "content": [said(DECISION)]},
        {"role": "user", "content": READ},
        {"role": "assistant",
         "content": [said(NOTE), call("toolu_1", "read_file", {"path": "agents/s01_agent_loop.py"})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "it's the loop"}]},
        {"role": "assistant", "content": [said("Done: what each file does.")]},
        {"role": "user", "content": EDIT},
        {"role": "assistant", "content": [call("toolu_2", "edit_file", {
            "path": "agents/s03_todo_write.py", "old_text": "v3-todo", "new_text": "v3-planning"})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2",
                                      "content": "Edited agents/s03_todo_write.py"}]},
        {"role": "assistant", "content": [said(DONE)]},
    ]


def course_history() -> list[dict]:
    return [user(RULE), assistant(DECISION), user(READ),
            assistant([text(NOTE), tool_use("toolu_1", "read_file", {"path": "agents/s01_agent_loop.py"})]),
            user([tool_result("toolu_1", "it's the loop")]), assistant("Done: what each file does."), user(EDIT),
            assistant([tool_use("toolu_2", "edit_file", {"path": "agents/s03_todo_write.py", "old_text": "v3-todo",
                                                         "new_text": "v3-planning"})]),
            user([tool_result("toolu_2", "Edited agents/s03_todo_write.py")]), assistant(DONE)]


def transcript(user_label: str, assistant_label: str, result_label: str) -> str:
    return "\n".join([
        f"{user_label} {RULE}", f"{assistant_label} {DECISION}", f"{user_label} {READ}",
        f"{assistant_label} {NOTE}", 'read_file({"path": "agents/s01_agent_loop.py"})',
        f"{result_label} it's the loop", f"{assistant_label} Done: what each file does.", f"{user_label} {EDIT}",
        f"{assistant_label} edit_file(path='agents/s03_todo_write.py')",
        f"{result_label} Edited agents/s03_todo_write.py", f"{assistant_label} {DONE}"])


FORMS = {
    "course JSON": json.dumps(course_history(), ensure_ascii=False),
    "json.dumps default=str (s06)": json.dumps(sdk_history(), default=str),
    "str() of the list": str(sdk_history()),
    "repr() of the list, plain dicts": repr(course_history()),
    "User:/Assistant:/Tool result:": transcript("User:", "Assistant:", "Tool result:"),
    "Human:/AI:/Tool:": transcript("Human:", "AI:", "Tool:"),
    "[user]/[assistant]/[tool result]": transcript("[user]", "[assistant]", "[tool result]"),
    "markdown **User:**": transcript("**User:**", "**Assistant:**", "**Tool result:**"),
}


def summary_of(material: str, **options) -> str:
    model = FakeModel(**options)
    reply = model.client().messages.create(model=MODEL, max_tokens=4_000, messages=[
        user(f"Summarise the conversation below so the work can continue.\n\n{material}")])
    assert model.requests == ["summary"]
    return reply.content[0].text


@pytest.mark.parametrize("form", FORMS, ids=list(FORMS))
def test_every_form_of_the_conversation_keeps_what_the_assistant_said_read_and_decided(form):
    summary = summary_of(FORMS[form])
    for line in EXPECTED:
        assert line in summary, (form, line, summary)


def test_an_s06_dump_cut_mid_message_at_its_head_keeps_the_whole_messages_after_the_cut():
    dump = json.dumps(sdk_history(), default=str)
    cut = dump[dump.index("Note: agents/s01") - 30:]  # inside the assistant turn that holds the note
    messages = whole_messages(cut)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    summary = summary_of(cut)
    assert NOTE not in summary and f"- User: {RULE}" not in summary  # cut off, so gone
    assert "- edited: agents/s03_todo_write.py" in summary and f"- Finished: {EDIT}" in summary


def test_sdk_reprs_become_the_apis_blocks_and_nothing_is_evaluated():
    [message] = whole_messages(json.dumps([sdk_history()[3]], default=str))
    assert message["content"] == [{"type": "text", "text": NOTE},
                                  {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                   "input": {"path": "agents/s01_agent_loop.py"}}]
    hostile = "[{'role': 'assistant', 'content': [__import__('os').system('echo hacked')]}]"
    assert whole_messages(hostile) == []  # a call with positional arguments is no literal: skipped
    assert conversation_messages("[{'role': 'user', 'content': 'a'}, {'role': 'assistant', 'content': [Te") == \
        [{"role": "user", "content": "a"}]


def test_a_summary_line_is_not_a_transcript_turn():
    assert transcript_messages("1. What was accomplished:\n- User: keep tools/ as it is\nNote: a.py — x") == []


# --- the lossy summariser, a control --------------------------------------------------------

LATER = [f"What is VERSION_TAG in agents/s0{n}_x.py?" for n in range(4, 9)]


def long_history() -> list[dict]:
    messages = course_history()
    for n, request in enumerate(LATER):
        messages += [user(request), assistant(f'VERSION_TAG in agents/s0{n + 4}_x.py is "v{n + 4}".')]
    return messages


def test_the_lossy_summary_loses_what_the_extractive_one_keeps():
    """What chapter 03 can print: the early instruction and the exact value are gone from the lossy summary."""
    request = build_summary_request(long_history(), model=MODEL, max_tokens=4_000, tail_chars=None)
    extractive = FakeModel().client().messages.create(**request).content[0].text
    lossy = FakeModel(summary_style="lossy").client().messages.create(**request).content[0].text
    assert f"- User: {RULE}" in extractive and "v3-planning" in extractive
    assert "tools/" not in lossy and "v3-planning" not in lossy  # dropped past the budget, or paraphrased away
    assert lossy.count("- User: ") == 3 and extractive.count("- User: ") == 3 + len(LATER)
    assert f"- Finished: {LATER[-1]}" in lossy  # the shape stays: later summaries read it as before


def test_the_lossy_summary_paraphrases_and_merges():
    messages = [user(EDIT), assistant(DONE), user('In agents/s03_todo_write.py, change VERSION_TAG to "v3-other".'),
                assistant("Done.")]
    lossy = summarise_text(json.dumps(messages), "lossy")
    assert "- User: In agents/s03_todo_write.py, change VERSION_TAG to a new value." in lossy
    assert lossy.count("- User: ") == 1  # the two requests read the same as gists: merged
    with pytest.raises(ValueError, match="summary style"):
        summarise_text(json.dumps(messages), "terse")
