"""Chapter 10's typical wrong values: each must fail its check with a line that says how it is off; and, for the
exercise with several right answers, right ones."""
from __future__ import annotations

WRONG = {}  # chapter 10 has no step to write

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "dropped_messages": [(19, "too low")],             # the messages the loop kept after the block, not those dropped
    "cleared_with_inputs": [(150_716, "too low")],     # section 5's figure, without the inputs
    "my_edit": [({"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 5},
                  "exclude_tools": ["bash"]}, "its exclude_tools is not those two tools"),
                ({"type": "clear_tool_uses_20250919", "keep": 5, "exclude_tools": ["bash", "read_file"]},
                 "the SDK's type refuses it"),
                ({"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 3},
                  "exclude_tools": ["read_file", "bash"]}, "its keep does not keep the 5 newest"),
                ({"type": "clear_tool_uses_20250919", "excluded_tools": ["read_file", "bash"]},
                 "the SDK's type refuses it")],
}

WRONG_VALUES["claude_count"] = [(1, "too low")]  # live only: checked with real Claude

RIGHT_VALUES = {"my_edit": [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 5},
                             "exclude_tools": ["read_file", "bash"]}]}
