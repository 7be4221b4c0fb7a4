"""Offloading (harness/production/offload.py, chapter 13): big results go to a file as they are written,
and the fake reads them back in parts through the real SDK."""
from __future__ import annotations

import tempfile

import pytest

from harness import Workspace, assistant, tool_result, user
from harness.core.manual import COMPACT_ACK
from harness.core.tokens import text_tokens
from harness.core.tools import FILE_TOOLS, ToolError
from harness.fake import FakeModel
from harness.labs.scenarios import LONG_SESSION, python_module
from harness.production.offload import (OFFLOAD_FOLDER, OffloadingToolbox, PartReadingToolbox, Saved, line_count,
                                        offload_placeholder,
                                        save_output)

S01 = "agents/s01_agent_loop.py"


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    return LONG_SESSION.build(tmp_path / "ws")


# --- read_file's offset ----------------------------------------------------------------------------

def test_offset_and_limit_read_a_part_and_count_what_is_left(tmp_path):
    ws = Workspace(tmp_path)
    ws.write_file("f.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    assert ws.read_file("f.txt", offset=3, limit=2) == "line 3\nline 4\n... (6 more lines)"
    assert ws.read_file("f.txt", offset=9) == "line 9\nline 10"
    assert ws.read_file("f.txt", offset=1, limit=10) == ws.read_file("f.txt")
    assert ws.read_file("f.txt", limit=3) == "line 1\nline 2\nline 3\n... (7 more lines)"


@pytest.mark.parametrize("options, message", [({"offset": 11}, "past the end of the file (10 lines)"),
                                               ({"offset": 0}, "offset must be at least 1"),
                                               ({"limit": 0}, "limit must be at least 1")])
def test_a_bad_part_is_a_clear_error(tmp_path, options, message):
    ws = Workspace(tmp_path)
    ws.write_file("f.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    with pytest.raises(ToolError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ws.read_file("f.txt", **options)


def test_the_course_toolbox_still_refuses_an_offset(workspace):
    from harness.core.tools import Toolbox
    outcome = Toolbox(workspace).run("read_file", {"path": S01, "offset": 2})
    assert outcome.is_error and "unexpected argument 'offset'" in outcome.content


# --- the toolbox -----------------------------------------------------------------------------------

def test_a_result_over_the_limit_is_saved_whole_and_replaced_by_path_and_preview(workspace):
    tools = OffloadingToolbox(workspace, limit=1_000)
    whole = workspace.read_file(S01)
    outcome = tools.run("read_file", {"path": S01})
    [saved] = tools.saved
    assert saved == Saved(f"{OFFLOAD_FOLDER}/001_read_file.txt", "read_file", text_tokens(whole), line_count(whole))
    assert workspace.read_file(saved.path) == whole  # the file holds the output itself, byte for byte
    assert outcome.content == offload_placeholder(saved, whole)
    head, _, preview = outcome.content.partition("\n")
    assert saved.path in head and f"offset=7" in head and f"{saved.tokens:,} tokens" in head
    assert preview == "\n".join(whole.split("\n")[:6])
    assert text_tokens(outcome.content) < 150 < saved.tokens


def test_the_limit_is_inclusive_and_small_results_pass_unchanged(workspace):
    whole = workspace.read_file(S01)
    at = OffloadingToolbox(workspace, limit=text_tokens(whole))
    assert at.run("read_file", {"path": S01}).content == whole and at.saved == []
    under = OffloadingToolbox(workspace, limit=text_tokens(whole) - 1)
    assert under.run("read_file", {"path": S01}).content.startswith("[Output of read_file")
    assert OffloadingToolbox(workspace, limit=10).run("list_files", {"path": "nowhere"}).is_error


def test_errors_read_backs_and_compact_are_never_saved(workspace):
    tools = OffloadingToolbox(workspace, limit=5)
    assert tools.run("read_file", {"path": "missing.py"}).is_error
    tools.run("read_file", {"path": S01})
    part = tools.run("read_file", {"path": tools.saved[0].path, "offset": 7, "limit": 50})
    whole_back = tools.run("read_file", {"path": "./" + tools.saved[0].path})
    assert tools.run("compact", {}).content == COMPACT_ACK
    assert len(tools.saved) == 1
    assert 'VERSION_TAG = "v1-agent"' in part.content and part.content.endswith("(95 more lines)")
    assert whole_back.content == workspace.read_file(S01)


def test_no_saved_result_overwrites_another(workspace):
    first, second = OffloadingToolbox(workspace, limit=100), OffloadingToolbox(workspace, limit=100)
    first.run("read_file", {"path": S01})
    second.run("read_file", {"path": "agents/s02_tool_use.py"})
    (workspace.root / OFFLOAD_FOLDER / "003_read_file.txt").write_text("someone else's", encoding="utf-8")
    first.run("read_file", {"path": "agents/s03_todo_write.py"})
    paths = [s.path for s in first.saved + second.saved]
    assert paths == [f"{OFFLOAD_FOLDER}/001_read_file.txt", f"{OFFLOAD_FOLDER}/004_read_file.txt",
                     f"{OFFLOAD_FOLDER}/002_read_file.txt"]
    assert workspace.read_file(f"{OFFLOAD_FOLDER}/003_read_file.txt") == "someone else's"
    assert workspace.read_file(paths[2]) == workspace.read_file("agents/s02_tool_use.py")


def test_the_schema_offers_offset_and_is_a_fresh_copy(workspace):
    tools = OffloadingToolbox(workspace)
    read = next(t for t in tools.schemas if t["name"] == "read_file")
    assert set(read["input_schema"]["properties"]) == {"path", "limit", "offset"}
    read["input_schema"]["properties"].clear()
    assert "offset" in next(t for t in tools.schemas if t["name"] == "read_file")["input_schema"]["properties"]
    assert "offset" not in FILE_TOOLS[0]["input_schema"]["properties"]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "100"])
def test_a_bad_limit_is_refused(workspace, bad):
    with pytest.raises(ValueError, match="limit must be an integer >= 1"):
        OffloadingToolbox(workspace, limit=bad)


def test_save_output_stays_in_the_workspace(workspace):
    from harness.core.tools import PathEscape
    with pytest.raises(PathEscape):
        save_output(workspace, "read_file", "text", folder="../outside")


# --- the fake reads saved results back, through the SDK ------------------------------------------

def _ask_tag_after_offloaded_read(tools_schema, notice_for, module=None, path=S01, parts=None):
    """The fake asked for a tag after its read came back as a notice: what it calls next, round by round."""
    module = module if module is not None else python_module("s01_agent_loop", "runs the loop", 1)
    model = FakeModel()
    messages = [user(f"What is VERSION_TAG in {path}?"),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                                   "input": {"path": path}}]},
                user([tool_result("toolu_1", notice_for(module))])]
    calls = []
    for round_ in range(8):
        reply = model.client().messages.create(model="claude-haiku-4-5", max_tokens=1_000, messages=messages,
                                               tools=tools_schema)
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return calls, "".join(b.text for b in reply.content if b.type == "text")
        calls.append(dict(uses[0].input))
        part = (parts or _course_part)(module, dict(uses[0].input))
        messages += [{"role": "assistant", "content": [b.to_dict() for b in reply.content]},
                     user([tool_result(uses[0].id, part)])]
    raise AssertionError("the fake kept reading")


def _course_part(module, tool_input):
    lines = module.split("\n")
    start, limit = tool_input.get("offset", 1), tool_input.get("limit", len(lines))
    rest = len(lines) - (start - 1 + limit)
    return "\n".join(lines[start - 1:start - 1 + limit]) + (f"\n... ({rest} more lines)" if rest > 0 else "")


def _our_tools():
    with tempfile.TemporaryDirectory() as folder:
        return PartReadingToolbox(Workspace(folder)).schemas


def test_the_fake_reads_the_rest_of_a_saved_result_with_offset_and_limit():
    def ours(module):
        return offload_placeholder(Saved(".tool_results/001_read_file.txt", "read_file", 1_900, line_count(module)),
                                   module)
    calls, answer = _ask_tag_after_offloaded_read(_our_tools(), ours)
    assert calls == [{"path": ".tool_results/001_read_file.txt", "offset": 7, "limit": 50}]
    assert answer == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'


def test_another_harness_wording_and_a_zero_based_offset():
    """Worded as LangChain Deep Agents words it (not derived from our placeholder), a 0-based offset."""
    tools = [{"name": "read_file", "description": "Read a file from the filesystem.",
              "input_schema": {"type": "object", "properties": {
                  "file_path": {"type": "string"},
                  "offset": {"type": "integer", "description": "Line to start from (0-based)."},
                  "limit": {"type": "integer", "description": "Maximum number of lines to read."}},
                  "required": ["file_path"]}}]

    def deep_agents(module):
        head = "\n".join(module.split("\n")[:5])
        return ("Tool result too large, the result of this tool call toolu_1 was saved in the filesystem at this "
                "path: /large_tool_results/toolu_1\nYou can read the result from the filesystem by using the "
                "read_file tool, but make sure to only read part of the result at a time.\n"
                f"Here are the first 5 lines of the result:\n{head}")

    def part(module, tool_input):
        lines = module.split("\n")
        start = tool_input["offset"]
        return "\n".join(lines[start:start + tool_input["limit"]])

    messages_path = "agents/s01_agent_loop.py"
    model = FakeModel()
    module = python_module("s01_agent_loop", "runs the loop", 1)
    messages = [user(f"What is VERSION_TAG in {messages_path}?"),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                                   "input": {"file_path": messages_path}}]},
                user([tool_result("toolu_1", deep_agents(module))])]
    reply = model.client().messages.create(model="claude-haiku-4-5", max_tokens=1_000, messages=messages,
                                           tools=tools)
    [use] = [b for b in reply.content if b.type == "tool_use"]
    assert use.input == {"file_path": "/large_tool_results/toolu_1", "offset": 0, "limit": 50}
    messages += [{"role": "assistant", "content": [b.to_dict() for b in reply.content]},
                 user([tool_result(use.id, part(module, use.input))])]
    reply = model.client().messages.create(model="claude-haiku-4-5", max_tokens=1_000, messages=messages,
                                           tools=tools)
    assert reply.content[0].text == f'VERSION_TAG in {messages_path} is "v1-agent".'


def test_a_saved_file_without_the_fact_is_read_to_its_end_then_said():
    module = "\n".join(['"""s01_agent_loop: runs the loop.', '"""'] + [f"x_{n} = {n}" for n in range(120)])

    def ours(text):
        return offload_placeholder(Saved(".tool_results/001_read_file.txt", "read_file", 1_000, line_count(text)),
                                   text)
    calls, answer = _ask_tag_after_offloaded_read(_our_tools(), ours, module=module)
    assert [c["offset"] for c in calls] == [7, 57, 107]
    assert answer == "I read agents/s01_agent_loop.py and it shows no VERSION_TAG line."


def test_a_notice_that_says_no_lines_is_read_from_the_start_and_ends_on_a_short_part():
    """Worded as a harness that gives a size, a path and a preview but no line numbers."""
    module = python_module("s01_agent_loop", "runs the loop", 1)

    def sized(text):
        return "Output too large (7.6KB). Full output saved to: out/read-1.txt\n\nPreview:\n" + text[:200]
    calls, answer = _ask_tag_after_offloaded_read(_our_tools(), sized, module=module)
    assert calls == [{"path": "out/read-1.txt", "offset": 1, "limit": 50}]
    assert answer.endswith('"v1-agent".')


def test_an_edit_after_the_save_makes_the_saved_copy_stale():
    """The agent changed the file after its read was saved: the saved part no longer counts as the file."""
    module = python_module("s01_agent_loop", "runs the loop", 1)
    saved = offload_placeholder(Saved(".tool_results/001_read_file.txt", "read_file", 1_900, line_count(module)),
                                module)
    messages = [user("Read it."),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                                   "input": {"path": S01}}]},
                user([tool_result("toolu_1", saved)]),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "write_file",
                                                   "input": {"path": S01, "content": "x = 1\n"}}]},
                user([tool_result("toolu_2", f"Wrote 6 bytes to {S01}")]),
                assistant("Done."), user(f"What is VERSION_TAG in {S01}?")]
    reply = FakeModel().client().messages.create(model="claude-haiku-4-5", max_tokens=1_000, messages=messages,
                                                 tools=_our_tools())
    [use] = [b for b in reply.content if b.type == "tool_use"]
    assert use.input == {"path": S01}  # the file itself, not the stale saved copy
