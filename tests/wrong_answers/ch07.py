"""Chapter 07's typical wrong answer: it must fail its check with a line that points at the mistake."""
from __future__ import annotations

from harness import tool_result, user
from harness.session.resume import INTERRUPTED


def answer_only_the_first_call(history):
    if not history or history[-1]["role"] != "assistant" or isinstance(history[-1]["content"], str):
        return None
    open_ids = [block["id"] for block in history[-1]["content"] if block.get("type") == "tool_use"]
    return user([tool_result(open_ids[0], INTERRUPTED, is_error=True)]) if open_ids else None


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "my_interruption": (answer_only_the_first_call, "two open calls between text blocks: at result.content, "
                                                    "yours has 1 items"),
}
