"""Counting tokens: the estimate, the offline cl100k count and its memo (harness/core/tokens.py, chapter 01)."""
from __future__ import annotations

import json
import socket
from typing import Any

import pytest
import tiktoken
import tiktoken.registry
from hypothesis import given, settings
from hypothesis import strategies as st
from histories import valid_histories

from harness import (InvalidHistory, assistant, count_tokens, estimate_tokens, exact_tokens, text, tool_result,
                     tool_use, user)
from harness.core.messages import MAX_DEPTH, check_shape
from harness.core.tokens import (ENCODING_NAME, MESSAGE_OVERHEAD, block_tokens, encoding,
                                 repr_length, text_tokens)
from harness.fake import fake_client

TOOLS = [{"name": "read_file", "description": "Read a file.",
          "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]


def long_history(turns: int) -> list[dict]:
    """A history of ``turns`` tool round trips, every text distinct."""
    messages = [user("Start the work.")]
    for n in range(turns):
        messages.append(assistant([text(f"Step {n}: reading."), tool_use(f"id{n}", "read_file", {"path": f"f{n}.py"})]))
        messages.append(user([tool_result(f"id{n}", f"content of file number {n}\n" * 20)]))
    return messages


# --- the estimate -------------------------------------------------------------


def test_estimate_is_str_length_over_four_exactly():
    assert estimate_tokens([]) == len("[]") // 4 == 0
    history = [user("hello")]
    assert str(history) == "[{'role': 'user', 'content': 'hello'}]"
    assert estimate_tokens(history) == 37 // 4 == 9


@settings(max_examples=50, deadline=None)
@given(valid_histories())
def test_estimate_equals_the_seed_formula_on_any_history(messages):
    assert estimate_tokens(messages) == len(str(messages)) // 4


ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary(),
    lambda children: st.lists(children, max_size=4) | st.tuples(children, children)
    | st.dictionaries(st.text(max_size=5) | st.integers(), children, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(ANY_VALUE)
def test_the_walk_adds_up_to_the_repr_of_any_value(value):
    """The estimate adds the length up without building the string: it must be exact for anything,
    quotes, escapes, non-ASCII, tuples, numbers and bytes included."""
    assert repr_length(value) == len(repr(value))
    assert estimate_tokens(value) == len(str(value)) // 4


def test_the_estimate_refuses_a_list_that_holds_itself_or_nests_too_deep():
    history = [user("hello")]
    history.append(history)
    with pytest.raises(InvalidHistory, match="nested deeper than 100 levels"):
        estimate_tokens(history)
    deepest: Any = "x"
    for _ in range(MAX_DEPTH - 4):  # the message, its content, a block and the input are the other four levels
        deepest = [deepest]
    fits = [assistant([tool_use("t", "bash", {"x": deepest})])]
    check_shape(fits)
    assert estimate_tokens(fits) == len(str(fits)) // 4
    too_deep = [assistant([tool_use("t", "bash", {"x": [deepest]})])]
    for refuse in (check_shape, estimate_tokens, count_tokens):
        with pytest.raises(InvalidHistory, match="nested deeper than 100 levels"):
            refuse(too_deep)
    deeper: Any = {}
    for _ in range(1_500):
        deeper = {"a": deeper}
    for refuse in (check_shape, estimate_tokens, count_tokens):
        with pytest.raises(InvalidHistory):
            refuse([assistant([tool_use("t", "bash", deeper)])])  # not RecursionError


# --- the offline count --------------------------------------------------------


def test_count_of_known_texts():
    assert text_tokens("hello world") == 2
    assert text_tokens("") == 0
    assert count_tokens([user("hello world")]) == MESSAGE_OVERHEAD + 2
    assert count_tokens([user("hello world"), assistant("hello world")]) == 2 * (MESSAGE_OVERHEAD + 2)


def test_count_includes_system_and_tools():
    messages = [user("What is in f.py?")]
    bare = count_tokens(messages)
    system = "You are a careful coding agent."
    assert count_tokens(messages, system=system) == bare + text_tokens(system)
    tools_text = json.dumps(TOOLS, sort_keys=True)
    assert count_tokens(messages, tools=TOOLS) == bare + text_tokens(tools_text)
    assert count_tokens(messages, system=system, tools=TOOLS) == bare + text_tokens(system) + text_tokens(tools_text)
    assert text_tokens(tools_text) > 20


def test_count_sums_blocks_of_every_kind():
    use = tool_use("a", "read_file", {"path": "x.py"})
    result = tool_result("a", "line\n" * 10)
    listed = {"type": "tool_result", "tool_use_id": "a", "content": [text("one"), text("two")]}
    assert block_tokens(use) == text_tokens("read_file") + text_tokens('{"path": "x.py"}')
    assert block_tokens(result) == text_tokens("line\n" * 10)
    assert block_tokens(listed) == text_tokens("one") + text_tokens("two")
    messages = [user("go"), assistant([text("ok"), use]), user([result])]
    expected = 3 * MESSAGE_OVERHEAD + text_tokens("go") + text_tokens("ok") + block_tokens(use) + block_tokens(result)
    assert count_tokens(messages) == expected


def test_count_is_close_to_but_not_the_estimate_on_code():
    history = long_history(10)
    counted, estimated = count_tokens(history), estimate_tokens(history)
    assert counted != estimated
    assert 0.3 < counted / estimated < 3


def test_tokenizer_loads_without_network(tmp_path, monkeypatch):
    """Building cl100k afresh, with sockets refused and an empty tiktoken cache, still works."""
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-cache"))
    known = encoding().encode("hello world")  # also makes tiktoken register its constructors
    fresh = tiktoken.Encoding(**tiktoken.registry.ENCODING_CONSTRUCTORS[ENCODING_NAME]())
    assert fresh.encode("hello world") == known
    assert len(fresh.encode("hello world")) == 2


def test_encoding_is_the_bundled_cl100k():
    assert encoding().name.startswith("cl100k_base")
    assert encoding() is encoding()


# --- memoization --------------------------------------------------------------


def test_recount_after_one_new_message_encodes_about_one_block():
    history = long_history(100)  # 201 messages, 400 distinct texts
    text_tokens.cache_clear()
    first = count_tokens(history, system="sys", tools=TOOLS)
    misses_first = text_tokens.cache_info().misses
    assert misses_first > 300  # every distinct text encoded once

    history.append(assistant("A brand new answer nobody has counted yet."))
    history.append(user("And one more question."))
    before = text_tokens.cache_info()
    second = count_tokens(history, system="sys", tools=TOOLS)
    after = text_tokens.cache_info()
    assert after.misses - before.misses == 2   # exactly the two new texts
    assert after.hits - before.hits >= 400     # everything else came from the memo
    assert second == first + 2 * MESSAGE_OVERHEAD + text_tokens("A brand new answer nobody has counted yet.") \
        + text_tokens("And one more question.")

    again = text_tokens.cache_info().misses
    assert count_tokens(history, system="sys", tools=TOOLS) == second
    assert text_tokens.cache_info().misses == again  # a plain recount encodes nothing


# --- the exact count through the API -------------------------------------------


def test_exact_tokens_goes_through_count_tokens_endpoint():
    client = fake_client()
    messages = [user("What is in f.py?")]
    assert exact_tokens(client, messages, model="claude-haiku-4-5") == count_tokens(messages)
    assert exact_tokens(client, messages, model="claude-haiku-4-5", system="sys", tools=TOOLS) == \
        count_tokens(messages, system="sys", tools=TOOLS)
