"""Message threads served offline (harness/fake/threads.py): the SDK's thread helper and its tool runner, with
their default settings, run unmodified against the fake; each refusal arrives as the SDK's typed error, and the
helpers recover from the ones they can."""
from __future__ import annotations

import json

import anthropic
import pytest
from anthropic import beta_tool, types
from anthropic.types.beta import BetaToolResultBlockParam

from harness.fake import FakeModel
from harness.fake.threads import THREADS_BETA

MODEL = "claude-haiku-4-5"
SYSTEM = "You are a careful engineer working in a small Python workspace."
FILES = {"agents/s01_agent_loop.py": 'VERSION_TAG = "v1-agent"\n\ndef run():\n    return 1\n',
         "agents/s02_tool_use.py": 'VERSION_TAG = "v2-tools"\n\ndef dispatch():\n    return 2\n'}
QUESTION = "What is VERSION_TAG in agents/s01_agent_loop.py?"
READ = {"name": "read_file", "description": "Read a file of the workspace and return its text",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the workspace and return its text.

    Args:
        path: the file's path, relative to the workspace
    """
    return FILES.get(path, f"error: no such file: {path}")


@beta_tool
def list_files() -> str:
    """List every file of the workspace."""
    return "\n".join(sorted(FILES))


class Watched(FakeModel):
    """A fake that keeps every Messages request it was sent (its JSON body and anthropic-beta header)."""

    def __init__(self, **options):
        super().__init__(**options)
        self.sent: list[tuple[str, dict]] = []

    def handle(self, request):
        if request.url.path.startswith("/v1/messages") and request.method == "POST":
            self.sent.append((request.headers.get("anthropic-beta", ""), json.loads(request.content)))
        return super().handle(request)

    def threads_sent(self) -> list:
        return [body.get("thread", {}).get("type") if body.get("thread") else None for _, body in self.sent]


def run(fake: FakeModel, question: str = QUESTION, model: str = MODEL, **options):
    runner = fake.client().beta.messages.tool_runner(model=model, max_tokens=1024, system=SYSTEM,
                                                     tools=[read_file, list_files],
                                                     messages=[{"role": "user", "content": question}], **options)
    return list(runner)


# --- the helpers, unmodified -------------------------------------------------------------------------

@pytest.mark.parametrize("model, question", [
    (MODEL, QUESTION),
    ("claude-opus-5", "What is VERSION_TAG in agents/s02_tool_use.py?"),
    ("claude-haiku-4-5-20251001", "Which files are in the workspace?"),
])
def test_the_tool_runner_threads_by_default_and_answers_as_unthreaded(model, question):
    threaded, unthreaded = Watched(), Watched()
    replies = run(threaded, question, model)
    plain = run(unthreaded, question, model, thread=False)
    assert [r.stop_reason for r in replies] == [r.stop_reason for r in plain] and replies[-1].stop_reason == "end_turn"
    assert replies[-1].content[0].text == plain[-1].content[0].text
    assert threaded.threads_sent() == ["create"] + ["continue"] * (len(replies) - 1)
    assert unthreaded.threads_sent() == [None] * len(plain)
    for beta, body in threaded.sent[1:]:  # a continue sends only what is new, no system and no tools
        assert THREADS_BETA in beta and "system" not in body and "tools" not in body
        assert len(body["messages"]) == 1 and body["messages"][0]["content"][0]["type"] == "tool_result"


def test_the_thread_helper_sends_only_the_new_turn_and_the_model_sees_the_whole_conversation():
    fake = Watched()
    thread = fake.client().beta.messages.thread(model=MODEL, max_tokens=1024, system=SYSTEM, tools=[READ])
    first = thread.send({"role": "user", "content": QUESTION})
    assert first.stop_reason == "tool_use" and thread.previous_message_id == first.id
    call = first.content[0]
    result: BetaToolResultBlockParam = {"type": "tool_result", "tool_use_id": call.id,
                                        "content": FILES[call.input["path"]]}
    second = thread.send({"role": "user", "content": [result]})
    assert "v1-agent" in second.content[0].text and thread.previous_message_id == second.id
    assert fake.threads_sent() == ["create", "continue"] and len(thread.messages) == 4
    unthreaded = FakeModel().client().beta.messages.create(model=MODEL, max_tokens=1024, system=SYSTEM,
                                                           tools=[READ], messages=list(thread.messages[:3]))
    assert unthreaded.content[0].text == second.content[0].text  # the same conversation, the same answer
    with thread.stream({"role": "user", "content": "What is VERSION_TAG in agents/s02_tool_use.py?"}) as stream:
        streamed = stream.get_final_message()
    assert streamed.stop_reason == "tool_use" and fake.threads_sent()[-1] == "continue"


def test_the_thread_tool_runner_streams():
    fake = Watched()
    thread = fake.client().beta.messages.thread(model=MODEL, max_tokens=1024, tools=[read_file, list_files],
                                                messages=[{"role": "user", "content": QUESTION}])
    finals = [stream.get_final_message() for stream in thread.tool_runner(stream=True)]
    assert [m.stop_reason for m in finals] == ["tool_use", "end_turn"] and "v1-agent" in finals[-1].content[0].text
    assert fake.threads_sent() == ["create", "continue"] and all(body.get("stream") for _, body in fake.sent)


def test_a_lost_thread_is_replayed_whole_by_the_helper():
    fake = Watched()
    thread = fake.client().beta.messages.thread(model=MODEL, max_tokens=1024, system=SYSTEM, tools=[READ])
    call = thread.send({"role": "user", "content": QUESTION}).content[0]
    fake.threads.kept.clear()  # the server lost it (in the API: expired after 5 minutes)
    answer = thread.send({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call.id, "content": FILES[call.input["path"]]}]})
    assert "v1-agent" in answer.content[0].text
    assert fake.threads_sent() == ["create", "continue", "create"]
    assert len(fake.sent[-1][1]["messages"]) == 3  # the whole history, replayed


# --- what a thread refuses ---------------------------------------------------------------------------

EDIT = {"edits": [{"type": "clear_tool_uses_20250919"}]}


def test_the_runner_falls_back_by_itself_where_the_fake_cannot_thread():
    fake = Watched()
    replies = run(fake, context_management=EDIT, betas=["context-management-2025-06-27"])
    assert replies[-1].stop_reason == "end_turn" and "v1-agent" in replies[-1].content[0].text
    assert fake.threads_sent() == ["create", None, None]  # refused once, then the whole history each turn


def test_the_thread_helper_raises_the_sdks_error_for_an_unthreadable_request():
    client = FakeModel().client()
    thread = client.beta.messages.thread(model=MODEL, max_tokens=1024, context_management=EDIT,
                                         betas=["context-management-2025-06-27"])
    with pytest.raises(types.ThreadUnsupportedRequestError) as info:
        thread.send({"role": "user", "content": QUESTION})
    assert info.value.status_code == 400 and info.value.error_code == "thread_unsupported_request"
    assert info.value.details.unsupported == ["context_management"]
    lenient = client.beta.messages.thread(model=MODEL, max_tokens=1024, context_management=EDIT,
                                          betas=["context-management-2025-06-27"],
                                          unsupported_request_behavior="continue_unthreaded")
    assert lenient.send({"role": "user", "content": "hello"}).stop_reason == "end_turn"


def create(client, **fields):
    request = {"model": MODEL, "max_tokens": 1024, "betas": [THREADS_BETA], **fields}
    return client.beta.messages.create(**request)


def test_each_thread_error_is_the_sdks_class_with_its_error_code():
    fake = FakeModel()
    client = fake.client()
    first = create(client, system=SYSTEM, tools=[READ], messages=[{"role": "user", "content": QUESTION}],
                   thread={"type": "create"})
    tool_call = first.content[0]
    results = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_call.id,
                                              "content": FILES[tool_call.input["path"]]}]}]
    cases = [
        ({"thread": {"type": "continue", "previous_message_id": "msg_nowhere"}},
         types.ThreadNotFoundError, 404, "thread_not_found", "msg_nowhere"),
        ({"thread": {"type": "continue", "previous_message_id": first.id}, "model": "claude-opus-5"},
         types.ThreadFingerprintMismatchError, 400, "thread_fingerprint_mismatch", "model"),
        ({"thread": {"type": "continue", "previous_message_id": first.id}, "system": SYSTEM},
         anthropic.BadRequestError, 400, None, "system: "),
        ({"thread": {"type": "continue", "previous_message_id": first.id}, "tools": [READ]},
         anthropic.BadRequestError, 400, None, "tools: "),
        ({"thread": {"type": "continue", "previous_message_id": first.id}, "betas": []},
         anthropic.BadRequestError, 400, None, THREADS_BETA),
    ]
    for fields, kind, status, code, named in cases:
        with pytest.raises(kind) as info:
            create(client, messages=results, **fields)
        assert (type(info.value), info.value.status_code, info.value.error_code) == (kind, status, code), fields
        assert named in info.value.body["error"]["message"]
    second = create(client, messages=results, thread={"type": "continue", "previous_message_id": first.id})
    assert second.stop_reason == "end_turn"  # the refusals above left the thread as it was
    with pytest.raises(types.ThreadAlreadyContinuedError) as info:
        create(client, messages=results, thread={"type": "continue", "previous_message_id": first.id})
    assert info.value.error_code == "thread_already_continued"


def test_a_continue_is_checked_whole_as_any_request():
    client = FakeModel().client()
    first = create(client, tools=[READ], messages=[{"role": "user", "content": QUESTION}], thread={"type": "create"})
    with pytest.raises(anthropic.BadRequestError, match="tool_use` ids were found without `tool_result`"):
        create(client, messages=[{"role": "user", "content": "never mind"}],
               thread={"type": "continue", "previous_message_id": first.id})
    with pytest.raises(anthropic.BadRequestError, match="thread.previous_message_id: Field required"):
        create(client, messages=[{"role": "user", "content": "hi"}], thread={"type": "continue"})
    with pytest.raises(anthropic.BadRequestError, match="thread.previous_message_id: Extra inputs are not permitted"):
        create(client, messages=[{"role": "user", "content": "hi"}],
               thread={"type": "create", "previous_message_id": first.id})
    with pytest.raises(anthropic.BadRequestError, match="thread: Input should be an object with a type"):
        create(client, messages=[{"role": "user", "content": "hi"}], thread={"type": "resume"})
