"""Thinking: a signed thinking block opens the reply, counts as output, and must come back unchanged; the API's
budget and tool-choice rules; clear_thinking_20251015; the course's own loop with thinking on
(harness/fake/thinking.py, output.py, core/loop.py's to_dicts; chapters 00 and 10)."""
from __future__ import annotations

import copy
import typing
from typing import Any

import anthropic
import pytest
from anthropic.types.beta import BetaRedactedThinkingBlockParam, BetaThinkingBlockParam

from harness import CompactionConfig, Toolbox, run_agent, text, tool_result, tool_use, user
from harness.core.messages import BLOCK_FIELDS
from harness.core.tokens import block_tokens, text_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.output import cap_output
from harness.fake.thinking import (BAD_SIGNATURE, BUDGET_ABOVE_MAX, FORCED_WITH_THINKING, MODIFIED, NEEDS_THINKING,
                                   SDK_CONFIGS, THINKING_FIELDS, signature, think, thinking_block)
from harness.labs.scenarios import TWELVE_FILES
from harness.strategies.base import Compactor

MODEL = "claude-opus-4-6"  # takes every thinking type (Haiku 4.5 has no adaptive thinking: core.models)
pytestmark = pytest.mark.filterwarnings("ignore:Using Claude with claude-opus-4-6:UserWarning")  # the SDK's own:
# 'enabled' is deprecated on Opus 4.6, which the model table has from the same sources
ASK = "What is VERSION_TAG in agents/s01_agent_loop.py?"
ON = {"type": "enabled", "budget_tokens": 1024}
CONTEXT_BETA = "context-management-2025-06-27"


def create(thinking: dict[str, Any] | None = ON, **kwargs: Any) -> Any:
    request = {"model": MODEL, "max_tokens": 2_000, "messages": [user(ASK)], "tools": FILE_TOOLS, **kwargs}
    if thinking is not None:
        request["thinking"] = thinking
    try:
        return FakeModel().client().messages.create(**request)
    except anthropic.APIStatusError as error:
        return error


def dicts(reply: Any) -> list[dict[str, Any]]:
    return [block.to_dict(mode="json") for block in reply.content]


def loop_history(first: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request after the agent's first reply: the reply sent back and the read's result."""
    return [user(ASK), {"role": "assistant", "content": first},
            user([tool_result(first[-1]["id"], 'VERSION_TAG = "v1-agent"\n')])]


def kind_of(config: Any) -> str:
    """The ``type`` a thinking config's TypedDict declares (``Required[Literal["enabled"]]``)."""
    return typing.get_args(typing.get_type_hints(config)["type"])[0]


def test_the_tables_are_the_sdks():
    kinds = {kind_of(member) for config in SDK_CONFIGS for member in typing.get_args(config)}
    assert kinds == set(THINKING_FIELDS)
    fields = {kind: set().union(*(m.__annotations__ for c in SDK_CONFIGS for m in typing.get_args(c)
                                  if kind_of(m) == kind)) for kind in kinds}
    assert fields == THINKING_FIELDS
    assert BLOCK_FIELDS["thinking"] == set(BetaThinkingBlockParam.__annotations__)
    assert BLOCK_FIELDS["redacted_thinking"] == set(BetaRedactedThinkingBlockParam.__annotations__)


@pytest.mark.parametrize("thinking", [ON, {"type": "adaptive"}])
def test_a_reply_with_thinking_on_opens_with_a_signed_thinking_block_counted_as_output(thinking):
    reply = create(thinking)
    first, *rest = dicts(reply)
    assert first["type"] == "thinking" and first["signature"] == signature(first["thinking"])
    assert 'call read_file with {"path": "agents/s01_agent_loop.py"}' in first["thinking"]
    assert [b["type"] for b in rest] == ["tool_use"]
    assert reply.usage.output_tokens == sum(block_tokens(b) for b in dicts(reply))
    assert reply.usage.output_tokens_details.thinking_tokens == text_tokens(first["thinking"])


def test_without_thinking_there_is_no_thinking_block_and_no_breakdown():
    for thinking in (None, {"type": "disabled"}):
        reply = create(thinking)
        assert [b.type for b in reply.content] == ["tool_use"] and reply.usage.output_tokens_details is None


def test_between_tools_turns_the_words_before_a_call_into_thinking():
    content = [text("Reading it first."), tool_use("t", "read_file", {"path": "a.py"})]
    body = {"thinking": {"type": "between_tools"}}
    assert think(body, content) == [thinking_block("Reading it first."), content[1]]
    assert think(body, [text("Done.")]) == [text("Done.")]  # no call: nothing is between tools


def test_the_budget_cuts_the_thinking_and_max_tokens_cuts_it_signed():
    long_words = [text(" ".join(["word"] * 3_000))]
    thought = think({"max_tokens": 9_000, "thinking": ON}, long_words)[0]
    assert text_tokens(thought["thinking"]) <= 1024 and thought["signature"] == signature(thought["thinking"])
    kept, cut = cap_output([thought, *long_words], 10)
    assert cut and [b["type"] for b in kept] == ["thinking"] and text_tokens(kept[0]["thinking"]) <= 10
    assert kept[0]["signature"] == signature(kept[0]["thinking"])


def test_display_omitted_sends_an_empty_signed_block_and_still_bills_it():
    reply = create({"type": "adaptive", "display": "omitted"})
    first = dicts(reply)[0]
    assert first == thinking_block("") and reply.usage.output_tokens_details.thinking_tokens > 0
    again = create({"type": "adaptive", "display": "omitted"}, messages=loop_history(dicts(reply)))
    assert isinstance(again, anthropic.types.Message), again  # the empty block verifies


RULES = [  # (thinking, extra request fields, the 400's message start)
    ({"type": "enabled", "budget_tokens": 1023}, {}, "thinking.enabled.budget_tokens: Input should be greater than "
                                                     "or equal to 1024"),
    ({"type": "enabled", "budget_tokens": 2_000}, {}, BUDGET_ABOVE_MAX),
    ({"type": "enabled"}, {}, "thinking.enabled.budget_tokens: Field required"),
    ({"type": "enabled", "budget_tokens": 1024, "display": "loud"}, {}, "thinking.enabled.display:"),
    ({"type": "adaptive", "budget_tokens": 1024}, {},
     "thinking.adaptive.budget_tokens: Extra inputs are not permitted"),
    ({"type": "sometimes"}, {}, "thinking: Input tag 'sometimes' found using 'type'"),
    (ON, {"tool_choice": {"type": "any"}}, FORCED_WITH_THINKING),
    ({"type": "adaptive"}, {"tool_choice": {"type": "tool", "name": "bash"}}, FORCED_WITH_THINKING),
]


@pytest.mark.parametrize("thinking, extra, words", RULES, ids=repr)
def test_the_apis_thinking_rules(thinking, extra, words):
    got = create(thinking, **extra)
    assert isinstance(got, anthropic.BadRequestError) and got.body["error"]["message"].startswith(words), got


def test_forced_choice_is_fine_with_thinking_off_or_between_tools():
    for thinking in ({"type": "disabled"}, {"type": "between_tools"}):
        assert create(thinking, tool_choice={"type": "any"}).stop_reason == "tool_use"


def test_thinking_blocks_must_come_back_unchanged():
    first = dicts(create())
    assert create(messages=loop_history(first)).stop_reason == "end_turn"
    changed = copy.deepcopy(first)
    changed[0]["thinking"] += " And more."
    got = create(messages=loop_history(changed))
    assert got.body["error"]["message"] == f"messages.1.content.0: {MODIFIED}"
    # the same block, altered, in an earlier assistant message: the signature check words it differently
    history = loop_history(changed) + [{"role": "assistant", "content": [text("It is v1-agent.")]}, user(ASK)]
    got = create(messages=history)
    assert got.body["error"]["message"] == f"messages.1.content.0: {BAD_SIGNATURE}"


def test_a_tool_loop_with_thinking_on_must_open_with_the_thinking_block():
    first = dicts(create())
    got = create(messages=loop_history(first[1:]))  # the loop dropped the thinking block
    assert got.body["error"]["message"].startswith("messages.1.content.0.type: Expected `thinking` or "
                                                   "`redacted_thinking`, but found `tool_use`.")
    assert create(None, messages=loop_history(first[1:])).stop_reason == "end_turn"  # thinking off: fine


class Thinking(Compactor):
    """No compaction; every call with thinking on."""

    def request_options(self, run: Any) -> dict[str, Any]:
        return {"thinking": ON}


def test_the_courses_loop_runs_a_task_with_thinking_on(tmp_path):
    workspace = TWELVE_FILES.build(tmp_path / "workspace")
    messages = [user(ASK)]
    result = run_agent(FakeModel().client(), messages, system="You are terse.", tools=Toolbox(workspace),
                       config=CompactionConfig(max_tokens=4_000), compactor=Thinking())
    assert result.stop == "end_turn" and "VERSION_TAG in agents/s01_agent_loop.py is" in result.reply
    assistants = [m for m in messages if m["role"] == "assistant"]
    assert len(assistants) == 2 and all(m["content"][0]["type"] == "thinking" for m in assistants)


# --- clear_thinking_20251015 -----------------------------------------------------------------

def two_turns() -> list[dict[str, Any]]:
    """A finished turn with thinking, then a new question answered in a tool loop with thinking."""
    first = dicts(create())
    history = loop_history(first)
    history.append({"role": "assistant", "content": dicts(create(messages=history))})
    history.append(user("What is VERSION_TAG in agents/s02_tool_use.py?"))
    second = dicts(create(messages=history))
    return history + [{"role": "assistant", "content": second},
                      user([tool_result(second[-1]["id"], 'VERSION_TAG = "v2-tools"\n')])]


def managed(edits: list[dict[str, Any]], thinking: dict[str, Any] | None = ON, history=None) -> Any:
    request = {"model": MODEL, "max_tokens": 2_000, "messages": history or two_turns(), "tools": FILE_TOOLS,
               "betas": [CONTEXT_BETA], "context_management": {"edits": edits}}
    if thinking:
        request["thinking"] = thinking
    try:
        return FakeModel().client().beta.messages.create(**request)
    except anthropic.APIStatusError as error:
        return error


def test_clear_thinking_keeps_the_newest_turns_and_reports_what_it_cleared():
    history = two_turns()
    whole = managed([{"type": "clear_thinking_20251015", "keep": "all"}], history=history)
    assert whole.context_management.applied_edits == []
    default = managed([{"type": "clear_thinking_20251015"}], history=history)
    [edit] = default.context_management.applied_edits
    first_turn = [b for m in history[1:4] if m["role"] == "assistant" for b in m["content"] if b["type"] == "thinking"]
    assert (edit.type, edit.cleared_thinking_turns) == ("clear_thinking_20251015", 1)
    assert edit.cleared_input_tokens == sum(block_tokens(b) for b in first_turn) > 0
    assert default.usage.input_tokens == whole.usage.input_tokens - edit.cleared_input_tokens
    none_kept = managed([{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 0}}],
                        history=history)
    assert none_kept.context_management.applied_edits[0].cleared_thinking_turns == 2


def test_clear_thinking_rules():
    clearing = {"type": "clear_tool_uses_20250919"}
    second = managed([clearing, {"type": "clear_thinking_20251015"}])
    assert second.body["error"]["message"].startswith("context_management.edits.1: clear_thinking_20251015 must be "
                                                      "the first edit")
    assert isinstance(managed([{"type": "clear_thinking_20251015"}, clearing]), anthropic.types.beta.BetaMessage)
    history = [user(ASK)]
    off = managed([{"type": "clear_thinking_20251015"}], thinking=None, history=history)
    assert off.body["error"]["message"] == NEEDS_THINKING
    bad = managed([{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": -1}}],
                  history=history)
    assert bad.body["error"]["message"].startswith("context_management.edits.0.keep.value:")
