"""Chapter 02's typical wrong answers: each must fail its check with a line that points at the mistake."""
from __future__ import annotations

from harness.labs.solutions import find_step


def collect_only_the_first_block(messages):
    return [(i, 0, m["content"][0]) for i, m in enumerate(messages)
            if m["role"] == "user" and isinstance(m["content"], list) and m["content"][0].get("type") == "tool_result"]


def name_map_by_attribute(messages):
    return {b.id: b.name for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if hasattr(b, "type") and b.type == "tool_use"}


def choose_unclamped(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: len(results) - keep_recent]
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) > min_chars
            and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def replace_without_counting(chosen):
    for block, name in chosen:
        block["content"] = f"[Previous: used {name}]"


def micro_compact_ignoring_preserve(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    reference = find_step("my_micro_compact").reference
    return reference(messages, keep_recent, frozenset(), min_chars)


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "collect_tool_results": (collect_only_the_first_block, "two results in one message: at result, yours has 1 items"),
    "tool_name_map": (name_map_by_attribute, "the 12-file history: at result"),
    "choose_to_clear": (choose_unclamped, "keep_recent=3, preserve=[], min_chars=0: at result, yours has 1 items"),
    "replace_in_place": (replace_without_counting, "at after.returned, yours gave None"),
    "my_micro_compact": (micro_compact_ignoring_preserve, "preserve=['read_file']"),
}


