"""File names that can be sent (harness/core/names.py): the one escaping rule, the workspace tools and a
whole session over a workspace holding a name that is not UTF-8 (chapters 00 and 11)."""
from __future__ import annotations

import json
import os

from hypothesis import given, strategies as st

from harness import CompactionConfig, Toolbox, Workspace
from harness.core.names import meant, shown
from harness.fake import FakeModel
from harness.labs.scenarios import READ_AGENTS, TWELVE_FILES
from harness.session.log import SessionLog
from harness.session.records import read_log
from harness.session.runner import Session
from harness.strategies.three_layers import ThreeLayers

LATIN1 = os.fsdecode(b"caf\xe9.py")  # "caf\udce9.py": what os.listdir gives for these bytes
NAME_BYTES = st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\x00" not in b)


@given(NAME_BYTES)
def test_every_name_is_shown_sendable_and_reads_back_to_itself(raw):
    name = os.fsdecode(raw)
    assert json.dumps(shown(name), ensure_ascii=False).encode("utf-8")
    assert meant(shown(name)) == name


@given(NAME_BYTES, NAME_BYTES)
def test_two_names_are_never_shown_alike(one, two):
    if one != two:
        assert shown(os.fsdecode(one)) != shown(os.fsdecode(two))


def test_the_rule_on_examples():
    assert shown(LATIN1) == "caf\\xe9.py" and shown("a\\b") == "a\\\\b" and shown("café.py") == "café.py"
    assert shown(os.fsdecode(b"caf\\xe9.py")) == "caf\\\\xe9.py"  # the real bytes spell the escape
    assert meant("caf\\xe9.py") == meant("caf\\XE9.py") == LATIN1
    assert meant("a\\b") == "a\\b" and meant("\\x41") == "\\x41"  # other backslashes stay as written
    assert meant("\\xc3\\xa9") == "é"  # escaped bytes that are UTF-8 are that character
    assert meant("\\x2e\\x2e/\\x2f") == "\\x2e\\x2e/\\x2f"  # an escape never makes '.', '/' or NUL


def test_the_file_tools_show_escaped_names_and_reach_the_file(tmp_path):
    box = Toolbox(Workspace(tmp_path / "ws"))
    folder = tmp_path / "ws" / "agents"
    folder.mkdir()
    (folder / LATIN1).write_text("x = 1\n")
    (folder / os.fsdecode(b"caf\\xe9.py")).write_text("y = 2\n")
    listing = box.run("list_files", {"path": "agents"})
    assert listing.content == "agents/caf\\\\xe9.py\nagents/caf\\xe9.py"
    listing.content.encode("utf-8")
    assert box.run("read_file", {"path": "agents/caf\\xe9.py"}).content == "x = 1\n"
    assert box.run("read_file", {"path": "agents/caf\\\\xe9.py"}).content == "y = 2\n"
    assert not box.run("edit_file", {"path": "agents/caf\\xe9.py", "old_text": "1", "new_text": "3"}).is_error
    assert not box.run("write_file", {"path": "agents/caf\\xe9.py", "content": "z = 4\n"}).is_error
    assert (folder / LATIN1).read_text() == "z = 4\n" and sorted(os.listdir(folder)) == sorted(
        [LATIN1, os.fsdecode(b"caf\\xe9.py")])
    assert box.run("list_files", {"path": "agents/caf\\xe9.py"}).content == "agents/caf\\xe9.py"


def test_a_whole_session_over_a_name_that_is_not_utf8_completes_with_its_log(tmp_path):
    workspace = TWELVE_FILES.build(tmp_path / "workspace")
    first = sorted((workspace.root / "agents").iterdir())[0]
    (workspace.root / "agents" / LATIN1).write_bytes(first.read_bytes())
    config = CompactionConfig().with_(transcript_dir=tmp_path / "transcripts")
    session = Session(FakeModel().client(), Toolbox(workspace), config, ThreeLayers(),
                      log=SessionLog(tmp_path / "session.jsonl"))
    result = session.ask(READ_AGENTS)
    assert result.stop == "end_turn" and session.answers[-1]
    sent = json.dumps(session.messages, ensure_ascii=False)
    assert "agents/caf\\\\xe9.py" in sent  # listed, escaped, in the JSON the SDK sent
    reads = [block for message in session.messages if isinstance(message["content"], list)
             for block in message["content"] if block.get("type") == "tool_use" and block["name"] == "read_file"]
    assert {"path": "agents/caf\\xe9.py"} in [block["input"] for block in reads]
    assert read_log(tmp_path / "session.jsonl").records
