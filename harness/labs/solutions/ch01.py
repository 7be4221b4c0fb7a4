"""Chapter 01 has no step to write (it measures the counts): the values its exercises 1, 3 and 4 ask for,
worked out as the chapter does, and the answers to its recap questions."""
from __future__ import annotations

from typing import Callable

from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, user
from ...core.tokens import count_tokens, estimate_tokens, text_tokens
from ..growth import estimate_and_count, mix_text
from ..samples import CHINESE, ENGLISH
from . import Answer, Step

STEPS: list[Step] = []
THRESHOLD = CompactionConfig().threshold


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
    "usage every response reports, free but after the call: the size of the request just sent.",
    "The history only grows at the end and text_tokens remembers every text it has counted, so a check "
    "encodes only what is new; from scratch it encodes everything again: 327 texts instead of 43 over the "
    "14 requests of the 12-file task.",
]
