"""Re-injection after compaction (harness/production/reinject.py, chapter 13): the order, the budget, files as
they are now, and the fake reading what came back."""
from __future__ import annotations

import pytest

from harness import CompactionConfig, Workspace, assistant, tool_result, user
from harness.core.auto import SUMMARY_PREFIX
from harness.core.tokens import text_tokens
from harness.core.tools import Toolbox
from harness.fake import FakeModel
from harness.labs.scenarios import LONG_SESSION
from harness.production.reinject import (RESTORED_HEADER, ReinjectingLayers, Restorable, file_entry,
                                         instruction_entry, reinjection, what_to_restore)
from harness.session.runner import Session

RULE = "From now on, never edit anything under tools/; it is vendored code."


def read(i, path):
    return [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "read_file",
                                               "input": {"path": path}}]},
            user([tool_result(f"toolu_{i}", "...")])]


HISTORY = [user("Read a."), *read(1, "a.py"), *read(2, "b.py"), assistant("Done."), user(RULE),
           assistant("Understood."), user("Read a again."), *read(3, "a.py"), *read(4, ".tool_results/001_x.txt"),
           assistant("Done."), user("always answer briefly"), assistant("Understood.")]


@pytest.fixture
def workspace(tmp_path):
    ws = Workspace(tmp_path)
    for name, lines in (("a.py", 3), ("b.py", 3), ("c.py", 400)):
        ws.write_file(name, "".join(f"{name} line {n}\n" for n in range(lines)))
    return ws


def test_what_to_restore_keeps_the_order_the_module_states():
    assert what_to_restore(HISTORY) == Restorable((RULE, "always answer briefly"), ("a.py", "b.py"))


def test_instructions_first_then_files_newest_first_read_from_disk_now(workspace):
    workspace.write_file("a.py", "a.py changed since it was read\n")
    text = reinjection(Restorable((RULE,), ("a.py", "b.py")), workspace, budget=1_000)
    assert text == "\n\n".join([RESTORED_HEADER, instruction_entry(RULE),
                                file_entry("a.py", "a.py changed since it was read\n"),
                                file_entry("b.py", workspace.read_file("b.py"))])


def test_a_deleted_file_is_left_out(workspace):
    (workspace.root / "a.py").unlink()
    text = reinjection(Restorable((), ("a.py", "b.py", "../outside.py")), workspace, budget=1_000)
    assert "a.py" not in text.replace("b.py", "") and file_entry("b.py", workspace.read_file("b.py")) in text


def test_the_budget_is_never_passed_and_what_does_not_fit_is_skipped(workspace):
    small = text_tokens(file_entry("a.py", workspace.read_file("a.py")))
    big = text_tokens(file_entry("c.py", workspace.read_file("c.py")))
    budget = small * 2 + 5
    text = reinjection(Restorable((), ("c.py", "a.py", "b.py")), workspace, budget=budget)
    assert "File c.py" not in text and "File a.py" in text and "File b.py" in text and big > budget
    entries = text.split("\n\n", 1)[1]
    assert sum(text_tokens(e) for e in [file_entry(p, workspace.read_file(p)) for p in ("a.py", "b.py")]) <= budget
    assert entries.count("File ") == 2


def test_at_most_max_files_and_none_when_nothing_fits(workspace):
    text = reinjection(Restorable((), ("a.py", "b.py", "c.py")), workspace, budget=100_000, max_files=1)
    assert text.count("File ") == 1 and "File a.py" in text
    assert reinjection(Restorable((RULE,), ("a.py",)), workspace, budget=3) is None
    assert reinjection(Restorable((), ()), workspace) is None


def test_the_strategy_puts_it_after_the_summary_and_the_fake_obeys_the_rule_again(tmp_path):
    """With a summariser that drops the rule (the lossy one), only the re-injected copy keeps it."""
    answers = {}
    for name in ("plain", "reinjected"):
        ws = LONG_SESSION.build(tmp_path / name)
        from harness.strategies.three_layers import ThreeLayers
        strategy = ReinjectingLayers(ws) if name == "reinjected" else ThreeLayers()
        session = Session(FakeModel(summary_style="lossy").client(), Toolbox(ws),
                          CompactionConfig(threshold=8_000, transcript_dir=tmp_path / f"{name}-tr"), strategy)
        for request in LONG_SESSION.requests[:8]:
            session.ask(request)
        assert session.events and any(e.kind == "auto" for e in session.events)
        answers[name] = session.ask('In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".')
        if name == "reinjected":
            first = session.messages[0]["content"]
            assert first.startswith(SUMMARY_PREFIX) and RESTORED_HEADER in first
            assert first.index(RESTORED_HEADER) > first.index("\n\n")
    assert "I will not change tools/t05_shell.py" in answers["reinjected"].reply
    assert "I will not change" not in answers["plain"].reply


def test_a_restored_file_answers_a_question_without_a_read():
    from harness.labs.scenarios import python_module
    module = python_module("s01_agent_loop", "runs the loop", 1)
    handover = (f"{SUMMARY_PREFIX}. Transcript: t.jsonl]\n\n1. What was accomplished:\n- read: agents/s01_agent_loop.py"
                f"\n\n{RESTORED_HEADER}\n\n{file_entry('agents/s01_agent_loop.py', module)}")
    model = FakeModel()
    reply = model.client().messages.create(
        model="claude-haiku-4-5", max_tokens=500, tools=Toolbox(Workspace(".")).schemas,
        messages=[user(handover), assistant("Ready."), user("What is VERSION_TAG in agents/s01_agent_loop.py?")])
    assert [b.type for b in reply.content] == ["text"] and '"v1-agent"' in reply.content[0].text
