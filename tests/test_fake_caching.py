"""Prompt caching as the API reports it, served by the fake through the real SDK (chapter 09).

Every test sends its requests through ``client.messages.create`` (or the beta namespace, or
``count_tokens``) and reads the ``usage`` the SDK parsed; ``harness.fake.caching`` holds the rules.
"""
from __future__ import annotations

import copy
import pickle

import anthropic
import pytest

from harness import assistant, error_text, text, tool_result, tool_use, user
from harness.core.tokens import text_tokens
from harness.core.tools import FILE_TOOLS
from harness.fake import FakeModel
from harness.fake.caching import (FALLBACK_MIN_CACHEABLE, MIN_CACHEABLE, SECONDS_PER_REQUEST,
                                  Position, ServerCache, block_positions, min_cacheable, place)
from harness.fake.request import request_tokens

MODEL = "claude-haiku-4-5"  # minimum 4,096 tokens
EPHEMERAL = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}


def words(n: int, word: str = "a") -> str:
    """A text of exactly ``n`` tokens (one per word, under cl100k)."""
    return word + f" {word}" * (n - 1)


BIG = words(5_000)           # over every model's minimum
OTHER_BIG = words(5_000, "b")


def marked(value: str, mark: dict = EPHEMERAL) -> dict:
    return text(value) | {"cache_control": mark}


def send(client, *, beta: bool = False, **request):
    request = {"model": MODEL, "max_tokens": 200, **request}
    return (client.beta.messages if beta else client.messages).create(**request)


def split(usage) -> tuple[int, int, int]:
    """(read, written, uncached) of a usage."""
    return usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.input_tokens


def body(**request) -> dict:
    return {"model": MODEL, "max_tokens": 200, **request}


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


# --- the usage fields -------------------------------------------------------------------

def test_without_cache_control_every_field_is_reported_and_nothing_is_cached(fake):
    client = fake.client()
    for _ in range(2):
        usage = send(client, system=BIG, messages=[user("What is in a.py?")]).usage
        assert split(usage) == (0, 0, request_tokens(body(system=BIG, messages=[user("What is in a.py?")])))
        assert usage.cache_creation.model_dump() == {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
    assert fake.prompt_cache.entries == {}


@pytest.mark.parametrize("beta", [False, True], ids=["messages", "beta.messages"])
def test_a_write_then_a_read_across_requests(fake, beta):
    client = fake.client()
    system = [marked(BIG)]
    question = [user("What is in a.py?")]
    total = request_tokens(body(system=system, messages=question))
    first = send(client, beta=beta, system=system, messages=question).usage
    second = send(client, beta=beta, system=system, messages=[user("And in b.py?")]).usage
    assert split(first) == (0, 5_000, total - 5_000)
    assert first.cache_creation.model_dump() == {"ephemeral_5m_input_tokens": 5_000, "ephemeral_1h_input_tokens": 0}
    assert split(second) == (5_000, 0, request_tokens(body(system=system, messages=[user("And in b.py?")])) - 5_000)


def test_the_three_input_fields_add_up_to_what_the_request_read(fake):
    client = fake.client()
    history = [user(BIG), assistant([tool_use("t1", "read_file", {"path": "a.py"})]),
               user([tool_result("t1", OTHER_BIG) | {"cache_control": HOUR}, marked("Now summarise it.")])]
    requests = [dict(system=[marked("Be brief. " * 10, HOUR)], tools=FILE_TOOLS, messages=history[:1]),
                dict(system=[marked("Be brief. " * 10, HOUR)], tools=FILE_TOOLS, messages=history),
                dict(tools=FILE_TOOLS, messages=history, cache_control=EPHEMERAL),
                dict(tools=[*FILE_TOOLS[:-1], FILE_TOOLS[-1] | {"cache_control": HOUR}], messages=history)]
    for request in requests:
        usage = send(client, **request).usage
        assert sum(split(usage)) == request_tokens(body(**request))
        assert usage.cache_creation_input_tokens == (usage.cache_creation.ephemeral_5m_input_tokens
                                                     + usage.cache_creation.ephemeral_1h_input_tokens)


def test_count_tokens_takes_cache_control_reports_no_cache_field_and_caches_nothing(fake):
    client = fake.client()
    request = dict(model=MODEL, system=[marked(BIG)], messages=[user("Hi")], cache_control=EPHEMERAL)
    counted = client.messages.count_tokens(**request)
    assert counted.model_dump() == {"input_tokens": request_tokens(request)}
    assert client.beta.messages.count_tokens(**request).model_dump(exclude_none=True) == counted.model_dump()
    assert fake.prompt_cache.entries == {} and fake.prompt_cache.now == 0
    assert split(send(client, **{k: v for k, v in request.items() if k != "model"}).usage)[0] == 0  # nothing read


# --- automatic caching (the top-level field) ----------------------------------------------

def test_automatic_caching_marks_the_last_block_and_moves_with_the_conversation(fake):
    client = fake.client()
    history = [user(BIG)]
    totals = []
    for turn in range(4):
        reply = send(client, messages=history, cache_control=EPHEMERAL)
        totals.append(request_tokens(body(messages=history)))
        previous = totals[-2] if turn else 0
        assert split(reply.usage) == (previous, totals[-1] - previous, 0)  # the breakpoint is the last block
        history = [*history, assistant(f"Answer {turn}."), user(f"Question {turn}?")]


def test_automatic_caching_on_a_block_marked_alike_is_a_no_op_and_takes_no_slot(fake):
    client = fake.client()
    four = [marked(f"part {k} " + BIG) for k in range(4)]
    usage = send(client, messages=[user(four)], cache_control=EPHEMERAL).usage
    assert usage.cache_creation_input_tokens == request_tokens(body(messages=[user(four)]))


def test_automatic_caching_on_a_block_marked_with_another_ttl_is_a_400(fake):
    with pytest.raises(anthropic.BadRequestError, match=r"cache_control: automatic caching marks the last cacheable "
                                                        r"block, messages\.0\.content\.0, which already has a "
                                                        r"cache_control with ttl='1h', not ttl='5m'"):
        send(fake.client(), messages=[user([marked(BIG, HOUR)])], cache_control=EPHEMERAL)


def test_automatic_caching_walks_back_past_a_block_that_cannot_hold_a_breakpoint():
    found = [Position("system", (), "system", None), Position("messages.0.content.0", (), None, None)]
    assert place(found, EPHEMERAL)[0].index == 0
    assert place(found[1:], EPHEMERAL) == []  # nothing can hold it: caching is skipped


# --- the API's limits and their 400s -----------------------------------------------------------

def test_a_fifth_breakpoint_is_the_apis_400(fake):
    client = fake.client()
    five = [marked(f"part {k}") for k in range(5)]
    with pytest.raises(anthropic.BadRequestError) as refused:
        send(client, messages=[user(five)])
    assert error_text(refused.value) == ("HTTP 400 invalid_request_error: A maximum of 4 blocks with cache_control "
                                         "may be provided. Found 5.")
    with pytest.raises(anthropic.BadRequestError, match=r"Found 5\."):  # automatic caching takes the fifth slot
        send(client, messages=[user([*five[:4], text("the last block")])], cache_control=EPHEMERAL)
    with pytest.raises(anthropic.BadRequestError, match=r"Found 5\."):
        client.messages.count_tokens(model=MODEL, messages=[user(five)])
    assert send(client, messages=[user(five[:4])]).usage.cache_creation_input_tokens == 0  # four: served


@pytest.mark.parametrize("where, request_fields", [
    ("messages.0.content.1.cache_control", dict(messages=[user([marked("a"), marked("b", HOUR)])])),
    ("system.1.cache_control", dict(system=[marked("a"), marked("b", HOUR)], messages=[user("Hi")])),
    ("messages.0.content.0.cache_control", dict(tools=[FILE_TOOLS[0] | {"cache_control": EPHEMERAL}],
                                                messages=[user([marked("b", HOUR)])])),
    ("cache_control", dict(system=[marked("a")], messages=[user("Hi")], cache_control=HOUR)),
], ids=["messages", "system", "tools before messages", "automatic"])
def test_a_1h_breakpoint_after_a_5m_one_is_the_apis_400(fake, where, request_fields):
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(fake.client(), **request_fields)
    assert caught.value.body["error"]["message"] == (
        f"{where}.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
        "Note that blocks are processed in the following order: `tools`, `system`, `messages`.")


@pytest.mark.parametrize("request_fields, message", [
    (dict(cache_control={"type": "persistent"}), "cache_control.type: Input should be 'ephemeral'"),
    (dict(cache_control={"type": "ephemeral", "ttl": "2h"}), "cache_control.ttl: Input should be '5m' or '1h'"),
    (dict(cache_control="yes"), "cache_control: Input should be a valid dictionary"),
    (dict(system=[text("a") | {"cache_control": {"type": "ephemeral", "scope": "org"}}]),
     "system.0.cache_control.scope: Extra inputs are not permitted"),
    (dict(tools=[FILE_TOOLS[0] | {"cache_control": {"type": "ephemeral", "ttl": "1d"}}]),
     "tools.0.cache_control.ttl: Input should be '5m' or '1h'"),
])
def test_a_malformed_cache_control_is_a_400_naming_it(fake, request_fields, message):
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(fake.client(), messages=[user("Hi")], **request_fields)
    assert caught.value.body["error"]["message"] == message


def test_a_null_cache_control_marks_nothing(fake):
    usage = send(fake.client(), system=[text(BIG) | {"cache_control": None}], messages=[user("Hi")],
                 cache_control=None).usage
    assert split(usage)[:2] == (0, 0)


# --- the minimum, per model --------------------------------------------------------------------

@pytest.mark.parametrize("model, cached", [("claude-haiku-4-5", False), ("claude-haiku-4-5-20251001", False),
                                           ("claude-sonnet-4-6", True), ("claude-opus-4-7", True)])
def test_a_prefix_under_the_models_minimum_is_not_cached_and_is_no_error(fake, model, cached):
    usage = send(fake.client(), model=model, system=[marked(words(3_000))], messages=[user("Hi")]).usage
    assert split(usage)[:2] == ((0, 3_000) if cached else (0, 0))


def test_the_minimum_counts_the_whole_prefix_and_is_inclusive(fake):
    client = fake.client()
    least = min_cacheable(MODEL)
    assert least == 4_096 == MIN_CACHEABLE["claude-haiku-4-5"]
    assert send(client, system=[marked(words(least - 1))], messages=[user("Hi")]).usage.cache_creation_input_tokens == 0
    assert send(client, system=[marked(words(least))], messages=[user("Hi")]).usage.cache_creation_input_tokens == least
    head = words(least - 10)  # under the minimum alone, over it with the first message
    usage = send(client, system=head, messages=[user([marked(words(10, "b"))])]).usage
    assert usage.cache_creation_input_tokens == request_tokens(body(system=head, messages=[user("b" + " b" * 9)]))


def test_an_unlisted_model_gets_the_largest_documented_minimum():
    assert min_cacheable("claude-haiku-5-5") == FALLBACK_MIN_CACHEABLE == max(MIN_CACHEABLE.values())


# --- lifetimes under the clock ---------------------------------------------------------------------

def test_a_5m_entry_expires_five_minutes_after_its_last_use(fake):
    client = fake.client()
    request = dict(system=[marked(BIG)], messages=[user("Hi")])
    assert split(send(client, **request).usage)[:2] == (0, 5_000)               # written at t=0
    fake.prompt_cache.advance(300 - SECONDS_PER_REQUEST - 1)
    assert split(send(client, **request).usage)[:2] == (5_000, 0)               # t=299: read, refreshed
    fake.prompt_cache.advance(300 - SECONDS_PER_REQUEST)
    assert split(send(client, **request).usage)[:2] == (0, 5_000)               # t=599: expired, written again


def test_a_hit_found_by_the_lookback_refreshes_that_entry(fake):
    client = fake.client()
    send(client, messages=[user([marked(BIG)])])                                   # t=0: an entry at position 0
    fake.prompt_cache.advance(200 - SECONDS_PER_REQUEST)
    ahead = [user(BIG), assistant("one"), user([marked("two")])]
    assert send(client, messages=ahead).usage.cache_read_input_tokens > 0         # t=200: found 2 positions back
    fake.prompt_cache.advance(200 - SECONDS_PER_REQUEST)
    other = [user(BIG), assistant("three"), user([marked("four")])]
    assert send(client, messages=other).usage.cache_read_input_tokens == request_tokens(body(messages=[user(BIG)]))
    # ^ t=400: the entry written at 0 lives on because the request at 200 read it


def test_a_hit_further_on_also_refreshes_the_requests_earlier_breakpoints(fake):
    client = fake.client()
    system = [marked(BIG)]
    send(client, system=system, messages=[user([marked(OTHER_BIG)])])             # t=0: two entries
    fake.prompt_cache.advance(200 - SECONDS_PER_REQUEST)
    send(client, system=system, messages=[user(OTHER_BIG), assistant("ok"), user([marked("more")])])  # t=200
    fake.prompt_cache.advance(200 - SECONDS_PER_REQUEST)
    usage = send(client, system=system, messages=[user([marked(words(5_000, "e"))])]).usage   # t=400
    assert usage.cache_read_input_tokens == 5_000  # the system's entry, refreshed at 200 with the hit after it


def test_a_hit_refreshes_the_entry(fake):
    client = fake.client()
    request = dict(system=[marked(BIG)], messages=[user("Hi")])
    reads = []
    for _ in range(6):  # a request every 200 s: each one is within 5 minutes of the one before
        reads.append(send(client, **request).usage.cache_read_input_tokens)
        fake.prompt_cache.advance(200 - SECONDS_PER_REQUEST)
    assert reads == [0] + [5_000] * 5 and fake.prompt_cache.now == 1_200


def test_a_1h_entry_outlives_a_5m_one_and_is_billed_as_1h(fake):
    client = fake.client()
    hour = dict(system=[marked(BIG, HOUR)], messages=[user("Hi")])
    five = dict(system=[marked(OTHER_BIG)], messages=[user("Hi")])
    first = send(client, **hour).usage
    assert first.cache_creation.model_dump() == {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5_000}
    send(client, **five)
    fake.prompt_cache.advance(30 * 60)
    assert send(client, **hour).usage.cache_read_input_tokens == 5_000
    assert send(client, **five).usage.cache_read_input_tokens == 0
    fake.prompt_cache.advance(3_600)
    assert send(client, **hour).usage.cache_read_input_tokens == 0


def test_mixed_ttls_read_a_then_write_an_hour_to_b_and_five_minutes_to_c(fake):
    """The page's three positions: A the hit, B the last 1h breakpoint after it, C the last breakpoint."""
    client = fake.client()
    system = [marked(BIG, HOUR)]
    send(client, system=system, messages=[user("Hi")])
    history = [user([marked(OTHER_BIG, HOUR)]), assistant("Noted."), user([marked(words(700, "c"))])]
    usage = send(client, system=system, messages=history).usage
    a = 5_000
    b = request_tokens(body(system=system, messages=history[:1]))
    c = request_tokens(body(system=system, messages=history))
    assert split(usage) == (a, c - a, 0)
    assert (usage.cache_creation.ephemeral_1h_input_tokens, usage.cache_creation.ephemeral_5m_input_tokens) == (b - a,
                                                                                                                c - b)


def test_the_clock_is_this_fakes_own_and_each_fake_has_its_own_cache():
    one, two = FakeModel(), FakeModel(prompt_cache=ServerCache(seconds_per_request=0))
    request = dict(system=[marked(BIG)], messages=[user("Hi")])
    send(one.client(), **request)
    assert split(send(two.client(), **request).usage)[:2] == (0, 5_000)        # a cache per fake
    assert (one.prompt_cache.now, two.prompt_cache.now) == (SECONDS_PER_REQUEST, 0)
    with pytest.raises(ValueError, match="seconds must be an int >= 0"):
        one.prompt_cache.advance(-1)
    with pytest.raises(ValueError, match="seconds_per_request must be whole seconds"):
        ServerCache(seconds_per_request=2.5)


# --- what a prefix is, and where the lookback looks ---------------------------------------------------

def chat(n: int) -> list[dict]:
    """A user message of BIG, then ``n`` more single-block messages, alternating, each a lookback position."""
    return [user(BIG)] + [assistant(f"reply {k}") if k % 2 == 0 else user(f"note {k}") for k in range(n)]


def with_mark(messages: list[dict], index: int) -> list[dict]:
    """``messages`` with a breakpoint on message ``index`` (its one block)."""
    out = copy.deepcopy(messages)
    out[index]["content"] = [marked(out[index]["content"])]
    return out


@pytest.mark.parametrize("later, hit", [(19, True), (20, False)])  # the page's 20 positions
def test_the_lookback_checks_twenty_positions_the_breakpoint_included(fake, later, hit):
    client = fake.client()
    send(client, messages=[user([marked(BIG)])])  # an entry at position 0
    history = with_mark(chat(later + later % 2), later)  # ends on a user message
    usage = send(client, messages=history).usage
    assert usage.cache_read_input_tokens == (request_tokens(body(messages=[user(BIG)])) if hit else 0)


def test_a_run_of_parallel_tool_calls_or_results_counts_as_one_position(fake):
    client = fake.client()
    calls = [tool_use(f"t{k}", "read_file", {"path": f"f{k}.py"}) for k in range(25)]
    results = [tool_result(f"t{k}", f"line {k}") for k in range(25)]
    send(client, messages=[user([marked(BIG)])])
    parallel = [user(BIG), assistant(calls), user([*results[:-1], results[-1] | {"cache_control": EPHEMERAL}])]
    assert send(client, messages=parallel).usage.cache_read_input_tokens == request_tokens(body(messages=[user(BIG)]))
    texts = [user(BIG), assistant([text(f"step {k}") for k in range(24)] + [text("done")]),
             user([marked("go on")])]
    assert send(client, messages=texts).usage.cache_read_input_tokens == 0  # 26 text blocks: out of the window


def test_the_lookback_resumes_at_the_breakpoint_before_the_last(fake):
    client = fake.client()
    send(client, messages=[user([marked(BIG)])])
    two = with_mark(with_mark(chat(40), 10), 40)  # 40 is too far from the entry at 0; 10 is not
    assert send(client, messages=two).usage.cache_read_input_tokens == request_tokens(body(messages=[user(BIG)]))


def test_the_prefix_order_is_tools_then_system_then_messages(fake):
    client = fake.client()
    tools = [*FILE_TOOLS[:-1], FILE_TOOLS[-1] | {"cache_control": EPHEMERAL}]
    system = [marked(BIG)]
    question = [user([marked(OTHER_BIG)])]
    send(client, tools=tools, system=system, messages=question)
    to_system = request_tokens(body(tools=tools, system=system, messages=[user("x")])) - request_tokens(
        body(messages=[user("x")]))
    assert send(client, tools=tools, system=system, messages=[user([marked(words(5_000, "d"))])]
                ).usage.cache_read_input_tokens == to_system                         # new messages: system still read
    assert send(client, tools=tools, system=system, messages=question, tool_choice={"type": "none"}
                ).usage.cache_read_input_tokens == to_system                         # tool_choice: the messages' part
    changed = [{**tools[0], "description": "Read a file, fast."}, *tools[1:]]
    assert send(client, tools=changed, system=system, messages=question).usage.cache_read_input_tokens == 0


def test_a_moved_breakpoint_keeps_the_prefix(fake):
    client = fake.client()
    send(client, messages=[user([marked(BIG)])])
    usage = send(client, messages=[user([text(BIG)]), assistant("ok"), user([marked("more")])]).usage
    assert usage.cache_read_input_tokens == request_tokens(body(messages=[user(BIG)]))


def test_a_string_and_one_text_block_are_the_same_prefix(fake):
    client = fake.client()
    send(client, system=[marked(BIG)], messages=[user([marked(OTHER_BIG)])])
    usage = send(client, system=BIG, messages=[user(OTHER_BIG)], cache_control=EPHEMERAL).usage
    assert split(usage) == (request_tokens(body(system=BIG, messages=[user(OTHER_BIG)])), 0, 0)


def test_a_breakpoint_inside_a_tool_results_content(fake):
    client = fake.client()
    head = [user("Read a.py."), assistant([tool_use("t1", "read_file", {"path": "a.py"})])]
    inner = [text(BIG) | {"cache_control": EPHEMERAL}, text("(end of file)")]
    messages = [*head, user([tool_result("t1", "") | {"content": inner}])]
    first = send(client, messages=messages).usage
    up_to_inner = first.cache_creation_input_tokens
    assert up_to_inner == request_tokens(body(messages=messages)) - text_tokens("(end of file)")
    assert send(client, messages=messages).usage.cache_read_input_tokens == up_to_inner
    whole = send(client, messages=messages, cache_control=EPHEMERAL).usage  # automatic: on the tool_result
    assert split(whole) == (up_to_inner, request_tokens(body(messages=messages)) - up_to_inner, 0)


@pytest.mark.parametrize("request_fields", [
    dict(tools=FILE_TOOLS, system="Be brief.", messages=[user("Hi")]),
    dict(system=[text("One."), text("Two.")], messages=[user("Hi"), assistant("Yes."), user([text("a"), text("b")])]),
    dict(messages=[user("Read."), assistant([text("Reading."), tool_use("t1", "read_file", {"path": "a.py"}),
                                             tool_use("t2", "bash", {"command": "wc -l a.py", "x": "1"})]),
                   user([tool_result("t1", "") | {"content": [text("x = 1"), text("y = 2")]},
                         tool_result("t2", "2 a.py", is_error=True), text("Go on.")])]),
], ids=["tools and a string system", "system blocks", "tool results"])
def test_the_last_positions_prefix_is_the_whole_request(request_fields):
    found = list(block_positions(body(**request_fields)))
    assert found[-1].tokens == request_tokens(body(**request_fields))
    assert all(a.tokens <= b.tokens for a, b in zip(found, found[1:]))


def test_the_same_requests_give_the_same_usage():
    def run() -> list[str]:
        client = FakeModel().client()
        history, out = [user(BIG)], []
        for turn in range(5):
            reply = send(client, messages=history, cache_control=HOUR if turn == 0 else EPHEMERAL)
            out.append(reply.usage.model_dump_json())
            history = [*history, assistant(f"Answer {turn}."), user(f"Question {turn}?")]
        return out
    assert run() == run()


def test_a_walk_reuses_what_the_previous_request_shares_and_finds_what_a_fresh_walk_finds():
    cache = ServerCache()
    history = [user(BIG), assistant([tool_use("t1", "read_file", {"path": "a.py"})]),
               user([tool_result("t1", OTHER_BIG)]), assistant("Done."), user("Next?")]
    rewritten = [*history[:2], user([tool_result("t1", "[cleared]")]), *history[3:]]
    bodies = [body(messages=history[:1]), body(messages=history[:3]), body(messages=history),
              body(messages=rewritten), body(messages=rewritten, tool_choice={"type": "none"}),
              body(messages=rewritten, tools=FILE_TOOLS), body(messages=rewritten, tools=FILE_TOOLS)]
    shared = []
    for request in bodies:
        before = cache._last
        found, fingerprints = cache.walk(copy.deepcopy(request))  # a new body, as the SDK sends it
        assert (found, fingerprints) == ServerCache().walk(request)
        shared.append(before is not None and found[0] is before.found[0])
    assert shared == [False, True, True, True, False, False, True]


def test_a_fake_with_a_warm_cache_pickles_and_keeps_its_entries(fake):
    client = fake.client()
    request = dict(system=[marked(BIG)], messages=[user("Hi")])
    send(client, **request)
    copy_of = pickle.loads(pickle.dumps(client))
    assert copy_of.fake.prompt_cache.entries == fake.prompt_cache.entries
    assert send(copy_of, **request).usage.cache_read_input_tokens == 5_000
