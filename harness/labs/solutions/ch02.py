"""Chapter 02's steps: micro-compaction in four small functions, the whole layer, two variants of it
(exercises 2 and 4), and the values exercises 1 and 3 ask for.

The cases: the chapter's 12-file history (whole, and cut early in the task,
when there are fewer results than ``keep_recent``), every ``keep_recent`` from
0 to 13, four preserve sets, two ``min_chars``; and random valid histories
with what trips a hand-written layer (several results in one message, list
contents, short results, errors).
"""
from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, tool_result, tool_use, user
from ...core.micro import micro_compact
from ..micro_lab import measure_micro, preserve_set
from ..runs import run_scenario
from ..scenarios import TWELVE_FILES
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step

PRESERVE_SETS = (frozenset(), frozenset({"read_file"}), frozenset({"list_files"}),
                 frozenset({"read_file", "list_files"}))


def collect_tool_results(messages):
    """Every tool_result block as (message index, block index, block), oldest first."""
    found = []
    for i, message in enumerate(messages):
        if message["role"] == "user" and isinstance(message["content"], list):
            for j, block in enumerate(message["content"]):
                if block.get("type") == "tool_result":
                    found.append((i, j, block))
    return found


def tool_name_map(messages):
    """{tool_use id: tool name} for every tool_use block of the assistant messages."""
    names = {}
    for message in messages:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    names[block["id"]] = block["name"]
    return names


def choose_to_clear(results, names, keep_recent, preserve_tools, min_chars=100):
    """The (block, tool name) pairs micro-compaction should clear."""
    older = results[: max(0, len(results) - keep_recent)]
    chosen = []
    for _, _, block in older:
        content = block.get("content")
        name = names.get(block["tool_use_id"], "unknown")
        if isinstance(content, str) and len(content) > min_chars and name not in preserve_tools:
            chosen.append((block, name))
    return chosen


def replace_in_place(chosen):
    """Give each chosen block the placeholder of its tool; return how many."""
    for block, name in chosen:
        block["content"] = f"[Previous: used {name}]"
    return len(chosen)


def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """Steps 1-4: clear old, long, non-preserved tool results in place; returns how many."""
    results = collect_tool_results(messages)
    names = tool_name_map(messages)
    chosen = choose_to_clear(results, names, keep_recent, preserve_tools, min_chars)
    return replace_in_place(chosen)


def micro_compact_with_paths(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """my_micro_compact whose placeholder also names the path: "[Previous: used read_file on a.py]"."""
    uses = {}
    for message in messages:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    uses[block["id"]] = block
    names = {tool_id: block["name"] for tool_id, block in uses.items()}
    chosen = choose_to_clear(collect_tool_results(messages), names, keep_recent, preserve_tools, min_chars)
    for block, name in chosen:
        path = uses.get(block["tool_use_id"], {}).get("input", {}).get("path")
        block["content"] = f"[Previous: used {name} on {path}]" if path else f"[Previous: used {name}]"
    return len(chosen)


def micro_compact_seen_only(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """my_micro_compact, except that a result in the last message (not yet seen by the model) is never cleared."""
    results = collect_tool_results(messages)
    chosen = choose_to_clear(results, tool_name_map(messages), keep_recent, preserve_tools, min_chars)
    unseen = {id(block) for i, _, block in results if i == len(messages) - 1}
    return replace_in_place([(block, name) for block, name in chosen if id(block) not in unseen])


@lru_cache(maxsize=1)
def twelve_file_history() -> tuple[Message, ...]:
    """The chapter's history: the 12-file task with every layer off (built once, in a folder of its own)."""
    with scratch_folder(Path("_work/02_micro_compact")) as root:
        return tuple(run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), root / "plain").messages)


def _two_at_once() -> list[Message]:
    return [user("Compare a.py and b.py."),
            assistant([tool_use("t1", "read_file", {"path": "a.py"}), tool_use("t2", "read_file", {"path": "b.py"})]),
            user([tool_result("t1", "print('a')"), tool_result("t2", "print('b')")])]


def _histories() -> list[tuple[str, list[Message]]]:
    history = list(twelve_file_history())
    return ([("the 12-file history", history), ("two results in one message", _two_at_once())]
            + [(f"random history {i}", h) for i, h in enumerate(random_histories(60, seed=2))])


@lru_cache(maxsize=None)
def _knob_cases() -> list[tuple[str, list[Message], int, frozenset[str], int]]:
    history = list(twelve_file_history())
    cases = [(f"12-file history[:{n}], keep_recent={k}, preserve={sorted(p)}, min_chars={m}", history[:n], k, p, m)
             for n in (5, 13, 21, len(history)) for k in range(14) for p in PRESERVE_SETS for m in (0, 100)]
    cases += [(f"random history {i}, keep_recent={i % 5}, preserve={sorted(PRESERVE_SETS[i % 4])}", h, i % 5,
               PRESERVE_SETS[i % 4], (0, 100)[i // 20 % 2]) for i, h in enumerate(random_histories(200, seed=2))]
    return cases


def _one_history_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(name, (messages,)) for name, messages in _histories()]


def _choose_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(name, (collect_tool_results(m), tool_name_map(m), k, p, c)) for name, m, k, p, c in _knob_cases()]


def _replace_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(name, (choose_to_clear(collect_tool_results(m), tool_name_map(m), k, p, c),))
            for name, m, k, p, c in _knob_cases()[::4]]


def _micro_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(name, (m, k, p, c)) for name, m, k, p, c in _knob_cases()]


def blocks_after(function, args):
    """What a replacement is judged by: the chosen blocks afterwards, and the count it returns."""
    count = function(*args)
    return {"blocks": [block for block, _ in args[0]], "returned": count}


def history_after(function, args):
    """What a micro-compaction is judged by: the history it leaves, and the count it returns."""
    count = function(*args)
    return {"history": args[0], "cleared": count}


STEPS = [
    Step("collect_tool_results", "02", collect_tool_results, _one_history_cases,
         hint="Look inside every user message whose content is a list: one message can hold several results."),
    Step("tool_name_map", "02", tool_name_map, _one_history_cases,
         hint="Read the blocks as dicts (block['type'], block['id'], block['name']), in the assistant messages."),
    Step("choose_to_clear", "02", choose_to_clear, _choose_cases,
         hint="Keep the newest keep_recent (clamp the end index at 0); only string content longer than "
              "min_chars; never a preserved tool; an id missing from names is 'unknown'."),
    Step("replace_in_place", "02", replace_in_place, _replace_cases, blocks_after, label="after",
         hint="Assign the placeholder '[Previous: used <name>]' to each chosen block's content; return the count."),
    Step("my_micro_compact", "02", my_micro_compact, _micro_cases, history_after, label="after",
         hint="Run steps 1-4 in order on the history, and return the count step 4 returns.",
         needs=("collect_tool_results", "tool_name_map", "choose_to_clear", "replace_in_place")),
    Step("micro_compact_with_paths", "02", micro_compact_with_paths, _micro_cases, history_after, label="after",
         hint="Map each id to its whole tool_use block; the path is block['input'].get('path'); keep the plain "
              "placeholder for a tool without a path and for an unknown id."),
    Step("micro_compact_seen_only", "02", micro_compact_seen_only, _micro_cases, history_after, label="after",
         hint="Choose exactly as my_micro_compact does, then drop the chosen blocks that sit in the last "
              "message (by message index), whatever keep_recent says."),
]

def _spiral_settings() -> set[tuple[int, bool, bool]]:
    """Exercise 1: the (keep_recent, preserve read_file, preserve list_files) settings, keep_recent 0-2,
    whose loop run ends at max_turns with the harness's micro_compact."""
    history = list(twelve_file_history())
    with scratch_folder(Path("_work/02_micro_compact")) as root:
        return {(k, r, f) for k in (0, 1, 2) for r in (False, True) for f in (False, True)
                if measure_micro(history, k, preserve_set(r, f), root / "spiral").hit_max_turns}


def _differs_at() -> set[int]:
    """Exercise 3: the keep_recent values (0-13) at which the reference's slice ``[:-keep_recent]`` leaves
    the finished 12-file history otherwise than micro_compact does (nothing preserved)."""
    history = list(twelve_file_history())
    differs = set()
    for keep_recent in range(14):
        sliced, harness = copy.deepcopy(history), copy.deepcopy(history)
        results = collect_tool_results(sliced)
        older = results[:-keep_recent]
        replace_in_place(choose_to_clear(older, tool_name_map(sliced), 0, frozenset(), 100))
        micro_compact(harness, keep_recent, frozenset(), 100)
        if sliced != harness:
            differs.add(keep_recent)
    return differs


ANSWERS = (
    Answer("spiral_settings", "02", _spiral_settings,
           hint="A spiral needs a result cleared before the model sees it that the agent cannot do without; "
                "preserving a tool keeps its results in view."),
    Answer("differs_at", "02", _differs_at,
           hint="For each k, compare results[:-k] with results[:13 - k]: where is -k not 13 - k counted from the front?"),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "One user message can hold several tool results (two tools asked for in one turn are answered "
    "together), so a position needs the block index too.",
    "results[:-0] is results[:0], the empty list: nothing would ever be cleared at keep_recent 0. "
    "results[:len(results) - keep_recent] goes negative while there are fewer results than keep_recent, "
    "and Python then counts from the end and clears the results it should keep. Clamp at zero.",
    "It asks hasattr(block, 'type'), which only SDK objects answer; after JSON the blocks are dicts, the "
    "map is empty, every placeholder says 'unknown', and the preserved read_file results are cleared.",
    "The API refuses a tool_result that answers no tool_use of the message before it; and the tool_use "
    "block tells the agent what it did and where to look again.",
    "The placeholders: replace_in_place assigns to the very block dicts of the history, so anything "
    "holding the same list sees the new content.",
]
