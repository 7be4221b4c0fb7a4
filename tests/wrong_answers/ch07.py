"""Chapter 07's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

import shutil
from pathlib import Path

from harness import tool_result, user
from harness.session.resume import INTERRUPTED


def answer_only_the_first_call(history):
    if not history or history[-1]["role"] != "assistant" or isinstance(history[-1]["content"], str):
        return None
    open_ids = [block["id"] for block in history[-1]["content"] if block.get("type") == "tool_use"]
    return user([tool_result(open_ids[0], INTERRUPTED, is_error=True)]) if open_ids else None


def interruption_of_a_string_reply(history):
    """Reads the last message's blocks without asking whether its content is a string."""
    if not history or history[-1]["role"] != "assistant":
        return None
    open_ids = [block["id"] for block in history[-1]["content"] if block.get("type") == "tool_use"]
    return user([tool_result(tool_id, INTERRUPTED, is_error=True) for tool_id in open_ids]) if open_ids else None


def interruption_by_comprehension(history):
    last = history[-1] if history else {"role": "user", "content": ""}
    calls = [b["id"] for b in (last["content"] if not isinstance(last["content"], str) else [])
             if b["type"] == "tool_use"] if last["role"] == "assistant" else []
    return user([tool_result(i, INTERRUPTED, True) for i in calls]) if calls else None


def tear_with_a_newline(source, target, record, keep):
    shutil.copy(source, target)
    with open(target, "a", encoding="utf-8") as f:
        f.write(record[:keep] + "\n")


def tear_onto_the_stale_target(source, target, record, keep):
    with open(target, "a", encoding="utf-8") as f:
        f.write(Path(source).read_text(encoding="utf-8") + record[:keep])


def tear_by_bytes(source, target, record, keep):
    data = Path(source).read_bytes() + record[:keep].encode("utf-8")
    Path(target).write_bytes(data)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "my_interruption": [
        (answer_only_the_first_call, "two open calls between text blocks: at result.content, yours has 1 item, fewer"),
        (interruption_of_a_string_reply, "The last message's content may be a plain string"),
    ],
    "tear": [
        (tear_with_a_newline, "record 1, its first 1 characters: at file['after the last newline'], yours gave "
                              "an empty text. Hint: Nothing after the cut"),
        (tear_onto_the_stale_target, "The target starts as a copy of the source"),
    ],
}

RIGHT = {"my_interruption": [interruption_by_comprehension], "tear": [tear_by_bytes]}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "retried": [({429, 500, 529}, "2 missing")],
}
