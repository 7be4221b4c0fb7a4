"""Workspace, restricted bash and Toolbox (harness/core/tools.py, chapter 00)."""
from __future__ import annotations

import json
import os

import pytest

from harness import COMPACT_ACK, COMPACT_TOOL, PathEscape, Toolbox, ToolError, ToolOutcome, Workspace
from harness.core import tools


@pytest.fixture
def outside(tmp_path):
    """A folder next to the workspace, with a secret the agent must never see."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP SECRET\n")
    return folder


@pytest.fixture
def ws(tmp_path, outside):
    workspace = Workspace(tmp_path / "ws")
    (workspace.root / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (workspace.root / "src").mkdir()
    (workspace.root / "src" / "a.py").write_text("print('a')\n# TODO one\n")
    (workspace.root / "src" / "b.py").write_text("print('b')\n")
    return workspace


@pytest.fixture
def box(ws):
    return Toolbox(ws)


def snapshot(folder):
    """Every path under folder with its bytes (None for folders)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


# --- Workspace: inside ----------------------------------------------------


def test_workspace_creates_missing_root_and_resolves_it(tmp_path):
    ws = Workspace(tmp_path / "new" / "deeper")
    assert ws.root.is_dir()
    assert ws.root == (tmp_path / "new" / "deeper").resolve()
    assert ws.resolve("x/y.txt") == ws.root / "x" / "y.txt"
    assert ws.resolve(".") == ws.root
    assert ws.resolve("src/../notes.txt") == ws.root / "notes.txt"  # '..' that stays inside


def test_read_file_returns_bytes_exactly_as_stored(ws):
    (ws.root / "crlf.txt").write_bytes("one\r\ntwo\r\nno newline at end: é".encode())
    assert ws.read_file("crlf.txt") == "one\r\ntwo\r\nno newline at end: é"
    assert ws.read_file("notes.txt") == "alpha\nbeta\ngamma\n"


def test_read_file_limit_keeps_first_lines_and_counts_the_rest(ws):
    assert ws.read_file("notes.txt", limit=1) == "alpha\n... (2 more lines)"
    assert ws.read_file("notes.txt", limit=2) == "alpha\nbeta\n... (1 more lines)"
    assert ws.read_file("notes.txt", limit=3) == "alpha\nbeta\ngamma\n"
    assert ws.read_file("notes.txt", limit=99) == "alpha\nbeta\ngamma\n"
    with pytest.raises(ToolError, match="limit"):
        ws.read_file("notes.txt", limit=0)


def test_write_file_creates_parents_and_counts_utf8_bytes(ws):
    assert ws.write_file("deep/er/new.txt", "héllo\n") == "Wrote 7 bytes to deep/er/new.txt"
    assert (ws.root / "deep" / "er" / "new.txt").read_bytes() == "héllo\n".encode()
    assert ws.write_file("notes.txt", "") == "Wrote 0 bytes to notes.txt"
    assert (ws.root / "notes.txt").read_bytes() == b""


def test_edit_file_replaces_only_the_first_occurrence(ws):
    ws.write_file("rep.txt", "x = 1\nx = 1\n")
    assert ws.edit_file("rep.txt", "x = 1", "x = 2") == "Edited rep.txt"
    assert (ws.root / "rep.txt").read_text() == "x = 2\nx = 1\n"


def test_edit_file_refuses_missing_or_empty_old_text_and_changes_nothing(ws):
    with pytest.raises(ToolError, match="not found"):
        ws.edit_file("notes.txt", "delta", "epsilon")
    with pytest.raises(ToolError, match="empty"):
        ws.edit_file("notes.txt", "", "epsilon")
    assert (ws.root / "notes.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_list_files_is_recursive_sorted_and_relative(ws):
    (ws.root / "src" / "sub").mkdir()
    (ws.root / "src" / "sub" / "c.txt").write_text("c")
    (ws.root / "empty").mkdir()
    assert ws.list_files() == "notes.txt\nsrc/a.py\nsrc/b.py\nsrc/sub/c.txt"
    assert ws.list_files("src/sub") == "src/sub/c.txt"
    assert ws.list_files("notes.txt") == "notes.txt"
    assert ws.list_files("empty") == "(empty)"
    with pytest.raises(ToolError, match="nope: no such file"):
        ws.list_files("nope")


# --- Workspace: escapes ---------------------------------------------------


@pytest.mark.parametrize("path", ["", "../outside/secret.txt", "src/../../outside/secret.txt", "..", "a\x00b"])
def test_resolve_refuses_relative_escapes_and_invalid_paths(ws, path):
    with pytest.raises(PathEscape):
        ws.resolve(path)


def test_resolve_refuses_absolute_paths_even_inside_the_root(ws, outside):
    for path in [str(outside / "secret.txt"), str(ws.root / "notes.txt"), "/etc/passwd"]:
        with pytest.raises(PathEscape, match="absolute"):
            ws.resolve(path)


def test_symlinks_out_are_refused_anywhere_in_the_chain(ws, outside):
    (ws.root / "link.txt").symlink_to(outside / "secret.txt")
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    (ws.root / "src" / "hop").symlink_to("../linkdir")  # inside -> inside -> outside
    for path in ["link.txt", "linkdir", "linkdir/secret.txt", "src/hop/secret.txt", "src/hop/new.txt"]:
        with pytest.raises(PathEscape, match="outside the workspace"):
            ws.resolve(path)


def test_symlink_that_stays_inside_is_fine(ws):
    (ws.root / "alias.txt").symlink_to("notes.txt")
    assert ws.read_file("alias.txt") == "alpha\nbeta\ngamma\n"


def test_nothing_outside_is_read_or_written(ws, outside):
    (ws.root / "link.txt").symlink_to(outside / "secret.txt")
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    (ws.root / "dangling").symlink_to(outside / "not_yet.txt")  # target does not exist yet
    before = snapshot(outside)
    escapes = ["../outside/secret.txt", str(outside / "secret.txt"), "link.txt", "linkdir/secret.txt",
               "linkdir/new/file.txt", "dangling"]
    for path in escapes:
        with pytest.raises(PathEscape):
            ws.read_file(path)
        with pytest.raises(PathEscape):
            ws.write_file(path, "pwned")
        with pytest.raises(PathEscape):
            ws.edit_file(path, "TOP", "pwned")
        with pytest.raises(PathEscape):
            ws.list_files(path)
    assert snapshot(outside) == before
    assert (outside / "secret.txt").read_text() == "TOP SECRET\n"
    assert not (outside / "not_yet.txt").exists()


def test_list_files_hides_symlinks_that_lead_outside(ws, outside):
    (ws.root / "link.txt").symlink_to(outside / "secret.txt")
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    (ws.root / "alias.txt").symlink_to("notes.txt")
    assert ws.list_files() == "alias.txt\nnotes.txt\nsrc/a.py\nsrc/b.py"



def test_list_files_lists_everything_else_and_marks_a_loop_a_broken_link_and_an_unreadable_folder(ws):
    (ws.root / "src" / "loop1").symlink_to("loop2")
    (ws.root / "src" / "loop2").symlink_to("loop1")
    (ws.root / "dead.txt").symlink_to("missing.txt")
    (ws.root / "src" / "self").symlink_to("self")
    locked = ws.root / "locked"
    locked.mkdir()
    (locked / "hidden.txt").write_text("x")
    locked.chmod(0)
    try:
        listing = ws.list_files()
    finally:
        locked.chmod(0o755)
    readable = os.geteuid() == 0  # root reads any folder
    assert listing.split("\n") == [
        "dead.txt (broken symlink)",
        *(["locked/hidden.txt"] if readable else ["locked (folder not readable)"]),
        "notes.txt", "src/a.py", "src/b.py",
        "src/loop1 (symlink loop, not followed)", "src/loop2 (symlink loop, not followed)",
        "src/self (symlink loop, not followed)"]


# --- Restricted bash ------------------------------------------------------


def test_bash_runs_allowed_programs_in_the_root(ws):
    assert ws.bash("cat notes.txt") == "alpha\nbeta\ngamma"
    assert ws.bash("wc -l notes.txt") == "3 notes.txt"
    assert ws.bash("grep -rn TODO src") == "src/a.py:2:# TODO one"
    assert ws.bash("head -n 1 notes.txt") == "alpha"
    assert ws.bash("echo 'two  spaces' \"and quotes\"") == "two  spaces and quotes"
    assert ws.bash("ls") == "notes.txt\nsrc"


def test_bash_pwd_and_outputs_never_show_the_machine_path(ws):
    assert ws.bash("pwd") == "."
    assert ws.bash("grep -r alpha .") == "./notes.txt:alpha"
    (ws.root / "where.txt").write_text(f"root is {ws.root}/notes.txt\n")
    assert ws.bash("cat where.txt") == "root is ./notes.txt"
    box = Toolbox(ws)
    for name, tool_input in [("read_file", {"path": "where.txt"}), ("bash", {"command": "cat where.txt"}),
                             ("read_file", {"path": "missing.txt"}), ("bash", {"command": "cat missing.txt"})]:
        assert str(ws.root) not in box.run(name, tool_input).content


def test_bash_reports_exit_code_and_labelled_stderr(ws):
    assert ws.bash("grep nomatch notes.txt") == "exit code 1"
    out = ws.bash("cat missing.txt")
    assert out.splitlines() == ["[stderr]", "cat: missing.txt: No such file or directory", "exit code 1"]
    assert ws.bash("grep -c alpha notes.txt") == "1"


def test_bash_empty_output_and_cap(ws):
    ws.write_file("empty.txt", "")
    assert ws.bash("cat empty.txt") == "(no output)"
    ws.write_file("big.txt", "x" * 60_000)
    out = ws.bash("cat big.txt")
    assert out.startswith("x" * tools.MAX_OUTPUT + "\n... (output truncated")
    assert "60000 characters" in out
    assert len(out) < tools.MAX_OUTPUT + 100


@pytest.mark.parametrize("command", ["rm notes.txt", "python3 -c pass", "/usr/bin/ls", "touch made.txt",
                                     "sh -c 'ls'", "find .", "cp notes.txt copy.txt", "''"])
def test_bash_refuses_programs_off_the_allowlist_and_runs_nothing(ws, command):
    before = snapshot(ws.root)
    with pytest.raises(ToolError, match="not allowed"):
        ws.bash(command)
    assert snapshot(ws.root) == before
    assert (ws.root / "notes.txt").exists()


@pytest.mark.parametrize("command", [
    "ls | cat", "ls; touch made.txt", "ls && touch made.txt", "ls & touch made.txt",
    "echo hi > made.txt", "cat < notes.txt", "echo `touch made.txt`", "echo $(touch made.txt)",
    "echo $HOME", "echo ${PATH}", "ls\ntouch made.txt", "echo 'quoted | pipe'",
])
def test_bash_refuses_shell_syntax_and_runs_nothing(ws, command):
    before = snapshot(ws.root)
    with pytest.raises(ToolError, match="is not allowed"):
        ws.bash(command)
    assert snapshot(ws.root) == before
    assert not (ws.root / "made.txt").exists()


def test_bash_refuses_unparseable_and_empty_commands(ws):
    with pytest.raises(ToolError, match="cannot parse"):
        ws.bash("echo 'unclosed")
    with pytest.raises(ToolError, match="empty"):
        ws.bash("   ")


def test_bash_expands_globs_inside_the_workspace(ws):
    assert ws.bash("echo src/*.py") == "src/a.py src/b.py"
    assert ws.bash("echo *") == "notes.txt src"
    assert ws.bash("echo src/?.py") == "src/a.py src/b.py"
    assert ws.bash("echo src/[b].py") == "src/b.py"
    assert ws.bash("wc -l src/*.py").splitlines() == [" 2 src/a.py", " 1 src/b.py", " 3 total"]
    assert ws.bash("echo *.nomatch") == "*.nomatch"  # no match stays literal
    assert ws.bash("echo '*'") == "notes.txt src"  # quoting does not stop our globbing: documented


def test_bash_refuses_arguments_that_leave_the_workspace(ws, outside):
    (ws.root / "link.txt").symlink_to(outside / "secret.txt")
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    refused = ["cat ../outside/secret.txt", f"cat {outside}/secret.txt", "cat /etc/passwd",
               "cat link.txt", "cat linkdir/secret.txt", "ls linkdir", "cat src/../notes.txt",
               "cat ../outside/*", "cat linkdir/*", "echo *",  # '*' expands to link.txt too
               "grep --file=/etc/passwd x notes.txt", "grep --file=link.txt x notes.txt", "diff notes.txt ..",
               "head -n 1 ../outside/secret.txt"]
    for command in refused:
        with pytest.raises(PathEscape):
            ws.bash(command)


@pytest.mark.parametrize("command", [
    "grep -R TOP .", "grep -rR TOP .", "grep --dereference-recursive TOP .", "grep -flink.txt notes.txt",
    "ls -L", "ls -lL", "ls --dereference", "ls --deref", "diff -Xlink.txt src src",
    "sort -o out.txt notes.txt", "sort -oout.txt notes.txt", "sort --compress-program=rm notes.txt",
    "sort --compress=rm notes.txt", "sort -T. notes.txt", "wc --files0-from=list.txt",
])
def test_bash_refuses_risky_options(ws, command):
    before = snapshot(ws.root)
    with pytest.raises(ToolError, match="option .* is not allowed"):
        ws.bash(command)
    assert snapshot(ws.root) == before


def test_bash_checks_glob_results_that_look_like_options(ws):
    (ws.root / "-L").write_text("x")
    with pytest.raises(ToolError, match="option -L is not allowed for ls"):
        ws.bash("ls *")
    assert ws.bash("cat *.txt") == "alpha\nbeta\ngamma"


def test_bash_recursive_grep_does_not_follow_symlinks_out(ws, outside):
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    assert ws.bash("grep -r TOP .") == "exit code 1"
    assert ws.bash("grep -rn --exclude=*.txt TODO .") == "./src/a.py:2:# TODO one"


def test_bash_diff_does_not_follow_symlinks_inside_folders(ws, outside):
    (ws.root / "a").mkdir()
    (ws.root / "b").mkdir()
    (ws.root / "a" / "secret.txt").symlink_to(outside / "secret.txt")
    (ws.root / "b" / "secret.txt").write_text("other\n")
    for command in ["diff a b", "diff -r a b", "diff -ru a b"]:
        out = ws.bash(command)
        assert "TOP SECRET" not in out
        assert out == "File a/secret.txt is a symbolic link while file b/secret.txt is a regular file\nexit code 1"
    assert ws.bash("diff -u src/a.py src/a.py") == "(no output)"


def test_bash_runs_with_a_clean_environment(ws, monkeypatch):
    monkeypatch.setenv("GREP_COLORS", "mt=01;32")
    monkeypatch.setenv("SECRET_TOKEN", "abc")
    assert ws.bash("grep --color=always alpha notes.txt") == "\x1b[01;31m\x1b[Kalpha\x1b[m\x1b[K"
    assert tools.BASH_ENV == {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def test_bash_timeout_is_an_error(ws, monkeypatch):
    monkeypatch.setattr(tools, "BASH_TIMEOUT", 0.3)
    with pytest.raises(ToolError, match="timed out"):
        ws.bash("tail -f notes.txt")


# --- Toolbox --------------------------------------------------------------


def test_schemas_have_the_api_shape_in_a_stable_order(box):
    assert box.names == ["read_file", "write_file", "edit_file", "list_files", "bash", "compact"]
    for schema in box.schemas:
        assert set(schema) == {"name", "description", "input_schema"}
        assert schema["description"].strip()
        assert schema["input_schema"]["type"] == "object"
        props = schema["input_schema"]["properties"]
        assert set(schema["input_schema"].get("required", [])) <= set(props)
        assert all(p["type"] in {"string", "integer"} for p in props.values())
    required = {s["name"]: s["input_schema"].get("required", []) for s in box.schemas}
    assert required == {"read_file": ["path"], "write_file": ["path", "content"],
                        "edit_file": ["path", "old_text", "new_text"], "list_files": [],
                        "bash": ["command"], "compact": []}
    assert box.schemas[-1] == COMPACT_TOOL
    assert json.loads(json.dumps(box.schemas)) == box.schemas


def test_schemas_without_compact_and_copies_are_independent(ws):
    box = Toolbox(ws, include_compact=False)
    assert box.names == ["read_file", "write_file", "edit_file", "list_files", "bash"]
    box.schemas[0]["name"] = "changed"
    assert box.names[0] == "read_file"
    assert box.run("compact", {}) == ToolOutcome("Error: unknown tool 'compact'", is_error=True)


def test_run_dispatches_to_the_workspace(box, ws):
    assert box.run("write_file", {"path": "a.txt", "content": "hi\n"}) == ToolOutcome("Wrote 3 bytes to a.txt")
    assert box.run("read_file", {"path": "a.txt"}) == ToolOutcome("hi\n")
    assert box.run("read_file", {"path": "notes.txt", "limit": 1}) == ToolOutcome("alpha\n... (2 more lines)")
    assert box.run("edit_file", {"path": "a.txt", "old_text": "hi", "new_text": "ho"}) == ToolOutcome("Edited a.txt")
    assert box.run("list_files", {}) == ToolOutcome("a.txt\nnotes.txt\nsrc/a.py\nsrc/b.py")
    assert box.run("list_files", {"path": "src"}) == ToolOutcome("src/a.py\nsrc/b.py")
    assert box.run("bash", {"command": "cat a.txt"}) == ToolOutcome("ho")


def test_run_acknowledges_compact(box):
    assert box.run("compact", {}) == ToolOutcome(COMPACT_ACK)
    assert box.run("compact", {"focus": "the failing test"}) == ToolOutcome(COMPACT_ACK)


@pytest.mark.parametrize("name, tool_input, message", [
    ("delete_file", {"path": "notes.txt"}, "Error: unknown tool 'delete_file'"),
    ("read_file", {}, "Error: read_file is missing required argument 'path'"),
    ("read_file", {"path": 3}, "Error: read_file argument 'path' must be string, got integer"),
    ("read_file", {"path": "notes.txt", "limit": "2"}, "Error: read_file argument 'limit' must be integer, got string"),
    ("read_file", {"path": "notes.txt", "limit": True}, "Error: read_file argument 'limit' must be integer, got boolean"),
    ("read_file", {"path": "notes.txt", "limit": 0}, "Error: limit must be at least 1, got 0"),
    ("read_file", {"path": "notes.txt", "lines": 2}, "Error: read_file got unexpected argument 'lines'"),
    ("read_file", "notes.txt", "Error: read_file expects an object of arguments, got string"),
    ("write_file", {"path": "x.txt"}, "Error: write_file is missing required argument 'content'"),
    ("edit_file", {"path": "notes.txt", "old_text": "alpha"}, "Error: edit_file is missing required argument 'new_text'"),
    ("edit_file", {"path": "notes.txt", "old_text": "zeta", "new_text": "eta"}, "Error: notes.txt: old_text not found"),
    ("bash", {"command": None}, "Error: bash argument 'command' must be string, got null"),
    ("compact", {"focus": 1}, "Error: compact argument 'focus' must be string, got integer"),
    ("read_file", {"path": "missing.txt"}, "Error: missing.txt: No such file or directory"),
    ("read_file", {"path": "src"}, "Error: src: Is a directory"),
    ("write_file", {"path": "src", "content": "x"}, "Error: src: Is a directory"),
    ("write_file", {"path": "notes.txt/x", "content": "x"}, "Error: notes.txt/x: a parent folder is a file"),
    ("write_file", {"path": "notes.txt/x/y", "content": "x"}, "Error: notes.txt/x/y: Not a directory"),
    ("read_file", {"path": "notes.txt/x"}, "Error: notes.txt/x: Not a directory"),
    ("edit_file", {"path": "missing.txt", "old_text": "a", "new_text": "b"}, "Error: missing.txt: No such file or directory"),
    ("list_files", {"path": "missing"}, "Error: missing: no such file or directory"),
    ("read_file", {"path": "../outside/secret.txt"}, "Error: ../outside/secret.txt: leads outside the workspace"),
    ("read_file", {"path": "/etc/passwd"}, "Error: /etc/passwd: absolute paths are not allowed, use a relative path"),
    ("read_file", {"path": ""}, "Error: invalid path ''"),
    ("bash", {"command": "rm -rf ."}, "Error: program 'rm' is not allowed; allowed: " + ", ".join(tools.ALLOWED_PROGRAMS)),
    ("bash", {"command": "cat notes.txt | wc"}, "Error: '|' is not allowed: run one program, without pipes, redirects, "
                                                 "variables or chaining"),
    ("bash", {"command": "cat ../outside/secret.txt"}, "Error: ../outside/secret.txt: '..' is not allowed in bash arguments"),
])
def test_run_turns_mistakes_into_error_outcomes(box, ws, name, tool_input, message):
    before = snapshot(ws.root)
    outcome = box.run(name, tool_input)
    assert outcome == ToolOutcome(message, is_error=True)
    assert "\n" not in outcome.content
    assert snapshot(ws.root) == before  # a refused call changes nothing


def test_run_reports_undecodable_and_unencodable_text(box, ws):
    (ws.root / "blob.bin").write_bytes(b"\xff\xfe\x00")
    assert box.run("read_file", {"path": "blob.bin"}) == ToolOutcome("Error: blob.bin: not valid UTF-8 text", True)
    outcome = box.run("write_file", {"path": "new/s.txt", "content": "lone \ud800 surrogate"})
    assert outcome == ToolOutcome("Error: new/s.txt: not valid UTF-8 text", True)
    assert not (ws.root / "new").exists()  # refused before any folder was made


def test_run_reports_text_that_cannot_become_a_file_name(box):
    lone = "\ud800"
    assert box.run("read_file", {"path": lone}) == ToolOutcome(f"Error: {lone}: not valid UTF-8 text", True)
    outcome = box.run("bash", {"command": f"echo {lone}"})
    assert outcome == ToolOutcome(f"Error: echo {lone}: not valid UTF-8 text", True)


def test_run_never_touches_outside_through_any_tool(box, ws, outside):
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    calls = [("read_file", {"path": "linkdir/secret.txt"}),
             ("write_file", {"path": "linkdir/secret.txt", "content": "pwned"}),
             ("write_file", {"path": "linkdir/made/new.txt", "content": "pwned"}),
             ("edit_file", {"path": "linkdir/secret.txt", "old_text": "TOP", "new_text": "pwned"}),
             ("list_files", {"path": "linkdir"}),
             ("bash", {"command": "cat linkdir/secret.txt"}),
             ("bash", {"command": "uniq notes.txt ../outside/made.txt"})]
    for name, tool_input in calls:
        outcome = box.run(name, tool_input)
        assert outcome.is_error, (name, tool_input)
        assert "TOP SECRET" not in outcome.content
    assert snapshot(outside) == before


def test_two_workspaces_are_independent(tmp_path):
    first, second = Workspace(tmp_path / "one"), Workspace(tmp_path / "two")
    first.write_file("f.txt", "1")
    assert second.list_files() == "(empty)"
    assert os.listdir(tmp_path / "one") == ["f.txt"]
