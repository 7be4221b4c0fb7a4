"""Hypothesis strategies shared by the property tests: valid histories (every layer leaves a valid history).

A generated history always passes ``validate_messages``: it starts with a user
request; each assistant turn has optional text and zero to four ``tool_use``
blocks (unique ids, names such as read_file, bash and compact); every
``tool_use`` is answered, in any order, first thing in the next user message,
with string results short and long (sometimes a list of text blocks or an
error), and sometimes user text after the results; it ends with a user message.
"""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from harness import assistant, placeholder, text, tool_result, tool_use, user

TOOL_NAMES = ("read_file", "bash", "list_files", "edit_file", "write_file", "compact")
WORDS = ("alpha", "beta", "gamma", "delta", "token", "agent", "file", "TODO", "x", "é", "言")

word = st.sampled_from(WORDS)
sentence = st.lists(word, min_size=1, max_size=8).map(" ".join)
short_result = st.text(alphabet="abc xyz\n01", min_size=0, max_size=100)
# long results are built by repetition: cheap to generate, 101 to ~3,000 characters
long_result = st.builds(lambda w, n: (w + " ") * n, word, st.integers(min_value=60, max_value=500))
list_result = sentence.map(lambda s: [text(s)])  # non-string content, never cleared


def tool_input(name: str, path: str) -> dict[str, Any]:
    return {"bash": {"command": f"wc -l {path}"}, "compact": {}}.get(name, {"path": path})


@st.composite
def answered_turn(draw: st.DrawFn, first_id: int) -> list[dict[str, Any]]:
    """An assistant message with tool_use blocks and the user message that answers them."""
    count = draw(st.integers(min_value=1, max_value=4))
    ids = [f"toolu_gen_{first_id + k}" for k in range(count)]
    content = [text(draw(sentence))] if draw(st.booleans()) else []
    for tool_id in ids:
        name = draw(st.sampled_from(TOOL_NAMES))
        content.append(tool_use(tool_id, name, tool_input(name, f"src/{draw(word)}.py")))
    answers = []
    for tool_id in draw(st.permutations(ids)):
        content_value = draw(st.one_of(short_result, long_result, long_result, list_result))
        block = tool_result(tool_id, content_value, is_error=draw(st.booleans()) and draw(st.booleans()))
        answers.append(block)
    if draw(st.integers(min_value=0, max_value=3)) == 0:
        answers.append(text(draw(sentence)))  # occasional text after the results
    return [assistant(content), user(answers)]


@st.composite
def valid_histories(draw: st.DrawFn, max_turns: int = 8) -> list[dict[str, Any]]:
    """A whole valid history: user request, then turns, ending with a user message."""
    messages = [user(draw(sentence))]
    next_id = 0
    for _ in range(draw(st.integers(min_value=0, max_value=max_turns))):
        if draw(st.integers(min_value=0, max_value=4)) == 0:  # a plain answer and a new request
            messages += [assistant(draw(sentence)), user(draw(sentence))]
        else:
            turn = draw(answered_turn(next_id))
            next_id += len(turn[0]["content"])
            messages += turn
    return messages


def tool_result_contents(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """tool_use_id -> the content of its tool_result, for before/after comparisons."""
    return {b["tool_use_id"]: b["content"] for m in messages if m["role"] == "user"
            and isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_result"}


def json_values(*extra_strings: str) -> st.SearchStrategy[Any]:
    """Any JSON value, biased towards the words a message is made of (plus ``extra_strings``)."""
    return st.recursive(
        st.none() | st.booleans() | st.integers() | st.sampled_from(
            ["", " ", "user", "assistant", "text", "tool_use", "tool_result", "id1", "x", *extra_strings]),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
            st.sampled_from(["role", "content", "type", "text", "id", "name", "input", "tool_use_id"]), inner,
            max_size=4),
        max_leaves=20)


def corrupt_one_place(messages: list[Any], junk: Any, data: st.DataObject,
                      message_fields: tuple[str, ...] = ("content",)) -> None:
    """Put ``junk`` in one place of ``messages``: a block field, a block, a message field or a message."""
    i = data.draw(st.integers(min_value=0, max_value=len(messages) - 1))
    content = messages[i]["content"]
    if isinstance(content, list) and data.draw(st.booleans()):
        j = data.draw(st.integers(min_value=0, max_value=len(content) - 1))
        if data.draw(st.booleans()):
            content[j][data.draw(st.sampled_from(sorted(content[j])))] = junk  # one field of a block
        else:
            content[j] = junk
    elif data.draw(st.booleans()):
        messages[i][data.draw(st.sampled_from(message_fields))] = junk
    else:
        messages[i] = junk


def every_category_history() -> list[dict[str, Any]]:
    """A history with one block of every category ``growth.composition`` knows, summary first."""
    return [
        user("[Conversation compressed. Transcript: .transcripts/transcript_0001.jsonl]\n\nWe read files."),
        user("Now read b.py, then run the tests."),
        assistant([text("Reading it."), tool_use("t1", "read_file", {"path": "b.py"})]),
        user([tool_result("t1", "def b():\n    return 2\n" * 20)]),
        assistant([tool_use("t2", "bash", {"command": "pytest"})]),
        user([tool_result("t2", placeholder("bash"))]),
    ]
