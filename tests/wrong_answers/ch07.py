"""Chapter 07's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

import shutil

from harness import tool_result, user
from harness.session.resume import INTERRUPTED


def answer_only_the_first_call(history):
    if not history or history[-1]["role"] != "assistant" or isinstance(history[-1]["content"], str):
        return None
    open_ids = [block["id"] for block in history[-1]["content"] if block.get("type") == "tool_use"]
    return user([tool_result(open_ids[0], INTERRUPTED, is_error=True)]) if open_ids else None


def tear_with_a_newline(source, target, record, keep):
    shutil.copy(source, target)
    with open(target, "a", encoding="utf-8") as f:
        f.write(record[:keep] + "\n")


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "my_interruption": (answer_only_the_first_call, "two open calls between text blocks: at result.content, "
                                                    "yours has 1 items"),
    "tear": (tear_with_a_newline, "record 1, its first 1 characters: at file['after the last newline'], yours gave ''"),
}

WRONG_VALUES = {  # answer -> (a typical wrong value, what the line must say)
    "retried": ({429, 500, 529}, "2 missing"),
}
