"""The session log's lock against links, and its repair of a zero-filled tail (chapter 07)."""
from __future__ import annotations

import os

import pytest

from harness import user
from harness.session.log import LogInUse, SessionLog, lock_path
from harness.session.records import read_log


def two_records(path):
    with SessionLog(path, fsync=False) as log:
        log.append("message", message=user("one"))
        log.append("message", message=user("two"))
    return path.read_bytes()


def test_a_lock_sidecar_that_is_a_symlink_to_the_log_is_refused_and_the_log_is_untouched(tmp_path):
    path = tmp_path / "session.jsonl"
    before = two_records(path)
    lock_path(path).unlink()
    lock_path(path).symlink_to(path.name)
    with pytest.raises(ValueError, match="is a symlink"):
        SessionLog(path)
    assert path.read_bytes() == before
    lock_path(path).unlink()
    with SessionLog(path) as log:  # nothing was left locked by the refused open
        assert log.seq == 2


def test_a_lock_sidecar_that_links_outside_never_writes_there(tmp_path):
    path, outside = tmp_path / "session.jsonl", tmp_path / "outside.txt"
    outside.write_text("precious")
    lock_path(path).symlink_to(outside)
    with pytest.raises(ValueError, match="is a symlink"):
        SessionLog(path)
    assert outside.read_text() == "precious"


def test_a_lock_sidecar_that_is_a_hard_link_is_refused(tmp_path):
    path, outside = tmp_path / "session.jsonl", tmp_path / "outside.txt"
    before = two_records(path)
    lock_path(path).unlink()
    outside.write_text("precious")
    os.link(outside, lock_path(path))
    with pytest.raises(ValueError, match="hard link"):
        SessionLog(path)
    assert outside.read_text() == "precious" and path.read_bytes() == before


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_the_same_log_through_a_link_is_the_same_writer(tmp_path, link):
    path = tmp_path / "session.jsonl"
    two_records(path)
    other = tmp_path / "elsewhere" / "alias.jsonl"
    other.parent.mkdir()
    if link == "symlink":
        other.symlink_to(path)
    else:
        os.link(path, other)
    with SessionLog(path, fsync=False):
        with pytest.raises(LogInUse) as caught:
            SessionLog(other, fsync=False)
    assert caught.value.holder == (os.getpid() if link == "symlink" else None)  # a hard link elsewhere: no pid
    with SessionLog(other, fsync=False) as log:  # released with the first
        assert log.seq == 2


def test_a_log_that_is_not_a_regular_file_is_refused_without_blocking(tmp_path):
    path = tmp_path / "session.jsonl"
    os.mkfifo(path)
    with pytest.raises(ValueError, match="not a regular file"):
        SessionLog(path)


@pytest.mark.parametrize("zeros", [1, 7, 4096])
@pytest.mark.parametrize("cut_at", ["after a record", "inside a record", "after a record's newline"])
def test_a_zero_filled_tail_is_repaired_and_every_complete_record_kept(tmp_path, zeros, cut_at):
    path = tmp_path / "session.jsonl"
    whole = two_records(path)
    if cut_at == "after a record":  # the newline never reached the disk
        damaged, kept, action = whole[:-1] + b"\0" * zeros, whole, "newline"
    elif cut_at == "inside a record":
        first = whole.index(b"\n") + 1
        damaged, kept, action = whole[:first + 20] + b"\0" * zeros, whole[:first], "cut"
    else:
        damaged, kept, action = whole + b"\0" * zeros, whole, "cut"
    path.write_bytes(damaged)
    expected = [r for r in read_log(path).records]
    assert len(expected) == kept.count(b"\n")
    with SessionLog(path, fsync=False) as log:
        assert log.repair.action == action and log.seq == kept.count(b"\n")
        log.append("message", message=user("three"))
    assert path.read_bytes().startswith(kept)
    assert [r["message"] for r in read_log(path).records] == [r["message"] for r in expected] + [user("three")]
