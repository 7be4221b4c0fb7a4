"""The fake says how it read each request: the x-fake-reading header and harness.fake.explain (chapter 03)."""
from __future__ import annotations

import held_out_today_4
import held_out_today_5
import pytest

from harness import api_context, assistant, build_summary_request, text, tool_result, tool_use, user
from harness.fake import FakeModel, Reading, explain
from harness.fake.explainer import Refused
from harness.fake.interpretation import HEADER, PHRASING, READING_KINDS
from test_held_out_today import ANSWER, ASK, FILE_TOOLS, HISTORY, MISSES, MODEL

READ = {"name": "read_file", "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}


def body(messages, **options):
    return {"model": MODEL, "max_tokens": 2_000, "messages": messages, **options}


def header_of(request: dict, model: FakeModel | None = None) -> str:
    """The x-fake-reading header of the fake's reply to ``request``, read through the SDK's with_raw_response."""
    raw = (model or FakeModel()).client().messages.with_raw_response.create(**request)
    raw.parse()  # the reply parses as usual: the header is all that is added
    return raw.headers[HEADER]


SUMMARY = body([user(ASK), assistant(ANSWER), user(PHRASING)])
AGENT = body([user(ASK)], tools=[READ])
CONTINUATION = body([user(ASK), assistant([tool_use("toolu_1", "read_file", {"path": "a.py"})]),
                     user([tool_result("toolu_1", 'VERSION_TAG = "v1"')])], tools=[READ])


@pytest.mark.parametrize("request_, kind", [(SUMMARY, "summary request"), (AGENT, "agent turn"),
                                            (CONTINUATION, "continuation")])
def test_every_reply_carries_the_reading_explain_returns(request_, kind):
    said = header_of(request_)
    assert said.isascii() and Reading.from_header(said) == explain(request_)
    assert explain(request_).kind == kind and explain(request_).sure


def test_the_reading_names_the_task_and_the_evidence():
    reading = explain(AGENT)
    assert reading.what == "agent turn (say a VERSION_TAG)" and "asks to say a VERSION_TAG" in reading.evidence
    assert str(reading).startswith("The fake took this request for an agent turn (say a VERSION_TAG)")
    assert '"Summarise" asked for' in explain(SUMMARY).evidence


def test_a_streamed_reply_carries_the_header_too():
    with FakeModel().client().messages.with_streaming_response.create(**SUMMARY, stream=True) as response:
        said = response.headers[HEADER]
    assert Reading.from_header(said) == explain(SUMMARY)


def test_the_harness_summary_request_is_read_as_one():
    request = build_summary_request([user(ASK), assistant(ANSWER)], model=MODEL, max_tokens=2_000, tail_chars=None)
    assert explain(request).kind == "summary request" and explain(request).sure


def test_a_memory_flush_and_a_handed_over_summary_are_named():
    from harness.fake.view import FLUSH_NOTICE
    notice = FLUSH_NOTICE.pattern.replace("\\", "")[:80]
    if FLUSH_NOTICE.search(notice):  # the notice text itself, as the harness sends it
        assert explain(body([user(ASK), assistant(ANSWER), user(notice)])).kind == "memory flush"
    summary = FakeModel().client().messages.create(**SUMMARY).content[0].text
    assert explain(body([user(summary)], tools=[READ])).kind == "continuation"


def test_a_request_the_api_compacts_without_a_model_turn_reads_compaction():
    model = FakeModel()
    request = body([user(ASK), assistant(ANSWER)] * 3 + [user(ASK)], compaction=api_context.on_demand_compaction(),
                   betas=[api_context.ON_DEMAND_COMPACTION_BETA], model="claude-opus-4-7")
    reply = model.client().beta.messages.create(**request)
    assert reply.stop_reason == "compaction" and model.readings[-1].kind == "compaction"
    assert explain(request).kind == "compaction"


def test_unsure_when_a_summary_and_a_task_are_both_asked():
    reading = explain(body([user(ASK), assistant(ANSWER),
                            user(f"Summarise the conversation so far, then tell me: {ASK}")], tools=[READ]))
    assert (reading.kind, reading.sure, reading.other) == ("summary request", False, "agent turn (say a VERSION_TAG)")
    assert str(reading).startswith("The fake is unsure.") and "It could also be an agent turn" in str(reading)
    assert "| unsure |" in Reading(**vars(reading)).header() and "not taken: agent turn" in reading.header()


def test_unsure_when_the_system_prompt_asks_for_a_summary_and_the_message_for_a_task():
    reading = explain(body([user(ASK)], system="You summarise conversations.", tools=[READ]))
    assert (reading.kind, reading.sure, reading.other) == ("agent turn", False, "summary request")


@pytest.mark.parametrize("said, sign", [
    ("Fass bitte unser bisheriges Gespräch kurz zusammen.", "no English word"),
    ("for exercise 3 I have to hand in a summary of our conversation. can you make one for me?",
     "mentioned, not asked for"),
    ("Reduce the chat history now.", "names the conversation"),
])
def test_unsure_with_signs_of_a_summary_request_that_did_not_count(said, sign):
    reading = explain(body([user(ASK), assistant(ANSWER), user(said)], tools=[READ]))
    assert reading.kind == "agent turn" and not reading.sure and sign in reading.evidence, reading


def test_sure_when_nothing_looks_like_a_summary():
    reading = explain(body([user("Deploy the service to production.")], tools=[READ]))
    assert (reading.kind, reading.sure, reading.task) == ("agent turn", True, "nothing it knows how to do")


def test_the_header_is_ascii_and_round_trips_any_evidence():
    reading = Reading("agent turn", 'names the conversation ("unser Gespräch" \u201cquoted\u201d) | odd', False,
                      "greet", "summary request")
    assert reading.header().isascii() and Reading.from_header(reading.header()) == reading
    said = header_of(body([user(ASK), assistant(ANSWER), user("Résumé, s'il vous plaît, de la conversation.")]))
    assert said.isascii() and Reading.from_header(said).kind in READING_KINDS


def test_explain_refuses_what_the_api_refuses_in_the_course_s_words():
    with pytest.raises(Refused, match=r"^HTTP 400 invalid_request_error: .*max_tokens"):
        explain({**AGENT, "max_tokens": -1})
    with pytest.raises(ValueError):
        explain({"model": MODEL, "max_tokens": 10, "messages": []})


def test_the_reading_never_changes_the_reply():
    unsure = body([user(ASK), assistant(ANSWER), user(f"Summarise the conversation so far, then tell me: {ASK}")])
    one, other = FakeModel(), FakeModel()
    assert one.client().messages.create(**unsure) == other.client().messages.create(**unsure)
    assert [r.kind for r in one.readings] == ["summary request"] and one.requests == ["summary"]


# --- the held-out misreads: how many the fake flags as unsure -----------------------------------------------

def misread_requests():
    """Every held-out summary request of sets 4 and 5 the fake did not read as one (MISSES), as a body."""
    for n, held in ((4, held_out_today_4), (5, held_out_today_5)):
        for i, (system, said) in enumerate(held.SUMMARY_REQUESTS):
            if (n, "SUMMARY_REQUESTS", i) in MISSES:
                yield (n, i), body(HISTORY + [user(said)], tools=FILE_TOOLS, **({"system": system} if system else {}))
        for i, style in enumerate(held.TRANSCRIPT_STYLES):
            request = body([user(style.format(user=ASK, assistant=ANSWER))])
            if (n, "TRANSCRIPT_STYLES", i) in MISSES and explain(request).kind != "summary request":
                yield (n, f"transcript {i}"), request


def test_every_held_out_summary_request_the_fake_misread_is_flagged_unsure():
    misread = dict(misread_requests())
    readings = {case: explain(request) for case, request in misread.items()}
    assert all(r.kind == "agent turn" for r in readings.values())
    assert [case for case, r in readings.items() if r.sure] == []  # all 6 of sets 4 and 5 say "unsure"
    assert len(readings) == 6
