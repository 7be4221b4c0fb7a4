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


def merge_in_steps(messages, config, focus):
    check_shape(messages)
    if not is_summary(messages[0]):
        return tail_request(messages, config, focus)
    header, _, previous = messages[0]["content"].partition("\n\n")
    previous = previous if previous else header
    later = json.dumps(messages[1:], ensure_ascii=False)
    room = config.tail_chars - len(previous)
    tail = later[len(later) - room:] if 0 < room < len(later) else (later if room >= len(later) else "")
    lines = [MERGE_PROMPT + ("\nFocus especially on: " + focus if focus else ""), "",
             "<previous_summary>", previous, "</previous_summary>", "", "<conversation>", tail, "</conversation>"]
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user("\n".join(lines))]}


def verify_in_steps(messages, draft, config, view_chars=None):
    check_shape(messages)
    view = view_chars if view_chars is not None else config.tail_chars
    whole = json.dumps(messages, ensure_ascii=False)
    shown = whole[-view:] if 0 < view < len(whole) else (whole if view >= len(whole) else "")
    parts = [VERIFY_PROMPT, "", "<draft_summary>", draft, "</draft_summary>", "", "<conversation>", shown,
             "</conversation>"]
    return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user("\n".join(parts))]}


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "my_merge_request": [(merge_with_a_tail_from_the_end,
                          "history 0 after a summary, tail 40, focus None: at request.prompt.conversation")],
    "my_verify_request": [(verify_ignoring_the_view, "view 10000000: at request.prompt.conversation")],
}

RIGHT = {"my_merge_request": [merge_in_steps], "my_verify_request": [verify_in_steps]}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what its line must say)]
    "ex1_tail": [(80_000, "too low")],          # the matched setting's own tail: the JSON is longer than the str
    "ex2_wasted": [({0.9}, "1 in yours should not be there")],  # the fraction that kept nothing, not one that wasted
    "ex3_kept": [(2, "too high")],              # the budget of 2,000's answer
}
