"""The memory store's confinement (harness/memory/store.py, harness/memory/confined.py, chapter 11): atomic
writes, no symlink followed even when one is swapped in between a check and a use, refused commands that
leave nothing behind, and names that are not UTF-8 shown escaped and reachable."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness import CompactionConfig, Workspace
from harness.fake import FakeModel
from harness.memory import confined
from harness.memory.store import MemoryStore
from harness.memory.toolbox import MemoryToolbox
from harness.session.log import SessionLog
from harness.session.records import read_log
from harness.session.runner import Session
from harness.strategies.three_layers import ThreeLayers

LATIN1 = os.fsdecode(b"caf\xe9.md")  # how os.listdir gives the bytes caf\xe9.md
SPELLED = os.fsdecode(b"caf\\xe9.md")  # a name whose real characters are a backslash, x, e, 9


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` (links not followed) and the bytes of each regular file."""
    found = {}
    for top, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(top, name)
            found[str(path.relative_to(folder))] = path.read_bytes() if path.is_file() and not path.is_symlink() \
                else os.readlink(path) if path.is_symlink() else None
    return found


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "memories")


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "a.md").write_text("secret\n")
    (folder / "keep").mkdir()
    return folder


@pytest.mark.parametrize("fields, text", [
    ({"command": "str_replace", "path": "/memories/hard.md", "old_str": "secret", "new_str": "mine"}, "mine\n"),
    ({"command": "insert", "path": "/memories/hard.md", "insert_line": 0, "insert_text": "top"}, "top\nsecret\n"),
    ({"command": "create", "path": "/memories/hard.md", "file_text": "whole\n"}, "whole\n"),
])
def test_a_hard_link_to_an_outside_file_is_replaced_never_written_through(store, outside, fields, text):
    os.link(outside / "a.md", store.root / "hard.md")
    assert not store.run(fields).is_error and (store.root / "hard.md").read_text() == text
    assert (outside / "a.md").read_text() == "secret\n" and os.stat(outside / "a.md").st_nlink == 1
    assert sorted(os.listdir(store.root)) == ["hard.md"]  # no temporary file left


class SwapWhenInnerIsReached:
    """Stands in for Walk.folder: once a command's walk has opened ``inner`` (or, for a command on ``inner``
    itself, its parent), ``inner`` becomes a symlink to the outside folder and the real one moves to
    ``inner-real``, as a rival process could do at that moment, between the check and the use."""

    def __init__(self, store: MemoryStore, outside: Path):
        self.store, self.outside, self.swapped = store, outside, False
        self.real = confined.Walk.folder

    def __call__(self, walk: confined.Walk, parts, *args, **kwargs) -> int:
        descriptor = self.real(walk, parts, *args, **kwargs)
        on_inner = list(parts[:1]) == ["inner"] or (not parts and walk.path.endswith("/inner"))
        if on_inner and not self.swapped:
            self.swapped = True
            os.rename(self.store.root / "inner", self.store.root / "inner-real")
            os.symlink(self.outside, self.store.root / "inner")
        return descriptor


@pytest.mark.parametrize("fields", [
    {"command": "create", "path": "/memories/inner/new.md", "file_text": "x"},
    {"command": "create", "path": "/memories/inner/a.md", "file_text": "x"},
    {"command": "str_replace", "path": "/memories/inner/a.md", "old_str": "mine", "new_str": "x"},
    {"command": "insert", "path": "/memories/inner/a.md", "insert_line": 0, "insert_text": "x"},
    {"command": "view", "path": "/memories/inner/a.md"},
    {"command": "view", "path": "/memories/inner"},
    {"command": "delete", "path": "/memories/inner/a.md"},
    {"command": "delete", "path": "/memories/inner"},
    {"command": "delete", "path": "/memories/inner/keep"},
    {"command": "rename", "old_path": "/memories/top.md", "new_path": "/memories/inner/out.md"},
    {"command": "rename", "old_path": "/memories/inner/a.md", "new_path": "/memories/in.md"},
    {"command": "rename", "old_path": "/memories/inner/keep", "new_path": "/memories/kept"},
], ids=lambda fields: f"{fields['command']} {fields.get('path', fields.get('old_path'))}")
def test_a_folder_swapped_for_a_symlink_between_check_and_use_never_leads_out(store, outside, monkeypatch,
                                                                              fields):
    store.run({"command": "create", "path": "/memories/inner/a.md", "file_text": "mine\n"})
    store.run({"command": "create", "path": "/memories/inner/keep/b.md", "file_text": "b\n"})
    store.run({"command": "create", "path": "/memories/top.md", "file_text": "top\n"})
    before, inner = snapshot(outside), snapshot(store.root / "inner")
    swap = SwapWhenInnerIsReached(store, outside)
    monkeypatch.setattr(confined.Walk, "folder", lambda walk, parts, *args, **kwargs: swap(walk, parts, *args, **kwargs))
    outcome = store.run(fields)
    assert swap.swapped and snapshot(outside) == before
    assert "secret" not in outcome.content and str(outside) not in outcome.content
    if not outcome.is_error and fields["command"] != "view":  # it acted on the folder it held, inner-real
        assert snapshot(store.root / "inner-real") != inner


def test_every_symlink_is_refused_even_one_that_stays_inside(store):
    store.run({"command": "create", "path": "/memories/a.md", "file_text": "a\n"})
    os.symlink("a.md", store.root / "link.md")
    os.symlink(".", store.root / "here")
    for fields in ({"command": "view", "path": "/memories/link.md"},
                   {"command": "view", "path": "/memories/here/a.md"},
                   {"command": "create", "path": "/memories/link.md", "file_text": "x"},
                   {"command": "delete", "path": "/memories/link.md"},
                   {"command": "rename", "old_path": "/memories/link.md", "new_path": "/memories/b.md"}):
        outcome = store.run(fields)
        assert outcome.is_error and "goes through a symlink" in outcome.content, fields
    assert (store.root / "a.md").read_text() == "a\n" and os.path.islink(store.root / "link.md")


def test_a_check_that_lets_dot_dot_or_an_absolute_path_through_is_still_refused(tmp_path):
    store = MemoryStore(tmp_path / "memories", check=lambda path: path.removeprefix("/memories/"))
    (tmp_path / "x.md").write_text("outside\n")
    before = snapshot(tmp_path)
    for path in ("/memories/../x.md", "/memories/a/../../x.md", f"/memories/{tmp_path}/x.md"):
        assert store.run({"command": "create", "path": path, "file_text": "y"}).is_error, path
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("fields", [
    {"command": "create", "path": "/memories/fresh/deeper/" + "n" * 300 + ".md", "file_text": "x"},
    {"command": "create", "path": "/memories/fresh/" + "n" * 300 + "/a.md", "file_text": "x"},
    {"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/fresh/deeper/" + "n" * 300},
    {"command": "create", "path": "/memories/fresh/a.md/b.md", "file_text": "x"},  # a.md: made, then a file...
])
def test_a_refused_command_leaves_the_store_exactly_as_it_was(store, fields):
    store.run({"command": "create", "path": "/memories/a.md", "file_text": "a\n"})
    store.run({"command": "create", "path": "/memories/fresh/a.md", "file_text": "f\n"})
    before = snapshot(store.root)
    outcome = store.run(fields)
    assert outcome.is_error and snapshot(store.root) == before
    if "n" * 300 in str(fields):
        assert outcome.content == "Error: File name too long"


def test_a_name_that_is_not_utf8_is_listed_escaped_and_reached_by_that_name(store):
    (store.root / "notes").mkdir()
    (store.root / "notes" / LATIN1).write_bytes(b"one\n")
    (store.root / "notes" / SPELLED).write_bytes(b"two\n")
    listing = store.run({"command": "view", "path": "/memories"}).content
    json.dumps(listing, ensure_ascii=False).encode("utf-8")  # it can be sent
    assert listing.splitlines()[1:] == ["8B\t/memories", "8B\t/memories/notes/", "4B\t/memories/notes/caf\\\\xe9.md",
                                        "4B\t/memories/notes/caf\\xe9.md"]
    assert store.run({"command": "view", "path": "/memories/notes/caf\\xe9.md"}).content.endswith("\tone\n     2\t")
    assert store.run({"command": "view", "path": "/memories/notes/caf\\\\xe9.md"}).content.endswith("\ttwo\n     2\t")
    assert not store.run({"command": "str_replace", "path": "/memories/notes/caf\\xe9.md", "old_str": "one",
                          "new_str": "uno"}).is_error
    assert (store.root / "notes" / LATIN1).read_bytes() == b"uno\n"
    assert not store.run({"command": "rename", "old_path": "/memories/notes/caf\\xe9.md",
                          "new_path": "/memories/notes/caf\\xe8.md"}).is_error
    assert os.fsdecode(b"caf\xe8.md") in os.listdir(store.root / "notes")
    assert not store.run({"command": "delete", "path": "/memories/notes/caf\\xe8.md"}).is_error
    assert os.listdir(store.root / "notes") == [SPELLED]


def test_a_session_whose_memory_holds_a_name_that_is_not_utf8_completes(tmp_path):
    workspace = Workspace(tmp_path / "workspace")
    (workspace.root / "agents").mkdir()
    (workspace.root / "agents" / "s01.py").write_text('VERSION_TAG = "v1"\n"""s01: the loop."""\n')
    memories = tmp_path / "memories"
    memories.mkdir()
    (memories / LATIN1).write_bytes(b"a note\n")
    config = CompactionConfig().with_(transcript_dir=tmp_path / "transcripts")
    session = Session(FakeModel().client(), MemoryToolbox(workspace, memories), config, ThreeLayers(),
                      log=SessionLog(tmp_path / "session.jsonl"))
    result = session.ask("What is VERSION_TAG in agents/s01.py?")
    assert result.stop == "end_turn"
    assert "/memories/caf\\\\xe9.md" in json.dumps(session.messages, ensure_ascii=False)
    assert read_log(tmp_path / "session.jsonl").records


STEP = st.sampled_from(["a", "b.md", "..", ".", "link", "caf\\xe9.md", "x\\\\y", "", "hard.md"])
PATH = st.lists(STEP, max_size=3).map(lambda steps: "/".join(["/memories", *steps]))
COMMAND = st.one_of(
    st.builds(lambda p: {"command": "view", "path": p}, PATH),
    st.builds(lambda p, t: {"command": "create", "path": p, "file_text": t}, PATH, st.sampled_from(["", "t\n"])),
    st.builds(lambda p: {"command": "str_replace", "path": p, "old_str": "secret", "new_str": "s"}, PATH),
    st.builds(lambda p: {"command": "insert", "path": p, "insert_line": 0, "insert_text": "i"}, PATH),
    st.builds(lambda p: {"command": "delete", "path": p}, PATH),
    st.builds(lambda p, q: {"command": "rename", "old_path": p, "new_path": q}, PATH, PATH))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(COMMAND, max_size=6))
def test_no_sequence_of_commands_touches_anything_outside_or_gives_an_unsendable_result(tmp_path, commands):
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    store, outside = MemoryStore(base / "memories"), base / "outside"
    outside.mkdir()
    (outside / "a").mkdir()
    (outside / "b.md").write_text("secret\n")
    os.symlink(outside, store.root / "link")
    os.link(outside / "b.md", store.root / "hard.md")
    (store.root / LATIN1).write_bytes(b"latin\n")
    before = snapshot(outside)
    for fields in commands:
        outcome = store.run(fields)
        json.dumps(outcome.content, ensure_ascii=False).encode("utf-8")
        assert str(base) not in outcome.content
    assert snapshot(outside) == before
