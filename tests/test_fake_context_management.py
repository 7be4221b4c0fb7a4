"""The API's context management, served offline by the fake, all through the real SDK's beta API (chapter 10)."""
from __future__ import annotations

import copy
import json

import anthropic
import pytest
from anthropic.types import CompactionBlockMisplacedError
from anthropic.types.beta import BetaCompactionBlock

from harness import api_context, assistant, count_tokens, text, tool_result, tool_use, user, validate_messages
from harness.core.config import DEFAULT_MODEL
from harness.core.loop import to_dicts
from harness.core.tokens import text_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.compaction_rules import compaction_block
from harness.fake.context_management import (CLEARED_RESULT, COMPACTION_PROMPT, ON_DEMAND_BETA,
                                             apply_context_management, stand_in)
from harness.fake.server import request_tokens
from harness.fake.summarizer import summarise_text
from harness.labs.scenarios import AGENT_FILES, READ_AGENTS, python_module

NAMES = list(AGENT_FILES)
SYSTEM = "You are a careful coding agent."


def session(reads: int, lines: int = 150, bash: int = 0) -> list[dict]:
    """A user request, a listing, ``reads`` read_file rounds and ``bash`` bash rounds, ending on a tool result."""
    messages = [user(READ_AGENTS), assistant([tool_use("l0", "list_files", {"path": "agents"})]),
                user([tool_result("l0", "\n".join(f"agents/{n}.py" for n in NAMES))])]
    for k in range(reads):
        name = NAMES[k % len(NAMES)]
        messages += [assistant([text(f"Reading agents/{name}.py."), tool_use(f"r{k}", "read_file",
                                                                            {"path": f"agents/{name}.py"})]),
                     user([tool_result(f"r{k}", python_module(name, AGENT_FILES[name], k + 1, lines))])]
    for k in range(bash):
        messages += [assistant([tool_use(f"b{k}", "bash", {"command": f"wc -l agents/{NAMES[k]}.py"})]),
                     user([tool_result(f"b{k}", f"{150 + k} agents/{NAMES[k]}.py\n" * 40)])]
    return messages


def tokens(messages: list[dict]) -> int:
    return count_tokens(messages, system=SYSTEM, tools=FILE_TOOLS)


COMPACTING = "claude-sonnet-4-6"  # a model that runs compact_20260112 (Haiku 4.5, the course's, does not)


def send(client, messages, edits=None, *, betas=None, context_management=None):
    """``client.beta.messages.create`` with these edits and the betas they need."""
    edits = edits or []
    return client.beta.messages.create(
        model=COMPACTING, max_tokens=1024, system=SYSTEM, tools=FILE_TOOLS, messages=messages,
        betas=api_context.betas_for(edits) if betas is None else betas,
        context_management={"edits": edits} if context_management is None else context_management)


def cleared(messages: list[dict], ids: set[str], inputs: bool = False) -> list[dict]:
    """What the server should make of ``messages`` when it clears the tool uses ``ids``."""
    out = copy.deepcopy(messages)
    for message in out:
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block["type"] == "tool_result" and block["tool_use_id"] in ids:
                block["content"] = CLEARED_RESULT
            if block["type"] == "tool_use" and block["id"] in ids and inputs:
                block["input"] = {}
    return out


@pytest.fixture
def client():
    return FakeModel().client()


# --- clear_tool_uses_20250919 -----------------------------------------------------------

def test_below_the_trigger_nothing_is_cleared(client):
    messages = session(4)
    response = send(client, messages, [api_context.clear_tool_uses(trigger=tokens(messages), keep=1)])
    assert response.context_management.applied_edits == []
    assert response.usage.input_tokens == tokens(messages)


def test_past_the_trigger_the_oldest_results_go_and_usage_counts_what_is_left(client):
    messages = session(6)                      # 7 tool uses: the listing and 6 reads
    before = copy.deepcopy(messages)
    response = send(client, messages, [api_context.clear_tool_uses(trigger=tokens(messages) - 1, keep=3)])
    [applied] = response.context_management.applied_edits
    expected = cleared(messages, {"l0", "r0", "r1", "r2"})
    assert (applied.type, applied.cleared_tool_uses) == ("clear_tool_uses_20250919", 4)
    assert response.usage.input_tokens == tokens(expected)
    assert applied.cleared_input_tokens == tokens(messages) - tokens(expected)
    assert messages == before                  # a server-side edit: the client's history is untouched


@pytest.mark.parametrize("keep, gone", [(0, 7), (5, 2), (7, 0), (20, 0)])
def test_keep_counts_the_newest_tool_uses(client, keep, gone):
    messages = session(6)
    response = send(client, messages, [api_context.clear_tool_uses(trigger=1_000, keep=keep)])
    applied = response.context_management.applied_edits
    assert [a.cleared_tool_uses for a in applied] == ([gone] if gone else [])


def test_clear_at_least_applies_the_edit_only_when_enough_goes(client):
    messages = session(6)
    whole = send(client, messages, [api_context.clear_tool_uses(trigger=1_000, keep=3)])
    could = whole.context_management.applied_edits[0].cleared_input_tokens
    enough = send(client, messages, [api_context.clear_tool_uses(trigger=1_000, keep=3, clear_at_least=could)])
    too_much = send(client, messages, [api_context.clear_tool_uses(trigger=1_000, keep=3, clear_at_least=could + 1)])
    assert enough.context_management.applied_edits[0].cleared_input_tokens == could
    assert too_much.context_management.applied_edits == []
    assert too_much.usage.input_tokens == tokens(messages)


def test_excluded_tools_are_never_cleared(client):
    messages = session(4, bash=3)              # l0, r0-r3, then b0-b2
    response = send(client, messages, [api_context.clear_tool_uses(
        trigger=1_000, keep=1, exclude_tools=["read_file", "list_files"])])
    [applied] = response.context_management.applied_edits
    assert applied.cleared_tool_uses == 2      # b0 and b1; b2 is kept, the reads are excluded
    assert response.usage.input_tokens == tokens(cleared(messages, {"b0", "b1"}))


def test_clear_tool_inputs_clears_the_inputs_too(client):
    messages = session(4)
    edit = api_context.clear_tool_uses(trigger=1_000, keep=1, clear_tool_inputs=True)
    response = send(client, messages, [edit])
    ids = {"l0", "r0", "r1", "r2"}
    assert response.usage.input_tokens == tokens(cleared(messages, ids, inputs=True))
    seen = apply_context_management({"messages": messages, "context_management": {"edits": [edit]}},
                                    api_context.CONTEXT_EDITING_BETA, lambda body: tokens(body["messages"])).body
    assert seen["messages"] == cleared(messages, ids, inputs=True)
    assert seen["messages"][3]["content"][1] == tool_use("r0", "read_file", {})
    assert seen["messages"][4]["content"][0]["content"] == CLEARED_RESULT


def test_clear_tool_inputs_may_name_the_tools_whose_inputs_go(client):
    messages = session(2, bash=2)
    edit = {**api_context.clear_tool_uses(trigger=1_000, keep=0), "clear_tool_inputs": ["bash"]}
    response = send(client, messages, [edit])
    expected = cleared(messages, {"l0", "r0", "r1", "b0", "b1"})
    for message in expected:
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block["type"] == "tool_use" and block["name"] == "bash":
                block["input"] = {}
    assert response.usage.input_tokens == tokens(expected)


def test_a_tool_uses_trigger_counts_tool_uses(client):
    messages = session(3)                      # 4 tool uses
    edit = api_context.clear_tool_uses(keep=1)
    at = send(client, messages, [{**edit, "trigger": {"type": "tool_uses", "value": 4}}])
    past = send(client, messages, [{**edit, "trigger": {"type": "tool_uses", "value": 3}}])
    assert at.context_management.applied_edits == []
    assert past.context_management.applied_edits[0].cleared_tool_uses == 3


def test_the_model_answers_from_the_edited_request(client):
    """The fake model sees the placeholders: with every result cleared it must read the file again."""
    messages = [user("What is VERSION_TAG in agents/s01_agent_loop.py?"),
                assistant([tool_use("r0", "read_file", {"path": "agents/s01_agent_loop.py"})]),
                user([tool_result("r0", python_module("s01_agent_loop", AGENT_FILES["s01_agent_loop"], 1))])]
    plain = send(client, messages)
    edited = send(client, messages, [api_context.clear_tool_uses(trigger=100, keep=0)])
    assert plain.content[0].type == "text" and "v1-agent" in plain.content[0].text
    assert [(b.type, getattr(b, "name", None)) for b in edited.content] == [("tool_use", "read_file")]


def test_a_request_without_context_management_is_served_as_before():
    messages = session(2)
    plain = FakeModel().client().messages.create(model=DEFAULT_MODEL, max_tokens=1024, system=SYSTEM,
                                                 tools=FILE_TOOLS, messages=messages)
    beta = FakeModel().client().beta.messages.create(model=DEFAULT_MODEL, max_tokens=1024, system=SYSTEM,
                                                     tools=FILE_TOOLS, messages=messages)
    assert beta.context_management is None and beta.usage.iterations is None
    assert beta.model_dump(exclude_none=True) == plain.model_dump(exclude_none=True)


# --- compact_20260112 --------------------------------------------------------------------

BIG = session(8, lines=520)                   # a bit over 50,000 tokens


def test_the_big_session_is_past_the_minimum_trigger():
    assert 50_000 < tokens(BIG) < 60_000


def test_below_the_trigger_there_is_no_compaction(client):
    response = send(client, BIG, [api_context.server_compaction(trigger=tokens(BIG))])
    assert [b.type for b in response.content] != [] and response.content[0].type != "compaction"
    assert response.usage.iterations is None and response.usage.input_tokens == tokens(BIG)
    assert response.context_management.applied_edits == []


def test_past_the_trigger_a_compaction_block_opens_the_response_and_the_reply_follows(client):
    before = copy.deepcopy(BIG)
    response = send(client, BIG, [api_context.server_compaction(trigger=50_000)])
    block = response.content[0]
    assert isinstance(block, BetaCompactionBlock)
    dumped = block.model_dump()
    assert set(dumped) == {"type", "content", "encrypted_content", "signature", "tool_changes"}
    assert dumped["type"] == "compaction" and dumped["tool_changes"] == []
    assert dumped["encrypted_content"].startswith("fake-encrypted-") and dumped["signature"].startswith("fake-")
    summary = summarise_text(f"{COMPACTION_PROMPT}\n\n<conversation>\n{json.dumps(BIG, ensure_ascii=False)}\n"
                             "</conversation>")
    assert block.content == summary and "- In progress: " + READ_AGENTS in summary
    assert [b.type for b in response.content[1:]] in (["tool_use"], ["text", "tool_use"], ["text"])
    assert response.stop_reason in ("tool_use", "end_turn")
    compaction, message = response.usage.iterations
    assert (compaction.type, message.type) == ("compaction", "message")
    assert response.usage.input_tokens == message.input_tokens == tokens([stand_in(summary)])
    assert response.usage.output_tokens == message.output_tokens
    assert compaction.input_tokens > tokens(BIG) and compaction.output_tokens > 0
    assert response.context_management.applied_edits == []  # compaction is reported by its block
    assert BIG == before


def next_request(history: list[dict], response) -> list[dict]:
    """The history with the response appended as the loop keeps it, and the tool results it asked for."""
    content = to_dicts(response.content)
    history = history + [assistant(content)]
    uses = [b for b in content if b["type"] == "tool_use"]
    if uses:
        history.append(user([tool_result(b["id"], "(tool output)") for b in uses]))
    return history


def test_the_block_goes_back_first_and_the_server_reads_from_it(client):
    edits = [api_context.server_compaction(trigger=50_000)]
    first = send(client, BIG, edits)
    history = next_request(BIG, first)
    with pytest.raises(CompactionBlockMisplacedError) as misplaced:  # the whole history, block inside
        send(client, history, edits)
    assert misplaced.value.error_code == "compaction_block_misplaced" and misplaced.value.status_code == 400
    assert misplaced.value.body["error"]["message"].startswith(f"messages.{len(BIG)}.content.0: a `compaction` block")
    from_block = history[len(BIG):]             # what the API asks: the block first, what came before dropped
    validate_messages(from_block)
    second = send(client, from_block, edits)
    assert second.usage.iterations is None      # the context is small again: no new compaction
    assert second.usage.input_tokens < 2_000 < tokens(history)
    seen = [stand_in(first.content[0].content), assistant(from_block[0]["content"][1:]), *from_block[1:]]
    assert second.usage.input_tokens == tokens(seen)


def test_pause_after_compaction_stops_after_the_block_and_the_next_request_continues():
    model = FakeModel()
    client = model.client()
    edits = [api_context.server_compaction(trigger=50_000, pause_after_compaction=True)]
    paused = send(client, BIG, edits)
    assert [b.type for b in paused.content] == ["compaction"] and paused.stop_reason == "compaction"
    assert [i.type for i in paused.usage.iterations] == ["compaction"]
    assert (paused.usage.input_tokens, paused.usage.output_tokens) == (0, 0)
    assert model.requests == ["compaction"]    # the summarising step ran, the model's reply did not
    history = [assistant(to_dicts(paused.content))]   # the block first, what it summarises dropped
    validate_messages(history)                 # a paused turn may end the request
    resumed = send(client, history, edits)
    assert resumed.content[0].type != "compaction" and resumed.usage.iterations is None
    assert resumed.usage.input_tokens == tokens([stand_in(paused.content[0].content)])
    assert model.requests == ["compaction", "agent"]


def test_instructions_replace_the_default_prompt(client):
    focus = send(client, BIG, [api_context.server_compaction(
        trigger=50_000, instructions="Keep only what matters.\nFocus especially on: the VERSION_TAG values")])
    default = send(client, BIG, [api_context.server_compaction(trigger=50_000)])
    assert "Focus: the VERSION_TAG values" in focus.content[0].content
    assert "Focus:" not in default.content[0].content
    headings = ("Summarise under these headings:\n1. Primary Request and Intent\n2. Files and Code Sections\n"
                "3. All user messages\n4. Pending Tasks")
    sections = send(client, BIG, [api_context.server_compaction(trigger=50_000, instructions=headings)])
    assert sections.content[0].content.startswith("1. Primary Request and Intent:\n")
    assert "3. All user messages:\n- User: " + READ_AGENTS in sections.content[0].content
    read = sections.usage.iterations[0].input_tokens - default.usage.iterations[0].input_tokens
    assert read == text_tokens(headings) - text_tokens(COMPACTION_PROMPT)  # instead of the default, not added


def test_a_compaction_block_with_null_content_is_a_no_op(client):
    history = session(2)[:-2] + [assistant([{"type": "compaction", "content": None},
                                            tool_use("x", "read_file", {"path": "agents/s01_agent_loop.py"})]),
                                 user([tool_result("x", "short")])]
    validate_messages(history)
    response = send(client, history, [api_context.server_compaction(trigger=50_000)])
    without = history[:-2] + [assistant([history[-2]["content"][1]]), history[-1]]
    assert response.usage.input_tokens == tokens(without)


@pytest.mark.parametrize("trigger, ok", [(49_999, False), (50_000, True)])
def test_the_trigger_must_be_at_least_50000(client, trigger, ok):
    edits = [api_context.server_compaction(trigger=trigger)]
    if ok:
        assert send(client, session(1), edits).usage.input_tokens == tokens(session(1))
        return
    with pytest.raises(anthropic.BadRequestError) as error:
        send(client, session(1), edits)
    assert "context_management.edits.0.trigger.value: must be at least 50,000" in str(error.value)


# --- what the server refuses ----------------------------------------------------------------

CLEAR = api_context.clear_tool_uses()
COMPACT = api_context.server_compaction()


@pytest.mark.parametrize("edits, field", [
    ([{"type": "clear_tool_uses_20990101"}], "context_management.edits.0.type: unknown edit type"),
    ([{**CLEAR, "kep": 3}], "context_management.edits.0.kep: extra inputs"),
    ([{**CLEAR, "keep": {"type": "tool_uses", "value": "three"}}], "context_management.edits.0.keep.value"),
    ([{**CLEAR, "keep": {"type": "input_tokens", "value": 3}}], "context_management.edits.0.keep.type"),
    ([{**CLEAR, "trigger": {"value": 3}}], "context_management.edits.0.trigger: must be an object"),
    ([{**CLEAR, "clear_at_least": {"type": "input_tokens", "value": -1}}],
     "context_management.edits.0.clear_at_least.value"),
    ([{**CLEAR, "exclude_tools": "bash"}], "context_management.edits.0.exclude_tools"),
    ([{**CLEAR, "clear_tool_inputs": 3}], "context_management.edits.0.clear_tool_inputs"),
    ([COMPACT, COMPACT], "context_management.edits.1: compact_20260112 given twice"),
    ([{**COMPACT, "pause_after_compaction": "yes"}], "context_management.edits.0.pause_after_compaction"),
    ([{**COMPACT, "instructions": 5}], "context_management.edits.0.instructions"),
    ([{**COMPACT, "trigger": {"type": "tool_uses", "value": 60_000}}], "context_management.edits.0.trigger.type"),
])
def test_a_bad_edit_is_a_400_naming_the_field(client, edits, field):
    betas = [api_context.CONTEXT_EDITING_BETA, api_context.COMPACTION_BETA]
    with pytest.raises(anthropic.BadRequestError) as error:
        send(client, session(1), betas=betas, context_management={"edits": edits})
    assert field in str(error.value)


def test_an_edit_needs_its_beta_header(client):
    with pytest.raises(anthropic.BadRequestError, match="compact_20260112 needs the anthropic-beta header "
                                                        "compact-2026-01-12"):
        send(client, session(1), [COMPACT], betas=[api_context.CONTEXT_EDITING_BETA])
    with pytest.raises(anthropic.BadRequestError, match="context_management: must be an object"):
        send(client, session(1), betas=[api_context.COMPACTION_BETA], context_management={"edits": 3})


def test_a_compaction_block_needs_a_compaction_beta(client):
    history = [assistant([compaction_block("Earlier: the user asked for a listing.")]), user("Go on.")]
    with pytest.raises(anthropic.BadRequestError, match="messages.0.content.0: a compaction block needs"):
        client.messages.create(model=DEFAULT_MODEL, max_tokens=100, tools=FILE_TOOLS, messages=history)
    for beta in (api_context.COMPACTION_BETA, ON_DEMAND_BETA):  # the server edit's, or on-demand compaction's
        assert send(client, history, betas=[beta]).usage.input_tokens == tokens(
            [stand_in("Earlier: the user asked for a listing."), user("Go on.")])


def test_usage_is_counted_the_fake_way_after_every_edit(client):
    """Clearing, then compaction, in the order given: the trigger sees the cleared request."""
    edits = [api_context.clear_tool_uses(trigger=1_000, keep=1), api_context.server_compaction(trigger=50_000)]
    response = send(client, BIG, edits)
    [applied] = response.context_management.applied_edits
    assert tokens(BIG) - applied.cleared_input_tokens <= 50_000   # cleared below the compaction trigger
    assert response.usage.iterations is None and response.content[0].type != "compaction"
    assert response.usage.input_tokens == request_tokens(
        {"messages": cleared(BIG, {"l0"} | {f"r{k}" for k in range(7)}), "system": SYSTEM, "tools": FILE_TOOLS})
