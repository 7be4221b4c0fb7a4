"""The fake enforces the API's limits: the model, its window, its maximum output, and max_tokens on every reply
(harness/fake/request.py and output.py, chapter 00). Everything goes through the real SDK."""
from __future__ import annotations

import anthropic
import pytest

from harness import (MODEL_MAX_OUTPUT, MODEL_WINDOWS, CompactionConfig, SummaryFailed, build_summary_request,
                     context_window, count_tokens, max_output, summarise, text, threshold_below_window, tool_result,
                     tool_use, user)
from harness.core.tokens import MESSAGE_OVERHEAD, block_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel, fake_client
from harness.fake.output import cap_output, text_prefix
from harness.labs.scenarios import AGENT_FILES, python_module

MODEL = "claude-haiku-4-5"   # a 200,000-token window, 64,000 output tokens at most
WINDOW = 200_000
LONG = 600  # seconds: the SDK refuses a large max_tokens without streaming unless given a timeout


def sized(tokens: int) -> list[dict]:
    """One user message; the request holding it counts exactly ``tokens`` input tokens."""
    messages = [user("go" + " go" * (tokens - MESSAGE_OVERHEAD - 1))]
    assert count_tokens(messages) == tokens
    return messages


def create(messages, max_tokens, model=MODEL, client=None, **kwargs):
    return (client or fake_client()).messages.create(model=model, max_tokens=max_tokens, messages=messages,
                                                     timeout=LONG, **kwargs)


def error_of(call) -> anthropic.APIStatusError:
    with pytest.raises(anthropic.APIStatusError) as info:
        call()
    return info.value


# --- the tables ------------------------------------------------------------------------

def test_every_model_with_a_window_has_a_maximum_output_looked_up_the_same_way():
    assert set(MODEL_MAX_OUTPUT) == set(MODEL_WINDOWS)
    assert all(0 < MODEL_MAX_OUTPUT[m] < MODEL_WINDOWS[m] for m in MODEL_WINDOWS)
    assert max_output("claude-haiku-4-5-20251001") == max_output(MODEL) == 64_000
    assert max_output("claude-sonnet-5") == 128_000
    with pytest.raises(ValueError, match="maximum output.*claude-opus-4-3"):
        max_output("claude-opus-4-3")  # not listed: no fall back to claude-opus-4
    assert context_window(MODEL) == WINDOW


@pytest.mark.parametrize("model", ["claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-7", "claude-opus-4-8"])
def test_the_models_chapter_10_names_are_listed_with_their_pages_numbers(model):
    """1M tokens and 128K of output on each model's page (Opus 4.7: the vendors' model cards)."""
    assert (context_window(model), max_output(model)) == (1_000_000, 128_000)
    with pytest.raises(ValueError):
        context_window(model + "-20260101")  # a date the SDK does not name is no model
    reply = create([user("What is VERSION_TAG in agents/a.py?")], 128_000, model=model)
    assert reply.model == model and reply.stop_reason == "end_turn"  # served, not a 404


# --- the window, for agent and summary calls alike -----------------------------------------

def test_input_plus_max_tokens_exactly_the_window_passes():
    for used in (WINDOW - 64_000, WINDOW - 50_000):
        reply = create(sized(used), WINDOW - used)
        assert reply.usage.input_tokens == used and reply.stop_reason == "end_turn"


@pytest.mark.parametrize("used, wanted", [(WINDOW - 64_000 + 1, 64_000),   # one more input token
                                          (WINDOW - 50_000, 50_001)])     # one more output token
def test_one_token_more_than_the_window_is_no_error(used, wanted):
    """Sonnet 4.5 and newer models stop at the window instead (harness/fake/window.py): room to spare here."""
    reply = create(sized(used), wanted)
    assert reply.usage.input_tokens == used and reply.stop_reason == "end_turn"


@pytest.mark.parametrize("room", [0, 3])
def test_a_reply_longer_than_the_window_leaves_stops_at_the_window(room):
    model = FakeModel()
    reply = create(sized(WINDOW - room), 64_000, client=model.client())
    assert reply.stop_reason == "model_context_window_exceeded" and reply.usage.output_tokens <= room
    assert reply.usage.input_tokens == WINDOW - room and model.requests == ["agent"]
    if room:  # cut by max_tokens before the window: that stop reason
        assert create(sized(WINDOW - room), room - 1).stop_reason == "max_tokens"


def test_input_alone_one_over_the_window_fails_with_prompt_is_too_long():
    model = FakeModel()
    error = error_of(lambda: create(sized(WINDOW + 1), 1, client=model.client()))
    assert isinstance(error, anthropic.BadRequestError)
    assert error.body["error"]["message"] == f"prompt is too long: {WINDOW + 1} tokens > {WINDOW} maximum"
    assert model.requests == []  # refused before the model ran


def test_a_threshold_below_the_window_leaves_room_for_the_reply_and_the_buffer():
    reserve, buffer = max_output(MODEL), 13_000
    threshold = threshold_below_window(MODEL, output_reserve=reserve, buffer=buffer)
    assert create(sized(threshold + buffer), reserve).stop_reason == "end_turn"  # the window, exactly
    over = create(sized(WINDOW - 2), reserve)  # past it, the reply gets what the window leaves: 2 tokens
    assert over.stop_reason == "model_context_window_exceeded" and over.usage.output_tokens <= 2


def test_summary_calls_meet_the_same_window():
    model = FakeModel()
    history = sized(WINDOW)  # the summary request quotes it all, plus the prompt
    request = build_summary_request(history, model=MODEL, max_tokens=2_000, tail_chars=None)
    error = error_of(lambda: model.client().messages.create(**request))
    assert error.body["error"]["message"].startswith("prompt is too long: ")
    assert model.requests == []
    with pytest.raises(SummaryFailed, match="prompt is too long"):
        summarise(fake_client(), history, CompactionConfig(model=MODEL, tail_chars=10_000_000))


def test_the_window_is_the_models_own():
    messages = sized(300_000)
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long: 300000 tokens > 200000 maximum"):
        create(messages, 10, model="claude-haiku-4-5-20251001")
    assert create(messages, 10, model="claude-sonnet-5").usage.input_tokens == 300_000  # a 1M window


# --- max_tokens against the model's maximum output ----------------------------------------------

def test_max_tokens_above_the_models_maximum_output_is_refused_naming_max_tokens():
    error = error_of(lambda: create([user("hi")], 64_001))
    assert error.status_code == 400
    assert error.body["error"]["message"] == \
        "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5"
    assert create([user("hi")], 64_000).stop_reason == "end_turn"
    dated = "claude-haiku-4-5-20251001"
    with pytest.raises(anthropic.BadRequestError, match=f"64001 > 64000, .* output tokens for {dated}"):
        create([user("hi")], 64_001, model=dated)


# --- the model -------------------------------------------------------------------------------

@pytest.mark.parametrize("model_id", ["claude-test", "claude-opus-4-3", "gpt-4o", "claude-haiku-4-5-latest"])
def test_an_unknown_model_is_404_naming_it(model_id):
    fake = FakeModel()
    error = error_of(lambda: create([user("hi")], 10, model=model_id, client=fake.client()))
    assert isinstance(error, anthropic.NotFoundError)
    assert error.body["error"] == {"type": "not_found_error", "message": f"model: {model_id}"}
    with pytest.raises(anthropic.NotFoundError):
        fake.client().messages.count_tokens(model=model_id, messages=[user("hi")])
    assert fake.requests == ["count"]


# --- max_tokens caps every reply -------------------------------------------------------------------

QUESTION = "What did I tell you about tools/?"


def test_a_long_text_is_cut_to_max_tokens():
    whole = create([user(QUESTION)], 1_000).content[0].text
    for limit in (1, 5, block_tokens(text(whole)) - 1):
        reply = create([user(QUESTION)], limit)
        [block] = reply.content
        assert whole.startswith(block.text) and block.text != whole
        assert reply.stop_reason == "max_tokens"
        assert reply.usage.output_tokens == block_tokens(text(block.text)) <= limit
    exact = create([user(QUESTION)], block_tokens(text(whole)))
    assert exact.content[0].text == whole and exact.stop_reason == "end_turn"


def test_the_cut_is_deterministic():
    first = fake_client().messages.with_raw_response.create(model=MODEL, max_tokens=7, messages=[user(QUESTION)])
    again = fake_client().messages.with_raw_response.create(model=MODEL, max_tokens=7, messages=[user(QUESTION)])
    assert first.http_response.content == again.http_response.content


def read_all_after_listing() -> list[dict]:
    """The reading task, its folder listed: the next reply is a plan (text) and a read of each listed file."""
    listing = "\n".join(f"agents/{stem}.py" for stem in list(AGENT_FILES)[:3])
    return [user("Read every .py file under agents/ and summarise what each does."),
            {"role": "assistant", "content": [tool_use("l1", "list_files", {"path": "agents"})]},
            user([tool_result("l1", listing)])]


def test_a_tool_call_that_does_not_fit_whole_is_dropped_with_every_call_after_it():
    messages = read_all_after_listing()
    whole = create(messages, 1_000, tools=FILE_TOOLS)
    plan, *calls = whole.content
    assert (plan.type, [c.type for c in calls], whole.stop_reason) == ("text", ["tool_use"] * 3, "tool_use")
    plan_tokens = block_tokens(text(plan.text))
    call_tokens = [block_tokens({"type": "tool_use", "name": c.name, "input": c.input}) for c in calls]
    assert whole.usage.output_tokens == plan_tokens + sum(call_tokens)
    for limit in (plan_tokens, plan_tokens + call_tokens[0] - 1):
        cut = create(messages, limit, tools=FILE_TOOLS)
        assert [b.type for b in cut.content] == ["text"] and cut.content[0].text == plan.text
        assert cut.stop_reason == "max_tokens" and cut.usage.output_tokens == plan_tokens
    two = create(messages, plan_tokens + call_tokens[0] + call_tokens[1] + call_tokens[2] - 1, tools=FILE_TOOLS)
    assert [b.type for b in two.content] == ["text", "tool_use", "tool_use"] and two.stop_reason == "max_tokens"
    assert [b.input for b in two.content[1:]] == [c.input for c in calls[:2]]
    alone = create([user("What is VERSION_TAG in agents/s01_agent_loop.py?")], 3, tools=FILE_TOOLS)
    assert alone.content == [] and alone.stop_reason == "max_tokens" and alone.usage.output_tokens == 0


def test_summaries_are_capped_too():
    history = [user("Read every .py file under agents/ and summarise what each does.")]
    for n, stem in enumerate(list(AGENT_FILES)[:4], start=1):
        history += [{"role": "assistant", "content": [tool_use(f"r{n}", "read_file", {"path": f"agents/{stem}.py"})]},
                    user([tool_result(f"r{n}", python_module(stem, AGENT_FILES[stem], n))])]
    request = build_summary_request(history, model=MODEL, max_tokens=2_000, tail_chars=None)
    whole = fake_client().messages.create(**request)
    cut = fake_client().messages.create(**{**request, "max_tokens": 20})
    assert whole.stop_reason == "end_turn" and cut.stop_reason == "max_tokens"
    assert whole.content[0].text.startswith(cut.content[0].text)
    assert cut.usage.output_tokens == block_tokens(text(cut.content[0].text)) <= 20


def test_cap_output_keeps_whole_blocks_in_order_and_cuts_text_by_tokens():
    call = {"type": "tool_use", "id": "t", "name": "bash", "input": {"command": "ls"}}
    blocks = [text("one two three four five"), call, text("after")]
    assert cap_output(blocks, 1_000) == (blocks, False)
    assert cap_output(blocks, 2) == ([text("one two")], True)
    assert cap_output([call, text("x")], block_tokens(call) - 1) == ([], True)
    assert cap_output(blocks, 0) == ([], True)
    assert text_prefix("é" * 5, 2) in ("é", "éé")  # never half a character


def test_a_pretend_window_is_enforced_like_the_real_one():
    client = fake_client(window=1_000)
    assert create(sized(900), 100, client=client).stop_reason == "end_turn"
    cut = create(sized(995), 100, client=client)
    assert cut.stop_reason == "model_context_window_exceeded" and cut.usage.output_tokens <= 5
    error = error_of(lambda: create(sized(1_001), 1, client=client))
    assert "prompt is too long: 1001 tokens > 1000 maximum" in error.message
