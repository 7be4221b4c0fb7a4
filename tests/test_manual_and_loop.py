"""Layer 3 (the compact tool) and the loop that runs all three layers (chapters 04 and 05)."""
from __future__ import annotations

import copy
from pathlib import Path

import anthropic
import pytest

from harness import (COMPACT_ACK, COMPACT_TOOL, COMPACT_TOOL_NAME, CompactionConfig, InvalidHistory, SummaryFailed,
                     Toolbox, assistant, compact_focus, count_tokens, estimate_tokens, finish_round, is_placeholder,
                     iter_tool_results, iter_tool_uses, read_transcript, run_agent, text, tool_result, tool_use, user,
                     validate_messages)
from harness.fake import FakeModel
from harness.labs.scenarios import READ_AGENTS, TWELVE_FILES
from harness.session.log import SessionLog
from harness.session.records import read_log
from harness.session.runner import Session
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.three_layers import ThreeLayers

FOCUS = "the user's requests, decisions and notes"  # what the fake agent asks compact to keep


class Recorder:
    """Wraps a client and records every create() request, deep-copied at the time of the call."""

    def __init__(self, client):
        self.inner, self.requests = client, []
        self.messages = self

    def create(self, **request):
        self.requests.append(copy.deepcopy(request))
        return self.inner.messages.create(**request)


class Scripted:
    """A client that replies from a script (one content list per agent call); summaries get a fixed text."""

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []
        self.messages = self

    def create(self, **request):
        self.requests.append(copy.deepcopy(request))
        validate_messages(request["messages"])
        content = self.replies.pop(0) if "tools" in request else [text("Summary: the work so far.")]
        return anthropic.types.Message.model_validate({
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": request["model"],
            "content": content, "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": count_tokens(request["messages"]), "output_tokens": 1}})


def twelve_file_session(tmp_path, config=None, client=None, log=False, one_at_a_time=False, **fake_options):
    """The twelve-file task's session; ``one_at_a_time``: every call sends ``disable_parallel_tool_use``."""
    workspace = TWELVE_FILES.build(tmp_path / "workspace")
    config = (config or CompactionConfig()).with_(transcript_dir=tmp_path / "transcripts")
    model = FakeModel(**fake_options)
    compactor = OneCallPerTurn(ThreeLayers()) if one_at_a_time else ThreeLayers()
    session = Session(client or model.client(), Toolbox(workspace), config, compactor,
                      log=SessionLog(tmp_path / "session.jsonl") if log else None)
    return session, model


# --- the compact tool -----------------------------------------------------------


def test_compact_tool_schema_has_an_optional_focus():
    assert COMPACT_TOOL["name"] == COMPACT_TOOL_NAME == "compact"
    schema = COMPACT_TOOL["input_schema"]
    assert schema["type"] == "object"
    assert schema["properties"]["focus"]["type"] == "string"
    assert not schema.get("required")


@pytest.mark.parametrize("tool_input, focus", [
    ({}, None), ({"focus": "  the rules  "}, "the rules"), ({"focus": "   "}, None), ({"focus": 7}, None)])
def test_compact_focus(tool_input, focus):
    assert compact_focus(tool_input) == focus


# --- manual compaction in the loop ----------------------------------------------------


def test_manual_compaction_appends_the_compact_result_first(tmp_path):
    session, model = twelve_file_session(tmp_path, compact_policy="after_task")
    result = session.ask(READ_AGENTS)
    assert result.stop == "compact"
    [manual] = [e for e in result.events if e.kind == "manual"]
    transcript = read_transcript(manual.detail["transcript"])
    validate_messages(transcript)
    # the transcript ends with the round that called compact, its tool_result included
    *_, asked, answered = transcript
    [compact_use] = [b for b in asked["content"] if b["type"] == "tool_use"]
    assert compact_use["name"] == "compact" and compact_use["input"] == {"focus": FOCUS}
    assert answered == user([{"type": "tool_result", "tool_use_id": compact_use["id"], "content": COMPACT_ACK}])
    # ...and the live history is now the one compressed message
    [message] = session.messages
    assert message["content"].startswith(f"[Conversation compressed. Transcript: {manual.detail['transcript']}]")
    assert f"Focus: {FOCUS}" in message["content"]  # the focus reached the summariser
    assert manual.tokens_before == estimate_tokens(transcript)
    assert manual.tokens_after == estimate_tokens(session.messages)
    assert manual.detail["messages_before"] == len(transcript)


def test_loop_stops_after_manual_compaction_and_the_session_goes_on(tmp_path):
    session, model = twelve_file_session(tmp_path, compact_policy="after_task")
    session.ask(READ_AGENTS)
    assert model.requests[-2:] == ["agent", "summary"]  # no agent call after the compaction
    assert session.trace[-1].kind == "summary" and session.trace[-1].layers == ("manual",)
    assert session.trace[-2].tools == ("compact",)
    assert session.trace[-1].call == session.trace[-2].call
    for n in range(1, 13):  # the answer given in the compacting round is kept
        assert f"agents/s{n:02d}_" in session.answers[0]

    result = session.ask("What is VERSION_TAG in agents/s01_agent_loop.py?")
    assert result.stop == "compact"
    assert session.answers[1] == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'
    assert [t.call for t in session.trace if t.kind == "agent"] == list(range(1, session.stats.model_calls + 1))


def test_compact_called_with_other_tools_gets_all_results_in_one_message(tmp_path):
    script = [
        [text("Reading and tidying."), tool_use("u1", "read_file", {"path": "agents/s01_agent_loop.py"}),
         tool_use("u2", "compact", {}), tool_use("u3", "list_files", {"path": "agents"})],
    ]
    client = Scripted(script)
    session, _ = twelve_file_session(tmp_path, client=client)
    result = session.ask("Look at s01 and tidy up.")
    assert result.stop == "compact"
    assert result.tool_calls == [("read_file", {"path": "agents/s01_agent_loop.py"}), ("compact", {}),
                                 ("list_files", {"path": "agents"})]
    transcript = read_transcript(result.events[-1].detail["transcript"])
    assert [(b["tool_use_id"], b["content"] == COMPACT_ACK) for _, _, b in iter_tool_results(transcript)] == [
        ("u1", False), ("u2", True), ("u3", False)]
    assert transcript[-1]["content"][0]["content"].startswith('"""s01_agent_loop: runs the basic agent loop')
    assert "tools" not in client.requests[-1]  # the summary request
    assert "Focus" not in client.requests[-1]["messages"][0]["content"]  # compact({}) has no focus
    assert session.messages[0]["content"].endswith("Summary: the work so far.")


# --- the end of a round (chapter 04) -----------------------------------------------------

def round_toolbox(tmp_path):
    return Toolbox(TWELVE_FILES.build(tmp_path / "workspace"))


def test_finish_round_appends_every_result_before_it_compacts(tmp_path):
    content = [text("One more file, then tidy up."), tool_use("u1", "read_file", {"path": "agents/s01_agent_loop.py"}),
               tool_use("u2", "compact", {"focus": " the notes "}), tool_use("u3", "list_files", {"path": "agents"})]
    messages, seen = [user(READ_AGENTS)], []

    def compact(focus):
        validate_messages(messages)  # every tool_use is answered when the compaction starts
        seen.append((focus, copy.deepcopy(messages)))
        messages[:] = [user("[summary]")]

    assert finish_round(messages, content, round_toolbox(tmp_path), compact) is True
    [(focus, history)] = seen
    assert focus == "the notes" and messages == [user("[summary]")]
    assert history[1] == assistant(content)
    assert [b["tool_use_id"] for b in history[2]["content"]] == ["u1", "u2", "u3"]
    assert history[2]["content"][1] == tool_result("u2", COMPACT_ACK)


@pytest.mark.parametrize("content", [[text("Done.")], [tool_use("u1", "read_file", {"path": "agents/s01_agent_loop.py"})]])
def test_finish_round_without_compact_never_compacts(tmp_path, content):
    messages = [user(READ_AGENTS)]
    assert finish_round(messages, content, round_toolbox(tmp_path), pytest.fail) is False
    assert messages[1] == assistant(content)
    assert len(messages) == 2 + any(b["type"] == "tool_use" for b in content)
    validate_messages(messages + [user("next")] if messages[-1]["role"] == "assistant" else messages)


def test_run_agent_ends_rounds_with_the_finish_it_is_given(tmp_path):
    """A finish that compacts before appending the results breaks the history the way chapter 04 shows."""
    def compact_first(messages, content, tools, compact):
        uses = [b for b in content if b["type"] == "tool_use"]
        messages.append(assistant(content))
        called = any(b["name"] == COMPACT_TOOL_NAME for b in uses)
        if called:
            compact(None)
        if uses:
            messages.append(user([tool_result(b["id"], tools.run(b["name"], b["input"]).content) for b in uses]))
        return called

    session, _ = twelve_file_session(tmp_path, compact_policy="after_task")
    session.loop = lambda *args, **kwargs: run_agent(*args, finish=compact_first, **kwargs)
    assert session.ask(READ_AGENTS).stop == "compact"
    with pytest.raises(InvalidHistory):
        validate_messages(session.messages)  # the summary, then a tool_result that answers nothing
    with pytest.raises(anthropic.BadRequestError, match="unexpected `tool_use_id` found in `tool_result` blocks"):
        session.ask("What is VERSION_TAG in agents/s01_agent_loop.py?")


# --- the order of the layers -------------------------------------------------------------


def test_micro_runs_before_auto_before_the_call(tmp_path):
    config = CompactionConfig(keep_recent=1, threshold=3000, preserve_tools=frozenset())
    session, model = twelve_file_session(tmp_path, config)
    client = Recorder(model.client())
    session.client = client
    session.ask(READ_AGENTS)
    both = [t.call for t in session.trace if t.layers == ("micro", "auto")]
    assert both, "this configuration makes micro and auto fire before the same call"
    call = both[0]
    micro, auto = [e for e in session.events if e.call == call]
    assert (micro.kind, auto.kind) == ("micro", "auto")
    assert auto.tokens_before == micro.tokens_after > config.threshold  # auto saw micro's result
    summary, agent = [t for t in session.trace if t.call == call]
    assert (summary.kind, summary.layers, agent.kind) == ("summary", ("auto",), "agent")
    assert agent.estimated == auto.tokens_after  # the call saw auto's result
    # the transcript was written after micro: it already holds a placeholder
    transcript = read_transcript(auto.detail["transcript"])
    assert any(is_placeholder(b["content"]) for _, _, b in iter_tool_results(transcript))
    # on the wire: the summary request, then the agent request with the one compressed message
    kinds = ["summary" if "tools" not in r else "agent" for r in client.requests]
    assert kinds == model.requests
    position = [i for i, r in enumerate(client.requests) if "tools" in r][call - 1]
    assert kinds[position - 1] == "summary"
    [compressed] = client.requests[position]["messages"]
    assert compressed["content"].startswith("[Conversation compressed. Transcript:")
    for request in client.requests:
        validate_messages(request["messages"])


def test_on_event_gets_every_event_with_its_numbers(tmp_path):
    seen = []
    config = CompactionConfig(threshold=5000, preserve_tools=frozenset())
    session, _ = twelve_file_session(tmp_path, config, one_at_a_time=True)  # the layers act between reads
    session.on_event = seen.append
    session.ask(READ_AGENTS)
    assert seen == session.events
    kinds = [e.kind for e in seen]
    assert kinds.count("micro") >= 1 and kinds.count("auto") >= 3
    for event in seen:
        assert event.tokens_after < event.tokens_before
        if event.kind == "micro":
            assert event.detail["cleared"] >= 1 and event.detail["tools"]
        else:
            assert event.tokens_before > config.threshold
            assert Path(event.detail["transcript"]).parent == tmp_path / "transcripts"
            assert Path(event.detail["transcript"]).exists()
            assert event.detail["summary"] and event.detail["messages_before"] > 1
    assert [e.call for e in seen] == sorted(e.call for e in seen)


def test_max_turns_stops_the_loop_with_a_valid_history(tmp_path):
    session, model = twelve_file_session(tmp_path, CompactionConfig(max_turns=3), one_at_a_time=True)
    result = session.ask(READ_AGENTS)
    assert result.stop == "max_turns"
    assert [t.call for t in result.trace] == [1, 2, 3]
    assert model.requests == ["agent"] * 3
    last = result.events[-1]
    assert (last.kind, last.call) == ("max_turns", 3)
    assert last.tokens_before == last.tokens_after == estimate_tokens(session.messages)
    assert session.answers == [""]
    validate_messages(session.messages)
    assert session.messages[-1]["content"][0]["type"] == "tool_result"
    # the next request numbers its calls on from there
    session.ask("What is VERSION_TAG in agents/s09_agent_teams.py?")  # not read yet: read, then answer
    assert [t.call for t in session.trace] == [1, 2, 3, 4, 5]
    assert session.answers[-1] == 'VERSION_TAG in agents/s09_agent_teams.py is "v9-agent".'


def test_auto_compaction_that_fails_in_the_loop_leaves_a_valid_history(tmp_path):
    session, model = twelve_file_session(tmp_path, CompactionConfig(threshold=3000), fail_summaries=1)
    with pytest.raises(SummaryFailed):
        session.ask(READ_AGENTS)
    validate_messages(session.messages)
    [transcript] = (tmp_path / "transcripts").glob("*.jsonl")
    assert read_transcript(transcript) == session.messages
    assert model.requests[-1] == "summary"


def test_a_refused_call_leaves_the_calls_before_it_in_the_session_and_a_valid_history(tmp_path):
    session, model = twelve_file_session(tmp_path, CompactionConfig(micro=False, auto=False), one_at_a_time=True)
    session.messages += [user("go" + " go" * 189_000), {"role": "assistant", "content": [text("Noted.")]}]
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long|exceed context limit"):
        session.ask(READ_AGENTS)  # lists agents/ and reads files until a call no longer fits the window
    made = len(model.requests)
    assert made > 2 and [t.call for t in session.trace] == list(range(1, made + 1))
    assert [name for name, _ in session.tool_calls] == ["list_files"] + ["read_file"] * (made - 1)
    assert session.answers == []
    validate_messages(session.messages)
    assert session.messages[-1]["content"][0]["type"] == "tool_result"


def test_run_agent_directly_returns_a_run_result(tmp_path):
    workspace = TWELVE_FILES.build(tmp_path / "workspace")
    messages = [user("What is VERSION_TAG in agents/s05_skill_loading.py?")]
    result = run_agent(FakeModel().client(), messages, system="sys", tools=Toolbox(workspace),
                       config=CompactionConfig(transcript_dir=tmp_path / "t"), compactor=ThreeLayers())
    assert result.stop == "end_turn"
    assert result.tool_calls == [("read_file", {"path": "agents/s05_skill_loading.py"})]
    assert result.reply == 'VERSION_TAG in agents/s05_skill_loading.py is "v5-skill".'
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    first, second = result.trace
    assert first.input_tokens == first.counted == count_tokens(messages[:1], system="sys",
                                                               tools=Toolbox(workspace).schemas)
    assert first.estimated == estimate_tokens(messages[:1])
    assert second.counted == second.input_tokens and second.tools == ()


# --- the session log ------------------------------------------------------------------


def strip_placeholders_equal(transcript: list[dict], logged: list[dict]) -> bool:
    """Equal, except that a placeholder in the transcript may stand for any original output in the log."""
    if len(transcript) != len(logged):
        return False
    for kept, original in zip(transcript, logged):
        if kept == original:
            continue
        if kept["role"] != original["role"] or len(kept["content"]) != len(original["content"]):
            return False
        for a, b in zip(kept["content"], original["content"]):
            if a != b and not (a["type"] == "tool_result" and is_placeholder(a["content"])
                               and {**a, "content": None} == {**b, "content": None}):
                return False
    return True


def test_session_log_holds_every_message_once_in_order_with_original_outputs(tmp_path):
    config = CompactionConfig(threshold=5000, preserve_tools=frozenset())
    session, _ = twelve_file_session(tmp_path, config, log=True, compact_policy="after_task")
    session.ask(READ_AGENTS)
    session.ask("What is VERSION_TAG in agents/s01_agent_loop.py?")
    records = read_log(session.log.path).records
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    compactions = [r for r in records if r["kind"] == "compaction"]
    events = [e for e in session.events if e.kind in ("auto", "manual")]
    assert [(r["layer"], r["transcript"]) for r in compactions] == [
        (e.kind, e.detail["transcript"]) for e in events]
    assert {e.kind for e in events} == {"auto", "manual"}

    logged = [r["message"] for r in records if r["kind"] == "message"]
    validate_messages(logged)  # the whole uncompacted history, one valid conversation
    use_ids = [b["id"] for _, b in iter_tool_uses(logged)]
    assert len(use_ids) == len(set(use_ids)) == len(session.tool_calls)
    assert [(b["name"], b["input"]) for _, b in iter_tool_uses(logged)] == session.tool_calls
    workspace = session.toolbox.workspace
    for i, j, block in iter_tool_results(logged):
        assert not is_placeholder(block["content"])
        use = next(b for _, b in iter_tool_uses(logged) if b["id"] == block["tool_use_id"])
        if use["name"] == "read_file":
            assert block["content"] == workspace.read_file(use["input"]["path"])
    assert [m["content"] for m in logged if isinstance(m["content"], str) and m["role"] == "user"] == [
        READ_AGENTS, "What is VERSION_TAG in agents/s01_agent_loop.py?"]

    # between compactions, the log holds what the transcripts hold, outputs uncut
    segments, current = [], []
    for record in records:
        if record["kind"] == "message":
            current.append(record["message"])
        else:
            segments.append(current)
            current = []
    previous = None
    for record, segment in zip(compactions, segments):
        transcript = read_transcript(record["transcript"])
        expected = ([previous] if previous else []) + segment
        assert strip_placeholders_equal(transcript, expected)
        previous = record["message"]
    assert session.messages == [previous] + current


def test_session_log_reopened_continues_its_numbering(tmp_path):
    path = tmp_path / "log.jsonl"
    log = SessionLog(path)
    assert log.sync([user("one"), user("two")]) == 2
    assert log.sync([user("one"), user("two")]) == 0
    log.close()  # one writer at a time
    again = SessionLog(path)
    record = again.append("message", message=user("three"))
    assert record == {"seq": 3, "kind": "message", "message": user("three")}
    assert [r["seq"] for r in read_log(again.path).records] == [1, 2, 3]
