"""The course's long session through a port of the s06 lesson's loop (tests/s06_port.py): the fake
summarises that loop's own summary request, whose history arrives as ``json.dumps(..., default=str)``.

The first three tests send ``disable_parallel_tool_use`` (one call per turn): s06 summarises the last 80,000
characters of its dump, and with parallel calls twelve reads answered together make one message longer than
that, so a summary made right after it holds no whole message at all (the last test)."""
from __future__ import annotations

import json
import re

from harness.fake import FakeModel
from harness.fake.view import NOTE
from harness.labs.scenarios import LONG_SESSION
from s06_port import S06Port

FILE_TOOLS = ("read_file", "edit_file", "write_file")


def whole_in(dump: str, messages: list) -> list:
    """The messages whose own dump lies whole inside ``dump`` (what a summary can be asked to keep)."""
    return [m for m in messages if json.dumps(m, default=str) in dump]


def expected_facts(messages: list) -> tuple[set[str], set[str], list[str]]:
    """(notes the assistant wrote, files it read or edited, the user's requests) in SDK-kept messages."""
    notes, files, requests = set(), set(), []
    for message in messages:
        content = message["content"]
        if message["role"] == "user":
            requests += [content] if isinstance(content, str) and not content.startswith("[Compressed") else []
            continue
        for block in content:
            if block.type == "text":
                notes |= {f"Note: {path} — {purpose}" for path, purpose in NOTE.findall(block.text)}
            elif block.type == "tool_use" and block.name in FILE_TOOLS:
                files.add(block.input["path"])
    return notes, files, requests


def run_session(tmp_path, parallel=False, requests=LONG_SESSION.requests, **fake_options) -> tuple[S06Port, FakeModel]:
    model = FakeModel(**fake_options)
    port = S06Port(model.client(), LONG_SESSION.build(tmp_path / "ws"), tmp_path / "transcripts", limit=25_000,
                   parallel=parallel)
    history = []
    original_compact = port.compact

    def compact(focus: str = "") -> None:  # keep what each summary was made from
        history.append(list(port.messages))
        original_compact(focus)
    port.compact = compact
    for request in requests:
        port.ask(request)
    port.histories = history
    return port, model


def by_compact_tool(before: list) -> bool:
    """Whether the summary made from ``before`` was asked for by the model's own ``compact`` call."""
    return getattr(before[-2]["content"][-1], "name", None) == "compact"


def test_auto_compaction_summaries_keep_the_assistants_notes_files_and_the_requests(tmp_path):
    port, model = run_session(tmp_path, compact_policy="never")  # auto-compaction alone
    assert len(port.summaries) >= 3 and model.requests.count("summary") == len(port.summaries)
    assert "TextBlock(" in port.summaries[0][0] and "ToolUseBlock(" in port.summaries[0][0]  # the s06 form
    kept = {"notes": 0, "files": 0}
    for (dump, summary), before in zip(port.summaries, port.histories):
        notes, files, requests = expected_facts(whole_in(dump, before))
        kept["notes"] += len(notes)
        kept["files"] += len(files)
        for note in notes:
            assert note in summary
        for path in files:
            assert re.search(rf"^- (read|edited): {re.escape(path)}$", summary, re.MULTILINE), (path, summary)
        for request in requests:
            assert f"- User: {request}" in summary
        if requests:  # auto-compaction runs before the call that answers the latest request
            assert f"- In progress: {requests[-1]}" in summary
    assert kept["notes"] >= 10 and kept["files"] >= 10  # the dumps did hold assistant turns to keep


def test_summaries_after_the_compact_tool_read_finished(tmp_path):
    """The fake is told to call compact after each task (its own choice near the limit is tested elsewhere)."""
    port, _ = run_session(tmp_path, compact_policy=12_000)
    by_tool = [(dump, summary, before) for (dump, summary), before in zip(port.summaries, port.histories)
               if by_compact_tool(before)]
    assert len(by_tool) >= 3
    for dump, summary, before in by_tool:
        last_request = next(m["content"] for m in reversed(before) if m["role"] == "user"
                            and isinstance(m["content"], str))
        if json.dumps({"role": "user", "content": last_request}, default=str) in dump:
            assert f"- Finished: {last_request}" in summary, summary
        notes, files, _ = expected_facts(whole_in(dump, before))
        assert all(note in summary for note in notes)
        assert all(f": {path}" in summary for path in files)


def test_told_its_limit_the_model_compacts_on_its_own_near_it(tmp_path):
    """No policy forced: the port's system prompt states its limit and offers ``compact`` (this fake: at 0.8
    of the stated limit, after a task). Every summary still keeps the notes and files it was sent."""
    port, _ = run_session(tmp_path)
    own = [before for before in port.histories if by_compact_tool(before)]
    assert own, "the model never called compact on its own"
    for (dump, summary), before in zip(port.summaries, port.histories):
        notes, files, _ = expected_facts(whole_in(dump, before))
        assert all(note in summary for note in notes)
        assert all(f": {path}" in summary for path in files)


def test_with_parallel_calls_a_summary_right_after_twelve_results_holds_no_request(tmp_path):
    """Twelve reads answered in one message (about 91,000 characters of JSON) fill the whole 80,000-character
    tail s06 sends: the summary sees no whole message, names no request, and the model loses the task."""
    port, _ = run_session(tmp_path, parallel=True, requests=LONG_SESSION.requests[:1], compact_policy="never")
    dump, summary = port.summaries[0]
    assert len(json.dumps(port.histories[0][-1], default=str)) > 80_000 and whole_in(dump, port.histories[0]) == []
    assert "- No request is visible in what I was given." in summary
    last = port.messages[-1]["content"]
    assert [b.text for b in last if b.type == "text"] == ["I have lost track of the current request. "
                                                          "What should I do next?"]
