"""The compaction block's rules, on-demand compaction, the tool runner's ``compact_before_next_turn()`` and
count_tokens with context management, all through the real SDK (chapter 10; harness/core/messages.py,
harness/fake/compaction_rules.py, harness/fake/context_management.py). Each error arrives as the class the
installed SDK types for it (``anthropic/_error_classes.py``), with its ``error_code``."""
from __future__ import annotations

import copy
import hashlib
import hmac
import json

import anthropic
import pytest
from anthropic import beta_tool
from anthropic._error_classes import ERROR_CLASSES
from anthropic.types import (CompactionBlockAmbiguousError, CompactionBlockMisplacedError,
                             CompactionContentMismatchError, CompactionIncompleteTurnError,
                             CompactionNothingToSummarizeError, CompactionSignatureInvalidError,
                             CompactionTooManyToolReferencesError, CompactionToolChangesMismatchError,
                             CompactionUnavailableError)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from histories import TOOL_NAMES, sentence, valid_histories

from harness import (CompactionConfig, Toolbox, Workspace, api_context, assistant, auto_compact, micro_compact,
                     run_agent, text, tool_result, tool_use, user, validate_messages)
from harness.core.loop import to_dicts
from harness.core.tokens import count_tokens, text_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.compaction_rules import FAKE_KEY, MAX_TOOL_REFERENCES, compaction_block
from harness.fake.context_management import COMPACTION_PROMPT, ON_DEMAND_BETA, stand_in
from harness.fake.summarizer import summarise_text
from harness.labs.scenarios import AGENT_FILES, READ_AGENTS, python_module
from harness.strategies.registry import COMPACTION_MODEL as MODEL  # Haiku 4.5 runs no compaction
from harness.strategies.three_layers import ThreeLayers

SUMMARY = "Earlier: the user asked for a listing of agents/."
BLOCK = compaction_block(SUMMARY)
ASK = user(READ_AGENTS)


def create(messages, *, model: FakeModel | None = None, betas=(ON_DEMAND_BETA,), **fields):
    """``client.beta.messages.create`` on a fresh fake (or ``model``) with the file tools."""
    client = (model or FakeModel()).client()
    return client.beta.messages.create(model=MODEL, max_tokens=1_000, tools=FILE_TOOLS, messages=messages,
                                       betas=list(betas), **fields)


def refused(error_class, messages, **fields):
    """The error ``create`` raises, checked to be ``error_class`` with its own ``error_code``."""
    with pytest.raises(error_class) as info:
        create(messages, **fields)
    error = info.value
    [(status, code)] = [key for key, cls in ERROR_CLASSES.items() if cls is error_class]  # the SDK's own map
    assert error.status_code == status
    assert error.error_code == code and error.body["error"]["details"] == {"error_code": code}
    return error


def with_block(block, *rest):
    return [assistant([block, text("Listed.")]), user("Go on."), *rest]


# --- where the block goes, and that only the last one is sent -------------------------------------

def test_a_block_not_first_is_misplaced():
    error = refused(CompactionBlockMisplacedError, [ASK, assistant([BLOCK, text("Listed.")]), user("Go on.")])
    assert error.status_code == 400 and isinstance(error, anthropic.BadRequestError)
    assert error.body["error"]["type"] == "invalid_request_error"
    assert error.body["error"]["message"].startswith("messages.1.content.0: a `compaction` block goes first")
    refused(CompactionBlockMisplacedError, [assistant([text("Listed."), BLOCK]), user("Go on.")])


def test_a_block_in_a_system_message_is_misplaced():
    error = refused(CompactionBlockMisplacedError, [{"role": "system", "content": [BLOCK]}, ASK])
    assert error.body["error"]["message"].startswith("messages.0.content.0: ")


def test_two_blocks_with_content_are_ambiguous_and_failed_ones_are_no_ops():
    second = compaction_block("Later: the files were read.")
    error = refused(CompactionBlockAmbiguousError, with_block(BLOCK, assistant([second]), user("And now?")))
    assert error.body["error"]["message"].startswith("messages.2.content.0: `messages` holds more than one")
    failed = {"type": "compaction", "content": None}  # null content: a failed compaction, sent back as a no-op
    reply = create(with_block(BLOCK, assistant([failed, text("Noted.")]), user("And now?")))
    assert reply.usage.input_tokens == count_tokens(
        [stand_in(SUMMARY), assistant([text("Listed.")]), user("Go on."), assistant([text("Noted.")]),
         user("And now?")], tools=FILE_TOOLS)


# --- the block comes back unchanged -------------------------------------------------------------------

def test_the_block_the_fake_issues_goes_back_and_is_read_in_place_of_what_it_summarises():
    reply = create(with_block(BLOCK))
    assert reply.usage.input_tokens == count_tokens([stand_in(SUMMARY), assistant([text("Listed.")]),
                                                     user("Go on.")], tools=FILE_TOOLS)
    assert compaction_block(SUMMARY) == BLOCK  # deterministic: the same summary, the same block


@pytest.mark.parametrize("change", [
    {"content": SUMMARY + " And more."},
    {"content": SUMMARY.upper()},
])
def test_content_that_differs_from_what_the_signature_recorded_is_a_mismatch(change):
    error = refused(CompactionContentMismatchError, with_block({**BLOCK, **change}))
    assert error.body["error"]["message"].startswith("messages.0.content.0.compaction.content: differs")


def forged(summary: str, key: bytes) -> str:
    """A signature of this fake's form, made with another key."""
    content = hashlib.sha256(summary.encode()).hexdigest()[:32]
    changes = BLOCK["signature"].split(".")[1]
    return f"fake-signature-{content}.{changes}." + hmac.new(key, f"{content}.{changes}".encode(),
                                                              hashlib.sha256).hexdigest()[:32]


@pytest.mark.parametrize("signature", [
    None, "", "sig", "fake-signature-1", BLOCK["signature"] + "0", BLOCK["signature"][:-1] + "x",
    forged(SUMMARY, b"another key"),
])
def test_a_signature_the_fake_did_not_issue_does_not_verify(signature):
    assert forged(SUMMARY, FAKE_KEY) == BLOCK["signature"]  # the forgery is right but for its key
    block = {**BLOCK, "signature": signature}
    error = refused(CompactionSignatureInvalidError, with_block(block))
    assert error.body["error"]["message"].startswith("messages.0.content.0.compaction.signature: does not verify")
    unsigned = {key: value for key, value in BLOCK.items() if key != "signature"}
    refused(CompactionSignatureInvalidError, with_block(unsigned))


@pytest.mark.parametrize("tool_changes", [
    None, [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "bash"}}], "drop the field",
])
def test_tool_changes_that_differ_from_those_returned_are_a_mismatch(tool_changes):
    block = {key: value for key, value in BLOCK.items() if key != "tool_changes"}
    if tool_changes != "drop the field":
        block["tool_changes"] = tool_changes
    error = refused(CompactionToolChangesMismatchError, with_block(block))
    assert error.body["error"]["message"].startswith("messages.0.content.0.compaction.tool_changes: differs")


def test_what_is_not_verified_may_change():
    """``encrypted_content`` is opaque to the fake, and ``cache_control`` is the client's to set."""
    block = {**BLOCK, "encrypted_content": "anything", "cache_control": {"type": "ephemeral"}}
    assert create(with_block(block)).stop_reason in ("end_turn", "tool_use")


# --- on-demand compaction -----------------------------------------------------------------------------

def session(reads: int = 3, lines: int = 60) -> list[dict]:
    """A user request, a listing and ``reads`` read_file rounds of ``lines``-line files, ending on a tool result."""
    names = list(AGENT_FILES)
    messages = [ASK, assistant([tool_use("l0", "list_files", {"path": "agents"})]),
                user([tool_result("l0", "\n".join(f"agents/{n}.py" for n in names))])]
    for k in range(reads):
        messages += [assistant([tool_use(f"r{k}", "read_file", {"path": f"agents/{names[k]}.py"})]),
                     user([tool_result(f"r{k}", python_module(names[k], AGENT_FILES[names[k]], k + 1, lines))])]
    return messages


def summary_of(messages, prompt: str = COMPACTION_PROMPT) -> str:
    return summarise_text(f"{prompt}\n\n<conversation>\n{json.dumps(messages, ensure_ascii=False)}\n</conversation>")


def test_on_demand_compaction_returns_the_block_alone():
    model = FakeModel()
    messages = session()
    reply = create(messages, model=model, compaction={"type": "summarize"})
    assert reply.stop_reason == "compaction" and [b.type for b in reply.content] == ["compaction"]
    block = to_dicts(reply.content)[0]
    assert block == compaction_block(summary_of(messages))  # signed, with every field to send back
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (0, 0)  # the step is an iteration only
    [step] = reply.usage.iterations
    assert step.type == "compaction" and step.output_tokens == text_tokens(block["content"])
    assert step.input_tokens == count_tokens(messages, tools=FILE_TOOLS) + text_tokens(COMPACTION_PROMPT)
    assert model.requests == ["compaction"]
    after = create([assistant([block]), user("What did you find?")], model=model)  # the block goes back first
    assert after.usage.input_tokens == count_tokens([stand_in(block["content"]), user("What did you find?")],
                                                    tools=FILE_TOOLS)


def test_on_demand_compaction_summarises_from_the_last_block_on():
    earlier = [assistant([BLOCK]), *session(1)[1:]]
    reply = create(earlier, compaction={"type": "summarize"})
    assert reply.content[0].content == summary_of([stand_in(SUMMARY), *earlier[1:]])


@pytest.mark.parametrize("instructions, prompt", [
    ("Keep only the file names.", "Keep only the file names."), ("", COMPACTION_PROMPT), ("  \n", COMPACTION_PROMPT),
    (None, COMPACTION_PROMPT),
])
def test_instructions_replace_the_prompt_and_blank_ones_count_as_absent(instructions, prompt):
    messages = session(1)
    reply = create(messages, compaction={"type": "summarize", "instructions": instructions})
    assert reply.content[0].content == summary_of(messages, prompt)
    assert reply.usage.iterations[0].input_tokens == count_tokens(messages, tools=FILE_TOOLS) + text_tokens(prompt)


def test_a_compaction_request_may_end_on_a_finished_turn_but_not_an_unfinished_one():
    finished = [ASK, assistant("Here is the listing.")]
    assert create(finished, compaction={"type": "summarize"}).stop_reason == "compaction"
    unfinished = [ASK, assistant([text("Reading."), tool_use("r0", "read_file", {"path": "agents/a.py"})])]
    error = refused(CompactionIncompleteTurnError, unfinished, compaction={"type": "summarize"})
    assert error.body["error"]["message"].startswith("messages.1: a compaction request cannot end on")
    with pytest.raises(anthropic.BadRequestError, match="`tool_use` ids were found without"):
        create(unfinished)  # an ordinary request: the API's usual words


def test_nothing_to_summarize():
    failed = [assistant([{"type": "compaction", "content": None}])]
    error = refused(CompactionNothingToSummarizeError, failed, compaction={"type": "summarize"})
    assert error.body["error"]["message"].startswith("messages: holds no `user` or `assistant` content")
    refused(CompactionNothingToSummarizeError, failed)  # nothing to answer from either (this fake)


def test_too_many_tool_references():
    def calls(n: int) -> list[dict]:
        uses = [tool_use(f"t{k}", f"tool_{k}", {}) for k in range(n)]
        return [ASK, assistant(uses), user([tool_result(f"t{k}", "done") for k in range(n)])]

    error = refused(CompactionTooManyToolReferencesError, calls(MAX_TOOL_REFERENCES + 1),
                    compaction={"type": "summarize"})
    assert f"calls {MAX_TOOL_REFERENCES + 1} distinct tools" in error.body["error"]["message"]
    assert create(calls(MAX_TOOL_REFERENCES), compaction={"type": "summarize"}).stop_reason == "compaction"


def test_unavailable_is_a_529_the_fake_sends_only_when_asked():
    model = FakeModel(compaction_unavailable=1)
    with pytest.raises(CompactionUnavailableError) as info:
        create(session(1), model=model, compaction={"type": "summarize"})
    assert info.value.status_code == 529 and info.value.error_code == "compaction_unavailable"
    assert isinstance(info.value, anthropic.OverloadedError)
    assert info.value.body["error"]["type"] == "overloaded_error"
    assert create(session(1), model=model, compaction={"type": "summarize"}).stop_reason == "compaction"  # retried
    assert model.requests == ["compaction", "compaction"]


def test_unavailable_reaches_the_server_edit_too():
    model = FakeModel(compaction_unavailable=1)
    big = session(8, lines=520)
    assert count_tokens(big, tools=FILE_TOOLS) > 50_000
    edit = {"edits": [api_context.server_compaction(trigger=50_000)]}
    with pytest.raises(CompactionUnavailableError):
        create(big, model=model, betas=[api_context.COMPACTION_BETA], context_management=edit)
    retried = create(big, model=model, betas=[api_context.COMPACTION_BETA], context_management=edit)
    assert retried.content[0].type == "compaction" and model.requests == ["compaction", "compaction", "agent"]


@pytest.mark.parametrize("compaction, words", [
    ([], "compaction: Input should be a valid dictionary"),
    ({"type": "compact"}, "compaction.type: Input should be 'summarize'"),
    ({}, "compaction.type: Field required"),
    ({"type": "summarize", "focus": "x"}, "compaction.focus: Extra inputs are not permitted"),
    ({"type": "summarize", "instructions": 5}, "compaction.instructions: Input should be a valid string"),
])
def test_a_malformed_compaction_field_is_a_400_naming_it(compaction, words):
    with pytest.raises(anthropic.BadRequestError, match=words):
        FakeModel().client().post("/v1/messages", cast_to=object,
                                  options={"headers": {"anthropic-beta": ON_DEMAND_BETA}},
                                  body={"model": MODEL, "max_tokens": 10, "messages": [ASK],
                                        "compaction": compaction})


def test_compaction_refuses_context_management_beside_it_and_needs_its_beta():
    with pytest.raises(anthropic.BadRequestError, match="compaction: cannot be combined with `context_management`"):
        create(session(1), compaction={"type": "summarize"},
               betas=[ON_DEMAND_BETA, api_context.CONTEXT_EDITING_BETA],
               context_management={"edits": [api_context.clear_tool_uses()]})
    needs = f"compaction: needs the anthropic-beta header {ON_DEMAND_BETA}"
    with pytest.raises(anthropic.BadRequestError, match=needs):
        create(session(1), compaction={"type": "summarize"}, betas=[api_context.COMPACTION_BETA])


# --- count_tokens ---------------------------------------------------------------------------------------

def count(messages, **fields):
    client = FakeModel().client()
    return client.beta.messages.count_tokens(model=MODEL, tools=FILE_TOOLS, messages=messages, **fields)


def test_count_tokens_ignores_compaction():
    messages = session(2)
    plain = count(messages)
    assert plain.input_tokens == count_tokens(messages, tools=FILE_TOOLS) and plain.context_management is None
    assert count(messages, compaction={"type": "summarize"}, betas=[ON_DEMAND_BETA]) == plain


def test_count_tokens_with_context_management_counts_after_the_edits_and_before():
    messages = session(6) + [assistant("Done."), user("Thanks.")]
    edit = api_context.clear_tool_uses(trigger=1_000, keep=2)
    model = FakeModel()
    counted = model.client().beta.messages.count_tokens(
        model=MODEL, tools=FILE_TOOLS, messages=messages, betas=[api_context.CONTEXT_EDITING_BETA],
        context_management={"edits": [edit]})
    sent = create(messages, model=model, betas=[api_context.CONTEXT_EDITING_BETA],
                  context_management={"edits": [edit]})
    assert counted.context_management.original_input_tokens == count_tokens(messages, tools=FILE_TOOLS)
    assert counted.input_tokens == sent.usage.input_tokens < counted.context_management.original_input_tokens
    cleared = sent.context_management.applied_edits[0].cleared_input_tokens
    assert counted.input_tokens == counted.context_management.original_input_tokens - cleared
    below = count(messages, betas=[api_context.CONTEXT_EDITING_BETA],
                  context_management={"edits": [api_context.clear_tool_uses()]})  # under the default trigger
    assert below.input_tokens == below.context_management.original_input_tokens == counted.context_management.\
        original_input_tokens


def test_count_tokens_runs_no_compaction():
    messages = session(2)
    model = FakeModel()
    counted = model.client().beta.messages.count_tokens(
        model=MODEL, tools=FILE_TOOLS, messages=messages, betas=[api_context.COMPACTION_BETA],
        context_management={"edits": [api_context.server_compaction(trigger=50_000)]})
    assert counted.input_tokens == counted.context_management.original_input_tokens
    assert model.requests == ["count"]
    with pytest.raises(CompactionSignatureInvalidError):  # the block rules hold for a count too
        count(with_block({**BLOCK, "signature": "x"}), betas=[api_context.COMPACTION_BETA])


# --- the SDK's tool runner: compact_before_next_turn() --------------------------------------------------

FILES = {f"agents/{n}.py": python_module(n, AGENT_FILES[n], k + 1, 40) for k, n in enumerate(list(AGENT_FILES)[:3])}


@beta_tool
def list_files(path: str) -> str:
    """List the files under a folder."""
    return "\n".join(name for name in FILES if name.startswith(path))


@beta_tool
def read_file(path: str) -> str:
    """Read a file and return its text."""
    return FILES.get(path, f"Error: no such file {path}")


def spied(model: FakeModel) -> list[dict]:
    """The bodies of the requests ``model`` is sent, in order."""
    bodies, handle = [], model.handle
    model.handle = lambda request: (bodies.append(json.loads(request.content)), handle(request))[1]
    return bodies


def runner(model: FakeModel):
    """The SDK's beta tool runner on the fake, as its docstring drives it, with the on-demand beta. Threads
    are off (``thread=False``), a documented setting: serving threads is another part of the fake's work."""
    return model.client().beta.messages.tool_runner(
        model=MODEL, max_tokens=2_000, tools=[list_files, read_file], messages=[ASK],
        betas=[ON_DEMAND_BETA], thread=False, max_iterations=12)


def test_compact_before_next_turn_sends_the_request_and_the_runner_goes_on_from_the_block():
    model = FakeModel()
    bodies = spied(model)
    run = runner(model)
    stops = []
    for message in run:
        stops.append(message.stop_reason)
        if len(stops) == 2:
            run.compact_before_next_turn()
    assert stops[2] == "compaction" and stops[-1] == "end_turn" and "compaction" not in stops[3:]
    request = bodies[2]
    assert request["compaction"] == {"type": "summarize"} and "context_management" not in request
    block = bodies[3]["messages"][0]["content"][0]  # the next request opens with the block, as returned
    assert block["type"] == "compaction" and bodies[3]["messages"][0]["role"] == "assistant"
    assert len(bodies[3]["messages"]) == 1 and block == compaction_block(block["content"])
    assert all(len([b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
                    if b["type"] == "compaction"]) == 1 for body in bodies[3:])
    assert model.requests.count("compaction") == 1 and model.requests[2] == "compaction"


def test_compact_before_next_turn_on_the_last_turn_compacts_the_finished_conversation():
    model = FakeModel()
    bodies = spied(model)
    run = runner(model)
    stops = []
    for message in run:
        stops.append(message.stop_reason)
        if message.stop_reason == "end_turn":
            run.compact_before_next_turn()  # the runner compacts once the turn is done, then stops
    assert stops[-2:] == ["end_turn", "compaction"]
    request = bodies[-1]
    assert request["compaction"] == {"type": "summarize"} and request["messages"][-1]["role"] == "assistant"
    assert run.until_done().stop_reason == "compaction"


# --- the course's layers never break the rules ----------------------------------------------------------

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])


@st.composite
def compacted_histories(draw):
    """A history as a server compaction leaves it: the block first (alone, or opening the reply it came
    with), then a valid history, sometimes with a failed compaction's null block opening a later reply."""
    block = compaction_block(draw(sentence))
    first = assistant([block] + ([text(draw(sentence))] if draw(st.booleans()) else []))
    rest = draw(valid_histories(max_turns=5))
    replies = [i for i, m in enumerate(rest) if m["role"] == "assistant" and isinstance(m["content"], list)]
    if replies and draw(st.booleans()):
        i = draw(st.sampled_from(replies))
        rest[i] = {**rest[i], "content": [{"type": "compaction", "content": None}, *rest[i]["content"]]}
    return [first, *rest]


def accepted(messages) -> None:
    """The fake, which checks every compaction rule, takes the next request with this history."""
    reply = FakeModel().client().beta.messages.create(model=MODEL, max_tokens=100, messages=messages,
                                                      betas=[api_context.COMPACTION_BETA])
    assert reply.role == "assistant"


def blocks_of(messages):
    return [b for m in messages if isinstance(m["content"], list) for b in m["content"] if b["type"] == "compaction"]


class LayersWithTheBeta(ThreeLayers):
    """The three layers, in a loop that sends the compaction beta (the history holds a server's block)."""

    def request_options(self, run):
        return {"betas": [api_context.COMPACTION_BETA]}


@pytest.fixture(scope="module")
def toolbox(tmp_path_factory):
    return Toolbox(Workspace(tmp_path_factory.mktemp("workspace")))


@PROPERTY
@given(compacted_histories(), st.integers(min_value=0, max_value=4), st.frozensets(st.sampled_from(TOOL_NAMES)))
def test_micro_leaves_the_block_first_and_unchanged(messages, keep_recent, preserve):
    before = blocks_of(copy.deepcopy(messages))
    micro_compact(messages, keep_recent, preserve, 0)
    validate_messages(messages)
    assert blocks_of(messages) == before
    accepted(messages)


@PROPERTY
@given(compacted_histories(), st.booleans())
def test_auto_and_manual_leave_a_history_the_rules_accept(tmp_path_factory, toolbox, messages, manual):
    config = CompactionConfig(auto=False, transcript_dir=tmp_path_factory.mktemp("t"), max_turns=3)
    if manual:
        result = run_agent(FakeModel(compact_policy="after_task").client(), messages, system="sys", tools=toolbox,
                           config=config, compactor=LayersWithTheBeta())
        assert result.stop == "compact"
    else:
        auto_compact(FakeModel().client(), messages, config)
    validate_messages(messages)
    assert not blocks_of(messages)  # the summary replaced the block with the rest
    accepted(messages)
