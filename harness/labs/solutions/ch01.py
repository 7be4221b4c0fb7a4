"""Chapter 01 has no step to write (it measures the counts): only the answers to its recap questions."""
from __future__ import annotations

from . import Step

STEPS: list[Step] = []

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
