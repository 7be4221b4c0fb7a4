"""Chapter 06: the mistakes students make in its three exercises, each of which its check must reject with a
line that names the kind of mistake, correct versions in other styles, and a wrong value."""
from __future__ import annotations

from harness.core.tokens import count_tokens
from harness.session.replacement import is_user_words, replace_history


# my_replay

def replay_naively(records):
    return [r["message"] for r in records if r["kind"] == "message"]


def replay_with_the_default_budget(records):
    history = []
    for record in records:
        if record["kind"] == "compaction":
            history = replace_history(history, record["summary"]) if "summary" in record else [record["message"]]
        elif "message" in record:
            history.append(record["message"])
    return history


def replay_messages_only(records):
    history = []
    for record in records:
        if record["kind"] == "message":
            history.append(record["message"])
        elif record["kind"] == "compaction":
            history = (replace_history(history, record["summary"], record["budget_chars"]) if "summary" in record
                       else [record["message"]])
    return history


def replay_by_kind(records):
    def replaced(history, record):
        if record.get("summary") is not None:
            return replace_history(history, record["summary"], record["budget_chars"])
        return [record["message"]]

    history = []
    for record in records:
        history = replaced(history, record) if record["kind"] == "compaction" else (
            history + [record["message"]] if "message" in record else history)
    return history


# kept_by_tokens

def kept_skipping_what_does_not_fit(messages, budget_tokens):
    kept, used = [], 0
    for index in reversed(range(len(messages))):
        if is_user_words(messages[index]):
            size = count_tokens([messages[index]])
            if kept and used + size > budget_tokens:
                continue
            kept.append(index)
            used += size
    return sorted(kept)


def kept_by_characters(messages, budget_tokens):
    kept, used = [], 0
    for index in reversed(range(len(messages))):
        if is_user_words(messages[index]):
            size = len(messages[index]["content"]) if isinstance(messages[index]["content"], str) else 0
            if kept and used + size > budget_tokens:
                break
            kept.append(index)
            used += size
    return kept[::-1]


def kept_without_the_newest_rule(messages, budget_tokens):
    kept, used = [], 0
    for index in reversed(range(len(messages))):
        if is_user_words(messages[index]):
            size = count_tokens([messages[index]])
            if used + size > budget_tokens:
                break
            kept.append(index)
            used += size
    return kept[::-1]


def kept_as_a_tuple(messages, budget_tokens):
    words = [i for i, m in enumerate(messages) if is_user_words(m)]
    total, count = 0, 0
    for index in reversed(words):
        total += count_tokens([messages[index]])
        if count and total > budget_tokens:
            break
        count += 1
    return tuple(words[len(words) - count:])


# whole_input

def whole_input_with_output(usage):
    fields = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum((usage.get(f) if isinstance(usage, dict) else getattr(usage, f, None)) or 0 for f in fields)


def whole_input_of_objects_only(usage):
    return (usage.input_tokens + (usage.cache_creation_input_tokens or 0)
            + (usage.cache_read_input_tokens or 0))


def whole_input_trusting_the_fields(usage):
    get = usage.get if isinstance(usage, dict) else lambda name, default=0: getattr(usage, name, default)
    return get("input_tokens", 0) + get("cache_creation_input_tokens", 0) + get("cache_read_input_tokens", 0)


def whole_input_by_dict(usage):
    fields = usage if isinstance(usage, dict) else usage.model_dump()
    return sum(fields.get(name) or 0 for name in
               ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "my_replay": [
        (replay_naively, "a compaction with a 25-character budget: at result"),
        (replay_with_the_default_budget, "A setting ignored: a compaction record holds its own budget_chars"),
        (replay_messages_only, "an interrupted record: at result, yours has 2 items, fewer"),
    ],
    "kept_by_tokens": [
        (kept_skipping_what_does_not_fit, "Stop at the first that does not fit"),
        (kept_by_characters, "Tokens, not characters"),
        (kept_without_the_newest_rule, "The newest request is kept even when it alone is over the budget"),
    ],
    "whole_input": [
        (whole_input_with_output, "Input only"),
        (whole_input_of_objects_only, "a dict without cache fields: at result, yours raised AttributeError"),
        (whole_input_trusting_the_fields, "a Usage whose cache fields are None: at result, yours raised TypeError"),
    ],
}

RIGHT = {"my_replay": [replay_by_kind], "kept_by_tokens": [kept_as_a_tuple], "whole_input": [whole_input_by_dict]}

WRONG_VALUES = {"naive_rule_compacts": [(True, "yours is not the answer")]}
