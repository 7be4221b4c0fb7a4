"""Chapter 02: the mistakes students make in each step, each of which its check must reject with a line that
names the kind of mistake, and correct versions in other styles, each of which must pass."""
from __future__ import annotations

import copy

from harness.labs.solutions import find_step

PLACEHOLDER = "[Previous: used {}]"


# collect_tool_results

def collect_copies(messages):
    """Returns copies of the blocks: nothing is wrong until replace_in_place writes into them."""
    return [(i, j, dict(block)) for i, m in enumerate(messages) if m["role"] == "user" and isinstance(m["content"], list)
            for j, block in enumerate(m["content"]) if block.get("type") == "tool_result"]


def collect_only_the_first_block(messages):
    return [(i, 0, m["content"][0]) for i, m in enumerate(messages)
            if m["role"] == "user" and isinstance(m["content"], list) and m["content"][0].get("type") == "tool_result"]


def collect_by_comprehension(messages):
    return [(i, j, b) for i, m in enumerate(messages) if m["role"] == "user" and not isinstance(m["content"], str)
            for j, b in enumerate(m["content"]) if b["type"] == "tool_result"]


def is_result(block):
    return block.get("type") == "tool_result"


def collect_with_a_helper(messages):
    found = []
    for i, message in enumerate(messages):
        blocks = message["content"] if message["role"] == "user" and isinstance(message["content"], list) else []
        found += [(i, j, block) for j, block in enumerate(blocks) if is_result(block)]
    return found


# tool_name_map

def name_map_by_attribute(messages):
    return {b.id: b.name for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if hasattr(b, "type") and b.type == "tool_use"}


def name_map_first_call_only(messages):
    names = {}
    for m in messages:
        if m["role"] == "assistant" and isinstance(m["content"], list):
            uses = [b for b in m["content"] if b.get("type") == "tool_use"]
            if uses:
                names[uses[0]["id"]] = uses[0]["name"]
    return names


def name_map_by_dict_comprehension(messages):
    return {b["id"]: b["name"] for m in messages if m["role"] == "assistant" and type(m["content"]) is list
            for b in m["content"] if b["type"] == "tool_use"}


# choose_to_clear

def choose_with_a_plain_lookup(results, names, keep_recent, preserve_tools, min_chars=100):
    """names[id], no "unknown": a KeyError once a result's tool_use is gone."""
    older = results[: max(0, len(results) - keep_recent)]
    return [(b, names[b["tool_use_id"]]) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) > min_chars
            and names[b["tool_use_id"]] not in preserve_tools]


def choose_unclamped(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: len(results) - keep_recent]
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) > min_chars
            and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def choose_by_the_seeds_slice(results, names, keep_recent, preserve_tools, min_chars=100):
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in results[:-keep_recent]
            if isinstance(b.get("content"), str) and len(b["content"]) > min_chars
            and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def choose_at_least_min_chars(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: max(0, len(results) - keep_recent)]
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) >= min_chars
            and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def choose_any_content(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: max(0, len(results) - keep_recent)]
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if len(str(b.get("content"))) > min_chars and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def choose_ignoring_preserve(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: max(0, len(results) - keep_recent)]
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) > min_chars]


def choose_with_min_chars_fixed(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: max(0, len(results) - keep_recent)]
    return [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) > 100
            and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def choose_copies(results, names, keep_recent, preserve_tools, min_chars=100):
    older = results[: max(0, len(results) - keep_recent)]
    return [(dict(b), names.get(b["tool_use_id"], "unknown")) for _, _, b in older
            if isinstance(b.get("content"), str) and len(b["content"]) > min_chars
            and names.get(b["tool_use_id"], "unknown") not in preserve_tools]


def choose_counting_from_the_end(results, names, keep_recent, preserve_tools, min_chars=100):
    newest_first = list(reversed(results))[keep_recent:]
    chosen = []
    for _, _, block in reversed(newest_first):
        name = names.get(block["tool_use_id"]) or "unknown"
        content = block.get("content")
        if type(content) is str and len(content) > min_chars and name not in preserve_tools:
            chosen.append((block, name))
    return chosen


def long_enough(block, min_chars):
    return isinstance(block.get("content"), str) and len(block["content"]) > min_chars


def choose_with_helpers(results, names, keep_recent, preserve_tools, min_chars=100):
    cut = len(results) - keep_recent if keep_recent < len(results) else 0
    pairs = [(block, names.get(block["tool_use_id"], "unknown")) for _, _, block in results[:cut]]
    return [(block, name) for block, name in pairs if long_enough(block, min_chars) and name not in preserve_tools]


# replace_in_place

def replace_without_counting(chosen):
    for block, name in chosen:
        block["content"] = PLACEHOLDER.format(name)


def replace_with_new_blocks(chosen):
    """Builds new blocks: the history keeps its contents."""
    replaced = [{**block, "content": PLACEHOLDER.format(name)} for block, name in chosen]
    return len(replaced)


def replace_with_update(chosen):
    count = 0
    for block, name in chosen:
        block.update(content=f"[Previous: used {name}]")
        count += 1
    return count


# my_micro_compact

def micro_compact_ignoring_preserve(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    reference = find_step("my_micro_compact").reference
    return reference(messages, keep_recent, frozenset(), min_chars)


def micro_compact_on_a_copy(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """Compacts a deep copy: the caller's history is left as it was."""
    return find_step("my_micro_compact").reference(copy.deepcopy(messages), keep_recent, preserve_tools, min_chars)


def micro_compact_with_a_plain_lookup(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    results = find_step("collect_tool_results").reference(messages)
    chosen = choose_with_a_plain_lookup(results, find_step("tool_name_map").reference(messages), keep_recent,
                                        preserve_tools, min_chars)
    return find_step("replace_in_place").reference(chosen)


def micro_compact_in_one_loop(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    names, found = {}, []
    for i, message in enumerate(messages):
        for j, block in enumerate(message["content"] if isinstance(message["content"], list) else []):
            if block["type"] == "tool_use":
                names[block["id"]] = block["name"]
            elif block["type"] == "tool_result":
                found.append(block)
    cleared = 0
    for block in found[: max(len(found) - keep_recent, 0)]:
        name = names.get(block["tool_use_id"], "unknown")
        if isinstance(block["content"], str) and len(block["content"]) > min_chars and name not in preserve_tools:
            block["content"] = f"[Previous: used {name}]"
            cleared += 1
    return cleared


def micro_compact_by_steps(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """Steps 1-4 by their names: in a notebook, yours (kept with the helpers they use)."""
    names = tool_name_map(messages)
    chosen = choose_to_clear(collect_tool_results(messages), names, keep_recent, preserve_tools, min_chars)
    return replace_in_place(chosen)


# micro_compact_with_paths

def paths_with_a_plain_lookup(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """KeyError for a result whose tool_use is gone."""
    uses = {b["id"]: b for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"}
    results = find_step("collect_tool_results").reference(messages)
    older = results[: max(0, len(results) - keep_recent)]
    cleared = 0
    for _, _, block in older:
        use = uses[block["tool_use_id"]]
        if isinstance(block["content"], str) and len(block["content"]) > min_chars and use["name"] not in preserve_tools:
            path = use["input"].get("path")
            block["content"] = f"[Previous: used {use['name']} on {path}]" if path else f"[Previous: used {use['name']}]"
            cleared += 1
    return cleared


def paths_for_every_tool(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    uses = {b["id"]: b for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"}
    chosen = find_step("choose_to_clear").reference(find_step("collect_tool_results").reference(messages),
                                                    {i: b["name"] for i, b in uses.items()}, keep_recent,
                                                    preserve_tools, min_chars)
    for block, name in chosen:
        path = uses.get(block["tool_use_id"], {}).get("input", {}).get("path")
        block["content"] = f"[Previous: used {name} on {path}]"
    return len(chosen)


def placeholder_for(use, name):
    path = (use or {}).get("input", {}).get("path")
    return f"[Previous: used {name} on {path}]" if path else f"[Previous: used {name}]"


def paths_with_a_helper(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    uses = {}
    for message in messages:
        if message["role"] == "assistant" and not isinstance(message["content"], str):
            uses.update({b["id"]: b for b in message["content"] if b["type"] == "tool_use"})
    results = find_step("collect_tool_results").reference(messages)
    names = {tool_id: use["name"] for tool_id, use in uses.items()}
    chosen = find_step("choose_to_clear").reference(results, names, keep_recent, preserve_tools, min_chars)
    for block, name in chosen:
        block["content"] = placeholder_for(uses.get(block["tool_use_id"]), name)
    return len(chosen)


# micro_compact_seen_only

def seen_only_by_dropping_first(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    step = find_step("choose_to_clear").reference
    results = [r for r in find_step("collect_tool_results").reference(messages) if r[0] != len(messages) - 1]
    chosen = step(results, find_step("tool_name_map").reference(messages), keep_recent, preserve_tools, min_chars)
    return find_step("replace_in_place").reference(chosen)


def seen_only_by_position(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    results = find_step("collect_tool_results").reference(messages)
    last = {id(block) for i, _, block in results if i == len(messages) - 1}
    chosen = find_step("choose_to_clear").reference(results, find_step("tool_name_map").reference(messages),
                                                    keep_recent, preserve_tools, min_chars)
    for block, name in chosen:
        if id(block) not in last:
            block["content"] = f"[Previous: used {name}]"
    return sum(id(block) not in last for block, _ in chosen)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "collect_tool_results": [
        (collect_copies, "Copies, not the history's own blocks"),
        (collect_only_the_first_block, "two results in one message: at result.result, yours has 1 item, fewer"),
    ],
    "tool_name_map": [
        (name_map_by_attribute, "An empty map"),
        (name_map_first_call_only, "two results in one message: at result['how many names'], yours gave 1. Hint: One name per reply"),
    ],
    "choose_to_clear": [
        (choose_with_a_plain_lookup, "one tool_use gone, keep_recent=3, preserve=[], min_chars=100: at result, "
                                     "yours raised KeyError. Hint: A KeyError on an unknown id"),
        (choose_unclamped, "the 12-file history (13 results), keep_recent=14, preserve=[], min_chars=0: at "
                           "result.result, yours has 12 items, more than it should. "
                           "Hint: Fewer results than keep_recent"),
        (choose_by_the_seeds_slice, "keep_recent=0, preserve=[], min_chars=100: at result.result, yours has 0 items, "
                                    "fewer than it should. Hint: keep_recent=0"),
        (choose_at_least_min_chars, "Off by one at the boundary"),
        (choose_any_content, "Content that is not a string"),
        (choose_ignoring_preserve, "A setting ignored: preserve_tools"),
        (choose_with_min_chars_fixed, "A setting ignored: min_chars"),
        (choose_copies, "Copies, not the history's own blocks"),
    ],
    "replace_in_place": [
        (replace_without_counting, "at after.returned, yours gave None"),
        (replace_with_new_blocks, "The history unchanged"),
    ],
    "my_micro_compact": [
        (micro_compact_ignoring_preserve, "A setting ignored: pass preserve_tools"),
        (micro_compact_on_a_copy, "The history unchanged"),
        (micro_compact_with_a_plain_lookup, "A KeyError on an unknown id"),
    ],
    "micro_compact_with_paths": [
        (paths_with_a_plain_lookup, "one tool_use gone, keep_recent=3, preserve=[], min_chars=100: at after, yours "
                                    "raised KeyError. Hint: A KeyError on an unknown id"),
        (paths_for_every_tool, "on None]"),
    ],
    "micro_compact_seen_only": [
        (seen_only_by_dropping_first, "sparing them before choosing"),
    ],
}

collect_tool_results, tool_name_map = collect_with_a_helper, name_map_by_dict_comprehension  # the steps by name,
choose_to_clear, replace_in_place = choose_with_helpers, replace_with_update                # as a notebook has them

RIGHT = {  # step -> [correct versions written in another style]; the first fills the chapter in the 02->05 chain
    "collect_tool_results": [collect_with_a_helper, collect_by_comprehension],
    "tool_name_map": [name_map_by_dict_comprehension],
    "choose_to_clear": [choose_with_helpers, choose_counting_from_the_end],
    "replace_in_place": [replace_with_update],
    "my_micro_compact": [micro_compact_by_steps, micro_compact_in_one_loop],
    "micro_compact_with_paths": [paths_with_a_helper],
    "micro_compact_seen_only": [seen_only_by_position],
}

WRONG_VALUES = {  # exercise value -> [(a typical wrong value, what the answer line must say)]
    "spiral_settings": [({(0, r, f) for r in (False, True) for f in (False, True)}, "should not be there")],
    "differs_at": [({0, 13}, "1 in yours should not be there")],
}
