# %% [markdown]
# # 02 · micro_compact: old tool results become one-line placeholders
#
# **The promise:** you write micro-compaction in four small functions, and see what it saves and the one
# way it can hurt.
#
# By the end of this chapter you will be able to:
#
# - turn old tool results into placeholders the API still accepts;
# - tell when clearing makes the agent read a file again, and prevent it;
# - say what clearing costs with prompt caching.
#
# **Reading time:** about 50 minutes (stubs included).

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import copy
import json
from collections import Counter

import anthropic
from anthropic.types import TextBlock, ToolUseBlock
from IPython.display import display
from ipywidgets import Checkbox, IntSlider

from harness import (DEFAULT_MODEL, CompactionConfig, assistant, context_window, count_tokens, estimate_tokens,
                     micro_compact, text, tool_result, tool_use, user, validate_messages)
from harness.api_context import clear_tool_uses
from harness.fake import fake_client
from harness.labs.cost import SESSION_PRICES, price
from harness.labs.micro_lab import (KEEP_RECENT_RANGE, MicroKnobs, measure_micro, micro_figure, micro_layer,
                                    outline, price_micro, result_chars, result_labels, result_tokens)
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.labs.strip import message_parts, strip_figure
from harness.labs.tables import Table
from harness.labs.yours import compare, random_histories

WORK = own_scratch("02_micro_compact")

# %% [markdown]
# ## The idea, by hand
#
# Every file an agent reads rides along in every later request. Before each call, micro-compaction
# swaps old tool results for a placeholder such as `[Previous: used bash]`.
#
# The rules are the s06 agent's [1]: the newest `keep_recent` results stay, as do those of `min_chars`
# characters or fewer and of tools in `preserve_tools`; the rest become placeholders.
#
# By hand: four shell commands, `keep_recent=2`. The last two stay; of the older two, `git status` is
# short and stays, the long build log goes.

# %%
SHELL = {"git status": "On branch main\nnothing to commit, working tree clean",
         "cat build.log": "\n".join(f"[{i:02}] compiling module_{i}.py ... ok" for i in range(40)),
         "ls dist": "\n".join(f"app-1.0.{i}-py3-none-any.whl" for i in range(8)),
         "make test": "\n".join([f"test_{i} PASSED" for i in range(30)] + ["test_30 FAILED: exit 2"])}
small = [user("Why is the build failing?")]
for n, (command, output) in enumerate(SHELL.items()):
    small += [assistant([tool_use(f"c{n}", "bash", {"command": command})]), user([tool_result(f"c{n}", output)])]
small.append(assistant("test_30 fails: make test exits 2."))

small_after = copy.deepcopy(small)
micro_compact(small_after, keep_recent=2, preserve_tools=frozenset(), min_chars=100)
print("\n".join(outline(small_after)))

# %% jupyter={"source_hidden": true}
assert [len(output) > 100 for output in SHELL.values()] == [False, True, True, True]
assert [block["content"] for m in small_after[2:5:2] for block in m["content"]] == [
    SHELL["git status"], "[Previous: used bash]"]
assert small_after[6:] == small[6:] and small_after[:4] == small[:4]

# %% [markdown]
# Each block is one part of the request, as wide as its tokens: the build log shrinks to a thin
# placeholder.

# %%
display(strip_figure({"before": small, "after micro_compact": small_after},
                     title="four shell commands, keep_recent=2"))

# %% jupyter={"source_hidden": true}
assert [p.kind for p in message_parts(small_after)].count("placeholders") == 1
assert sum(p.tokens for p in message_parts(small)) == count_tokens(small)

# %% [markdown]
# ## The big run: twelve files
#
# The s06 lesson's task [1]: read and summarise every `.py` file under `agents/`. Run it once, every
# layer off, and keep its history.

# %%
plain = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), WORK / "plain")
history = plain.messages
file_chars = result_chars(history)[1:]
print(f"{len(history)} messages, {len(result_chars(history))} tool results ({len(file_chars)} files of "
      f"about {round(sum(file_chars) / len(file_chars), -2):,.0f} characters), "
      f"{estimate_tokens(history):,} tokens by the s06 estimate (len(str(messages)) // 4), "
      f"{count_tokens(history):,} by cl100k")

# %% jupyter={"source_hidden": true}
assert len(history) == 6 and len(result_chars(history)) == 13 and len(file_chars) == 12
assert round(sum(file_chars) / len(file_chars), -2) == 7_600
assert estimate_tokens(history) == 24_879 and count_tokens(history) == 24_452
validate_messages(history[:-1] + [user("next request")])  # a valid history the API would accept

# %% [markdown]
# The fake makes the twelve reads in one turn, as current models do: one message of twelve calls,
# answered by one of twelve results.

# %%
print("\n".join(outline(history)[:7]))
print("...")
print("\n".join(outline(history)[-5:]))

# %% [markdown]
# Keeping three and preserving nothing, nine of the twelve file blocks shrink to thin placeholders:

# %%
harness_after = copy.deepcopy(history)
harness_report = micro_compact(harness_after, keep_recent=3, preserve_tools=frozenset())
display(strip_figure({"before": history, "after micro_compact": harness_after}, system=plain.system,
                     tools=plain.toolbox.schemas, title="the 12-file task, keep_recent=3, nothing preserved"))

# %% jupyter={"source_hidden": true}
assert Counter(c.tool_name for c in harness_report.cleared) == {"read_file": 9, "list_files": 1}
assert sum(p.tokens for p in message_parts(harness_after, plain.system, plain.toolbox.schemas)) == \
    count_tokens(harness_after, plain.system, plain.toolbox.schemas)

# %% [markdown]
# ## Step 1: find every tool result
#
# A tool result is a block in a *user* message, and calls made together share one: record the message
# index **and** the block index.
#
# **Write it.** Fill in each stub and run the check below it, which says where yours differs; until it
# passes, the chapter runs the reference (`harness/labs/solutions/ch02.py`). Stuck? Open the hint.

# %% tags=["stub"]
def collect_tool_results(messages):
    """Every tool_result block as (message index, block index, block), oldest first."""
    # Find every result, in the order the history holds them, with where it sits.
    # Trap: a user message's content may be a plain string (a request): it holds no blocks.
    # Trap: step 4 writes through the blocks you return, so return the history's own dicts, not copies.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: loop over enumerate(messages); for a user message whose content is a list, loop over
# enumerate(content) and keep (i, j, block) for each block whose "type" is "tool_result".

# %%
collect_tool_results = check(collect_tool_results)

# %% [markdown]
# Two results, one message:

# %%
two_at_once = [
    user("Compare a.py and b.py."),
    assistant([tool_use("t1", "read_file", {"path": "a.py"}), tool_use("t2", "read_file", {"path": "b.py"})]),
    user([tool_result("t1", "print('a')"), tool_result("t2", "print('b')")]),
]
print("two results in one message:", [(i, j) for i, j, _ in collect_tool_results(two_at_once)])
results = collect_tool_results(history)
print("the 12-file history:", [(i, j) for i, j, _ in results])

# %% jupyter={"source_hidden": true}
assert [(i, j) for i, j, _ in collect_tool_results(two_at_once)] == [(2, 0), (2, 1)]
assert [(i, j) for i, j, _ in results] == [(2, 0)] + [(4, j) for j in range(12)]

# %% [markdown]
# ## Step 2: map tool_use ids to tool names
#
# A `tool_result` carries only a `tool_use_id`; the name, needed for `preserve_tools` and the
# placeholder, is in the `tool_use` before it.

# %% tags=["stub"]
def tool_name_map(messages):
    """{tool_use id: tool name} for every tool_use block of the assistant messages."""
    # Every tool call the model made, by its id.
    # Trap: one reply can call several tools; each call has its own id.
    # Trap: the blocks are plain dicts here, not SDK objects (see below): no attributes to ask for.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: for each assistant message whose content is a list, every block with block["type"] == "tool_use"
# maps block["id"] to block["name"].

# %%
tool_name_map = check(tool_name_map)

# %%
names = tool_name_map(history)
print(Counter(names.values()))

# %% jupyter={"source_hidden": true}
from harness import tool_names_by_id  # the harness's own step 2, from here on
assert Counter(names.values()) == {"read_file": 12, "list_files": 1}
assert names == tool_names_by_id(history)

# %% [markdown]
# The s06 agent keeps replies as SDK objects, and its map asks `hasattr(block, "type")` [1]. A JSON round
# trip (a saved transcript, a resumed session) turns them into dicts:

# %%
def reference_style_name_map(messages):
    """The reference's lookup: attribute access, so it only sees SDK block objects."""
    names = {}
    for message in messages:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            for block in message["content"]:
                if hasattr(block, "type") and block.type == "tool_use":
                    names[block.id] = block.name
    return names


def as_sdk_objects(messages):
    """The history as the reference keeps it: assistant content as SDK block objects."""
    def sdk_block(block):
        if block["type"] == "tool_use":
            return ToolUseBlock(type="tool_use", id=block["id"], name=block["name"], input=block["input"])
        return TextBlock(type="text", text=block["text"])
    return [{"role": "assistant", "content": [sdk_block(b) for b in m["content"]]}
            if m["role"] == "assistant" else m for m in messages]


sdk_history = as_sdk_objects(history)
round_trip = json.loads(json.dumps(history))
print("reference map, SDK objects:", len(reference_style_name_map(sdk_history)), "names")
print("reference map, after JSON: ", len(reference_style_name_map(round_trip)), "names")
print("your map, after JSON:      ", len(tool_name_map(round_trip)), "names")

# %% jupyter={"source_hidden": true}
assert len(reference_style_name_map(sdk_history)) == 13
assert reference_style_name_map(round_trip) == {}
assert tool_name_map(round_trip) == names

# %% [markdown]
# After JSON the reference finds no names: every result is `"unknown"`, not in its preserve set
# `{"read_file"}`, so it clears the very files it meant to keep.
#
# ## Step 3: choose what to clear
#
# The rules, in order: all but the newest `keep_recent`; only string content (an image list stays);
# only longer than `min_chars`; never a tool in `preserve_tools`.
#
# Two slicing traps. The reference's `[:-KEEP_RECENT]` is `[:-0]`, empty, at zero. And
# `[:len(results) - keep_recent]` goes negative with fewer results than `keep_recent`, so Python counts
# from the back. Clamp at zero.

# %% tags=["stub"]
def choose_to_clear(results, names, keep_recent, preserve_tools, min_chars=100):
    """The (block, tool name) pairs micro-compaction should clear, oldest first.

    ``results`` as step 1 returns them, ``names`` as step 2 does (an id it lacks is "unknown")."""
    # Apply the four rules above, and pair each block kept with its tool's name.
    # Trap: the two slicing traps above (keep_recent 0; fewer results than keep_recent).
    # Trap: a result whose tool_use is gone has no entry in names.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: older = results[: max(0, len(results) - keep_recent)]; for each (_, _, block) of older, the name is
# names.get(block["tool_use_id"], "unknown"); keep (block, name) when block["content"] is a str longer than
# min_chars and the name is not in preserve_tools.

# %%
choose_to_clear = check(choose_to_clear)

# %% [markdown]
# Both traps, then three settings:

# %%
print("[:-0] keeps", len(results[:-0]), "of", len(results), "results")
print("with 2 results and keep_recent=3, [:2 - 3] still selects", len(results[:2][: 2 - 3]), "of them")
for label, preserve, name_map in [("read_file preserved", {"read_file"}, names),
                                  ("nothing preserved", set(), names),
                                  ("read_file preserved, reference map after JSON", {"read_file"},
                                   reference_style_name_map(round_trip))]:
    chosen = choose_to_clear(results, name_map, 3, preserve)
    print(f"{label}: clear {len(chosen)}: {dict(Counter(name for _, name in chosen))}")

# %% jupyter={"source_hidden": true}
assert results[:-0] == [] and len(results[:2][: 2 - 3]) == 1
assert choose_to_clear(results[:2], names, 3, set()) == []
assert [n for _, n in choose_to_clear(results, names, 3, {"read_file"})] == ["list_files"]
assert len(choose_to_clear(results, names, 3, set())) == 10
assert [n for _, n in choose_to_clear(results, reference_style_name_map(round_trip), 3, {"read_file"})] == ["unknown"] * 10

# %% [markdown]
# ## Step 4: replace in place
#
# The chosen blocks are the history's own dicts, so assigning `block["content"]` changes the history
# itself: anything holding it, a transcript writer say, sees the placeholders too (chapter 03 [1]).

# %% tags=["stub"]
def replace_in_place(chosen):
    """Give each chosen (block, name) the placeholder "[Previous: used <name>]" as its content; return how many."""
    # Change the history itself, through the blocks you are given.
    # Trap: a new dict, or a copy, leaves the history as it was.
    raise NotImplementedError("your code here")


def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """Steps 1-4: clear old, long, non-preserved tool results in place; returns how many."""
    # Your four steps, in order, on the history given.
    # Trap: pass every knob on; a default of your own silently ignores the caller's.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: replace_in_place assigns block["content"] = f"[Previous: used {name}]" for each pair and returns
# len(chosen); my_micro_compact returns replace_in_place(choose_to_clear(collect_tool_results(messages),
# tool_name_map(messages), keep_recent, preserve_tools, min_chars)).

# %%
replace_in_place = check(replace_in_place)
my_micro_compact = check(my_micro_compact)

# %% [markdown]
# A block held elsewhere changes with the history:

# %%
mine = copy.deepcopy(history)
held_elsewhere = mine[4]["content"][0]  # say, a transcript writer kept a reference to this block
cleared = my_micro_compact(mine, keep_recent=3, preserve_tools=frozenset())
print(cleared, "results cleared; the block held elsewhere now reads:", held_elsewhere["content"])
print("the original history (you compacted a deep copy) still has",
      f"{len(history[4]['content'][0]['content']):,} characters there")

# %% jupyter={"source_hidden": true}
assert cleared == 10 and held_elsewhere is mine[4]["content"][0]
assert held_elsewhere == {"type": "tool_result", "tool_use_id": history[3]["content"][1]["id"],
                          "content": "[Previous: used read_file]"}
assert len(history[4]["content"][0]["content"]) == 7_537

# %% [markdown]
# ## Check yours against the harness
#
# `compare` runs yours and `s06_micro_compact`, the harness's port of s06, on 648 cases (every setting
# of the knobs, and 200 random histories), and reports each failing case's *first* difference.

# %%
def what_it_did(function, args):
    """What a micro-compaction is judged by: the history it leaves, and the count it returns."""
    count = function(*args)
    return {"history": args[0], "cleared": count}


from harness import s06_micro_compact  # the harness's port of s06's count, now that yours is written


def harness_count(messages, keep_recent, preserve_tools, min_chars):
    """harness.s06_micro_compact, returning a count like yours does."""
    return len(s06_micro_compact(messages, keep_recent, preserve_tools, min_chars).cleared)


PRESERVE_SETS = (frozenset(), frozenset({"read_file"}), frozenset({"list_files"}),
                 frozenset({"read_file", "list_files"}))
HISTORIES = {"two_at_once": two_at_once, "12-file history[:3]": history[:3], "12-file history[:5]": history[:5],
             "12-file history": history}
cases = [(f"{name}, keep_recent={k}, preserve={sorted(p)}, min_chars={m}", (h, k, p, m))
         for name, h in HISTORIES.items() for k in range(14) for p in PRESERVE_SETS for m in (0, 100)]
cases += [(f"random history {i}, keep_recent={i % 5}, preserve={sorted(PRESERVE_SETS[i % 4])}",
           (h, i % 5, PRESERVE_SETS[i % 4], (0, 100)[i // 20 % 2]))
          for i, h in enumerate(random_histories(200, seed=2))]
agreement = compare("micro_compact", my_micro_compact, harness_count, cases, what_it_did, label="after")
print(agreement)

# %% jupyter={"source_hidden": true}
assert agreement.ok, "see the report above: the first difference of each failing case"
assert [len(collect_tool_results(h)) for h in HISTORIES.values()] == [2, 1, 13, 13]
assert agreement.cases == len(cases) == 4 * 14 * len(PRESERVE_SETS) * 2 + 200 == 648

# %% [markdown]
# A failing check: step 3's second trap, made on purpose.

# %%
def unclamped_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """my_micro_compact with step 3's slice not clamped at zero."""
    results = collect_tool_results(messages)
    older = results[: len(results) - keep_recent]  # negative when keep_recent > len(results)
    return replace_in_place(choose_to_clear(older, tool_name_map(messages), 0, preserve_tools, min_chars))


broken = compare("micro_compact", unclamped_micro_compact, harness_count, cases, what_it_did, label="after")
print(broken)

# %% jupyter={"source_hidden": true}
first = broken.differences[0]
assert not broken.ok and len(broken.differences) == 3
assert first.case == "two_at_once, keep_recent=3, preserve=[], min_chars=0"
assert first.where == "after.history[2].content[0].content"
assert first.expected == "print('a')" and first.got == "[Previous: used read_file]"
assert str(broken).startswith("micro_compact: yours differs from the harness's in 3 of 648 cases\n"
                              "  two_at_once, keep_recent=3, preserve=[], min_chars=0: "
                              "at after.history[2].content[0].content: expected \"print('a')\"")

# %% [markdown]
# With two results and `keep_recent=3` both should stay, but `2 - 3` means "all but the last". The bug
# shows in 3 of 648 cases, none on a finished history: checking those alone would miss it.

# %%
arguments = dict(cases)
failing = [arguments[d.case] for d in broken.differences]
fewer = sum(1 for messages, keep_recent, _, _ in failing if len(collect_tool_results(messages)) < keep_recent)
finished = [d for d in broken.differences if d.case.startswith("12-file history,")]
print(f"{fewer} of the {len(failing)} failing cases have fewer results than keep_recent; "
      f"{len(finished)} are on the finished 12-file history")

# %% jupyter={"source_hidden": true}
assert (fewer, len(failing), len(finished)) == (3, 3, 0)

# %% [markdown]
# From here on everything runs yours, wrapped by `micro_layer` for the loop.

# %%
yours = micro_layer(my_micro_compact)
demo = copy.deepcopy(history)
report = yours(demo, 3, frozenset(), 100)
print(f"{len(report.cleared)} cleared, {dict(Counter(c.tool_name for c in report.cleared))}; the first: "
      f"history[{report.cleared[0].message_index}], {report.cleared[0].chars_before:,} characters -> "
      f"{report.cleared[0].new_content!r}; str(history) is {report.repr_chars_saved:,} characters shorter")

# %% jupyter={"source_hidden": true}
assert len(report.cleared) == 10 and report.cleared[0].message_index == 2
assert report.cleared[0].new_content == "[Previous: used list_files]"
assert report.repr_chars_saved == len(str(history)) - len(str(demo)) == 70_146
assert demo == harness_after  # yours leaves the history the strip above showed

# %% [markdown]
# ## How much it saves
#
# The s06 lesson says 28,000 tokens before, 6,000 after (78%), preserving `read_file` as its agent does
# [1]. Both cannot hold: every big result here *is* a `read_file`.

# %%
SEED_BEFORE, SEED_AFTER = 28_000, 6_000
seed_saved = 100 * (1 - SEED_AFTER / SEED_BEFORE)
print(f"the s06 lesson: {SEED_BEFORE:,} -> {SEED_AFTER:,} tokens, {seed_saved:.1f}% saved (it says 78%)")

measured, before = {}, estimate_tokens(history)
for label, preserve in [("read_file preserved", frozenset({"read_file"})), ("nothing preserved", frozenset())]:
    after = copy.deepcopy(history)
    report = yours(after, 3, preserve, 100)
    measured[label] = (after, report)
    print(f"{label}: {before:,} -> {estimate_tokens(after):,} tokens by len//4, "
          f"{100 * (1 - estimate_tokens(after) / before):.1f}% saved ({100 * (1 - count_tokens(after) / count_tokens(history)):.1f}%"
          f" by cl100k), {len(report.cleared)} results cleared ({dict(Counter(c.tool_name for c in report.cleared))})")

# %% jupyter={"source_hidden": true}
assert int(seed_saved) == 78 and SEED_BEFORE - 12 * 2_000 == 4_000 and SEED_AFTER == 3 * 2_000
(preserved, preserved_report), (cleared_history, cleared_report) = measured.values()
assert (estimate_tokens(preserved), len(preserved_report.cleared)) == (24_800, 1)
assert round(100 * (1 - estimate_tokens(preserved) / before), 1) == 0.3
assert (estimate_tokens(cleared_history), len(cleared_report.cleared)) == (7_342, 10)
assert round(100 * (1 - estimate_tokens(cleared_history) / before), 1) == 70.5
assert (count_tokens(cleared_history), round(100 * (1 - count_tokens(cleared_history) / count_tokens(history)), 1)) == \
    (6_759, 72.4)

# %% [markdown]
# Preserving `read_file` saves 0.3%; preserving nothing saves 70.5%, by the `len//4` estimate.

# %%
print("\n".join(outline(cleared_history)[1:3]))
print("...")
print("\n".join(outline(cleared_history)[-6:]))

# %% [markdown]
# Why not 78%? The lesson rounds each file to 2,000 tokens; here files are smaller, and the `tool_use`
# blocks stay:

# %%
file_tokens = result_tokens(history)[1:]
kept = [label for label, t in zip(result_labels(cleared_history), result_tokens(cleared_history)) if t > 100]
kept_tokens = sum(t for t in result_tokens(cleared_history) if t > 100)
print(f"a file is {sum(file_tokens) / len(file_tokens):,.0f} tokens on average ({min(file_tokens):,} to {max(file_tokens):,})")
print(f"kept in full: {kept}, {kept_tokens:,} tokens")
print(f"everything else after micro: {estimate_tokens(cleared_history) - kept_tokens:,} tokens")

# %% jupyter={"source_hidden": true}
assert round(sum(file_tokens) / len(file_tokens)) == 1_904
assert kept == ["s10_team_protocols.py", "s11_autonomous_agents.py", "s12_worktree_isolation.py"]
assert kept_tokens == 5_683 and estimate_tokens(cleared_history) - kept_tokens == 1_659
assert sum(1 for m in cleared_history if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use") == 13

# %% [markdown]
# **Holds for:** *this design* (the settings: keep three, preserve nothing); *this fake* (the size of
# each file).
#
# ## In the loop: twelve results in one message
#
# In the loop micro-compaction runs before *every* call [1]. `measure_micro` runs the task so, with yours:

# %%
baseline = [t.input_tokens for t in plain.trace]
lab_preserved = measure_micro(history, 3, frozenset({"read_file"}), WORK / "lab", clear=my_micro_compact)
lab_cleared = measure_micro(history, 3, frozenset(), WORK / "lab", clear=my_micro_compact)
for label, lab in [("read_file preserved", lab_preserved), ("nothing preserved", lab_cleared)]:
    print(f"{label}: {lab.model_calls} calls, {lab.re_reads} re-reads, peak context {max(lab.context):,}, "
          f"billed {sum(lab.context):,} input tokens")
print(f"no micro_compact: {len(baseline)} calls, peak context {max(baseline):,}, billed {sum(baseline):,}")
display(micro_figure(lab_cleared, baseline))

# %% jupyter={"source_hidden": true}
assert (len(baseline), max(baseline), sum(baseline)) == (3, 24_485, 25_775)
assert (lab_preserved.model_calls, lab_preserved.re_reads, sum(lab_preserved.context)) == (3, 0, 25_694)
assert (lab_cleared.model_calls, lab_cleared.re_reads, sum(lab_cleared.context)) == (6, 18, 29_852)
assert round(100 * (29_852 / 25_775 - 1)) == 16
assert (lab_cleared.tokens_after, lab_cleared.cleared) == (estimate_tokens(cleared_history), 10)  # your function, both halves
assert Counter(c.tool_name for c in cleared_report.cleared)["read_file"] == 9

# %% [markdown]
# Preserving nothing makes the task dearer: 6 calls, not 3, and 16% more input billed.
#
# The cause is the count: keeping the newest 3 *results* clears 9 reads before the call that would first
# show them. The s06 agent counts so too [1]; its default of preserving `read_file` hides it.
#
# The model reads the nine again, then six, then three: 18 re-reads. At `keep_recent=0` it never sees
# a file, until `max_turns` stops it:

# %%
spiral = measure_micro(history, 0, frozenset(), WORK / "lab", clear=my_micro_compact)
print(f"keep_recent=0: {spiral.model_calls} calls, stopped by max_turns: {spiral.hit_max_turns}")

# %% jupyter={"source_hidden": true}
assert (spiral.model_calls, spiral.hit_max_turns) == (40, True)

# %% [markdown]
# **Holds for:** *any model* (an unread result, once cleared, is lost); *this fake* (reading again).
#
# ### The guard: never clear what the model has not read
#
# Here the harness departs from s06 [1]: its `micro_compact` never clears a result the model has not
# read yet.
#
# The unread results are those of the last message, after the model's last reply. Sparing them works
# whatever `keep_recent` says; counting whole turns would still fail at zero.

# %% tags=["stub"]
def micro_compact_seen_only(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """my_micro_compact, except that a tool_result in the last message of the history is never cleared;
    returns how many it cleared."""
    # Clear what my_micro_compact would, except the results of the last message.
    # Trap: spare them after choosing; sparing them before changes which results count as the newest.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: results = collect_tool_results(messages); choose from all of them; then keep only the chosen blocks
# that are not among the blocks whose message index is len(messages) - 1.

# %%
micro_compact_seen_only = check(micro_compact_seen_only)

# %%
guarded = {k: measure_micro(history, k, frozenset(), WORK / "guarded", clear=micro_compact_seen_only) for k in (0, 3)}
for k, lab in guarded.items():
    print(f"seen only, keep_recent={k}: {lab.model_calls} calls, {lab.re_reads} re-reads, "
          f"billed {sum(lab.context):,}, the finished history {lab.tokens_after:,} tokens")

# %% jupyter={"source_hidden": true}
assert [(lab.model_calls, lab.re_reads, lab.hit_max_turns) for lab in guarded.values()] == [(3, 0, False)] * 2
assert sum(guarded[3].context) == 25_694 and guarded[3].tokens_after == estimate_tokens(cleared_history)

# %% [markdown]
# With the guard the task takes three calls and no re-read, even at `keep_recent=0`. The twelve results
# reach the model once; later requests carry a history 70.5% smaller.

# %% [markdown]
# ## The cost, with prompt caching
#
# Prompt caching bills a request's start cheaply when an earlier call stored it; rewriting an old block
# breaks that stored prefix [4].
#
# As in chapter 01, the input has three parts [7]: uncached `input_tokens`, cache writes and cache
# reads. A write costs 1.25x the input price, a read 0.1x [8].
#
# Three calls cache nothing, so here the model makes one call a turn: 14 calls, at Claude Haiku 4.5's
# prices [6], replayed with chapter 09's automatic caching [7].

# %%
costs = {"no micro_compact": price_micro(WORK / "cost", SESSION_PRICES, None, one_call=True),
         "micro, nothing preserved": price_micro(WORK / "cost", SESSION_PRICES, my_micro_compact, one_call=True)}
INPUT_PARTS = ("uncached", "cache_write", "cache_read")
rows = {f"{label}, {mode}": report for label, (cached, uncached) in costs.items()
        for mode, report in (("no caching", uncached), ("caching", cached))}
Table(["12-file task, one call a turn", "uncached input", "cache writes", "cache reads", "output", "USD"],
      [[label, *(f"{int(r.total(part)):,}" for part in (*INPUT_PARTS, "output")), f"{r.dollars:.4f}"]
       for label, r in rows.items()])

# %% [markdown]
# Each row's input columns add up to what was sent, and price to its dollars.

# %% jupyter={"source_hidden": true}
(plain_cached, plain_uncached), (micro_cached, micro_uncached) = costs.values()
assert (len(plain_cached.calls), len(micro_cached.calls)) == (14, 14)
sent = {"no micro_compact": 166_848, "micro, nothing preserved": 78_087}
for label, r in rows.items():
    assert sum(r.total(part) for part in INPUT_PARTS) == r.total("input") == sent[label.rsplit(", ", 1)[0]]
    assert abs(r.dollars - price(*(int(r.total(p)) for p in (*INPUT_PARTS[::-1], "output")), SESSION_PRICES)) < 1e-12
for r in (plain_uncached, micro_uncached):
    assert r.total("cache_write") == r.total("cache_read") == 0
assert [int(plain_cached.total(p)) for p in INPUT_PARTS] == [4_040, 24_808, 138_000]
assert [int(micro_cached.total(p)) for p in INPUT_PARTS] == [4_040, 74_047, 0]
assert {int(r.total("output")) for r in rows.values()} == {787}
assert [round(r.dollars, 4) for r in rows.values()] == [0.1708, 0.0528, 0.0820, 0.1005]
assert round(100 * (1 - micro_uncached.dollars / plain_uncached.dollars)) == 52 and 78_087 < 166_848 / 2
assert 1.8 < micro_cached.dollars / plain_cached.dollars < 2
assert all(c.cache_write == c.input and c.cache_read == 0 for c in micro_cached.calls[3:])
assert all(c.uncached == c.input < SESSION_PRICES.min_cacheable for c in micro_cached.calls[:3])
assert (SESSION_PRICES.cache_write_factor, SESSION_PRICES.cache_read_factor) == (1.25, 0.1)  # [8]
assert DEFAULT_MODEL == "claude-haiku-4-5" and (SESSION_PRICES.input, SESSION_PRICES.output) == (1.0, 5.0)  # [6]
assert context_window(DEFAULT_MODEL) == 200_000

# %% [markdown]
# Without caching, micro-compaction cuts the bill by 52%, sending less than half the input. With caching
# it nearly doubles it, turning cheap reads into dear writes.
#
# Each call rewrites the result that just left the newest three, so from the fourth call on each writes
# its whole input; the first three are too short to cache.
#
# **Holds for:** *this design* (the cache model).
#
# ## Why the tool_use blocks stay
#
# **The API insists.** Every `tool_result` must answer a `tool_use` in the message before it [2], or the
# API returns a 400 [3]. The fake's words are the API's:

# %%
client = fake_client()
question = user("What is VERSION_TAG in agents/s01_agent_loop.py?")
without_uses = [{"role": "assistant",
                 "content": [b for b in m["content"] if b["type"] != "tool_use"] or [text("(call removed)")]}
                if m["role"] == "assistant" else m for m in cleared_history]
try:
    client.messages.create(model=DEFAULT_MODEL, max_tokens=1024, messages=without_uses + [question])
except anthropic.BadRequestError as error:
    rejected = error
print(rejected.status_code, rejected.body["error"]["message"])

# %% jupyter={"source_hidden": true}
assert rejected.status_code == 400
assert "Each `tool_result` block must have a corresponding `tool_use` block in the previous message" in \
    rejected.body["error"]["message"]

# %% [markdown]
# **The agent still knows what it did.** The `tool_use` says which file was read. Asked about one, the
# agent answers from the content, or reads the file again behind a placeholder.

# %%
replies = {}
for label, messages in [("content in view", history), ("content cleared", cleared_history)]:
    response = client.messages.create(model=DEFAULT_MODEL, max_tokens=1024, system=plain.system,
                                      tools=plain.toolbox.schemas, messages=messages + [question])
    reply = replies[label] = response.content[0]
    print(f"{label}:", reply.text if reply.type == "text" else f"tool_use {reply.name}({reply.input})")
print("the tool_use blocks still on record:", [b["input"]["path"] for m in cleared_history if m["role"] == "assistant"
                                              for b in m["content"] if b["type"] == "tool_use"][:3], "...")

# %% jupyter={"source_hidden": true}
assert replies["content in view"].type == "text" and '"v1-agent"' in replies["content in view"].text
assert replies["content cleared"].type == "tool_use" and replies["content cleared"].name == "read_file"
assert replies["content cleared"].input == {"path": "agents/s01_agent_loop.py"}

# %% [markdown]
# The API's `clear_tool_uses_20250919` does the same on the server [4], `exclude_tools` for
# `preserve_tools` [5]. Whether it spares unread results, its docs do not say; chapter 10 runs it.
#
# **Holds for:** *any model* (none answers from content it cannot see); *this fake* (it reads the file
# again).
#
# ## Your turn: the sliders
#
# Left: the finished history, compacted. Right: the task in the loop, at most 40 calls. Try: untick
# `read_file`; set `keep_recent` to 0; tick both. Then pass `clear=micro_compact_seen_only`.

# %% tags=["nbval-ignore-output"]
micro_sliders = panel(
    MicroKnobs(history, baseline, WORK / "slider", clear=my_micro_compact), draw_all=True,
    keep_recent=IntSlider(value=3, min=KEEP_RECENT_RANGE[0], max=KEEP_RECENT_RANGE[1]),
    preserve_read_file=Checkbox(value=True, description="preserve read_file"),
    preserve_list_files=Checkbox(value=False, description="preserve list_files"))

# %% jupyter={"source_hidden": true}
assert KEEP_RECENT_RANGE == (0, 13)  # 14 values of keep_recent
assert clear_tool_uses()["trigger"]["value"] == 100_000 and clear_tool_uses()["keep"]["value"] == 3  # [4]

# %% [markdown]
# ## Summary
#
# - Micro-compaction swaps old tool results for placeholders, in place; the `tool_use` blocks stay.
# - On the 12-file history it saves 70.5%, unless `read_file` is preserved.
# - Counting results, not turns, it can clear unread ones; sparing the last message prevents that.
# - It cuts the bill by 52% without caching, and nearly doubles it with caching.

# %% [markdown]
# ## Exercises
#
# ### 1. Where does the spiral start?
# For `keep_recent` 0, 1, 2 and the four toggle settings, which runs spiral with `s06_micro_compact`?
# Write a set of `(keep_recent, preserve_read_file, preserve_list_files)`.

# %% tags=["answer"]
spiral_settings = None  # e.g. {(0, False, False), ...}

# %%
if answer("spiral_settings", spiral_settings):
    print(f"each of these {len(spiral_settings)} settings runs into max_turns: try one on the slider")

# %% [markdown]
# ### 2. Placeholders that say where to look
# Write `micro_compact_with_paths`, whose placeholder names the path too:
# `[Previous: used read_file on agents/s01_agent_loop.py]`. What do the longer placeholders cost?

# %% tags=["stub"]
def micro_compact_with_paths(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """my_micro_compact, but a cleared result's placeholder is "[Previous: used NAME on PATH]" when its
    tool_use has a "path" input, else "[Previous: used NAME]"; returns how many it cleared."""
    # Choose as my_micro_compact does; only the placeholder changes.
    # Trap: a result whose tool_use is gone has a name ("unknown") but no input to read a path from.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: map each tool_use id to its whole block; choose with names taken from that map; for each chosen
# block, path = uses.get(block["tool_use_id"], {}).get("input", {}).get("path").

# %%
micro_compact_with_paths = check(micro_compact_with_paths)

# %%
with_paths = measure_micro(history, 3, frozenset(), WORK / "exercise", clear=micro_compact_with_paths)
display(micro_figure(with_paths, baseline))
print(f"with paths: the history is {with_paths.tokens_after:,} tokens instead of {lab_cleared.tokens_after:,}; "
      f"the loop billed {sum(with_paths.context):,} input tokens instead of {sum(lab_cleared.context):,}")

# %% [markdown]
# ### 3. The `[:-0]` trap
# With the reference's slice `results[:-keep_recent]` in step 3, for which `keep_recent` (0 to 13) would
# the finished history differ from `s06_micro_compact`'s, nothing preserved? Write the set.

# %% tags=["answer"]
differs_at = None  # a set of keep_recent values

# %%
if answer("differs_at", differs_at):
    print("results kept by [:-k] and by [:13 - k]:",
          {k: (len(results[:-k]), len(results[: len(results) - k])) for k in sorted(differs_at)})

# %% [markdown]
# ## Recap
#
# Answer each, then check `RECAP` in `harness/labs/solutions/ch02.py`.
#
# 1. Why does step 1 record the block index too?
# 2. Why does the reference's map find no names after a JSON round trip, and what does that cost?
# 3. Why must the `tool_use` blocks stay?
# 4. After `replace_in_place`, what does anything else holding the history see, and why?
# 5. Why can keeping the newest 3 results clear one never seen, and what prevents it?

# %% [markdown]
# ## Sources
#
# 1. shareAI-lab/learn-claude-code, "agents/s06_context_compact.py" at 7864a30 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (the name map, keep, preserve, slice, loop order; the lesson saves the transcript before compacting, the agent compacts first)
# 2. Anthropic, "Handle tool calls" — https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls (results answer tool uses by id)
# 3. anthropics/claude-code, issue #13460 — https://github.com/anthropics/claude-code/issues/13460 (the 400 text)
# 4. Anthropic, "Context editing" — https://platform.claude.com/docs/en/build-with-claude/context-editing (`clear_tool_uses_20250919`, defaults; clearing invalidates the cache)
# 5. anthropic Python SDK 2.14.0, "types/beta/beta_clear_tool_uses_20250919_edit_param.py" — https://pypi.org/project/anthropic/2.14.0/ (`exclude_tools`, read in the installed package)
# 6. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (legacy; USD 1 in, USD 5 out per million tokens)
# 7. Anthropic, "Prompt caching" — https://platform.claude.com/docs/en/build-with-claude/prompt-caching (automatic caching: one breakpoint, moved forward; in `usage`, the input is `input_tokens`, the uncached part, plus cache reads and cache writes)
# 8. Anthropic, "Pricing" — https://platform.claude.com/docs/en/about-claude/pricing (cache write 1.25x, read 0.1x the input price)
