"""Chapter 01: the mistakes students make in exercise 2's estimate, correct versions in other styles, and typical
wrong values: each must fail its check with a line that says how it is off."""
from __future__ import annotations


def estimate_of_the_seed(messages):
    return len(str(messages)) // 4


def estimate_for_chinese_only(messages):
    text = str(messages)
    wide = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return wide + (len(text) - wide) // 4


def estimate_of_the_texts_only(messages):
    text = "".join(m["content"] if isinstance(m["content"], str) else str(m["content"]) for m in messages)
    wide = sum(1 for ch in text if ord(ch) > 127)
    return wide + (len(text) - wide) // 4


def estimate_by_encoding(messages):
    text = str(messages)
    narrow = len(text.encode("ascii", errors="ignore"))
    return round(narrow / 4) + (len(text) - narrow)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "better_estimate": [
        (estimate_of_the_seed, "a French sentence: é, à, ç: at result, yours gave 75. Hint: Non-ASCII characters are one token each"),
        (estimate_for_chinese_only, "a French sentence: é, à, ç: at result"),
        (estimate_of_the_texts_only, "40 short messages (the repr is most of it): at result"),
    ],
}

RIGHT = {"better_estimate": [estimate_by_encoding]}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "tokens_per_character": [(0.9, "too low")],        # tokens over len(CHINESE), punctuation included
    "half_share": [(100, "too high")],                 # the share where it is under a quarter
    "mixed_fires_at": [(1_003, "too high")],           # the all-Chinese conversation's message
    "mixed_direction": [("earlier", "not the answer")],
}
