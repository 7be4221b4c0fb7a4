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
from ...core.messages import Message, assistant, text, tool_result, tool_use, user
from ...core.micro import s06_micro_compact
from ..micro_lab import measure_micro, preserve_set
from ..runs import run_scenario
from ..scenarios import TWELVE_FILES
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step, raised

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


def _a_use_gone() -> list[Message]:
    """The 12-file history whose first reply lost its tool_use (an edited or merged history): its result
    answers an id no tool_use names any more."""
    history = copy.deepcopy(list(twelve_file_history()))
    history[1] = assistant("(the listing call was removed)")
    return history


def _boundary() -> list[Message]:
    """Results of 99, 100 and 101 characters, then three short ones: min_chars=100 clears only the third."""
    messages: list[Message] = [user("Run three commands.")]
    for n, size in enumerate((99, 100, 101, 5, 5, 5)):
        messages += [assistant([tool_use(f"t{n}", "bash", {"command": f"cmd {n}"})]),
                     user([tool_result(f"t{n}", "x" * size)])]
    return messages


def _list_content() -> list[Message]:
    """A result whose content is a list of blocks (an image, say), long, then three short ones."""
    messages: list[Message] = [user("Look at the chart."), assistant([tool_use("t0", "bash", {"command": "plot"})]),
                               user([tool_result("t0", [text("a chart " * 40)])])]
    for n in (1, 2, 3):
        messages += [assistant([tool_use(f"t{n}", "bash", {"command": "ls"})]), user([tool_result(f"t{n}", "ok")])]
    return messages


def _histories() -> list[tuple[str, list[Message]]]:
    history = list(twelve_file_history())
    return ([("two results in one message", _two_at_once()), ("the 12-file history", history),
             ("the 12-file history, one tool_use gone", _a_use_gone())]
            + [(f"random history {i}", h) for i, h in enumerate(random_histories(60, seed=2))])


def _settings(keep_recent: int, preserve: frozenset[str], min_chars: int) -> str:
    return f"keep_recent={keep_recent}, preserve={sorted(preserve)}, min_chars={min_chars}"


def _aimed() -> list[tuple[str, list[Message], int, frozenset[str], int, str]]:
    """Small cases, each made to catch one mistake (the last field), before the broad ones."""
    twelve, nothing, reads = list(twelve_file_history()), frozenset(), frozenset({"read_file"})
    return [("the 12-file history (13 results)", twelve, 14, nothing, 0, "clamp"),  # fewer than keep_recent
            ("the 12-file history", twelve, 0, nothing, 100, "zero"),
            ("the 12-file history, one tool_use gone", _a_use_gone(), 3, nothing, 100, "unknown"),
            ("results of 99, 100 and 101 characters", _boundary(), 3, nothing, 100, "boundary"),
            ("results of 99, 100 and 101 characters", _boundary(), 3, nothing, 50, "min_chars"),
            ("a long result whose content is a list", _list_content(), 3, nothing, 0, "list"),
            ("the 12-file history", twelve, 3, reads, 100, "preserve"),
            ("two results in one message", _two_at_once(), 0, nothing, 0, "several")]


@lru_cache(maxsize=None)
def _knob_cases() -> list[tuple[str, list[Message], int, frozenset[str], int, str | None]]:
    history = list(twelve_file_history())
    cases: list[tuple[str, list[Message], int, frozenset[str], int, str | None]] = [
        (f"{name}, {_settings(k, p, m)}", h, k, p, m, trap) for name, h, k, p, m, trap in _aimed()]
    cases += [(f"12-file history[:{n}], {_settings(k, p, m)}", history[:n], k, p, m, None)
              for n in (1, 3, 5, len(history)) for k in range(14) for p in PRESERVE_SETS for m in (0, 100)]
    cases += [(f"random history {i}, {_settings(i % 5, PRESERVE_SETS[i % 4], (0, 100)[i // 20 % 2])}", h, i % 5,
               PRESERVE_SETS[i % 4], (0, 100)[i // 20 % 2], None) for i, h in enumerate(random_histories(200, seed=2))]
    return cases


def _one_history_cases() -> list[tuple[Any, ...]]:
    return [(name, (messages,), "several" if "two results" in name else None) for name, messages in _histories()]


def _choose_cases() -> list[tuple[Any, ...]]:
    return [(name, (collect_tool_results(m), tool_name_map(m), k, p, c), trap) for name, m, k, p, c, trap in _knob_cases()]


def _replace_cases() -> list[tuple[Any, ...]]:
    chosen = [(name, (choose_to_clear(collect_tool_results(m), tool_name_map(m), k, p, c),))
              for name, m, k, p, c, _ in _knob_cases()]
    return [case for case in chosen if case[1][0]][::4]  # a choice with something in it


def _micro_cases() -> list[tuple[Any, ...]]:
    return [(name, (m, k, p, c), trap) for name, m, k, p, c, trap in _knob_cases()]


def _own(messages: Any, item: Any) -> bool:
    """Whether a collected (i, j, block) holds the very block of the history at that place."""
    try:
        i, j, block = item
        return block is messages[i]["content"][j]
    except Exception:
        return False


def collected(function, args):
    """What a collection is judged by: what it returns, and whether each block is the history's own."""
    found = function(*args)
    return {"result": found, "the history's own blocks": [_own(args[0], item) for item in found]}


def chosen_blocks(function, args):
    """What a choice is judged by: the pairs it returns, and whether each block is one of the results' own."""
    pairs = function(*args)
    own = [any(pair[0] is block for _, _, block in args[0]) if isinstance(pair, tuple | list) and pair else False
           for pair in pairs]
    return {"result": pairs, "the results' own blocks": own}


def blocks_after(function, args):
    """What a replacement is judged by: the chosen blocks afterwards, whether each changed, and the count."""
    before = [block.get("content") for block, _ in args[0]]
    count = function(*args)
    return {"changed in place": [block.get("content") != old for (block, _), old in zip(args[0], before)],
            "blocks": [block for block, _ in args[0]], "returned": count}


def history_after(function, args):
    """What a micro-compaction is judged by: whether what it says it cleared changed the history given, the
    history it leaves, and the count it returns."""
    before = copy.deepcopy(args[0])
    count = function(*args)
    cleared_some = type(count) is int and count > 0
    return {"a count above 0 changed the history given": not cleared_some or args[0] != before,
            "history": args[0], "cleared": count}


def name_map(function, args):
    """What a name map is judged by: how many names it holds, then the map."""
    names = function(*args)
    return {"how many names": len(names) if isinstance(names, dict) else None, "result": names}


def _empty_map(expected, got):
    return "attribute" if got == 0 and type(expected) is int and expected > 0 else None


COPIES = ("Copies, not the history's own blocks: a later step writes the placeholder through the blocks this "
          "one returns, so each must be the very dict inside the history (a copy changes nothing there).")
UNCHANGED = ("The history unchanged: assign to the content of each block inside the history given; a new list, "
             "dict or copy leaves the caller's history as it was.")
UNKNOWN = ("A KeyError on an unknown id: a result whose tool_use is gone has no entry in the name map; the "
           "docstring says such a result is named \"unknown\", so look its name up without failing.")
STEPS = [
    Step("collect_tool_results", "02", collect_tool_results, _one_history_cases, collected,
         hint="Every tool_result block of every user message whose content is a list, oldest first, with the "
              "index of its message and of the block in that message.",
         flags={"own blocks": COPIES},
         traps={"several": "One block per message: look at every block of a user message's content, not only "
                           "the first (see the case)."},
         twins=("harness.core.messages:iter_tool_results",)),
    Step("tool_name_map", "02", tool_name_map, _one_history_cases, name_map,
         hint="Every tool_use block of every assistant message whose content is a list maps its id to its name.",
         traps={"attribute": "An empty map: the history's blocks are plain dicts (block[\"type\"], "
                             "block[\"id\"]), which have no attributes to ask for; read them as dicts.",
                "several": "One name per reply: a reply can ask for several tools at once; map every tool_use "
                           "block of it."},
         diagnose=_empty_map, twins=("harness.core.messages:tool_names_by_id",)),
    Step("choose_to_clear", "02", choose_to_clear, _choose_cases, chosen_blocks,
         hint="Compare the case's settings with the four rules: the newest keep_recent stay, only string content "
              "longer than min_chars goes, never a preserved tool.",
         flags={"own blocks": COPIES},
         traps={"KeyError": UNKNOWN, "unknown": UNKNOWN,
                "clamp": "Fewer results than keep_recent: then none is old enough to clear; an end index that "
                         "goes below zero counts from the back instead.",
                "zero": "keep_recent=0: no result is among the newest 0, so every long enough one is old; see what "
                        "your slice selects when keep_recent is 0.",
                "boundary": "Off by one at the boundary: a result exactly min_chars long is not longer than "
                            "min_chars (look at the case's min_chars).",
                "list": "Content that is not a string (a list of blocks: an image, say) stays, however long.",
                "preserve": "A setting ignored: preserve_tools (see the case's preserve) names tools whose "
                            "results are never cleared.",
                "min_chars": "A setting ignored: min_chars (see the case's value) decides how long a result must be "
                             "to be cleared; use the argument, not a number of your own.",
                "several": "Two results in one message: each is a result of its own, old or new by its place."},
         diagnose=raised),
    Step("replace_in_place", "02", replace_in_place, _replace_cases, blocks_after, label="after",
         hint="Each chosen block gets \"[Previous: used <name>]\" as its content; return how many.",
         flags={"changed in place": UNCHANGED,
                "returned": "The count: return how many blocks were given their placeholder (a number, not None)."}),
    Step("my_micro_compact", "02", my_micro_compact, _micro_cases, history_after, label="after",
         hint="Steps 1 to 4 in order, each with the case's settings (see its label); return what step 4 returns.",
         flags={"changed the history": UNCHANGED},
         traps={"KeyError": UNKNOWN, "unknown": UNKNOWN,
                "preserve": "A setting ignored: pass preserve_tools on to step 3 (see the case's preserve).",
                "min_chars": "A setting ignored: pass min_chars on to step 3 (see the case's min_chars).",
                "clamp": "Fewer results than keep_recent: none is old enough to clear.",
                "zero": "keep_recent=0: every long enough result is old; see what your slice selects at 0."},
         diagnose=raised, twins=("harness.core.micro:micro_compact", "harness.core.micro:s06_micro_compact")),
    Step("micro_compact_with_paths", "02", micro_compact_with_paths, _micro_cases, history_after, label="after",
         hint="The placeholder names the path only when the result's tool_use has a \"path\" input; every "
              "other placeholder is the plain one.",
         flags={"changed the history": UNCHANGED},
         traps={"KeyError": UNKNOWN,
                "unknown": "A result whose tool_use is gone: its name is \"unknown\" and it has no path to name, "
                           "so its placeholder is the plain one."},
         diagnose=raised),
    Step("micro_compact_seen_only", "02", micro_compact_seen_only, _micro_cases, history_after, label="after",
         hint="Choose exactly as my_micro_compact does, then spare the chosen blocks of the last message (by "
              "message index); sparing them before choosing changes which results count as the newest.",
         flags={"changed the history": UNCHANGED}, traps={"KeyError": UNKNOWN}),
]

def _spiral_settings() -> set[tuple[int, bool, bool]]:
    """Exercise 1: the (keep_recent, preserve read_file, preserve list_files) settings, keep_recent 0-2,
    whose loop run ends at max_turns with s06_micro_compact."""
    history = list(twelve_file_history())
    with scratch_folder(Path("_work/02_micro_compact")) as root:
        return {(k, r, f) for k in (0, 1, 2) for r in (False, True) for f in (False, True)
                if measure_micro(history, k, preserve_set(r, f), root / "spiral", clear=s06_micro_compact).hit_max_turns}


def _differs_at() -> set[int]:
    """Exercise 3: the keep_recent values (0-13) at which the reference's slice ``[:-keep_recent]`` leaves
    the finished 12-file history otherwise than s06_micro_compact does (nothing preserved)."""
    history = list(twelve_file_history())
    differs = set()
    for keep_recent in range(14):
        sliced, harness = copy.deepcopy(history), copy.deepcopy(history)
        results = collect_tool_results(sliced)
        older = results[:-keep_recent]
        replace_in_place(choose_to_clear(older, tool_name_map(sliced), 0, frozenset(), 100))
        s06_micro_compact(harness, keep_recent, frozenset(), 100)
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
    "It asks hasattr(block, 'type'), which only SDK objects answer; after JSON the blocks are dicts, the "
    "map is empty, every placeholder says 'unknown', and the preserved read_file results are cleared.",
    "The API refuses a tool_result that answers no tool_use of the message before it; and the tool_use "
    "block tells the agent what it did and where to look again.",
    "The placeholders: replace_in_place assigns to the very block dicts of the history, so anything "
    "holding the same list sees the new content.",
    "Results of one turn arrive in one message: twelve parallel reads are twelve results, so the newest 3 "
    "leave 9 of that message to clear before the next call, the first that would show them. A result in "
    "the last message has not been seen yet; never clearing those makes it impossible at any keep_recent.",
]
