# %% [markdown]
# # 05 · Three layers in one loop
#
# **The promise:** you write the agent loop, run all three layers together on a session of 71 requests,
# and read what each layer did, saved and cost.
#
# By the end of this chapter you will be able to:
#
# - say what happens in one turn of the loop, in which order, and why;
# - write the layers and the loop;
# - read a long run's growth curve, bill and memory, and move its knobs.
#
# **Reading time:** about 40 minutes (stubs included).

# %% [markdown]
# ## Setup
#
# Every run goes through your loop and your layers from chapters 02-04, on the fake. The model is Claude
# Haiku 4.5, a legacy one kept for its 200K window [1].

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's sweeps run on every core: their workers start now, in the background

import copy
import json
import shutil

from IPython.display import display
from ipywidgets import IntSlider, SelectionSlider

from harness import (COMPACT_TOOL_NAME, CallTrace, CompactionConfig, RunContext, assistant, count_tokens,
                     estimate_tokens, iter_tool_uses, s06_micro_compact, text, text_of, to_dicts, tool_result, tool_use,
                     user)
from harness.core.models import context_window
from harness.fake import fake_client
from harness.labs.cost import SESSION_PRICES, cache_recorder, cost_of
from harness.labs.growth import growth_series
from harness.labs.loop_lab import (MEMORY_NAMES, agent_limit, context_tokens, layer_markers, layers_figure,
                                   memory_figure, memory_of, memory_table, run_cost, run_line, three_layer_run,
                                   three_layer_runs, three_layers_lab, uncompressed_run)
from harness.labs.micro_lab import micro_layer
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.solutions import find_step
from harness.labs.strip import strip_figure
from harness.labs.steps import answer, check, yours_or_reference
from harness.labs.taught_loop import taught_loop
from harness.session.runner import SYSTEM_PROMPT

WORK = own_scratch("05")                     # _work/05, in a fresh folder of its own for each run
DEFAULTS = CompactionConfig()                # the s06 agent's knobs
KEEP_RECENT, THRESHOLD = DEFAULTS.keep_recent, DEFAULTS.threshold
print(f"KEEP_RECENT={KEEP_RECENT}, THRESHOLD={THRESHOLD:,}, preserved tools: {sorted(DEFAULTS.preserve_tools)}, "
      f"model {DEFAULTS.model} ({context_window(DEFAULTS.model):,}-token window)")
micro_compact_seen_only = yours_or_reference("micro_compact_seen_only")  # chapter 02, guarded, with its helpers
my_auto_compact = yours_or_reference("my_auto_compact")    # chapter 03
my_finish_round = yours_or_reference("my_finish_round")    # chapter 04

# %% jupyter={"source_hidden": true}
assert (KEEP_RECENT, THRESHOLD, context_window(DEFAULTS.model)) == (3, 50_000, 200_000)

# %% [markdown]
# ## 1 · One turn of the loop, in order
#
# Each turn of the loop, until the agent is done:
#
# 1. **Log** every message committed since the last turn: micro and auto rewrite the history, so it goes
#    on record first.
# 2. **Micro** (every turn): old tool results become placeholders.
# 3. **Auto** (past `THRESHOLD`): transcript, summary, history replaced; the loop goes on.
# 4. **Call the model** with what is left.
# 5. **Run every tool**, and append all the results in one message: the API refuses a `tool_use` without
#    its result (chapter 04).
# 6. **Manual** (if the model called `compact`): log again, so the whole round is on record, then the
#    same summary, then **return**: the agent judged its task done.
#
# Steps 2 and 3 shape what the model sees; step 6 follows its decision, as in the s06 agent [2]. A
# `RunContext` (`harness/core/loop.py`) holds the client, history and knobs.
#
# The steps run on chapter 02's twelve-file task, stopped after the turn that read all twelve files.

# %%
plain = run_scenario(TWELVE_FILES, DEFAULTS.with_(micro=False, auto=False), WORK / "plain")
toolbox = plain.toolbox


def turn_so_far():
    """The task, a listing and the turn that read all twelve files (it ends with their results), and a run of
    its next turn at THRESHOLD 10,000: made afresh each time, so that a cell run again starts from the same point."""
    sample = copy.deepcopy(plain.messages[:5])
    events, trace = [], []
    shutil.rmtree(WORK / "steps", ignore_errors=True)
    run = RunContext(fake_client(), sample, DEFAULTS.with_(threshold=10_000, transcript_dir=WORK / "steps"),
                     SYSTEM_PROMPT, toolbox.schemas, None, events.append, trace.append)
    run.call = 3                                   # the task has made two calls so far
    return sample, run, events, trace


sample, run, events, trace = turn_so_far()
read_so_far = [b["input"]["path"] for _, b in iter_tool_uses(sample) if b["name"] == "read_file"]
print(f"{len(sample)} messages, {estimate_tokens(sample):,} estimated tokens, THRESHOLD here 10,000; "
      f"{len(read_so_far)} files read in one turn, {len(json.dumps(sample, ensure_ascii=False)):,} characters of history")

# %% jupyter={"source_hidden": true}
assert len(read_so_far) == 12 and len(sample) == 5 and len(json.dumps(sample, ensure_ascii=False)) > DEFAULTS.tail_chars

# %% [markdown]
# **Step 1: the layers before the call.** Write `my_layers(run)` with your own functions: micro if
# `run.config.micro`, then auto if `run.config.auto` and the context is past the threshold. Return the names
# of those that fired.

# %% tags=["stub"]
def my_layers(run):
    """Layers 1 and 2, before a call: micro every turn, auto past THRESHOLD; the names of those that fired."""
    # Micro with your guarded chapter 02 function, then auto with your chapter 03 one; name each that fired, in order.
    # Trap: each layer only when its knob in run.config is on; auto measures what micro left.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: run.micro(micro_layer(micro_compact_seen_only)) runs micro and says whether it cleared anything;
# run.context_size() > run.config.threshold decides auto, which is run.summarise_and_replace("auto",
# compact=my_auto_compact); each only if run.config.micro / run.config.auto.

# %%
my_layers = check(my_layers)

# %% [markdown]
# Run it on the sample (`THRESHOLD` 10,000 here): auto leaves one summary where the whole history was,
# request included.

# %%
before_layers = turn_so_far()[0]
sample, run, events, trace = turn_so_far()
layers = my_layers(run)
print("layers that fired:", layers, "| events:", [(e.kind, e.tokens_before, e.tokens_after) for e in events])
display(strip_figure({"before the layers": before_layers, "after micro and auto": sample}, system=SYSTEM_PROMPT,
                     tools=toolbox.schemas, title="one turn's layers on the twelve-file task"))

# %% jupyter={"source_hidden": true}
assert layers == ["micro", "auto"] and len(sample) == 1 and len(before_layers) == 5
assert [e.kind for e in events] == ["micro", "auto"] and [t.kind for t in trace] == ["summary"]

# %% [markdown]
# **Step 2: the call.** Send the request, turn the reply into plain dicts, and record a `CallTrace`.

# %%
response = run.response = run.client.messages.create(
    model=run.config.model, max_tokens=run.config.max_tokens, system=run.system, tools=run.schemas,
    messages=sample)
content = to_dicts(response.content) or [text("(no reply)")]
uses = [b for b in content if b["type"] == "tool_use"]
call_trace = CallTrace(run.call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(sample),
                       count_tokens(sample, system=run.system, tools=run.schemas), tuple(layers),
                       tuple(b["name"] for b in uses))
print(call_trace)
print("stop reason:", response.stop_reason, "| content:", [b["type"] for b in content])

# %% jupyter={"source_hidden": true}
assert call_trace.input_tokens == call_trace.counted and call_trace.layers == ("micro", "auto")
assert response.stop_reason == "end_turn" and uses == [] and "lost track" in text_of(assistant(content))
assert "No request is visible" in events[-1].detail["summary"]

# %% [markdown]
# The agent has lost its task. The twelve results came in one turn, and auto fired before the model read
# them: the summariser got only the last 80,000 characters (chapter 03's tail), with no request.
#
# **Step 3: the round**, as in chapter 04: the reply, every tool, all the results.

# %%
sample.append(assistant(content))
round_results = []
for block in uses:
    outcome = toolbox.run(block["name"], block["input"])
    round_results.append(tool_result(block["id"], outcome.content, outcome.is_error))
if round_results:
    sample.append(user(round_results))
print([m["role"] for m in sample], "|", len(round_results), "result(s):",
      [r["content"].splitlines()[0] for r in round_results])

# %% [markdown]
# **Step 4: the exits.** `compact` called: the manual summary, stop `"compact"`. No tool asked for:
# `"end_turn"`. Every turn used: `"max_turns"`.

# %%
compacting = any(b["name"] == COMPACT_TOOL_NAME for b in uses)
stop = "compact" if compacting else "end_turn" if not uses else None
print("stop:", stop or "none yet: the next turn starts with step 1")

# %% jupyter={"source_hidden": true}
assert [m["role"] for m in sample] == ["user", "assistant"] and round_results == [] and stop == "end_turn"

# %% [markdown]
# **Now write the loop.** Each turn: `my_layers(run)`, the call, then your `my_finish_round(messages,
# content, tools, manual)`, where `manual(focus)` runs the manual summary. `taught_loop` does the
# bookkeeping.

# %% tags=["stub"]
def my_agent_loop(client, messages, *, system, tools, config, run):
    """Run one request to its end; return "compact", "end_turn" or "max_turns"."""
    # Turn after turn: the layers, the call (step 2), the round (step 3), then the exits (step 4).
    # Trap: the round's compaction is the manual one, which ends the request at once.
    # Trap: at most config.max_turns calls.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: manual = lambda focus: run.summarise_and_replace("manual", focus, compact=my_auto_compact); for each
# of range(config.max_turns): my_layers(run); response = client.messages.create(model=config.model,
# max_tokens=config.max_tokens, system=system, tools=tools.schemas, messages=messages); content =
# to_dicts(response.content) or [text("(no reply)")]; if my_finish_round(messages, content, tools, manual):
# return "compact"; if no block is a tool_use: return "end_turn". After the loop: "max_turns".

# %%
my_agent_loop = check(my_agent_loop)

# %% [markdown]
# From here on every run is your loop's. All three layers fire: `THRESHOLD` at 10,000, and an agent that
# calls `compact` when done.

# %%
my_loop = taught_loop(my_agent_loop)
small = run_scenario(TWELVE_FILES, DEFAULTS.with_(threshold=10_000), WORK / "twelve", compact_policy="after_task",
                     loop=my_loop)
print("call  kind     fired before   tools          input tokens")
for t in small.trace:
    print(f"{t.call:4}  {t.kind:8} {', '.join(t.layers) or '-':14} {', '.join(t.tools) or '-':14} {t.input_tokens:8,}")
print("\nevents:", [(e.kind, e.call) for e in small.events])

# %% jupyter={"source_hidden": true}
assert [(e.kind, e.call) for e in small.events] == [("micro", 3), ("auto", 3), ("manual", 3)]
kinds = [(t.call, t.kind) for t in small.trace]
assert kinds[-3:] == [(3, "summary"), (3, "agent"), (3, "summary")]  # auto's summary first, manual's after
assert small.trace[-2].tools == ("compact",) and len(small.messages) == 1
assert small.answers == ["I have lost track of the current request. What should I do next?"]

# %% [markdown]
# Micro and auto fired before call 3, manual after it; the answer is step 2's lost task.
#
# **Holds for:** *any model* (a summary cannot keep a request it is not shown); *this design* (the order of
# a turn).

# %% [markdown]
# ## 2 · The long session, with and without the three layers
#
# All 71 requests of `LONG_SESSION` now run twice: every layer off, and the s06 knobs. To call `compact`,
# the agent needs a limit: one s06 version states it in the system prompt [3], a later one does not [2];
# the lab gives the fake 97% of `THRESHOLD`.
#
# Both are priced at Claude Haiku 4.5's rates [4], uncached and with chapter 09's cache model [5].

# %%
compressed = three_layer_run(KEEP_RECENT, THRESHOLD, len(LONG_SESSION.requests), WORK, loop=my_loop)
uncompressed = uncompressed_run(len(LONG_SESSION.requests), WORK, loop=my_loop)
print(f"agent limit: {agent_limit(THRESHOLD):,} tokens")
print("with the three layers:", run_line(compressed))
print("with no compaction:   ", run_line(uncompressed))
dollars = {(label, caching): run_cost(session, SESSION_PRICES, caching=caching).dollars
           for label, session in (("with", compressed), ("without", uncompressed)) for caching in (False, True)}
print("dollars, Haiku 4.5 prices:", {key: round(value, 2) for key, value in dollars.items()})

# %% jupyter={"source_hidden": true}
c, u = compressed.stats, uncompressed.stats
assert "limit" not in SYSTEM_PROMPT and "token" not in SYSTEM_PROMPT
assert len(LONG_SESSION.requests) == 71 and agent_limit(THRESHOLD) == 48_500
assert c.compactions == {"auto": 2, "manual": 1, "micro": 13} and u.compactions == {}
assert (c.model_calls, u.model_calls, c.re_reads, u.re_reads) == (153, 116, 36, 0)
assert (c.peak_context, u.peak_context) == (48_854, 125_112) and round(c.peak_context / u.peak_context, 2) == 0.39
assert (round(c.input_tokens_billed / 1e6, 2), round(u.input_tokens_billed / 1e6, 2)) == (4.41, 10.29)
assert {key: round(value, 2) for key, value in dollars.items()} == {
    ("with", False): 4.44, ("with", True): 0.86, ("without", False): 10.32, ("without", True): 1.38}
assert round(dollars["with", False] / dollars["without", False], 2) == 0.43
assert round(dollars["with", True] / dollars["without", True], 2) == 0.62
assert max(len(t.tools) for t in uncompressed.trace) == 12  # a folder's twelve reads go out in one call
assert (SESSION_PRICES.input, SESSION_PRICES.output) == (1.0, 5.0)

# %% [markdown]
# The layers cut the peak context to 39% of the uncompressed run's, and the bill to 43% without caching;
# with caching, only to 62%, as a cache makes the long uncompressed prefix cheap to resend. The 36 re-reads
# are the price of forgetting.
#
# **Why chapter 03's bill was lower.** Chapter 03 priced this session, same knobs, at USD 3.73; here it
# costs 4.44, counted the same way. What differs is where the cuts fall: the next cell reruns chapter 03's
# version, where the agent never calls `compact`.

# %%
auto_only = run_scenario(LONG_SESSION, DEFAULTS, WORK / "auto-only", client=cache_recorder(fake_client()),
                         loop=my_loop)
auto_only_dollars = cost_of(auto_only.trace, auto_only.client.records, SESSION_PRICES, caching=False).dollars
cuts = {label: [e.call for e in session.events if e.kind in ("auto", "manual")]
        for label, session in (("chapter 03: auto only", auto_only), ("here: the three layers", compressed))}
print(f"{'the long session':24} {'cuts at calls':>16} {'calls':>6} {'input tokens':>13} {'dollars':>8}")
for (label, calls), session, cost in zip(cuts.items(), (auto_only, compressed),
                                         (auto_only_dollars, dollars["with", False])):
    print(f"{label:24} {', '.join(map(str, calls)):>16} {session.stats.model_calls:>6} "
          f"{session.stats.input_tokens_billed / 1e6:>12.2f}M {cost:>8.2f}")

# %% [markdown]
# Here the agent cuts first, and every later cut moves: the last comes so much sooner that the context
# climbs for 61 calls with no cut. The bill is the area under the curve, and this curve has more.

# %% jupyter={"source_hidden": true}
assert round(auto_only_dollars, 2) == 3.73 and round(dollars["with", False], 2) == 4.44
assert auto_only.stats.compactions == {"auto": 3, "micro": 12}
assert cuts == {"chapter 03: auto only": [17, 60, 118], "here: the three layers": [12, 56, 92]}
assert compressed.stats.model_calls - cuts["here: the three layers"][-1] == 61
assert auto_only.stats.model_calls - cuts["chapter 03: auto only"][-1] < 61
assert compressed.stats.input_tokens_billed == sum(t.input_tokens for t in compressed.trace)
assert compressed.stats.input_tokens_billed > auto_only.stats.input_tokens_billed

# %% [markdown]
# Orange dots mark micro, red triangles auto, the green diamond the agent's `compact`.

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

# %% jupyter={"source_hidden": true}
assert [(m.layer, m.call) for m in markers if m.layer != "micro"] == [("manual", 12), ("auto", 56), ("auto", 92)]
assert sorted(call for call, _ in big_drops) == [13, 56, 92], "the three big drops are the three summaries"
assert all(drop > 45_000 for _, drop in big_drops)
assert all(series.context[call - 1] < 1_500 for call in (13, 56, 92))
assert micro_saved == 2_630

# %% [markdown]
# Three teeth, each a drop of over 45,000 tokens: the agent's `compact`, then auto twice. After each, the
# context restarts under 1,500 tokens.
#
# Micro saves only 2,630 estimated tokens: what piles up is `read_file` output, which s06 preserves.
#
# **Holds for:** *any model* (the layers shrink what is sent); *this fake* (the sizes and the re-reads).
#
# ## 3 · What it cost: the summaries forget
#
# The session ends with two questions about its start and a request an early rule forbids.

# %%
for label, session in (("with the layers", compressed), ("no compaction", uncompressed)):
    print(label)
    for request_text, reply in zip(LONG_SESSION.requests[-3:], session.answers[-3:]):
        print(f"  {request_text}\n    -> {reply}")
first_summary = compressed.events[[e.kind for e in compressed.events].index("manual")].detail["summary"]
print("\nrequests the first summary kept:", [line for line in first_summary.splitlines() if line.startswith("- User:")]
      or "none")

# %% jupyter={"source_hidden": true}
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
# Uncompressed, the agent remembers and refuses. Compressed, it has lost the rule, edits vendored code, and
# names the wrong first change: as in step 2, the first summary was written from a tail of file contents,
# without one request.
#
# **Holds for:** *this fake* (what the agent does with what it cannot see).
#
# ## 4 · Working, short-term and long-term memory
#
# The layers read as memory. **Working**: the newest `KEEP_RECENT` tool results, in full. **Short-term**:
# placeholders, calls without their content. **Long-term**: the summary in the context and the transcripts
# on disk. The rest is older results micro leaves alone ("kept in full"), the conversation and framing.

# %%
end = {"with the layers": memory_of(compressed), "no compaction": memory_of(uncompressed)}
print(memory_table(end))
for label, picture in end.items():
    print(f"{label}: {context_tokens(picture):,} tokens in the context")

# %% jupyter={"source_hidden": true}
part = {label: {p.name: p for p in picture} for label, picture in end.items()}
with_layers, without = part["with the layers"], part["no compaction"]
assert [p.name for p in end["with the layers"]] == list(MEMORY_NAMES)
assert with_layers["working"].items == without["working"].items == KEEP_RECENT
assert with_layers["long-term: summary"].items == 1 and with_layers["long-term: transcripts"].items == 3
assert without["short-term"].items == without["long-term: summary"].items == without["long-term: transcripts"].items == 0
assert with_layers["long-term: transcripts"].tokens > uncompressed.stats.peak_context
kept_share = with_layers["kept in full"].tokens / context_tokens(end["with the layers"])
assert round(kept_share, 2) == 0.89

# %% [markdown]
# The three transcripts hold more tokens than the uncompressed run's largest context, and 89% of the
# compressed context is "kept in full" `read_file` output. Transcripts hold placeholders (chapter 03): only
# the session log is the full record.

# %%
pictures = {"with the layers": compressed.client.records, "no compaction": uncompressed.client.records}
display(memory_figure(pictures))

# %%
short_term = [p[MEMORY_NAMES.index("short-term")] for p in pictures["with the layers"]]
print(f"most placeholders in one request: {max(p.items for p in short_term)}, "
      f"{max(p.tokens for p in short_term)} tokens at most | requests with at least one: "
      f"{sum(p.items > 0 for p in short_term)} of {len(short_term)}")

# %% jupyter={"source_hidden": true}
for label, session in (("with the layers", compressed), ("no compaction", uncompressed)):
    reported = growth_series(session.trace).context
    assert [context_tokens(p) for p in pictures[label]] == list(reported), label
assert max(p.items for p in short_term) == 5 and max(p.tokens for p in short_term) < 50
assert sum(p.items > 0 for p in short_term) > len(short_term) // 2

# %% [markdown]
# The parts add up to the input tokens the fake reported; the real API also adds a tool-use system prompt
# whenever `tools` are sent [6]. Placeholders are in over half the requests, never more than 5,
# under 50 tokens together.
#
# **Holds for:** *this fake* (it bills exactly what it is sent).
#
# ## 5 · Try it: KEEP_RECENT and THRESHOLD
#
# `KEEP_RECENT` starts at 1: at 0, s06's count clears the newest result unseen, and the loop spins
# (chapter 02).

# %%
spin = [user("Count the lines of every .py file under agents/."),
        assistant([tool_use("toolu_wc", "bash", {"command": "wc -l agents/*.py"})]),
        user([tool_result("toolu_wc", "  150 agents/s01_agent_loop.py\n" * 12)])]
s06_micro_compact(spin, keep_recent=0)
print("what the model would see of the command it just ran:", spin[-1]["content"][0]["content"])

# %% jupyter={"source_hidden": true}
assert spin[-1]["content"][0]["content"] == "[Previous: used bash]"

# %% [markdown]
# The sliders choose `KEEP_RECENT` and `THRESHOLD`; the agent's limit stays at 97% of `THRESHOLD`. The cell
# makes the 11 runs not made yet.

# %% tags=["nbval-ignore-output"]
KEEP_RECENTS = (1, 3, 10)
THRESHOLDS = (10_000, 30_000, 50_000, 120_000)
layer_runs = three_layer_runs(KEEP_RECENTS, THRESHOLDS, len(LONG_SESSION.requests), WORK, loop=my_loop)

# %% jupyter={"source_hidden": true}
assert len(layer_runs) == 12 and layer_runs[KEEP_RECENT, THRESHOLD] is compressed
assert three_layer_run(KEEP_RECENT, THRESHOLD, len(LONG_SESSION.requests), str(WORK), loop=my_loop) is compressed
assert uncompressed_run(len(LONG_SESSION.requests), str(WORK), loop=my_loop) is uncompressed
assert all(len(run.answers) == len(LONG_SESSION.requests) == 71 for run in layer_runs.values())
assert agent_limit(10_000) == 9_700
assert len(layer_runs) - 1 == 11  # the run with the s06 knobs was made in section 2

# %% tags=["nbval-ignore-output"]
layers_slider = panel(
    three_layers_lab,
    keep_recent=SelectionSlider(options=KEEP_RECENTS, value=KEEP_RECENT, description="KEEP_RECENT"),
    threshold=SelectionSlider(options=[(f"{t:,}", t) for t in THRESHOLDS], value=THRESHOLD,
                              description="THRESHOLD"),
    requests=IntSlider(value=len(LONG_SESSION.requests), min=1, max=len(LONG_SESSION.requests),
                       description="requests"),
    runs=layer_runs, uncompressed=uncompressed)

# %% [markdown]
# Try `THRESHOLD` at 10,000 and 120,000: how many teeth, re-reads, what bill? `KEEP_RECENT` at 1 and 10:
# why so little change?
#
# ## Summary
#
# - One turn: log, micro, auto, call, every tool and result, then manual, which ends the loop.
# - The layers cut the long session's peak context to 39%, its uncached bill to 43%; where the cuts fall
#   sets the bill.
# - The agent forgets in the summaries: what a summary is not shown is lost.
# - Working memory is the newest results, short-term the placeholders, long-term the summary and
#   transcripts; the log is the full record.

# %% [markdown]
# ## Exercises
#
# ### 1. What did each summary keep?
# Count the `- User:` lines of every auto and manual summary of `compressed`, in order (a list).
#
# *Hint:* the text is in `event.detail["summary"]` for events of kind `"auto"` and `"manual"`.

# %% tags=["answer"]
user_lines_per_summary = None

# %%
answer("user_lines_per_summary", user_lines_per_summary)

# %% [markdown]
# ### 2. How much of the context is working memory?
# Write `working_share(picture)`: the fraction of a picture's context tokens that is working memory.
# What is its largest value over the requests of `compressed` (`compressed.client.records`)?
#
# *Hint:* `context_tokens(picture)` is the denominator; parts are in `MEMORY_NAMES` order.

# %% tags=["stub"]
def working_share(picture):
    """The fraction of a memory picture's context tokens that is working memory."""
    # Working memory's tokens over the context's.
    # Trap: a picture also holds what lives on disk.
    raise NotImplementedError("your code here")

# %%
working_share = check(working_share)

# %% tags=["answer"]
largest_working_share = None

# %%
if answer("largest_working_share", largest_working_share):
    print(f"At most {largest_working_share:.0%} of a request is working memory.")

# %% [markdown]
# ### 3. Keep the rule alive
# Which thresholds, from 10,000 to 120,000 in steps of 10,000, leave the agent refusing to edit
# `tools/t05_shell.py` at the end (a set, maybe empty)? Explain why, from the summaries.
#
# *Hint:* `three_layer_run(KEEP_RECENT, threshold, 71, WORK, loop=my_loop).answers[-1]` starts with
# "I will not" when the rule survived. The fake's summariser copies every `- User:` line it is shown.

# %% tags=["answer"]
thresholds_keeping_rule = None

# %%
answer("thresholds_keeping_rule", thresholds_keeping_rule)

# %% [markdown]
# ### 4. Compact after the call instead of before
# Copy `my_agent_loop` into `late_agent_loop` and move `my_layers(run)` to just after the call.
# Predict: on the twelve files with `THRESHOLD` 10,000, does a request go above it?

# %% tags=["stub"]
def late_agent_loop(client, messages, *, system, tools, config, run):
    """my_agent_loop with my_layers(run) moved to just after the model call."""
    # Your my_agent_loop, one line moved; nothing else changes.
    raise NotImplementedError("your code here")

# %%
late_agent_loop = check(late_agent_loop)

# %%
if late_agent_loop is find_step("late_agent_loop").reference:  # your prediction first: this runs yours only
    print("Exercise 4: write late_agent_loop, then run this cell to compare it with your loop.")
else:
    config_10k = DEFAULTS.with_(threshold=10_000)
    on_time = run_scenario(TWELVE_FILES, config_10k, WORK / "on-time", loop=my_loop)
    late = run_scenario(TWELVE_FILES, config_10k, WORK / "late", loop=taught_loop(late_agent_loop))
    print(f"the largest request: late {late.stats.peak_context:,} tokens, on time {on_time.stats.peak_context:,} "
          "(THRESHOLD 10,000)")

# %% [markdown]
# ## Recap
#
# Answer each before you look (`RECAP` in `harness/labs/solutions/ch05.py`).
#
# 1. In one turn, which layers run before the model call, which after, and why does manual end the loop?
# 2. Why is the session log synced before the layers run, and again before a summary replaces the history?
# 3. Why must every `tool_result` of a round be appended before the compaction runs?
# 4. Where does the agent forget in a long session, micro-compaction or the summaries? What shows it?
# 5. What are working, short-term and long-term memory in this loop, and what do the transcripts not keep?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (a legacy model; 200K window)
# 2. shareAI-lab/learn-claude-code, `agents/s06_context_compact.py` at 7864a30 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (the loop's order; a system prompt with no limit)
# 3. shareAI-lab/learn-claude-code, `agents/s06_context_compact.py` at 0de9c58 — https://github.com/shareAI-lab/learn-claude-code/blob/0de9c58a817ebdab6508e0decbc1e0c98c172747/agents/s06_context_compact.py (a system prompt that states the 50,000-token limit)
# 4. Anthropic, "Pricing" — https://platform.claude.com/docs/en/about-claude/pricing (Haiku 4.5's input, output and cache prices)
# 5. Anthropic, "Prompt caching" — https://platform.claude.com/docs/en/build-with-claude/prompt-caching (cache writes and reads: chapter 09's model)
# 6. Anthropic, "Tool use pricing and tokens" — https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens (a tool-use system prompt added whenever tools are sent, its size per model and tool_choice)
