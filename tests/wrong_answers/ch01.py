"""Chapter 01's typical wrong values: each must fail its check with a line that says how it is off."""
from __future__ import annotations

WRONG = {}  # chapter 01 has no step to write

WRONG_VALUES = {  # answer -> (a typical wrong value, what the line must say)
    "tokens_per_character": (0.9, "too low"),        # tokens over len(CHINESE), punctuation included
    "half_share": (100, "too high"),                 # the share where it is under a quarter
    "mixed_fires_at": (1_003, "too high"),           # the all-Chinese conversation's message
    "mixed_direction": ("earlier", "not the answer"),
}
