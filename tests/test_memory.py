"""The memory tool (harness/memory, chapter 11): six commands, path confinement, the request, the fake's use."""
from __future__ import annotations

import os

import anthropic
import pytest

from harness import CompactionConfig, Workspace, assistant, tool_result, tool_use, user
from harness.fake import fake_client
from harness.core.tools import FILE_TOOLS
from harness.fake.agent import decide
from harness.fake.tool_roles import Toolkit, offered
from harness.fake.view import build_view
from harness.labs.memory_lab import GUARD_REQUEST, SECOND_SESSION, first_session, probe_memory, second_session
from harness.memory.flush import COMPACTION_NOTICE, FlushBeforeCompaction, notice_in_view
from harness.memory.store import MemoryStore, memory_path, size_text
from harness.memory.toolbox import MEMORY_TOOL, MemoryToolbox
from harness.strategies.base import Compactor


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "memories")


def run(store, **fields):
    return store.run(fields)


def test_view_lists_the_folder_and_shows_a_file_with_line_numbers(store):
    assert run(store, command="view", path="/memories").content == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n0B\t/memories")
    run(store, command="create", path="/memories/notes/a.md", file_text="one\ntwo\nthree")
    listing = run(store, command="view", path="/memories").content.splitlines()
    assert listing[1:] == ["13B\t/memories", "13B\t/memories/notes/", "13B\t/memories/notes/a.md"]
    shown = run(store, command="view", path="/memories/notes/a.md").content
    assert shown == "Here's the content of /memories/notes/a.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tthree"
    part = run(store, command="view", path="/memories/notes/a.md", view_range=[2, -1]).content
    assert part.splitlines()[1:] == ["     2\ttwo", "     3\tthree"]
    missing = run(store, command="view", path="/memories/nope.md")
    assert missing.is_error and "does not exist" in missing.content
    assert run(store, command="view", path="/memories/notes/a.md", view_range=[1]).is_error


def test_create_writes_and_overwrites_but_not_the_root(store):
    assert run(store, command="create", path="/memories/a.md", file_text="x").content == \
        "File created successfully at: /memories/a.md"
    run(store, command="create", path="/memories/a.md", file_text="y")
    assert (store.root / "a.md").read_text() == "y"
    assert run(store, command="create", path="/memories", file_text="y").is_error


def test_str_replace_needs_exactly_one_occurrence(store):
    run(store, command="create", path="/memories/a.md", file_text="a\nb\nb\nc\n")
    none = run(store, command="str_replace", path="/memories/a.md", old_str="z", new_str="q")
    twice = run(store, command="str_replace", path="/memories/a.md", old_str="b", new_str="q")
    assert none.is_error and "did not appear verbatim" in none.content
    assert twice.is_error and "in lines: 2, 3" in twice.content
    done = run(store, command="str_replace", path="/memories/a.md", old_str="c", new_str="d")
    assert not done.is_error and done.content.startswith("The memory file has been edited.")
    assert (store.root / "a.md").read_text() == "a\nb\nb\nd\n"
    assert run(store, command="str_replace", path="/memories/x.md", old_str="a", new_str="b").is_error


def test_insert_at_a_line_within_range(store):
    run(store, command="create", path="/memories/a.md", file_text="a\nc\n")
    assert run(store, command="insert", path="/memories/a.md", insert_line=1, insert_text="b\n").content == \
        "The file /memories/a.md has been edited."
    assert (store.root / "a.md").read_text() == "a\nb\nc\n"
    bad = run(store, command="insert", path="/memories/a.md", insert_line=9, insert_text="z")
    assert bad.is_error and "[0, 3]" in bad.content
    assert run(store, command="insert", path="/memories/no.md", insert_line=0, insert_text="z").is_error


def test_delete_a_file_or_folder_never_the_root(store):
    run(store, command="create", path="/memories/d/a.md", file_text="x")
    assert run(store, command="delete", path="/memories/d/a.md").content == "Successfully deleted /memories/d/a.md"
    assert run(store, command="delete", path="/memories/d").content == "Successfully deleted /memories/d"
    assert run(store, command="delete", path="/memories/d").is_error
    assert run(store, command="delete", path="/memories").is_error


def test_rename_moves_and_refuses_overwrite_and_the_root(store):
    run(store, command="create", path="/memories/a.md", file_text="x")
    run(store, command="create", path="/memories/b.md", file_text="y")
    assert run(store, command="rename", old_path="/memories/a.md", new_path="/memories/b.md").is_error
    moved = run(store, command="rename", old_path="/memories/a.md", new_path="/memories/d/c.md")
    assert moved.content == "Successfully renamed /memories/a.md to /memories/d/c.md"
    assert (store.root / "d" / "c.md").read_text() == "x"
    assert run(store, command="rename", old_path="/memories/zz.md", new_path="/memories/q.md").is_error
    assert run(store, command="rename", old_path="/memories", new_path="/memories/q").is_error


@pytest.mark.parametrize("fields, error", [
    ({"path": "/memories"}, "unknown command"),
    ({"command": "view"}, "missing required field 'path'"),
    ({"command": "view", "path": "/memories", "file_text": "x"}, "unexpected field 'file_text'"),
    ({"command": "insert", "path": "/memories/a", "insert_line": "1", "insert_text": "x"}, "'insert_line' must be int"),
    ({"command": "insert", "path": "/memories/a", "insert_line": True, "insert_text": "x"}, "'insert_line' must be int"),
])
def test_malformed_commands_are_error_results(store, fields, error):
    outcome = store.run(fields)
    assert outcome.is_error and error in outcome.content


HOSTILE = ["/memories/../x", "/memories/a/../../x", "../x", "/etc/passwd", "memories/a", "/memoriesX/a",
           "/memories/a\x00b", "", "/tmp/memories/a"]


@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_paths_get_an_error_and_touch_nothing(tmp_path, path):
    store = MemoryStore(tmp_path / "memories")
    before = sorted(p for p in tmp_path.rglob("*"))
    for fields in ({"command": "create", "path": path, "file_text": "x"}, {"command": "view", "path": path},
                   {"command": "delete", "path": path},
                   {"command": "rename", "old_path": path, "new_path": "/memories/b"},
                   {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"}):
        outcome = store.run(fields)
        assert outcome.is_error and outcome.content.startswith("Error: "), (path, fields)
        assert str(tmp_path) not in outcome.content
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_a_symlink_out_of_the_folder_is_refused(tmp_path):
    store = MemoryStore(tmp_path / "memories")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    os.symlink(outside, tmp_path / "memories" / "link")
    for fields in ({"command": "view", "path": "/memories/link/secret.md"},
                   {"command": "create", "path": "/memories/link/new.md", "file_text": "x"},
                   {"command": "delete", "path": "/memories/link/secret.md"}):
        assert store.run(fields).is_error
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert "link" not in store.run({"command": "view", "path": "/memories"}).content


def test_memory_path_and_size_text():
    assert memory_path("/memories") == "" and memory_path("/memories/./a/b.md") == "a/b.md"
    assert [size_text(n) for n in (0, 512, 1024, 1536, 3 * 1024 ** 2)] == ["0B", "512B", "1K", "1.5K", "3M"]


def test_the_toolbox_offers_the_typed_tool_and_runs_it(tmp_path):
    toolbox = MemoryToolbox(Workspace(tmp_path / "ws"), tmp_path / "mem")
    assert toolbox.schemas[-1] == MEMORY_TOOL == {"type": "memory_20250818", "name": "memory"}
    assert not toolbox.run("memory", {"command": "view", "path": "/memories"}).is_error
    assert toolbox.run("read_file", {"path": "nope"}).is_error  # the usual tools still answer


def create(**fields):
    return fake_client().messages.create(model="claude-haiku-4-5", max_tokens=100,
                                         messages=[{"role": "user", "content": "hi"}], **fields)


@pytest.mark.parametrize("tool, field", [
    ({"type": "memory_20250818", "name": "notes"}, "tools.0.memory_20250818.name: Input should be 'memory'"),
    ({"type": "memory_20250818"}, "tools.0.memory_20250818.name: Field required"),
    ({"type": "memory_20250818", "name": "memory", "input_schema": {}},
     "tools.0.memory_20250818.input_schema: Extra inputs are not permitted"),
    ({"type": "memory_20250818", "name": "memory", "strict": "yes"},
     "tools.0.memory_20250818.strict: Input should be a valid boolean"),
    ({"type": "web_search_20250305", "name": "web_search"}, "tools.0.type:"),
])
def test_a_malformed_memory_tool_gets_a_400_naming_the_field(tool, field):
    with pytest.raises(anthropic.BadRequestError) as error:
        create(tools=[tool])
    assert error.value.body["error"]["message"].startswith(field)


def test_the_memory_tool_is_accepted_and_checked_first():
    reply = create(tools=[MEMORY_TOOL])
    assert reply.content[0].type == "tool_use" and reply.content[0].name == "memory"
    assert reply.content[0].input == {"command": "view", "path": "/memories"}
    with pytest.raises(anthropic.BadRequestError, match="Tool names must be unique"):
        create(tools=[MEMORY_TOOL, MEMORY_TOOL])


def kit(*names: str) -> Toolkit:
    """The tools a request offers: the course's file tools of these names, and the memory tool."""
    return offered({"tools": [t for t in FILE_TOOLS if t["name"] in names]
                             + ([MEMORY_TOOL] if "memory" in names else [])})


OFFERED = kit("read_file", "list_files", "bash", "memory")
NO_MEMORY = kit("read_file", "list_files", "bash")
TASK = "What is VERSION_TAG in agents/s01_agent_loop.py?"
LISTING = ("Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
           "40B\t/memories\n40B\t/memories/agents.md")
SAVED = ("Here's the content of /memories/agents.md with line numbers:\n"
         '     1\tVERSION_TAG in agents/s01_agent_loop.py is "v1-old".\n     2\t')


def memory_round(tool_id, tool_input, result):
    return [assistant([tool_use(tool_id, "memory", tool_input)]), user([tool_result(tool_id, result)])]


def test_the_agent_checks_memory_then_reads_what_bears_on_the_task_then_trusts_it():
    history = [user(TASK)]
    assert decide(build_view(history), OFFERED).tool_input == {"command": "view", "path": "/memories"}
    history += memory_round("t1", {"command": "view", "path": "/memories"}, LISTING)
    assert decide(build_view(history), OFFERED).tool_input == {"command": "view", "path": "/memories/agents.md"}
    history += memory_round("t2", {"command": "view", "path": "/memories/agents.md"}, SAVED)
    assert decide(build_view(history), OFFERED).say == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-old" (from memory).'
    assert decide(build_view(history), NO_MEMORY).tool == "read_file"  # not offered: no memory at all


def test_a_standing_instruction_makes_it_check_the_file_first():
    history = [user(GUARD_REQUEST), assistant("Understood."), user(TASK)]
    history += memory_round("t1", {"command": "view", "path": "/memories"}, LISTING)
    history += memory_round("t2", {"command": "view", "path": "/memories/agents.md"}, SAVED)
    assert decide(build_view(history), OFFERED).tool == "read_file"


def test_the_notice_is_not_a_request_and_makes_the_agent_save():
    content = 'VERSION_TAG = "v1-loop"\n"""s01_agent_loop: runs the loop.\n'
    history = [user(TASK), *memory_round("t1", {"command": "view", "path": "/memories"}, LISTING[:-21]),
               assistant([tool_use("t2", "read_file", {"path": "agents/s01_agent_loop.py"})]),
               user([tool_result("t2", content), {"type": "text", "text": COMPACTION_NOTICE}])]
    view = build_view(history)
    assert view.task == TASK and view.flush_notice == 4
    action = decide(view, OFFERED)
    assert action.tool_input == {"command": "create", "path": "/memories/agents.md",
                                 "file_text": 'VERSION_TAG in agents/s01_agent_loop.py is "v1-loop".\n'}
    history += memory_round("t3", action.tool_input, "File created successfully at: /memories/agents.md")
    assert decide(build_view(history), OFFERED).say == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-loop".'


class Run:
    def __init__(self, messages, threshold):
        self.messages, self.config = messages, CompactionConfig(threshold=threshold)

    def context_size(self):
        return 100


def test_the_flush_notice_is_appended_once_past_the_fraction():
    messages = [user("hello")]
    flush = FlushBeforeCompaction(Compactor(), at=0.5)
    assert flush.before_call(Run(messages, 1000)) == [] and not notice_in_view(messages)
    assert flush.before_call(Run(messages, 200)) == ["flush notice"] and notice_in_view(messages)
    assert messages[0]["content"][0]["text"] == "hello" and len(messages[0]["content"]) == 2
    assert flush.before_call(Run(messages, 200)) == []
    assert FlushBeforeCompaction(Compactor(), at=None).before_call(Run([user("x")], 1)) == []


def test_two_sessions_memory_saves_reads_and_keeps_the_rule(tmp_path):
    requests = ("Read every .py file under agents/ and summarise what each does.",
                "From now on, never edit anything under tools/; it is vendored code.")
    first = first_session(tmp_path / "one", requests, window=None)
    assert set(first.memory_text()) == {"/memories/agents.md", "/memories/rules.md"}
    with_memory = second_session(first, tmp_path / "two", SECOND_SESSION[:1] + SECOND_SESSION[5:6], window=None)
    without = second_session(first, tmp_path / "three", SECOND_SESSION[:1] + SECOND_SESSION[5:6], memory=False,
                             window=None)
    assert (with_memory.reads, without.reads) == (0, 13)
    assert with_memory.session.answers[-1].startswith("I will not change tools/t05_shell.py")
    assert without.session.answers[-1].startswith("Changed VERSION_TAG")
    assert probe_memory(first, ()).answers == ()


def test_a_memory_result_replaced_by_a_placeholder_is_no_longer_in_view():
    history = [user(TASK), *memory_round("t1", {"command": "view", "path": "/memories"}, LISTING),
               *memory_round("t2", {"command": "view", "path": "/memories/agents.md"}, "[Previous: used memory]")]
    view = build_view(history)
    assert view.memory_checked and view.memory_listing == {"/memories/agents.md"} and view.memory_files == {}


def test_the_summariser_does_not_take_the_notice_for_a_request():
    from harness.fake.summarizer import summarise_text
    import json
    history = [user([{"type": "text", "text": TASK}, {"type": "text", "text": COMPACTION_NOTICE}])]
    summary = summarise_text(json.dumps(history))
    assert f"- User: {TASK}" in summary and "[harness]" not in summary


READ = 'VERSION_TAG = "v1-loop"\n"""s01_agent_loop: runs the loop.\n'


def worked_task():
    """A task that viewed an empty memory and read a file, its result in view: about to answer."""
    return [user(TASK), *memory_round("t1", {"command": "view", "path": "/memories"}, LISTING[:-21]),
            assistant([tool_use("t2", "read_file", {"path": "agents/s01_agent_loop.py"})]),
            user([tool_result("t2", READ)])]


def test_asked_to_record_progress_it_saves_before_it_ends_a_task_that_used_a_tool():
    history = worked_task()
    plain, recording = decide(build_view(history), OFFERED), decide(build_view(history), OFFERED, True)
    assert plain.say == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-loop".' and plain.tool is None
    assert recording.tool == "memory" and recording.tool_input["command"] == "create"
    history += memory_round("t3", recording.tool_input, "File created successfully at: /memories/agents.md")
    assert decide(build_view(history), OFFERED, True).say == plain.say  # saved once, then it answers
    question = [user(TASK), assistant('VERSION_TAG in agents/s01_agent_loop.py is "v1-loop".'), user(TASK)]
    assert decide(build_view(question), NO_MEMORY, True).tool == "read_file"


def test_the_api_memory_instructions_are_read_as_asking_to_record_and_a_description_is_not():
    from harness.fake.memory import API_MEMORY_INSTRUCTIONS, records_as_it_goes
    assert records_as_it_goes(API_MEMORY_INSTRUCTIONS) and records_as_it_goes("Record your progress in memory.")
    assert not records_as_it_goes("You can record notes in memory with the memory tool.")
    assert not records_as_it_goes("You are a careful coding agent.")


def test_the_fake_server_adds_the_memory_instructions_only_with_the_memory_tool():
    request = dict(model="claude-haiku-4-5", max_tokens=200, messages=worked_task())
    with_tool = fake_client().messages.create(tools=[MEMORY_TOOL, *READ_TOOLS], **request).content[-1]
    control = fake_client(memory_instructions=False).messages.create(tools=[MEMORY_TOOL, *READ_TOOLS], **request)
    assert with_tool.type == "tool_use" and with_tool.name == "memory"
    assert control.content[-1].type == "text"


READ_TOOLS = [{"name": "read_file", "description": "Read a file.",
               "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]


def test_memory_keeps_file_facts_and_standing_rules_but_no_log_of_requests(tmp_path):
    requests = ("From now on, never edit anything under tools/; it is vendored code.",
                'In agents/s01_agent_loop.py, change VERSION_TAG to "v1-new".',
                "What is VERSION_TAG in agents/s02_tool_use.py?")
    run = first_session(tmp_path / "one", requests, window=None)
    saved = run.memory_text()
    assert saved["/memories/rules.md"] == "From now on, never edit anything under tools/; it is vendored code.\n"
    assert 'VERSION_TAG in agents/s01_agent_loop.py is "v1-new".' in saved["/memories/agents.md"]
    assert not any("change VERSION_TAG to" in text for text in saved.values())
    assert 0 < run.dollars(caching=True) <= run.dollars(caching=False)
