"""Reversible placeholders and the recall tool (harness/strategies/recall.py, chapter 09)."""
from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from histories import valid_histories

from harness import (CompactionConfig, Toolbox, Workspace, assistant, is_placeholder, iter_tool_results,
                     tool_result, tool_use, user, validate_messages)
from harness.fake import fake_client
from harness.core.tools import FILE_TOOLS
from harness.fake.agent import decide
from harness.fake.tool_roles import offered
from harness.fake.view import build_view
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.session.log import SessionLog
from harness.session.runner import Session
from harness.strategies.recall import (RECALL_TOOL, RECALL_TOOL_NAME, Archive, RecallToolbox,
                                       ReversibleLayers, recalls, reversible_micro_compact,
                                       reversible_placeholder)

NOTHING = frozenset()
OFFERED = offered({"tools": [t for t in FILE_TOOLS if t["name"] != "write_file"] + [RECALL_TOOL]})
NO_RECALL = offered({"tools": [t for t in FILE_TOOLS if t["name"] != "write_file"]})
CONTENT = 'VERSION_TAG = "v1-loop"\n' + "x = 1\n" * 40


def read_round(tool_id: str, path: str, content: str = CONTENT) -> list[dict]:
    return [assistant([tool_use(tool_id, "read_file", {"path": path})]), user([tool_result(tool_id, content)])]


def test_a_reversible_placeholder_is_a_placeholder_that_names_its_id():
    text = reversible_placeholder("read_file", "toolu_abc")
    assert text == "[Previous: used read_file; recall id toolu_abc]"
    assert is_placeholder(text)


@settings(max_examples=60, deadline=None)
@given(valid_histories(), st.integers(0, 4))
def test_reversible_micro_keeps_histories_valid_and_every_id(messages, keep):
    original = {b["tool_use_id"]: b["content"] for _, _, b in iter_tool_results(copy.deepcopy(messages))}
    report = reversible_micro_compact(messages, keep, NOTHING)
    validate_messages(messages)
    for cleared in report.cleared:
        block = messages[cleared.message_index]["content"][cleared.block_index]
        assert block["content"] == reversible_placeholder(cleared.tool_name, cleared.tool_use_id)
        assert len(original[cleared.tool_use_id]) == cleared.chars_before
    assert report.repr_chars_saved > 0 or not report.fired


def test_a_reversible_placeholder_is_never_cleared_twice():
    messages = [user("Read them.")] + read_round("t1", "a.py") + read_round("t2", "b.py") + [user("Next.")]
    first = reversible_micro_compact(messages, 1, NOTHING, min_chars=0)
    assert [c.tool_use_id for c in first.cleared] == ["t1"]
    before = copy.deepcopy(messages)
    again = reversible_micro_compact(messages, 1, NOTHING, min_chars=0)  # the placeholder itself is long enough
    assert not again.fired and again.repr_chars_saved == 0 and messages == before


def test_archive_finds_outputs_by_id_and_reads_only_new_lines(tmp_path):
    log = SessionLog(tmp_path / "session.jsonl")
    messages = [user("Read it.")] + read_round("t1", "a.py")
    log.sync(messages)
    archive = Archive(log)
    assert archive.lookup("t1") == CONTENT
    assert archive.lookup("missing") is None
    messages += read_round("t2", "b.py", "second")
    messages[2]["content"][0]["content"] = "[Previous: used read_file]"  # rewriting history...
    log.sync(messages)
    assert archive.lookup("t2") == "second"
    assert archive.lookup("t1") == CONTENT  # ...never reaches the log


def test_recall_toolbox_answers_from_the_log(tmp_path):
    log = SessionLog(tmp_path / "session.jsonl")
    log.sync([user("Read it.")] + read_round("t1", "a.py"))
    box = RecallToolbox(Workspace(tmp_path / "ws"), log)
    assert box.names[-1] == RECALL_TOOL_NAME and box.schemas[-1] == RECALL_TOOL
    assert box.run("recall", {"id": "t1"}).content == CONTENT
    assert box.run("recall", {"id": "nope"}).is_error
    for bad in ({}, {"id": 3}, {"id": "t1", "extra": 1}, "t1"):
        assert box.run("recall", bad).is_error
    assert box.run("write_file", {"path": "a.txt", "content": "hi"}).content == "Wrote 2 bytes to a.txt"
    assert RecallToolbox(Workspace(tmp_path / "ws"), log, include_compact=False).names[-2:] == ["bash", "recall"]


def test_the_view_offers_a_recall_for_hidden_fresh_content():
    messages = [user("What is VERSION_TAG in a.py?")] + read_round("t1", "a.py")
    messages[2]["content"][0]["content"] = reversible_placeholder("read_file", "t1")
    view = build_view(messages)
    assert view.recallable == {"a.py": "t1"} and "a.py" not in view.files
    action = decide(view, OFFERED)
    assert (action.tool, action.tool_input) == ("recall", {"id": "t1"})
    action = decide(view, NO_RECALL)  # recall not offered: read the file again
    assert (action.tool, action.tool_input) == ("read_file", {"path": "a.py"})
    messages += [assistant([tool_use("r1", "recall", {"id": "t1"})]), user([tool_result("r1", CONTENT)])]
    view = build_view(messages)
    assert view.files["a.py"] == CONTENT  # a recalled copy counts as a read
    assert decide(view, OFFERED).say == 'VERSION_TAG in a.py is "v1-loop".'


def test_the_view_never_recalls_content_an_edit_made_stale():
    messages = [user('In a.py, change VERSION_TAG to "v2".')] + read_round("t1", "a.py")
    messages += [assistant([tool_use("e1", "edit_file", {"path": "a.py", "old_text": "v1-loop", "new_text": "v2"})]),
                 user([tool_result("e1", "Edited a.py")]), user("What is VERSION_TAG in a.py?")]
    messages[2]["content"][0]["content"] = reversible_placeholder("read_file", "t1")
    view = build_view(messages)
    assert view.recallable == {}
    assert decide(view, OFFERED).tool == "read_file"
    # a recall result that arrives after an edit is not taken for the file's content either
    messages += [assistant([tool_use("r1", "recall", {"id": "t1"})]), user([tool_result("r1", CONTENT)])]
    assert "a.py" not in build_view(messages).files


def test_a_failed_recall_falls_back_to_reading():
    messages = [user("What is VERSION_TAG in a.py?")] + read_round("t1", "a.py")
    messages[2]["content"][0]["content"] = reversible_placeholder("read_file", "t1")
    messages += [assistant([tool_use("r1", "recall", {"id": "t1"})]),
                 user([tool_result("r1", "Error: unknown tool 'recall'", is_error=True)])]
    assert decide(build_view(messages), OFFERED).tool == "read_file"


def test_reversible_layers_without_the_recall_tool_still_finish(tmp_path):
    """Placeholders that promise a recall the request does not offer: the agent reads the file again."""
    workspace = LONG_SESSION.build(tmp_path / "ws")
    session = Session(fake_client(), Toolbox(workspace), CompactionConfig(preserve_tools=NOTHING),
                      compactor=ReversibleLayers())
    for request in LONG_SESSION.requests[:4]:
        session.ask(request)
    assert session.answers[-1] == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    assert recalls(session) == 0 and session.stats.re_reads >= 1


def test_recall_replaces_re_reads_on_the_same_work(tmp_path):
    config, requests = CompactionConfig(preserve_tools=NOTHING), LONG_SESSION.requests[:8]
    plain = run_scenario(LONG_SESSION, config, tmp_path / "plain", requests=requests)
    reversible = run_scenario(LONG_SESSION, config, tmp_path / "recall", requests=requests, recall=True)
    assert plain.stats.re_reads > 0 and recalls(plain) == 0
    assert reversible.stats.re_reads == 0
    assert recalls(reversible) == plain.stats.re_reads
    assert reversible.answers == plain.answers  # the same work, the same answers
    assert (tmp_path / "recall" / "session.jsonl").exists()
    for name, tool_input in reversible.tool_calls:
        if name == RECALL_TOOL_NAME:
            assert reversible.toolbox.archive.lookup(tool_input["id"]) is not None


def test_recall_returns_exactly_what_the_tool_returned(tmp_path):
    session = run_scenario(TWELVE_FILES, CompactionConfig(keep_recent=1, preserve_tools=NOTHING), tmp_path, recall=True)
    archive = session.toolbox.archive
    for _, block in [(i, b) for i, m in enumerate(session.messages) if m["role"] == "assistant"
                     for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "read_file"]:
        path = block["input"]["path"]
        assert archive.lookup(block["id"]) == (tmp_path / "workspace" / path).read_text()


def test_a_recall_run_rebuilds_its_root(tmp_path):
    run_scenario(LONG_SESSION, CompactionConfig(), tmp_path / "run", requests=LONG_SESSION.requests[:1], recall=True)
    (tmp_path / "run" / "stale.txt").write_text("old")
    session = run_scenario(LONG_SESSION, CompactionConfig(), tmp_path / "run", requests=LONG_SESSION.requests[:1],
                           recall=True)
    assert not (tmp_path / "run" / "stale.txt").exists()
    assert isinstance(session.toolbox, RecallToolbox) and isinstance(session.compactor, ReversibleLayers)
