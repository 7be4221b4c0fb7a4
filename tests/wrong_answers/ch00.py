"""Chapter 00's typical wrong values: each must fail its check with a line that says how it is off."""
from __future__ import annotations

WRONG = {}  # chapter 00 has no step to write

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "first_call_over_half": [(142, "too high")],                 # the last call, not the first over half
    "twelve_cost": [(0.024485, "too low")],                      # the last context priced, not the bill
    "predicted_bill": [(179_518 * 142, "too high")],             # g * n * n, a rectangle, not a triangle
    "call_refused_at_32k": [(143, "too high")],                  # the refusal of the run, at 1,024
    "error_at_32k": [("prompt is too long", "not the answer")],  # the run's error, not this one's
}
