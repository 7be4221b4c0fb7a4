"""Chapter 01's step, exercise 2's estimate without a tokenizer; the values its exercises 1, 3 and 4 ask for,
worked out as the chapter does; and the answers to its recap questions.

``better_estimate`` is checked on the chapter's samples and on what trips a hand-written one: accents
and emoji (not only Chinese is non-ASCII), a history whose repr is much longer than its text, no
messages. A count within 1 of the reference's passes (rounding up or down is yours)."""
from __future__ import annotations

from typing import Any, Callable

from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, tool_result, user
from ...core.tokens import count_tokens, estimate_tokens, text_tokens
from ..growth import estimate_and_count, mix_text
from ..samples import CHINESE, ENGLISH
from . import Answer, Step

THRESHOLD = CompactionConfig().threshold


def better_estimate(messages):
    """Every non-ASCII character of str(messages) is one token, the rest four characters a token."""
    text = str(messages)
    wide = sum(1 for ch in text if ord(ch) > 127)
    return wide + (len(text) - wide) // 4


def _estimate_cases() -> list[tuple[Any, ...]]:
    short = [user(f"ok {n}") if n % 2 == 0 else assistant("fine") for n in range(40)]
    return [("40 short messages (the repr is most of it)", (short,), "repr"),
            ("a French sentence: é, à, ç", ([user("Déjà vu: le garçon a été là, à côté du café. " * 6)],), "accents"),
            ("emoji", ([user("ship it 🚀🚀🚀 " * 10)],), "accents"),
            ("the Chinese prose", ([user(CHINESE)],), "accents"),
            ("the English prose", ([user(ENGLISH)],), None),
            ("a tool result of code", ([user([tool_result("toolu_1", "def f(x):\n    return x * 2\n" * 20)])],), None),
            ("half English, half Chinese", ([user(mix_text(ENGLISH, CHINESE, 50, 400))],), None),
            ("no messages", ([],), "repr")]


STEPS = [
    Step("better_estimate", "01", better_estimate, _estimate_cases, tolerance=1,
         hint="The count is of str(messages), the whole repr, character by character: one token for each "
              "non-ASCII character, the rest four characters a token.",
         traps={"accents": "Non-ASCII characters are one token each (the seed's len // 4 gives them a quarter), "
                           "and every character above code point 127 is one: é, à, ç and emoji too, not only "
                           "Chinese.",
                "repr": "Count the characters of str(messages), brackets, keys and quotes included, not only "
                        "the text of each message."}),
]


def _tokens_per_character() -> float:
    return text_tokens(CHINESE) / sum(1 for ch in CHINESE if "\u4e00" <= ch <= "\u9fff")


def _half_share() -> int:
    for share in range(0, 101, 10):
        estimate, counted = estimate_and_count(mix_text(ENGLISH, CHINESE, share, 400))
        if 2 * estimate < counted:
            return share
    raise ValueError("the estimate never halves")


def _first_over(size: Callable[[list[Message]], int], history: list[Message]) -> int:
    """The fewest leading messages whose ``size`` passes THRESHOLD (the chapter's ``first_over``)."""
    low, high = 1, len(history)
    while low < high:
        middle = (low + high) // 2
        if size(history[:middle]) > THRESHOLD:
            high = middle
        else:
            low = middle + 1
    return low


def _mixed() -> tuple[int, int]:
    """(message at which the estimate passes THRESHOLD, message at which cl100k does), half-Chinese text."""
    text = mix_text(ENGLISH, CHINESE, 50, 400)
    history = [user(text) if i % 2 == 0 else assistant(text) for i in range(1_200)]
    return _first_over(estimate_tokens, history), _first_over(count_tokens, history)


ANSWERS = (
    Answer("tokens_per_character", "01", _tokens_per_character, tolerance=0.01,
           hint="divide the paragraph's tokens by the number of Chinese characters, not by len(CHINESE)."),
    Answer("half_share", "01", _half_share, hint="compare 2 x estimate with the count at each share."),
    Answer("mixed_fires_at", "01", lambda: _mixed()[0],
           hint="first_over(THRESHOLD, estimate_tokens, ...) on the 1,200-message conversation."),
    Answer("mixed_direction", "01", lambda: "earlier" if _mixed()[0] < _mixed()[1] else "later",
           hint="is the estimate of a half-Chinese text above or below its count?"),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "The characters of the history's Python repr (quotes, keys, braces, every newline as the two "
    "characters \\n), divided by four. On the code it is partly luck: the code alone runs at 3.9 "
    "characters a token, and the repr's 253 extra characters lift it back to about four.",
    "len() counts a Chinese character as one character, a quarter of a token to the estimate, while cl100k "
    "spends 1.24 tokens per Chinese character on average.",
    "Late: a count below the truth passes the threshold after the true count has. On the Chinese "
    "conversation it fired at message 1,003 instead of 264, at 190,570 real tokens, 95% of the window.",
    "From the messages.count_tokens endpoint, which uses Claude's tokenizer but needs the network, a key "
    "and a model, is one more round trip per count, and is called an estimate by Anthropic; or from the "
    "usage every response reports, free but after the call: the size of the request just sent (with "
    "caching on, input_tokens plus the two cache fields; input_tokens alone is the uncached part).",
    "The history only grows at the end and text_tokens remembers every text it has counted, so a check "
    "encodes only what is new; from scratch it encodes everything again: 327 texts instead of 43 over the "
    "14 requests of the 12-file task run one call per turn.",
]
