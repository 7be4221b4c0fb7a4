"""The memory store against depth and size (chapter 11): a stated depth limit, walks without recursion,
and a str_replace that reads its file once."""
from __future__ import annotations

import os

import pytest

from harness.memory import confined
from harness.memory.store import MAX_STEPS, MemoryStore

HAND_MADE_DEPTH = 1_500  # well past Python's recursion limit of 1,000


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "memories")


def run(store, **fields):
    return store.run(fields)


def files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def deep_tree(root, depth):
    """``depth`` nested folders ``d`` made by hand (not by the store), a file at the bottom; built with
    descriptors so the path never has to fit in PATH_MAX."""
    descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=descriptor)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        with os.fdopen(os.open("x.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=descriptor), "w") as file:
            file.write("deep")
    finally:
        os.close(descriptor)


def test_a_path_deeper_than_the_limit_is_refused_and_nothing_is_made(store):
    before = files(store.root)
    outcome = run(store, command="create", path="/memories/" + "d/" * 1_500 + "x.md", file_text="x")
    assert outcome.is_error and f"at most {MAX_STEPS}" in outcome.content
    assert files(store.root) == before
    fits = "/memories/" + "d/" * (MAX_STEPS - 1) + "x.md"
    assert not run(store, command="create", path=fits, file_text="x").is_error
    assert run(store, command="view", path=fits).content.endswith("1\tx")


def test_a_rename_may_not_move_a_folder_past_the_limit(store):
    run(store, command="create", path="/memories/a/" + "b/" * 8 + "x.md", file_text="x")  # 10 steps: a, 8 b, x.md
    target = "/memories/" + "n/" * (MAX_STEPS - 9) + "a"  # 33 steps to x.md
    outcome = run(store, command="rename", old_path="/memories/a", new_path=target)
    assert outcome.is_error and f"{MAX_STEPS + 1} levels deep" in outcome.content
    assert files(store.root)[0] == "a" and not (store.root / "n").exists()
    shallower = "/memories/" + "n/" * (MAX_STEPS - 10) + "a"  # 32
    assert not run(store, command="rename", old_path="/memories/a", new_path=shallower).is_error


def test_a_hand_made_tree_past_the_recursion_limit_is_listed_and_deleted(store):
    deep_tree(store.root, HAND_MADE_DEPTH)
    listing = run(store, command="view", path="/memories")
    assert not listing.is_error
    assert listing.content.splitlines()[1:] == ["4B\t/memories", "4B\t/memories/d/", "4B\t/memories/d/d/"]
    outcome = run(store, command="delete", path="/memories/d")
    assert outcome.content == "Successfully deleted /memories/d"
    assert files(store.root) == []


def test_the_listing_walks_hidden_folders_and_skips_symlinks_as_before(store, tmp_path):
    run(store, command="create", path="/memories/notes/a.md", file_text="12345")
    run(store, command="create", path="/memories/.hidden/deep/b.md", file_text="123")
    (store.root / "notes" / "link").symlink_to(tmp_path)
    total, rows = confined.tree(os.open(store.root, os.O_RDONLY | os.O_DIRECTORY), levels=2)
    assert total == 8
    assert rows == [("notes/", 5), ("notes/a.md", 5)]


def test_removing_a_tree_removes_symlinks_inside_and_never_follows_them(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    run(store, command="create", path="/memories/t/u/a.md", file_text="a")
    (store.root / "t" / "u" / "out").symlink_to(outside)
    assert not run(store, command="delete", path="/memories/t").is_error
    assert files(store.root) == [] and (outside / "keep.txt").read_text() == "keep"


def test_str_replace_reports_every_line_of_a_large_file(store):
    text = "".join(f"line {n} tag\n" for n in range(50_000))
    run(store, command="create", path="/memories/big.md", file_text=text)
    outcome = run(store, command="str_replace", path="/memories/big.md", old_str="tag", new_str="x")
    assert outcome.is_error
    lines = outcome.content.split("in lines: ")[1].split(". Please")[0].split(", ")
    assert lines[:3] == ["1", "2", "3"] and lines[-1] == "50000" and len(lines) == 50_000
    overlapping = run(store, command="create", path="/memories/o.md", file_text="aaa\naaa")
    assert not overlapping.is_error
    both = run(store, command="str_replace", path="/memories/o.md", old_str="aa", new_str="b")
    assert "in lines: 1, 1, 2, 2." in both.content
