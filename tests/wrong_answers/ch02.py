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


def paths_for_every_tool(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    uses = {b["id"]: b for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"}
    count = find_step("my_micro_compact").reference(messages, keep_recent, preserve_tools, min_chars)
    for m in messages:
        for b in (m["content"] if m["role"] == "user" and isinstance(m["content"], list) else []):
            if b.get("type") == "tool_result" and b.get("content") == f"[Previous: used {uses[b['tool_use_id']]['name']}]":
                b["content"] = f"[Previous: used {uses[b['tool_use_id']]['name']} on {uses[b['tool_use_id']]['input'].get('path')}]"
    return count


def seen_only_by_dropping_first(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    step = find_step("choose_to_clear").reference
    results = [r for r in find_step("collect_tool_results").reference(messages) if r[0] != len(messages) - 1]
    chosen = step(results, find_step("tool_name_map").reference(messages), keep_recent, preserve_tools, min_chars)
    return find_step("replace_in_place").reference(chosen)


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "collect_tool_results": (collect_only_the_first_block, "two results in one message: at result, yours has 1 items"),
    "tool_name_map": (name_map_by_attribute, "the 12-file history: at result"),
    "choose_to_clear": (choose_unclamped, "keep_recent=3, preserve=[], min_chars=0: at result, yours has 1 items"),
    "replace_in_place": (replace_without_counting, "at after.returned, yours gave None"),
    "my_micro_compact": (micro_compact_ignoring_preserve, "preserve=['read_file']"),
    "micro_compact_with_paths": (paths_for_every_tool, "on None]"),
    "micro_compact_seen_only": (seen_only_by_dropping_first, "keep_recent=1"),
}

WRONG_VALUES = {  # exercise value -> (a typical wrong value, what the answer line must say)
    "spiral_settings": ({(0, r, f) for r in (False, True) for f in (False, True)}, "should not be there"),
    "differs_at": ({0, 13}, "1 in yours should not be there"),
}


