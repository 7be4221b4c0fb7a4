"""Chapter 12's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

import json

from harness.core.auto import is_summary, tail_request
from harness.core.messages import check_shape, user
from harness.strategies.incremental_summary import MERGE_PROMPT
from harness.strategies.verified_summary import VERIFY_PROMPT


def merge_with_a_tail_from_the_end(messages, config, focus):
    """``dump[-room:]``: at room 0 that is the whole dump, not none of it."""
    check_shape(messages)
    if not is_summary(messages[0]):
        return tail_request(messages, config, focus)
    previous = messages[0]["content"].split("\n\n", 1)[-1]
    dump = json.dumps(messages[1:], ensure_ascii=False)
    room = max(config.tail_chars - len(previous), 0)
    prompt = MERGE_PROMPT + (f"\nFocus especially on: {focus}" if focus else "")
    prompt += (f"\n\n<previous_summary>\n{previous}\n</previous_summary>"
               f"\n\n<conversation>\n{dump[-room:]}\n</conversation>")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}


def verify_ignoring_the_view(messages, draft, config, view_chars=None):
    """Always the draft's own tail: a check shown the whole history is never built."""
    check_shape(messages)
    dump = json.dumps(messages, ensure_ascii=False)
    prompt = (f"{VERIFY_PROMPT}\n\n<draft_summary>\n{draft}\n</draft_summary>"
              f"\n\n<conversation>\n{dump[-config.tail_chars:]}\n</conversation>")
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "my_merge_request": (merge_with_a_tail_from_the_end,
                         "the chapter's summary 2, tail 1000, focus None: at request.prompt.conversation"),
    "my_verify_request": (verify_ignoring_the_view, "view 10000000: at request.prompt.conversation"),
}

WRONG_VALUES = {  # answer -> (a typical wrong value, what its line must say)
    "ex1_tail": (80_000, "too low"),           # the matched setting's own tail: the JSON is longer than the str
    "ex2_wasted": ({0.9}, "1 in yours should not be there"),  # the fraction that kept nothing, not one that wasted
    "ex3_kept": (2, "too high"),               # the budget of 2,000's answer
}
