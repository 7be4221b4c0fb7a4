# %% [markdown]
# # 02 · micro_compact: old tool results become one-line placeholders
#
# Before every model call, micro-compaction turns each tool result but the newest few into a placeholder
# such as `[Previous: used bash]`. No summary, no model call: bookkeeping. You write it in four steps,
# check it, and then every figure runs *your* function. Labels: *any model*
# (another model seeing this context would do the same), *this fake* (how our fake decides), *this
# design* (a choice of this harness or of the s06 agent it follows [1]).
#
# ## Setup
#
# We run the 12-file task of the s06 lesson (a lesson on the s06 agent [1]: read and summarise every .py
# file under agents/) once, every layer off, and keep its history. Every experiment works on copies of it.

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
                     text, tool_result, tool_use, user, validate_messages)
from harness.api_context import clear_tool_uses
from harness.fake import fake_client
from harness.labs.cost import SESSION_PRICES
from harness.labs.micro_lab import (KEEP_RECENT_RANGE, MicroKnobs, measure_micro, micro_figure, micro_layer,
                                    outline, price_micro, result_chars, result_labels, result_tokens)
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.labs.tables import Table
from harness.labs.yours import compare, random_histories

WORK = own_scratch("02_micro_compact")
plain = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), WORK / "plain")
history = plain.messages
print(f"{len(history)} messages, {len(result_chars(history))} tool results, "
      f"{estimate_tokens(history):,} tokens by the s06 estimate (len(str(messages)) // 4), "
      f"{count_tokens(history):,} by cl100k")

# %%
assert len(history) == 6 and len(result_chars(history)) == 13
file_chars = result_chars(history)[1:]
assert round(sum(file_chars) / len(file_chars), -2) == 7_600
assert estimate_tokens(history) == 24_879 and count_tokens(history) == 24_452
validate_messages(history[:-1] + [user("next request")])  # a valid history the API would accept

# %% [markdown]
# One line per content block: the task, one `list_files`, then twelve `read_file` calls **in one turn**,
# answered by one user message of twelve results of about 7,600 characters each. *This fake* makes
# independent calls together, as current models do by default, then notes every file in its answer.

# %%
print("\n".join(outline(history)[:7]))
print("...")
print("\n".join(outline(history)[-5:]))

# %% [markdown]
# ## Step 1: collect the tool_result positions, at block level
#
# A tool result sits in a *user* message whose content is a list of blocks. Two tools asked for in one
# turn are answered in one message, so we record the message index **and** the block index.
#
# **Write it.** Each step is a stub: fill it in, run it, run the check after it. The check says *not
# written yet*, where yours differs and what kind of mistake that is, or that it passes. Until then the
# chapter runs the reference (in `harness/labs/solutions/ch02.py`). Stuck? Expand the hidden hint cell.

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

# %%
two_at_once = [
    user("Compare a.py and b.py."),
    assistant([tool_use("t1", "read_file", {"path": "a.py"}), tool_use("t2", "read_file", {"path": "b.py"})]),
    user([tool_result("t1", "print('a')"), tool_result("t2", "print('b')")]),
]
print("two results in one message:", [(i, j) for i, j, _ in collect_tool_results(two_at_once)])
results = collect_tool_results(history)
print("the 12-file history:", [(i, j) for i, j, _ in results])

# %%
assert [(i, j) for i, j, _ in collect_tool_results(two_at_once)] == [(2, 0), (2, 1)]
assert [(i, j) for i, j, _ in results] == [(2, 0)] + [(4, j) for j in range(12)]

# %% [markdown]
# ## Step 2: map tool_use ids to tool names
#
# A `tool_result` carries only a `tool_use_id`; the name is in the `tool_use` block before it. We need
# it to skip preserved tools and to write the placeholder, so we build `{tool_use_id: name}` once.

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

# %%
from harness import tool_names_by_id  # the harness's own step 2, from here on
assert Counter(names.values()) == {"read_file": 12, "list_files": 1}
assert names == tool_names_by_id(history)

# %% [markdown]
# ### The reference agent's map, and a JSON round trip
#
# The s06 agent [1] keeps `response.content` as SDK objects, not dicts, and its map asks
# `hasattr(block, "type")`. We feed that map the history as SDK objects and as the dicts any JSON round
# trip gives back (a saved transcript, a resumed session).

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
print("our map, after JSON:       ", len(tool_name_map(round_trip)), "names")

# %%
assert len(reference_style_name_map(sdk_history)) == 13
assert reference_style_name_map(round_trip) == {}
assert tool_name_map(round_trip) == names

# %% [markdown]
# After JSON every result is looked up as `"unknown"`, not in `PRESERVE_RESULT_TOOLS = {"read_file"}`:
# the reference clears the files it meant to keep (*this design*: its lookup). Our map reads dicts.
#
# ## Step 3: choose what to clear
#
# Four rules, in the reference's order: all but the newest `keep_recent`; only string content (an image
# list stays); only content longer than `min_chars`; never a tool in `preserve_tools`.
#
# Two slicing traps. The reference's `[:-KEEP_RECENT]` is `[:-0]` at 0, the empty list: nothing is
# cleared. Counting from the front, `[:len(results) - keep_recent]`, goes negative while there are fewer
# results than `keep_recent`, and Python counts from the back again. Clamp at zero. (The reference
# returns early in that case [1].)

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

# %%
print("[:-0] keeps", len(results[:-0]), "of", len(results), "results")
print("with 2 results and keep_recent=3, [:2 - 3] still selects", len(results[:2][: 2 - 3]), "of them")
for label, preserve, name_map in [("read_file preserved", {"read_file"}, names),
                                  ("nothing preserved", set(), names),
                                  ("read_file preserved, reference map after JSON", {"read_file"},
                                   reference_style_name_map(round_trip))]:
    chosen = choose_to_clear(results, name_map, 3, preserve)
    print(f"{label}: clear {len(chosen)}: {dict(Counter(name for _, name in chosen))}")

# %%
assert results[:-0] == [] and len(results[:2][: 2 - 3]) == 1
assert choose_to_clear(results[:2], names, 3, set()) == []
assert [n for _, n in choose_to_clear(results, names, 3, {"read_file"})] == ["list_files"]
assert len(choose_to_clear(results, names, 3, set())) == 10
assert [n for _, n in choose_to_clear(results, reference_style_name_map(round_trip), 3, {"read_file"})] == ["unknown"] * 10

# %% [markdown]
# ## Step 4: replace in place
#
# The chosen blocks are the very dicts of the history, so assigning to `block["content"]` changes the
# history, with no copy (*this design*). Anything else holding it, a transcript writer say, now sees
# placeholders. The s06 lesson says the transcript is saved first; the s06 agent calls `micro_compact`
# first [1]. Chapter 03 runs into that.

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

# %%
mine = copy.deepcopy(history)
held_elsewhere = mine[4]["content"][0]  # say, a transcript writer kept a reference to this block
cleared = my_micro_compact(mine, keep_recent=3, preserve_tools=frozenset())
print(cleared, "results cleared; the block held elsewhere now reads:", held_elsewhere["content"])
print("the original history (we compacted a deep copy) still has",
      f"{len(history[4]['content'][0]['content']):,} characters there")

# %%
assert cleared == 10 and held_elsewhere is mine[4]["content"][0]
assert held_elsewhere == {"type": "tool_result", "tool_use_id": history[3]["content"][1]["id"],
                          "content": "[Previous: used read_file]"}
assert len(history[4]["content"][0]["content"]) == 7_537

# %% [markdown]
# ## Check yours against the harness's s06 count
#
# `s06_micro_compact` is the harness's port of the s06 layer: it counts results as yours does.
# `compare` runs yours and it on copies of the same arguments and reports each failing
# case's *first* difference. Cases: `two_at_once`, the 12-file history cut after 1 and 13 results and whole, each
# `keep_recent` from 0 to 13, four preserve sets, two `min_chars`; and 200 random histories.
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

# %%
assert agreement.ok, "see the report above: the first difference of each failing case"
assert [len(collect_tool_results(h)) for h in HISTORIES.values()] == [2, 1, 13, 13]
assert agreement.cases == len(cases) == 4 * 14 * len(PRESERVE_SETS) * 2 + 200 == 648

# %% [markdown]
# ### What a failing check looks like
#
# Step 3's second trap, on purpose. The report names the case, the place, and what this version left.

# %%
def unclamped_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
    """my_micro_compact with step 3's slice not clamped at zero."""
    results = collect_tool_results(messages)
    older = results[: len(results) - keep_recent]  # negative when keep_recent > len(results)
    return replace_in_place(choose_to_clear(older, tool_name_map(messages), 0, preserve_tools, min_chars))


broken = compare("micro_compact", unclamped_micro_compact, harness_count, cases, what_it_did, label="after")
print(broken)

# %%
first = broken.differences[0]
assert not broken.ok and len(broken.differences) == 3
assert first.case == "two_at_once, keep_recent=3, preserve=[], min_chars=0"
assert first.where == "after.history[2].content[0].content"
assert first.expected == "print('a')" and first.got == "[Previous: used read_file]"
assert str(broken).startswith("micro_compact: yours differs from the harness's in 3 of 648 cases\n"
                              "  two_at_once, keep_recent=3, preserve=[], min_chars=0: "
                              "at after.history[2].content[0].content: expected \"print('a')\"")

# %% [markdown]
# Two results, `keep_recent=3`: both should stay, but `2 - 3 = -1` means "all but the last", so the
# first read became a placeholder before the model saw it. It fails 3 of 648 cases, all with fewer
# results than `keep_recent`, none on the 12-file history: a check on finished histories would miss it.

# %%
arguments = dict(cases)
failing = [arguments[d.case] for d in broken.differences]
fewer = sum(1 for messages, keep_recent, _, _ in failing if len(collect_tool_results(messages)) < keep_recent)
finished = [d for d in broken.differences if d.case.startswith("12-file history,")]
print(f"{fewer} of the {len(failing)} failing cases have fewer results than keep_recent; "
      f"{len(finished)} are on the finished 12-file history")

# %%
assert (fewer, len(failing), len(finished)) == (3, 3, 0)

# %% [markdown]
# ## Your function, as the harness's micro layer
#
# From here on everything runs `my_micro_compact`. The loop wants a `MicroReport` (what was cleared,
# from which tool); yours returns a count. `micro_layer` runs yours and reports what actually changed.

# %%
yours = micro_layer(my_micro_compact)
demo = copy.deepcopy(history)
report = yours(demo, 3, frozenset(), 100)
print(f"{len(report.cleared)} cleared, {dict(Counter(c.tool_name for c in report.cleared))}; the first: "
      f"history[{report.cleared[0].message_index}], {report.cleared[0].chars_before:,} characters -> "
      f"{report.cleared[0].new_content!r}; str(history) is {report.repr_chars_saved:,} characters shorter")

# %%
assert len(report.cleared) == 10 and report.cleared[0].message_index == 2
assert report.cleared[0].new_content == "[Previous: used list_files]"
assert report.repr_chars_saved == len(str(history)) - len(str(demo)) == 70_146

# %% [markdown]
# ## The 12-file trace, before and after
#
# The s06 lesson's example (chapter 00: no public copy) says **28,000** tokens before and **6,000**
# after, **−78%**, and preserves `read_file` as the s06 agent does [1]. Both cannot hold: every big
# result here *is* a `read_file`.

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

# %%
assert int(seed_saved) == 78 and SEED_BEFORE - 12 * 2_000 == 4_000 and SEED_AFTER == 3 * 2_000
(preserved, preserved_report), (cleared_history, cleared_report) = measured.values()
assert (estimate_tokens(preserved), len(preserved_report.cleared)) == (24_800, 1)
assert round(100 * (1 - estimate_tokens(preserved) / before), 1) == 0.3
assert (estimate_tokens(cleared_history), len(cleared_report.cleared)) == (7_342, 10)
assert round(100 * (1 - estimate_tokens(cleared_history) / before), 1) == 70.5
assert (count_tokens(cleared_history), round(100 * (1 - count_tokens(cleared_history) / count_tokens(history)), 1)) == \
    (6_759, 72.4)

# %% [markdown]
# With `read_file` preserved only the listing goes: **0.3%** saved (*this design*: the reference's
# preserve set). With it compacted the history shrinks by **70.5%** by the `len//4` estimate, 72.4% by
# cl100k: *this design*'s settings (keep 3, nothing preserved) on *this fake*'s history.

# %%
print("\n".join(outline(cleared_history)[1:3]))
print("...")
print("\n".join(outline(cleared_history)[-6:]))

# %% [markdown]
# Why not 78%? The lesson's figures are round (twelve files of 2,000 plus 4,000; three files after). A
# file is smaller here, and "after" also keeps the request, the 13 `tool_use` blocks, notes and answer.

# %%
file_tokens = result_tokens(history)[1:]
kept = [label for label, t in zip(result_labels(cleared_history), result_tokens(cleared_history)) if t > 100]
kept_tokens = sum(t for t in result_tokens(cleared_history) if t > 100)
print(f"a file is {sum(file_tokens) / len(file_tokens):,.0f} tokens on average ({min(file_tokens):,} to {max(file_tokens):,})")
print(f"kept in full: {kept}, {kept_tokens:,} tokens")
print(f"everything else after micro: {estimate_tokens(cleared_history) - kept_tokens:,} tokens")

# %%
assert round(sum(file_tokens) / len(file_tokens)) == 1_904
assert kept == ["s10_team_protocols.py", "s11_autonomous_agents.py", "s12_worktree_isolation.py"]
assert kept_tokens == 5_683 and estimate_tokens(cleared_history) - kept_tokens == 1_659
assert sum(1 for m in cleared_history if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use") == 13

# %% [markdown]
# The reference's lookup after JSON gets that saving without asking for it (its step 2, your others):

# %%
reference_run = json.loads(json.dumps(history))
chosen = choose_to_clear(collect_tool_results(reference_run), reference_style_name_map(reference_run), 3, {"read_file"})
replace_in_place(chosen)
ref_saved = 100 * (1 - estimate_tokens(reference_run) / estimate_tokens(history))
print(f"reference lookup after JSON: {estimate_tokens(reference_run):,} tokens, {ref_saved:.1f}% saved;",
      "placeholder:", reference_run[4]["content"][0]["content"])

# %%
assert reference_run[4]["content"][0]["content"] == "[Previous: used unknown]"
assert estimate_tokens(reference_run) == 7_337 and round(ref_saved, 1) == 70.5

# %% [markdown]
# ## In the loop: twelve results in one message
#
# In the loop micro-compaction runs before *every* call, as in the s06 agent [1]. `measure_micro` runs
# the task with your function as the layer.

# %%
baseline = [t.input_tokens for t in plain.trace]
lab_preserved = measure_micro(history, 3, frozenset({"read_file"}), WORK / "lab", clear=my_micro_compact)
lab_cleared = measure_micro(history, 3, frozenset(), WORK / "lab", clear=my_micro_compact)
for label, lab in [("read_file preserved", lab_preserved), ("nothing preserved", lab_cleared)]:
    print(f"{label}: {lab.model_calls} calls, {lab.re_reads} re-reads, peak context {max(lab.context):,}, "
          f"billed {sum(lab.context):,} input tokens")
print(f"no micro_compact: {len(baseline)} calls, peak context {max(baseline):,}, billed {sum(baseline):,}")
display(micro_figure(lab_cleared, baseline))

# %%
assert (len(baseline), max(baseline), sum(baseline)) == (3, 24_485, 25_775)
assert (lab_preserved.model_calls, lab_preserved.re_reads, sum(lab_preserved.context)) == (3, 0, 25_694)
assert (lab_cleared.model_calls, lab_cleared.re_reads, sum(lab_cleared.context)) == (6, 18, 29_852)
assert round(100 * (29_852 / 25_775 - 1)) == 16
assert (lab_cleared.tokens_after, lab_cleared.cleared) == (estimate_tokens(cleared_history), 10)  # your function, both halves

# %% [markdown]
# With nothing preserved the task takes 6 calls, not 3, and bills 16% more input than without micro.
# Keeping the newest 3 *results* cleared 9 of the twelve reads before the call that would first show
# them: the layer counts results, not turns (*this design*, as the s06 agent [1], whose default preserves
# `read_file`). No model can read a result cleared before it saw it (*any model*). *This fake* reads the
# nine again, then six, then three: 18 re-reads; another model might guess. At `keep_recent = 0`:

# %%
spiral = measure_micro(history, 0, frozenset(), WORK / "lab", clear=my_micro_compact)
print(f"keep_recent=0: {spiral.model_calls} calls, stopped by max_turns: {spiral.hit_max_turns}")

# %%
assert (spiral.model_calls, spiral.hit_max_turns) == (40, True)

# %% [markdown]
# ### Make it impossible: never clear what the model has not seen
#
# The results the model has not seen are exactly those of the last message, appended after its last
# reply. A layer that never clears those cannot hide an unread result, whatever `keep_recent` says
# (counting whole turns would still fail at 0).
#
# Here the harness departs from s06: `micro_compact` has this guard; `s06_micro_compact` does not.

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

# %%
assert [(lab.model_calls, lab.re_reads, lab.hit_max_turns) for lab in guarded.values()] == [(3, 0, False)] * 2
assert sum(guarded[3].context) == 25_694 and guarded[3].tokens_after == estimate_tokens(cleared_history)

# %% [markdown]
# Three calls, no re-read, at any `keep_recent`; the task bills what it did without micro, less the
# listing: twelve results must reach the model once, together (*any model*). The saving comes on the
# requests after, which carry a history 70.5% smaller. When results arrive together no `keep_recent` is
# safe, so the guard is on the message.
#
# ### The cost, with and without prompt caching
#
# A rewrite of an old block invalidates the cached prefix after it [4]. That shows over many calls; three
# cache nothing, so here we ask for one call per turn (`disable_parallel_tool_use`): *this fake* then
# reads one file a call, 14 calls. Prices: chapter 09's cache model at Claude Haiku 4.5's, a legacy model
# we keep for its 200K window [6].

# %%
costs = {"no micro_compact": price_micro(WORK / "cost", SESSION_PRICES, None, one_call=True),
         "micro, nothing preserved": price_micro(WORK / "cost", SESSION_PRICES, my_micro_compact, one_call=True)}
Table(["12-file task, one call a turn", "input tokens", "read from cache", "USD without caching", "USD with caching"],
      [[label, f"{cached.total('input'):,}", f"{cached.total('cache_read'):,}", f"{uncached.dollars:.4f}",
        f"{cached.dollars:.4f}"] for label, (cached, uncached) in costs.items()])

# %%
(plain_cached, plain_uncached), (micro_cached, micro_uncached) = costs.values()
assert (len(plain_cached.calls), len(micro_cached.calls)) == (14, 14)
assert (plain_cached.total("input"), micro_cached.total("input")) == (166_848, 78_087)
assert (plain_cached.total("cache_read"), micro_cached.total("cache_read")) == (138_000, 0)
assert [round(r.dollars, 4) for r in (plain_uncached, plain_cached, micro_uncached, micro_cached)] == \
    [0.1708, 0.0528, 0.0820, 0.1005]
assert round(100 * (1 - micro_uncached.dollars / plain_uncached.dollars)) == 52
assert 1.8 < micro_cached.dollars / plain_cached.dollars < 2
assert all(c.cache_write == c.input for c in micro_cached.calls[3:])
assert all(c.uncached == c.input < SESSION_PRICES.min_cacheable for c in micro_cached.calls[:3])
assert SESSION_PRICES.cache_write_factor == 1.25 and context_window(DEFAULT_MODEL) == 200_000
assert (SESSION_PRICES.input, SESSION_PRICES.output) == (1.0, 5.0)  # Haiku 4.5, [6]

# %% [markdown]
# One call a turn, micro-compaction cuts the bill (input and output) by 52% without caching and nearly
# doubles it with caching: each call rewrites the result that just left the newest three, so from the
# fourth call on (the first three are too short to cache) each writes its whole input at 1.25x [8].
# The cache model is *this design* (chapter 09's replay of automatic caching [7]); the dollars are this
# session's.
#
# ## Why the tool_use blocks stay
#
# **The API insists.** Every `tool_result` must answer, by its id, a `tool_use` in the message just
# before it [2], or the API returns a 400 [3]. The fake applies the same rule in the same words:

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

# %%
assert rejected.status_code == 400
assert "Each `tool_result` block must have a corresponding `tool_use` block in the previous message" in \
    rejected.body["error"]["message"]

# %% [markdown]
# **The agent still knows what it did.** The placeholder says a `read_file` happened; the `tool_use`
# says which file. Ask about it: with the content in view the agent answers, with the placeholder *this
# fake* reads the file again. No model can answer from content it cannot see (*any model*).

# %%
replies = {}
for label, messages in [("content in view", history), ("content cleared", cleared_history)]:
    response = client.messages.create(model=DEFAULT_MODEL, max_tokens=1024, system=plain.system,
                                      tools=plain.toolbox.schemas, messages=messages + [question])
    reply = replies[label] = response.content[0]
    print(f"{label}:", reply.text if reply.type == "text" else f"tool_use {reply.name}({reply.input})")
print("the tool_use blocks still on record:", [b["input"]["path"] for m in cleared_history if m["role"] == "assistant"
                                              for b in m["content"] if b["type"] == "tool_use"][:3], "...")

# %%
assert replies["content in view"].type == "text" and '"v1-agent"' in replies["content in view"].text
assert replies["content cleared"].type == "tool_use" and replies["content cleared"].name == "read_file"
assert replies["content cleared"].input == {"path": "agents/s01_agent_loop.py"}

# %% [markdown]
# The API's `clear_tool_uses_20250919` context edit does the same server-side: the oldest results become
# placeholder text, the tool calls stay unless `clear_tool_inputs` is set, and by default it triggers at
# 100,000 input tokens and keeps 3 tool uses [4]. `exclude_tools` plays `preserve_tools` [5]. Whether it
# spares unread results, the docs do not say. Chapter 10 runs it.
#
# ## Your turn: the sliders
#
# Left: a copy of the finished history, compacted. Right: the task run in the loop (at most 40 calls).
# Both run your `my_micro_compact`; all 14 × 4 settings are drawn first. Try: untick `read_file`; set
# `keep_recent` to 0; tick both. Then pass `clear=micro_compact_seen_only`.

# %% tags=["nbval-ignore-output"]
micro_sliders = panel(
    MicroKnobs(history, baseline, WORK / "slider", clear=my_micro_compact), draw_all=True,
    keep_recent=IntSlider(value=3, min=KEEP_RECENT_RANGE[0], max=KEEP_RECENT_RANGE[1]),
    preserve_read_file=Checkbox(value=True, description="preserve read_file"),
    preserve_list_files=Checkbox(value=False, description="preserve list_files"))

# %%
assert KEEP_RECENT_RANGE == (0, 13)  # 14 values of keep_recent
assert clear_tool_uses()["trigger"]["value"] == 100_000 and clear_tool_uses()["keep"]["value"] == 3  # [4]

# %% [markdown]
# ## Summary
#
# - Four steps: collect results by block, map ids to names (from dicts), choose, replace in place.
# - Clearing `read_file` shrinks the history by 70.5% (*this design*'s settings on *this fake*'s history,
#   by the `len//4` estimate); one call a turn, the bill drops 52% without caching and nearly doubles with it.
# - Twelve results in one message: keeping the newest 3 *results* clears 9 no model has read. Never clearing
#   the last message's results makes that, and `keep_recent = 0`'s spiral, impossible.
#
# Next, chapter 03: when placeholders are not enough, summarise the whole history.

# %% [markdown]
# ## Exercises
#
# ### 1. Where does the spiral start?
# For `keep_recent` in 0, 1, 2 and the four toggle settings, which end in a death spiral with
# `s06_micro_compact`? Write a set of `(keep_recent, preserve_read_file, preserve_list_files)`.
# *Hint:* which results must the agent see at least once?

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
# With the reference's `older = results[:-keep_recent]` in step 3, for which `keep_recent` (0 to 13)
# would the finished history, nothing preserved, differ from `s06_micro_compact`'s? Write the set.

# %% tags=["answer"]
differs_at = None  # a set of keep_recent values

# %%
if answer("differs_at", differs_at):
    print("results kept by [:-k] and by [:13 - k]:",
          {k: (len(results[:-k]), len(results[: len(results) - k])) for k in sorted(differs_at)})

# %% [markdown]
# ## Recap
#
# Answer each before you look (the answers are `RECAP` in `harness/labs/solutions/ch02.py`).
#
# 1. Why does step 1 record the block index as well as the message index?
# 2. Why does the reference's name map find no names after a JSON round trip, and what does that cost?
# 3. Why must the `tool_use` blocks stay when their results are cleared?
# 4. After `replace_in_place`, what does anything else holding the history see, and why?
# 5. Why can keeping the newest 3 results clear one the model never saw, and what rules that out?

# %% [markdown]
# ## Sources
#
# 1. shareAI-lab/learn-claude-code, "agents/s06_context_compact.py" at 7864a30 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (the name map, keep, preserve, slice, loop order)
# 2. Anthropic, "Handle tool calls" — https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls (results answer tool uses by id)
# 3. anthropics/claude-code, issue #13460 — https://github.com/anthropics/claude-code/issues/13460 (the 400 text)
# 4. Anthropic, "Context editing" — https://platform.claude.com/docs/en/build-with-claude/context-editing (`clear_tool_uses_20250919`, defaults; clearing invalidates the cache)
# 5. anthropic Python SDK 2.14.0, "types/beta/beta_clear_tool_uses_20250919_edit_param.py" — https://pypi.org/project/anthropic/2.14.0/ (`exclude_tools`, read in the installed package)
# 6. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (legacy; USD 1 in, USD 5 out per million tokens)
# 7. Anthropic, "Prompt caching" — https://platform.claude.com/docs/en/build-with-claude/prompt-caching (automatic caching: one breakpoint, moved forward)
# 8. Anthropic, "Pricing" — https://platform.claude.com/docs/en/about-claude/pricing (cache write 1.25x, read 0.1x the input price)
