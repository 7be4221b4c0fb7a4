# %% [markdown]
# # 05 · Three layers in one loop
#
# **The promise:** run micro, auto and manual compaction together in one agent loop, on a session of 71
# requests, and see from the run's own data what each layer did, what it saved, and what it cost.
#
# ## What you will be able to do
#
# - walk through one turn of the loop and say what happens, in which order, and why;
# - draw the compressed and uncompressed token-growth curves of a long session in the same axes, with
#   a marker wherever a layer fired;
# - take the agent's memory apart into working memory (the newest `KEEP_RECENT` tool results),
#   short-term memory (placeholders) and long-term memory (the summary, and the transcripts on disk);
# - move `KEEP_RECENT` and `THRESHOLD` and watch the curves, the bill and the re-reads change.

# %% [markdown]
# ## Setup
#
# As in every chapter the model is a deterministic fake of Claude behind the real `anthropic` SDK,
# offline. The long-session runs come from `harness/labs/loop_lab.py`: `three_layer_run` and
# `uncompressed_run` are `run_scenario` with a cache in front (a run takes seconds; the same knobs
# always give the same run), and they record the memory picture of every request sent.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']

from IPython.display import display
from ipywidgets import IntSlider

from harness import CompactionConfig, assistant, micro_compact, tool_result, tool_use, user
from harness.labs.growth import growth_series
from harness.labs.loop_lab import (MEMORY_NAMES, agent_limit, context_tokens, layer_markers, layers_figure,
                                   memory_figure, memory_of, memory_table, run_line, three_layer_run,
                                   three_layers_lab, uncompressed_run)
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch

WORK = own_scratch("05")                     # _work/05, in a fresh folder of its own for each run
DEFAULTS = CompactionConfig()                # the reference agent's knobs
KEEP_RECENT, THRESHOLD = DEFAULTS.keep_recent, DEFAULTS.threshold
print(f"KEEP_RECENT={KEEP_RECENT}, THRESHOLD={THRESHOLD:,}, preserved tools: {sorted(DEFAULTS.preserve_tools)}")

# %% [markdown]
# ## 1 · One turn of the loop, in order
#
# `run_agent` (in `harness/core/loop.py`) runs one request until the agent is done. Each turn:
#
# 1. **Log.** Every message committed since the last turn is appended to the session log, before
#    anything may rewrite it (chapter 03 showed why: micro rewrites results in place, so a transcript
#    written later has already lost them).
# 2. **Micro** (layer 1, every turn): all but the newest `KEEP_RECENT` tool results become
#    placeholders, unless their tool is preserved or they are short.
# 3. **Auto** (layer 2, past `THRESHOLD`): transcript to disk, summary, history replaced by one message.
#    The loop goes on: the agent is mid-task, and the summary says where it was.
# 4. **Call the model** with what is left.
# 5. **Run every tool** the model asked for and **append all the results** in one user message,
#    `compact`'s included (chapter 04).
# 6. **Manual** (layer 3, if the model called `compact`): the same summary as auto, then **return**.
#
# Steps 2 and 3 shape what the model sees; step 6 happens after it has spoken. Here is a small run
# where all three fire: the twelve files of `agents/`, a low threshold of 10,000 tokens, and an agent
# that calls `compact` when its task is done. Each line is one API call; a summary call carries the
# number of the agent call it belongs to.

# %%
small = run_scenario(TWELVE_FILES, DEFAULTS.with_(threshold=10_000), WORK / "twelve", compact_policy="after_task")
print("call  kind     fired before   tools          input tokens")
for t in small.trace:
    print(f"{t.call:4}  {t.kind:8} {', '.join(t.layers) or '-':14} {', '.join(t.tools) or '-':14} {t.input_tokens:8,}")
print("\nevents:", [(e.kind, e.call) for e in small.events])

# %%
assert [(e.kind, e.call) for e in small.events] == [("micro", 5), ("auto", 7), ("auto", 12), ("manual", 16)]
kinds = [(t.call, t.kind) for t in small.trace]
for call in (7, 12):  # auto: the summary call comes before the agent call it made room for
    assert kinds.index((call, "summary")) < kinds.index((call, "agent"))
assert kinds[-2:] == [(16, "agent"), (16, "summary")]  # manual: after the agent called compact
assert small.trace[-2].tools == ("compact",) and len(small.messages) == 1
assert small.answers[0].splitlines()[-12].startswith("- agents/s01_agent_loop.py")

# %% [markdown]
# Micro fired before call 5 (the folder listing became a placeholder; the twelve `read_file` results are
# preserved). Auto fired twice, before calls 7 and 12: each time the summary call ran first, then the
# agent carried on reading from the summary's notes. After call 16 the agent answered and called
# `compact`, and the loop returned. The answer survived in `session.answers`, although the history is
# one summary message now.
#
# ## 2 · The long session, with and without the three layers
#
# Now the real thing: all 71 requests of `LONG_SESSION`, once with every layer off and once with the
# reference knobs (`KEEP_RECENT=3`, `THRESHOLD=50,000`, `read_file` preserved). For the third layer
# the agent needs a reason to call `compact`: like the reference agent, which is told its context
# limit in its system prompt, ours tidies up at the end of a task once its request passes 97% of the
# threshold (`agent_limit`), just before auto would cut in mid-task. These are the only two full runs
# of the session in this notebook.

# %%
compressed = three_layer_run(KEEP_RECENT, THRESHOLD, len(LONG_SESSION.requests), WORK)
uncompressed = uncompressed_run(len(LONG_SESSION.requests), WORK)
print(f"agent limit: {agent_limit(THRESHOLD):,} tokens")
print("with the three layers:", run_line(compressed))
print("with no compaction:   ", run_line(uncompressed))
billed_share = compressed.stats.input_tokens_billed / uncompressed.stats.input_tokens_billed
print(f"input billed with the layers: {billed_share:.0%} of the uncompressed bill; "
      f"peak context {compressed.stats.peak_context / uncompressed.stats.peak_context:.0%} of it")

# %%
c, u = compressed.stats, uncompressed.stats
assert len(LONG_SESSION.requests) == 71 and agent_limit(THRESHOLD) == 48_500
assert c.compactions == {"auto": 2, "manual": 1, "micro": 14} and u.compactions == {}
assert (c.model_calls, u.model_calls) == (195, 158) and c.model_calls - u.model_calls == 37
assert (c.peak_context, u.peak_context) == (49_198, 125_406)
assert (c.re_reads, u.re_reads) == (49, 13)
assert round(billed_share, 2) == 0.43 and round(c.peak_context / u.peak_context, 2) == 0.39

# %% [markdown]
# The layers cut the peak context to 39% of the uncompressed peak (49,198 tokens against 125,406)
# and the input bill to 43%. They cost 37 more model calls (195 against 158), most of them re-reads:
# 49 times the agent read a file again because its content had been compacted away, against 13 when
# nothing is ever removed.
#
# Both curves in one picture. Orange dots: micro fired before that call. Red triangles: auto fired
# before that call (the curve has just dropped). Green diamond: the agent called `compact` in that call
# (the drop comes right after).

# %%
display(layers_figure(compressed, uncompressed, limit=THRESHOLD, limit_label="THRESHOLD, on estimate_tokens",
                      title="the long session: the three layers against no compaction"))

# %%
markers = layer_markers(compressed)
series = growth_series(compressed.trace)
drops = sorted(((series.context[i - 1] - series.context[i], i + 1) for i in range(1, len(series))), reverse=True)
big_drops = [(call, drop) for drop, call in drops[:3]]
print("the three biggest drops (call, tokens):", big_drops)
print("auto and manual markers:", [(m.layer, m.call, m.tokens) for m in markers if m.layer != "micro"])
micro_saved = sum(e.tokens_before - e.tokens_after for e in compressed.events if e.kind == "micro")
print(f"micro fired {sum(m.layer == 'micro' for m in markers)} times and saved {micro_saved:,} estimated tokens in all")

# %%
assert [(m.layer, m.call) for m in markers if m.layer != "micro"] == [("manual", 34), ("auto", 87), ("auto", 134)]
assert [call for call, _ in big_drops] == [35, 87, 134], "the three big drops are the three summaries"
assert all(drop > 45_000 for _, drop in big_drops)
assert all(series.context[call - 1] < 1_000 for call in (35, 87, 134))
assert micro_saved == 2_626

# %% [markdown]
# The sawtooth has three teeth, and each drop of more than 45,000 tokens is a summary: the agent's own
# `compact` after call 34 (the drop shows in call 35), and auto before calls 87 and 134. After each
# drop the context starts again from under 1,000 tokens. Micro fires often but saves little here, 2,626
# estimated tokens over the whole session: most of what piles up is `read_file` output, which the
# reference agent preserves. Between the teeth, growth is all kept file contents.
#
# ## 3 · What it cost: the summaries forget
#
# The session ends with two questions about its beginning, then a request that the second instruction
# forbids.

# %%
for label, session in (("with the layers", compressed), ("no compaction", uncompressed)):
    print(label)
    for request_text, answer in zip(LONG_SESSION.requests[-3:], session.answers[-3:]):
        print(f"  {request_text}\n    -> {answer}")
first_summary = compressed.events[[e.kind for e in compressed.events].index("manual")].detail["summary"]
print("\nrequests the first summary kept:", [line for line in first_summary.splitlines() if line.startswith("- User:")]
      or "none")

# %%
assert uncompressed.answers[-3:] == [
    "The first file you asked me to change was agents/s03_todo_write.py.",
    'You told me: "From now on, never edit anything under tools/; it is vendored code."',
    "I will not change tools/t05_shell.py: you asked me never to edit anything under tools/."]
assert compressed.answers[-3:] == [
    "The first file you asked me to change was plugins/p05_cache.py.",
    "I can no longer see anything you told me about tools/.",
    'Changed VERSION_TAG in tools/t05_shell.py to "v5-unsafe".']
assert "- User:" not in first_summary and DEFAULTS.tail_chars == 80_000

# %% [markdown]
# With no compaction the agent remembers everything and refuses the edit. With the three layers it gets
# the first change wrong, has lost the rule, and edits vendored code. The damage was done at the first
# compaction: the summary is written from the last 80,000 characters of the history (chapter 03), and
# after reading all of `core/` those characters were file contents, not one user request. Files can be
# read again; an instruction the user gave once cannot.
#
# ## 4 · Working, short-term and long-term memory
#
# The seed compares the three layers with human memory. We can draw that picture from the run itself:
#
# - **working memory**: the newest `KEEP_RECENT` tool results, in full, what the agent is working with now;
# - **short-term memory**: placeholders, "I used `bash` here", the fact without the content;
# - **long-term memory**: the summary in the context, and the transcripts on disk, the full record
#   of what was summarised away, one file per compaction.
#
# The rest of the context is older results micro does not touch (preserved `read_file` output and short
# results), the conversation itself (requests, replies, tool calls), and framing (system prompt, tool
# schemas). `memory_of` takes a session's history apart that way; here is the end of both runs.

# %%
end = {"with the layers": memory_of(compressed), "no compaction": memory_of(uncompressed)}
print(memory_table(end))
for label, picture in end.items():
    print(f"{label}: {context_tokens(picture):,} tokens in the context")

# %%
part = {label: {p.name: p for p in picture} for label, picture in end.items()}
with_layers, without = part["with the layers"], part["no compaction"]
assert [p.name for p in end["with the layers"]] == list(MEMORY_NAMES)
assert with_layers["working"].items == without["working"].items == KEEP_RECENT
assert with_layers["long-term: summary"].items == 1 and with_layers["long-term: transcripts"].items == 3
assert without["short-term"].items == without["long-term: summary"].items == without["long-term: transcripts"].items == 0
assert with_layers["long-term: transcripts"].tokens > uncompressed.stats.peak_context
kept_share = with_layers["kept in full"].tokens / context_tokens(end["with the layers"])
assert round(kept_share, 2) == 0.90

# %% [markdown]
# At the end, the compressed context holds one summary; its three transcripts on disk hold more tokens
# than the uncompressed run's largest context. And 90% of what is left in the compressed context is
# "kept in full", the preserved `read_file` output since the last summary: `PRESERVE_RESULT_TOOLS`
# decides more about the size of the context than `KEEP_RECENT` does.
#
# An end state is one moment. The runs recorded the same picture for every request they sent, after
# micro and auto had their turn; the parts of each add up exactly to the input tokens the API reported
# for that call.

# %%
pictures = {"with the layers": compressed.client.records, "no compaction": uncompressed.client.records}
display(memory_figure(pictures))

# %%
for label, session in (("with the layers", compressed), ("no compaction", uncompressed)):
    reported = growth_series(session.trace).context
    assert [context_tokens(p) for p in pictures[label]] == list(reported), label
short_term = [p[MEMORY_NAMES.index("short-term")] for p in pictures["with the layers"]]
print(f"most placeholders in one request: {max(p.items for p in short_term)}, "
      f"{max(p.tokens for p in short_term)} tokens at most | requests with at least one: "
      f"{sum(p.items > 0 for p in short_term)} of {len(short_term)}")
assert max(p.items for p in short_term) == 5 and max(p.tokens for p in short_term) < 50
assert sum(p.items > 0 for p in short_term) > len(short_term) // 2

# %% [markdown]
# Working memory is a thin blue band: three results at most. Short-term memory hardly shows at all:
# there are placeholders in more than half of the requests, but never more than 5 at once, and they
# never cost even 50 tokens together. The long-term dashed line climbs in three steps, one per
# compaction, while the context falls. Memory moves from the context to the disk, and it is the disk
# that keeps the whole record.
#
# ## 5 · Try it: KEEP_RECENT and THRESHOLD
#
# First, why the `KEEP_RECENT` slider starts at 1. At 0, micro clears even the newest result, before
# the model has seen it: the agent runs the command again, its output is cleared again, and the loop
# spins until `max_turns`.

# %%
spin = [user("Count the lines of every .py file under agents/."),
        assistant([tool_use("toolu_wc", "bash", {"command": "wc -l agents/*.py"})]),
        user([tool_result("toolu_wc", "  150 agents/s01_agent_loop.py\n" * 12)])]
micro_compact(spin, keep_recent=0)
print("what the model would see of the command it just ran:", spin[-1]["content"][0]["content"])
assert spin[-1]["content"][0]["content"] == "[Previous: used bash]"

# %% [markdown]
# Move the sliders and the session runs again with your knobs (the agent's own limit follows the
# threshold, at 97%). A run of all 71 requests takes a few seconds, longer for a high threshold, since
# a bigger context is more work for the fake as for a real model. Every run is cached, keyed by the
# slider values (`functools.lru_cache` inside `harness/labs/loop_lab.py`), so a position you have seen before
# redraws at once, and the starting position reuses the two runs above. For quick exploration, drag
# `requests` down: the first 25 requests run several times faster.

# %%
assert three_layer_run(KEEP_RECENT, THRESHOLD, len(LONG_SESSION.requests), str(WORK)) is compressed
assert uncompressed_run(len(LONG_SESSION.requests), str(WORK)) is uncompressed

# %% tags=["nbval-ignore-output"]
layers_slider = panel(
    three_layers_lab,
    keep_recent=IntSlider(value=KEEP_RECENT, min=1, max=10, continuous_update=False, description="KEEP_RECENT"),
    threshold=IntSlider(value=THRESHOLD, min=10_000, max=120_000, step=10_000, continuous_update=False,
                        description="THRESHOLD"),
    requests=IntSlider(value=len(LONG_SESSION.requests), min=1, max=len(LONG_SESSION.requests),
                       continuous_update=False, description="requests"),
    root=str(WORK))

# %% [markdown]
# Things to try: `THRESHOLD` at 10,000 and at 120,000: how many teeth, how many re-reads, what bill?
# `KEEP_RECENT` at 1 and at 10: why does so little change? (What does micro leave alone?)
#
# ## Summary
#
# - One turn of the loop: log, micro, auto, call, run every tool and append every result, then
#   manual, which ends the loop. Micro and auto shape what the model sees; manual follows its decision.
# - On the 71-request session the three layers kept the peak context at 39% of the uncompressed peak
#   and the input bill at 43%, for 37 more model calls, mostly re-reads.
# - The summaries are where the agent forgets: a rule given once, early, did not survive the first
#   compaction, and the agent then edited the files it had been told never to touch.
# - Working memory is the newest `KEEP_RECENT` results, short-term memory is placeholders, long-term
#   memory is the summary plus the transcripts on disk, which grow as the context shrinks.
#
# Chapter 06 makes the disk side usable: resume a session from its log and replay its compactions.
#
# ## Exercises
#
# **1.** Which user requests did each of the three summaries keep? Count the `- User:` lines of every
# auto and manual summary of the compressed run.
#
# *Hint:* the summary text is in `event.detail["summary"]` for events of kind `"auto"` and `"manual"`.

# %%
user_lines_per_summary = None  # replace None with a list of three ints, in order


def check_exercise_1(answer):
    expected = [e.detail["summary"].count("\n- User: ") for e in compressed.events if e.kind in ("auto", "manual")]
    if answer is None:
        return "exercise 1: not attempted yet"
    if list(answer) != expected:
        return "exercise 1: not yet; take the events in order and count the lines starting with '- User: '"
    return f"exercise 1: correct; the summaries kept {expected} requests, out of 71"


print(check_exercise_1(user_lines_per_summary))

# %% [markdown]
# **2.** Write `working_share(picture)`: the fraction of a picture's context tokens that is working
# memory. Over all the requests of the compressed run, what is the largest value?
#
# *Hint:* `context_tokens(picture)` is the denominator; parts are in `MEMORY_NAMES` order.

# %%
def working_share(picture):
    raise NotImplementedError("your code here")


# %%
def check_exercise_2(share):
    def expected(picture):
        return picture[MEMORY_NAMES.index("working")].tokens / context_tokens(picture)
    try:
        values = [share(p) for p in compressed.client.records]
    except NotImplementedError:
        return "exercise 2: not implemented yet"
    if any(abs(v - expected(p)) > 1e-9 for v, p in zip(values, compressed.client.records)):
        return "exercise 2: not yet; working tokens divided by the context tokens"
    return f"exercise 2: correct; the largest share is {max(values):.0%}"


print(check_exercise_2(working_share))

# %% [markdown]
# **3.** Keep the rule alive. Find a `THRESHOLD` on the slider (10,000 to 120,000, in steps of 10,000)
# at which the compressed run of all 71 requests still refuses to edit `tools/t05_shell.py`, then
# explain from its summaries why the rule survived there. Each try is a full run of a few seconds.
#
# *Hint:* `three_layer_run(KEEP_RECENT, threshold, 71, WORK).answers[-1]` starts with "I will not"
# when the rule survived. Think about what a summary copies from the summary before it.

# %%
threshold_keeping_rule = None  # replace None with your answer (an int)


def check_exercise_3(threshold):
    if threshold is None:
        return "exercise 3: not attempted yet"
    if threshold % 10_000 or not 10_000 <= threshold <= 120_000:
        return "exercise 3: pick a slider value: 10,000 to 120,000 in steps of 10,000"
    run = three_layer_run(KEEP_RECENT, threshold, 71, WORK)
    if not run.answers[-1].startswith("I will not"):
        return "exercise 3: at that threshold the agent edits tools/; try another"
    return f"exercise 3: correct; that run compacted {run.stats.compactions}. Now read its summaries."


print(check_exercise_3(threshold_keeping_rule))
