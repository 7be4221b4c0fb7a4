"""Chapter 10's strategies: the loop asks the API (here the offline fake) to manage the context itself,
and keeps and resends the compaction blocks it returns."""
from __future__ import annotations

import pytest
from anthropic.types.beta import BetaCompactionBlock

from harness import InvalidHistory, api_context, assistant, text, user, validate_messages
from harness.core.config import CompactionConfig
from harness.core.loop import RunContext, to_dicts
from harness.core.tokens import block_tokens, count_tokens, text_tokens
from harness.fake import fake_client
from harness.fake.context_management import CLEARED_RESULT
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.labs.strategy_lab import listed
from harness.session.resume import resume
from harness.session.runner import SYSTEM_PROMPT
from harness.strategies.base import Compactor
from harness.strategies.guards import check_next_request
from harness.strategies.server_side import ServerCompaction, ServerToolClearing

REQUESTS = LONG_SESSION.requests[:12]   # peaks near 70,000 tokens uncompressed


def compaction_blocks(messages):
    return [(i, b) for i, m in enumerate(messages) if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "compaction"]


COMPACTING = CompactionConfig(model="claude-sonnet-4-6")  # a model that runs compact_20260112; Haiku 4.5 does not


def run(tmp_path, compactor, **options):
    return run_scenario(LONG_SESSION, COMPACTING, tmp_path, requests=REQUESTS, compactor=compactor,
                        **options)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    return run(tmp_path_factory.mktemp("none"), Compactor())


# --- the format: a compaction block in the history ---------------------------------------------

def test_to_dicts_keeps_a_compaction_block_exactly_as_the_api_sent_it():
    sent = [BetaCompactionBlock(type="compaction", content="Earlier work."),
            BetaCompactionBlock(type="compaction", content=None),
            BetaCompactionBlock(type="compaction", content="S", encrypted_content="opaque", signature="sig")]
    assert to_dicts(sent) == [{"type": "compaction", "content": "Earlier work."},
                              {"type": "compaction", "content": None},
                              {"type": "compaction", "content": "S", "encrypted_content": "opaque", "signature": "sig"}]


@pytest.mark.parametrize("block, ok", [
    ({"type": "compaction", "content": "Earlier work."}, True),
    ({"type": "compaction", "content": None}, True),       # a failed compaction, round-tripped
    ({"type": "compaction"}, True),
    ({"type": "compaction", "content": ""}, False),       # the SDK's param type: empty content is not allowed
    ({"type": "compaction", "content": 3}, False),
])
def test_an_assistant_message_may_hold_a_compaction_block(block, ok):
    history = [assistant([block, text("b")]), user("c")]
    if ok:
        validate_messages(history)
        assert block_tokens(block) == text_tokens(block.get("content") or "")
    else:
        with pytest.raises(InvalidHistory, match="block_fields: messages\\[0\\], block 0"):
            validate_messages(history)
    with pytest.raises(InvalidHistory, match="block_type"):
        validate_messages([user([block])])


def test_only_a_paused_compaction_may_end_a_history_on_the_assistant():
    paused = [assistant([{"type": "compaction", "content": "S"}])]
    validate_messages(paused)
    with pytest.raises(InvalidHistory, match="ends_with_user"):
        validate_messages([assistant([{"type": "compaction", "content": "S"}, text("b")])])


# --- what each strategy asks for ------------------------------------------------------------

def test_the_strategies_ask_for_their_edit_and_its_beta():
    clearing = ServerToolClearing(trigger=30_000, keep=2, clear_at_least=1_000, exclude_tools=["read_file"],
                                  clear_tool_inputs=True)
    compaction = ServerCompaction(trigger=60_000, instructions="Keep the goals.", pause_after_compaction=True)
    assert clearing.request_options(None) == {
        "betas": [api_context.CONTEXT_EDITING_BETA],
        "context_management": {"edits": [api_context.clear_tool_uses(
            trigger=30_000, keep=2, clear_at_least=1_000, exclude_tools=["read_file"], clear_tool_inputs=True)]}}
    assert compaction.request_options(None) == {
        "betas": [api_context.COMPACTION_BETA],
        "context_management": {"edits": [api_context.server_compaction(
            trigger=60_000, instructions="Keep the goals.", pause_after_compaction=True)]}}
    request = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}],
               **compaction.request_options(None)}
    body, beta = api_context.wire_request(request)
    assert beta == api_context.COMPACTION_BETA and body["context_management"]["edits"][0]["trigger"]["value"] == 60_000
    assert Compactor().request_options(None) == {}


@pytest.mark.parametrize("make, words", [
    (lambda: ServerToolClearing(trigger=-1), "trigger must be >= 0"),
    (lambda: ServerToolClearing(keep=True), "keep must be an integer"),
    (lambda: ServerToolClearing(exclude_tools="bash"), "exclude_tools must be a collection"),
    (lambda: ServerToolClearing(clear_tool_inputs="yes"), "clear_tool_inputs must be True or False"),
    (lambda: ServerCompaction(trigger=0), "trigger must be >= 1"),
    (lambda: ServerCompaction(instructions="  "), "instructions must be a non-blank string"),
    (lambda: ServerCompaction(pause_after_compaction=1), "pause_after_compaction must be True or False"),
])
def test_bad_settings_are_refused_when_the_strategy_is_made(make, words):
    with pytest.raises(ValueError, match=words):
        make()


# --- server-side clearing -----------------------------------------------------------------------

def test_server_clearing_keeps_the_full_history_and_the_server_sends_less(tmp_path, baseline):
    session = run(tmp_path, ServerToolClearing(trigger=20_000, keep=3))
    check_next_request(session.messages)
    assert not any(b.get("content") == CLEARED_RESULT for m in session.messages if isinstance(m["content"], list)
                   for b in m["content"])                 # the client's history is never edited
    events = [e for e in session.events if e.kind == "clear_tool_uses_20250919"]
    assert events and all(e.tokens_after < e.tokens_before for e in events)
    assert all(e.detail["cleared_input_tokens"] == e.tokens_before - e.tokens_after for e in events)
    agent = [t for t in session.trace if t.kind == "agent"]
    cleared_calls = {e.call for e in events}
    for t in agent:                                       # usage counts what the model saw after the edit
        assert (t.input_tokens < t.counted) == (t.call in cleared_calls)
    assert session.stats.peak_context < 20_000 < baseline.stats.peak_context
    assert [listed(a) for a in session.answers] == [listed(a) for a in baseline.answers]  # it re-read what it needed


# --- server compaction ----------------------------------------------------------------------------

def test_server_compaction_keeps_its_block_in_the_history_and_the_context_drops(tmp_path, baseline):
    session = run(tmp_path, ServerCompaction(trigger=50_000), log=True)
    check_next_request(session.messages)
    [(index, block)] = compaction_blocks(session.messages)
    assert index == 0 and session.messages[0]["role"] == "assistant" and session.messages[0]["content"][0] is block
    assert resume(tmp_path / "session.jsonl").messages == session.messages  # a resumed session starts there too
    assert set(block) == {"type", "content", "encrypted_content", "signature", "tool_changes"}
    assert block["content"].startswith("1. What was accomplished:")
    [event] = [e for e in session.events if e.kind == "compact_20260112"]
    assert event.detail == {"summary": block["content"], "paused": False}
    assert event.tokens_before > 50_000 > event.tokens_after
    [summary_call] = [t for t in session.trace if t.kind == "summary"]
    assert (summary_call.call, summary_call.input_tokens, summary_call.layers) == (
        event.call, event.tokens_before, ("compact_20260112",))
    agent = {t.call: t for t in session.trace if t.kind == "agent"}
    assert agent[event.call].input_tokens < 2_000         # the reply in that response read only the summary
    assert max(t.input_tokens for t in agent.values()) <= 50_000 < baseline.stats.peak_context
    assert session.answers == baseline.answers


def test_a_paused_compaction_is_sent_back_and_the_loop_goes_on(tmp_path, baseline):
    session = run(tmp_path, ServerCompaction(trigger=50_000, pause_after_compaction=True), log=True)
    check_next_request(session.messages)
    [(index, block)] = compaction_blocks(session.messages)
    assert index == 0 and session.messages[0]["content"] == [block]   # the paused turn, as the API returned it
    assert session.messages[index + 1]["role"] == "assistant"  # the continued turn follows it
    validate_messages(session.messages[:index + 1])        # a history may end on the paused turn
    [event] = [e for e in session.events if e.kind == "compact_20260112"]
    assert event.detail["paused"] is True
    paused_call = next(t for t in session.trace if t.kind == "agent" and t.call == event.call)
    assert (paused_call.input_tokens, paused_call.output_tokens) == (0, 0)
    assert session.answers == baseline.answers
    assert resume(tmp_path / "session.jsonl").messages == session.messages  # the log keeps the block


def test_the_whole_long_session_compacts_again_and_again(tmp_path):
    session = run_scenario(LONG_SESSION, COMPACTING, tmp_path, compactor=ServerCompaction(trigger=50_000))
    check_next_request(session.messages)
    events = [e for e in session.events if e.kind == "compact_20260112"]
    assert len(events) >= 2 and session.stats.compactions == {"compact_20260112": len(events)}
    assert session.stats.peak_context <= 50_000
    # the history starts from the last block, the only one it holds: what came before went with each compaction
    [(index, block)] = compaction_blocks(session.messages)
    assert index == 0 and block["content"] == events[-1].detail["summary"]
    assert count_tokens(session.messages, system=SYSTEM_PROMPT) < 50_000


def test_the_loop_is_unchanged_for_a_strategy_without_options(tmp_path):
    class NoBeta:
        """A client with no beta API: a strategy without request options never needs it."""

        def __init__(self, inner):
            self.messages = inner.messages

    session = run_scenario(LONG_SESSION, CompactionConfig(), tmp_path, requests=REQUESTS[:2],
                           client=NoBeta(fake_client()), compactor=Compactor())
    assert len(session.answers) == 2 and all(session.answers)


def test_run_context_holds_the_latest_response(tmp_path):
    seen = []

    class Spy(Compactor):
        def after_round(self, run: RunContext, usage) -> None:
            seen.append(run.response.usage is usage)

    run_scenario(LONG_SESSION, CompactionConfig(), tmp_path, requests=REQUESTS[:1], compactor=Spy())
    assert seen and all(seen)
