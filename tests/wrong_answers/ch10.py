"""Chapter 10's typical wrong values: each must fail its check with a line that says how it is off."""
from __future__ import annotations

WRONG = {}  # chapter 10 has no step to write

WRONG_VALUES = {  # answer -> (a typical wrong value, what the line must say)
    "dropped_messages": (37, "too low"),             # the messages the loop kept after the block, not those dropped
    "cleared_with_inputs": (21_585, "too low"),      # section 5's figure, without the inputs
}
