# %% [markdown]
# # 05 · Three layers in one loop
#
# **The promise:** write the agent loop yourself, check it against the harness's, then run micro,
# auto and manual compaction together in it on a session of 71 requests, and see from the run's own
# data what each layer did, what it saved, and what it cost.
#
# ## What you will be able to do
#
# - walk through one turn of the loop and say what happens, in which order, and why;
# - write the agent loop yourself, and see it run sessions exactly like the harness's `run_agent`
#   (same history, calls and events), with your own layers of chapters 02-04 in it;
# - draw the compressed and uncompressed token-growth curves of a long session in the same axes, with
#   a marker wherever a layer fired;
# - take the agent's memory apart into working memory (the newest `KEEP_RECENT` tool results),
#   short-term memory (placeholders) and long-term memory (the summary, and the transcripts on disk),
#   and say what the transcripts do *not* keep;
# - move `KEEP_RECENT` and `THRESHOLD` and watch the curves, the bill and the re-reads change.
#
# Each lesson says whether it holds for **any model** (it follows from the loop's order or from what
# the request contains) or only for **this fake** (it depends on how our fake agent decides).

# %% [markdown]
# ## Setup
#
# As in every chapter the model is a deterministic fake of Claude behind the real `anthropic` SDK,
# offline. The long-session runs come from `harness/labs/loop_lab.py`: `three_layer_run` and
# `uncompressed_run` are `run_scenario` with a cache in front (a run takes seconds; the same knobs
# always give the same run), and they record the memory picture of every request sent. Each takes the
# loop to run as `loop=`: from section 2 on, that is yours, and it runs your layers: the micro-compaction
# of chapter 02, the auto-compaction of chapter 03 and the end of round of chapter 04, each once it
# passed its check there (the setup says which), else the reference.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's sweeps run on every core: their workers start now, in the background

import copy
from pathlib import Path

from IPython.display import display
from ipywidgets import IntSlider, SelectionSlider

from harness import (COMPACT_TOOL_NAME, CallTrace, CompactionConfig, RunContext, assistant, count_tokens,
                     estimate_tokens, is_placeholder, iter_tool_results, iter_tool_uses, messages_api, micro_compact,
                     read_transcript, text, to_dicts, tool_result, tool_use, user)
from harness.fake import fake_client
from harness.labs.growth import growth_series
from harness.labs.loop_lab import (MEMORY_NAMES, agent_limit, context_tokens, layer_markers, layers_figure,
                                   memory_figure, memory_of, memory_table, run_line, three_layer_run,
                                   three_layer_runs, three_layers_lab, uncompressed_run)
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.micro_lab import micro_layer
from harness.labs.scratch import own_scratch
from harness.labs.steps import check, yours_or_reference
from harness.labs.taught_loop import taught_loop
from harness.session.records import read_log
from harness.session.runner import SYSTEM_PROMPT
from harness.strategies.three_layers import ThreeLayers

WORK = own_scratch("05")                     # _work/05, in a fresh folder of its own for each run
DEFAULTS = CompactionConfig()                # the reference agent's knobs
KEEP_RECENT, THRESHOLD = DEFAULTS.keep_recent, DEFAULTS.threshold
print(f"KEEP_RECENT={KEEP_RECENT}, THRESHOLD={THRESHOLD:,}, preserved tools: {sorted(DEFAULTS.preserve_tools)}")
# your kept functions run in this notebook's names: what chapters 02-04 had at hand
from harness import COMPACT_ACK, COMPRESSED_HEADER, SUMMARY_PROMPT, AutoReport, SummaryFailed, ToolOutcome, compact_focus
import json

my_micro_compact = yours_or_reference("my_micro_compact", globals())  # chapter 02
my_auto_compact = yours_or_reference("my_auto_compact", globals())    # chapter 03
my_finish_round = yours_or_reference("my_finish_round", globals())    # chapter 04

# %% [markdown]
# ## 1 · One turn of the loop, in order
#
# The loop runs one request until the agent is done. Each turn:
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
# Steps 2 and 3 shape what the model sees; step 6 happens after it has spoken. The loop does not know
# the layers by name: a compaction *strategy* does, through three hooks the loop calls
# (`harness/strategies/base.py`). `before_call` runs steps 2 and 3 and returns the names of the layers
# that fired; `on_compact` runs step 6; `after_round` is told each finished round (the three layers
# ignore it; the usage-triggered strategy of chapter 06 and the server-side ones of chapter 10 use it). `ThreeLayers()` is the reference agent's strategy.
# A `RunContext` (`harness/core/loop.py`) is what a hook sees: the client, the history, the knobs,
# and `emit`/`record` to report events and summary calls.
#
# You build the loop in four small steps, each tried on the twelve-file task of chapter 02 stopped
# after six reads, then write it whole.

# %%
plain = run_scenario(TWELVE_FILES, DEFAULTS.with_(micro=False, auto=False), WORK / "plain")
toolbox = plain.toolbox
sample = copy.deepcopy(plain.messages[:15])  # the task, a listing and six reads: ends with the sixth result
events, trace = [], []
run = RunContext(fake_client(), sample, DEFAULTS.with_(threshold=10_000, transcript_dir=WORK / "steps"),
                 SYSTEM_PROMPT, toolbox.schemas, None, events.append, trace.append)
run.call = 8                                   # the task has made seven calls so far
read_so_far = [b["input"]["path"] for _, b in iter_tool_uses(sample) if b["name"] == "read_file"]
print(f"{len(sample)} messages, {estimate_tokens(sample):,} estimated tokens, THRESHOLD here 10,000; "
      f"{len(read_so_far)} files read, the last {read_so_far[-1]}")
assert len(read_so_far) == 6

# %% [markdown]
# **Step 1: before the call.** Ask the strategy to act (steps 2 and 3), and for any extra arguments
# of the call (`request_options`: none for the three layers; chapter 10's server-side strategies add
# the API's context management here, and `messages_api` then sends the call to `client.beta.messages`).

# %%
strategy = ThreeLayers()
layers = strategy.before_call(run)
options = strategy.request_options(run)
print("layers that fired:", layers, "| extra call options:", options)
print("events:", [(e.kind, e.tokens_before, e.tokens_after) for e in events])
print(f"the history is now {len(sample)} message(s), {estimate_tokens(sample):,} estimated tokens")

# %%
assert layers == ["micro", "auto"] and options == {} and len(sample) == 1
assert [e.kind for e in events] == ["micro", "auto"] and [t.kind for t in trace] == ["summary"]

# %% [markdown]
# **Step 2: the call, and its trace.** Send the request, turn the SDK's reply into plain dicts
# (`to_dicts`: the history never holds SDK objects), and record one `CallTrace`: the tokens the API
# reported, our two counts of the history it was sent, the layers that fired before it, the tools the
# model asked for.

# %%
response = run.response = messages_api(run.client, options).create(
    model=run.config.model, max_tokens=run.config.max_tokens, system=run.system, tools=run.schemas,
    messages=sample, **options)
content = to_dicts(response.content) or [text("(no reply)")]
uses = [b for b in content if b["type"] == "tool_use"]
call_trace = CallTrace(run.call, response.usage.input_tokens, response.usage.output_tokens, estimate_tokens(sample),
                       count_tokens(sample, system=run.system, tools=run.schemas), tuple(layers),
                       tuple(b["name"] for b in uses))
print(call_trace)
print("stop reason:", response.stop_reason, "| content:", [b["type"] for b in content])

# %%
assert call_trace.input_tokens == call_trace.counted and call_trace.layers == ("micro", "auto")
assert response.stop_reason == "tool_use" and [b["input"] for b in uses] == [{"path": read_so_far[-1]}]

# %% [markdown]
# From the summary alone the agent knows the task and where it was, and asks for the sixth file
# again: it had read it in the last round but not yet written its note, and a summary keeps notes,
# not file contents. (That is **this fake**: its summariser keeps the task and one note per file, and
# its agent notes a file in the reply after reading it.) An empty reply would become `(no reply)`:
# the API refuses a message with no content.
#
# **Step 3: the round.** What chapter 04 had you write: append the reply, run every tool, append all
# the results in one user message.

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
# **Step 4: the exits.** Three ways out: the model called `compact` (run `on_compact`, stop
# `"compact"`); the model asked for no tool (stop `"end_turn"`; except when the server paused the turn
# after compacting it, chapter 10: that turn goes back to the server as it is); or `max_turns` calls
# went by (an event says so). Otherwise `after_round` hears about the finished round, and the loop
# makes the next call.

# %%
compacting = any(b["name"] == COMPACT_TOOL_NAME for b in uses)
stop = "compact" if compacting else "end_turn" if not uses and response.stop_reason != "compaction" else None
print("stop:", stop or "none yet: the next turn starts with step 1")

# %%
assert [m["role"] for m in sample] == ["user", "assistant", "user"] and stop is None

# %% [markdown]
# **Now write the whole loop.** Your loop does only what this section taught; `taught_loop` does the
# bookkeeping around it (numbers the calls, traces each one, syncs the session log before each hook),
# so that it runs in a `Session` and leaves what `harness.run_agent` leaves. `run` is the `RunContext`
# the hooks take. The round is yours from chapter 04: `my_finish_round(messages, content, tools,
# compact)`, where `compact` is a function of the focus that runs the strategy's `on_compact`. The
# check runs your loop on six sessions from scratch (the twelve files and four requests of the long
# session; no compaction, the three layers at two settings, an agent that calls `compact`, `max_turns`
# cutting a task short) and compares everything they leave: answers, history, trace, events, tool calls
# and log. (`harness.run_agent` also routes chapter 10's server-side strategies and lets a paused turn
# go back to the server; `taught_loop` refuses those strategies.)

# %% tags=["stub"]
def my_agent_loop(client, messages, *, system, tools, config, compactor, run):
    """Run one request to its end; return "compact", "end_turn" or "max_turns"."""
    # at most config.max_turns times:
    #     compactor.before_call(run)                                  (steps 1-3: micro, auto)
    #     the call: client.messages.create(model=, max_tokens= from config, system=, tools=tools.schemas,
    #               messages=); content = to_dicts(response.content), or [text("(no reply)")] if empty
    #     the round: my_finish_round(messages, content, tools, lambda focus: compactor.on_compact(run, focus));
    #               True means the model compacted: return "compact"
    #     compactor.after_round(run, response.usage); no tool_use in content: return "end_turn"
    # then "max_turns"
    raise NotImplementedError("your code here")

# %%
my_agent_loop = check(my_agent_loop)
my_loop = taught_loop(my_agent_loop, micro=micro_layer(my_micro_compact), summarise=my_auto_compact)

# %% [markdown]
# From here on, every run in this chapter is your loop's. Here is a small one where all three layers
# fire: the twelve files of `agents/`, a low threshold of 10,000 tokens, and an agent that calls
# `compact` when its task is done. Each line is one API call; a summary call carries the number of the
# agent call it belongs to.

# %%
small = run_scenario(TWELVE_FILES, DEFAULTS.with_(threshold=10_000), WORK / "twelve", compact_policy="after_task",
                     loop=my_loop)
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
# one summary message now. (The order is the loop's, **any model**; when the agent calls `compact`,
# and what the summaries keep, are **this fake**'s.)
#
# ## 2 · The long session, with and without the three layers
#
# Now the real thing: all 71 requests of `LONG_SESSION`, run by your loop, once with every layer off
# and once with the reference knobs (`KEEP_RECENT=3`, `THRESHOLD=50,000`, `read_file` preserved).
#
# For the third layer the agent needs a reason to call `compact`. Seed 001 says only that the agent
# calls it on its own judgement. One stored version of the reference code tells its agent the
# 50,000-token limit in its system prompt (`SYSTEM` in `agents/s06_context_compact.py` at commit
# 0de9c58); another does not (the same file at commit 7864a30). Our system prompt (`SYSTEM_PROMPT` in
# `harness/session/runner.py`) says nothing about a limit. The manual layer fires here because
# **this fake** reads the size of the request it was sent: it tidies up at the end of a task once that
# request passes 97% of the threshold (`agent_limit`), just before auto would cut in mid-task. A real
# model would have to be told its limit, or count. Told one in its system prompt, *this fake* does the
# same at 80% of it (`compact_policy="judgement"`, the default). These are the only two full runs of
# the session in this notebook.

# %%
compressed = three_layer_run(KEEP_RECENT, THRESHOLD, len(LONG_SESSION.requests), WORK, loop=my_loop)
uncompressed = uncompressed_run(len(LONG_SESSION.requests), WORK, loop=my_loop)
print(f"agent limit: {agent_limit(THRESHOLD):,} tokens")
print("with the three layers:", run_line(compressed))
print("with no compaction:   ", run_line(uncompressed))
billed_share = compressed.stats.input_tokens_billed / uncompressed.stats.input_tokens_billed
print(f"input billed with the layers: {billed_share:.0%} of the uncompressed bill; "
      f"peak context {compressed.stats.peak_context / uncompressed.stats.peak_context:.0%} of it")
print("reads after an edit:", compressed.stats.reads_after_edit, "with the layers,",
      uncompressed.stats.reads_after_edit, "without")

# %%
c, u = compressed.stats, uncompressed.stats
assert "limit" not in SYSTEM_PROMPT and "token" not in SYSTEM_PROMPT
assert len(LONG_SESSION.requests) == 71 and agent_limit(THRESHOLD) == 48_500
assert c.compactions == {"auto": 2, "manual": 1, "micro": 14} and u.compactions == {}
assert (c.model_calls, u.model_calls) == (195, 158) and c.model_calls - u.model_calls == 37
assert (c.peak_context, u.peak_context) == (49_198, 125_406)
assert (c.re_reads, u.re_reads) == (36, 0) and c.reads_after_edit == u.reads_after_edit == 13
assert round(billed_share, 2) == 0.43 and round(c.peak_context / u.peak_context, 2) == 0.39

# %% [markdown]
# The layers cut the peak context to 39% of the uncompressed peak (49,198 tokens against 125,406)
# and the input bill to 43%. They cost 37 more model calls (195 against 158), and 36 of those are
# re-reads: the agent read again a file it had read and that had not changed since, because its
# content had been compacted away. With nothing removed it never did. (Both runs read a file 13 times
# after editing it; that is checking an edit, not forgetting, and it is counted apart.) The savings
# follow from what the layers remove, **any model**; the exact count of re-reads is **this fake**'s,
# which reads a file again whenever the content it needs is out of view.
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
# after reading all of `core/` those characters were file contents, not one user request. That part
# holds for **any model**: no summariser can keep a request it is not shown. That the agent then
# edits `tools/` is **this fake**'s: it obeys every rule it can see and none it cannot. Files can be
# read again; an instruction the user gave once cannot.
#
# ## 4 · Working, short-term and long-term memory
#
# Seed 001 compares the three layers with human memory. We can draw that picture from the run itself:
#
# - **working memory**: the newest `KEEP_RECENT` tool results, in full, what the agent is working with now;
# - **short-term memory**: placeholders, "I used `bash` here", the fact without the content;
# - **long-term memory**: the summary in the context, and the transcripts on disk, one file per
#   compaction, with what the history held when it was summarised.
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
# The transcripts are not the full record, though. Each was written when its compaction ran, and by
# then micro had already turned old results into placeholders (the reference code does the same: its
# `auto_compact` runs after `micro_compact`). What the agent actually saw is in the session log,
# which the loop appends to before any layer may rewrite a message (step 1 of the turn). Here is one
# result, in the transcripts and in the log:

# %%
transcripts = [read_transcript(e.detail["transcript"]) for e in compressed.events if e.kind in ("auto", "manual")]
placeholders = [sum(is_placeholder(b["content"]) for _, _, b in iter_tool_results(t)) for t in transcripts]
first_cleared = next(b for t in transcripts for _, _, b in iter_tool_results(t) if is_placeholder(b["content"]))
log_records = read_log(Path(compressed.config.transcript_dir).parent / "session.jsonl").records
logged = [r["message"] for r in log_records if r["kind"] == "message"]
original = next(b for _, _, b in iter_tool_results(logged) if b["tool_use_id"] == first_cleared["tool_use_id"])
print("placeholders in each transcript:", placeholders)
print(f"in the transcript: {first_cleared['content']!r}")
print(f"in the log:        {len(original['content']):,} characters, starting {original['content'][:40]!r}")
print("placeholders anywhere in the log:", sum(is_placeholder(b["content"]) for _, _, b in iter_tool_results(logged)))

# %%
assert all(n > 0 for n in placeholders) and placeholders == [3, 5, 3]
assert not is_placeholder(original["content"]) and len(original["content"]) > 100
assert not any(is_placeholder(b["content"]) for _, _, b in iter_tool_results(logged))

# %% [markdown]
# Every transcript holds placeholders (3, 5 and 3 of them), and the log holds none: it has every
# output in full. Seed 001 calls the transcripts a full, recoverable record; in the reference agent
# (and in ours) they are a record of the history *after* micro. The session log is the full record,
# and chapter 06 resumes sessions from it. (**Any model**: this is the loop's order, not the model's.)
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
# compaction, while the context falls. Memory moves from the context to the disk; what keeps it whole
# there is the session log.
#
# ## 5 · Try it: KEEP_RECENT and THRESHOLD
#
# First, why the `KEEP_RECENT` slider starts at 1. At 0, micro clears even the newest result, before
# the model has seen it: the agent runs the command again, its output is cleared again, and the loop
# spins until `max_turns` (chapter 02).

# %%
spin = [user("Count the lines of every .py file under agents/."),
        assistant([tool_use("toolu_wc", "bash", {"command": "wc -l agents/*.py"})]),
        user([tool_result("toolu_wc", "  150 agents/s01_agent_loop.py\n" * 12)])]
micro_compact(spin, keep_recent=0)
print("what the model would see of the command it just ran:", spin[-1]["content"][0]["content"])
assert spin[-1]["content"][0]["content"] == "[Previous: used bash]"

# %% [markdown]
# The sliders show runs of all 71 requests through your loop with other knobs: `KEEP_RECENT` 1, 3
# or 10, and `THRESHOLD` 10,000, 30,000, 50,000 or 120,000 (the agent's own limit follows the
# threshold, at 97%). A run takes a few seconds, longer for a low or a high threshold (more summaries,
# or a bigger context to read, for the fake as for a real model), so the cell below makes all 12 runs
# first, under a progress bar. Runs are cached, keyed by the knobs and the loop (`functools.lru_cache`
# inside `harness/labs/loop_lab.py`): the reference's pair is the run above. The `requests` slider
# cuts a run after its *n*-th request (`Session.first(n)`): nothing in the loop looks ahead, so that
# is what a run of only *n* requests does. (Almost: a summary quotes the folder of its transcripts,
# and a run of *n* requests would have its own folder, so its bill could differ by a few tokens.)
# Moving a slider only looks a run up and draws it.

# %% tags=["nbval-ignore-output"]
KEEP_RECENTS = (1, 3, 10)
THRESHOLDS = (10_000, 30_000, 50_000, 120_000)
layer_runs = three_layer_runs(KEEP_RECENTS, THRESHOLDS, len(LONG_SESSION.requests), WORK, loop=my_loop)

# %%
assert len(layer_runs) == 12 and layer_runs[KEEP_RECENT, THRESHOLD] is compressed
assert three_layer_run(KEEP_RECENT, THRESHOLD, len(LONG_SESSION.requests), str(WORK), loop=my_loop) is compressed
assert uncompressed_run(len(LONG_SESSION.requests), str(WORK), loop=my_loop) is uncompressed
assert all(len(run.answers) == len(LONG_SESSION.requests) == 71 for run in layer_runs.values())

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
# Things to try: `THRESHOLD` at 10,000 and at 120,000: how many teeth, how many re-reads, what bill?
# `KEEP_RECENT` at 1 and at 10: why does so little change? (What does micro leave alone?)
#
# ## Summary
#
# - One turn of the loop: log, micro, auto, call, run every tool and append every result, then
#   manual, which ends the loop. Micro and auto shape what the model sees; manual follows its decision.
# - You wrote the loop as taught; its check compared everything six sessions leave with
#   `harness.run_agent`'s. Once it passes, every run of this chapter is yours, with your layers of
#   chapters 02-04 in it once they pass.
# - On the 71-request session the three layers kept the peak context at 39% of the uncompressed peak
#   and the input bill at 43%, for 37 more model calls, 36 of them re-reads (this fake re-reads
#   whatever it can no longer see; with no compaction it re-read nothing).
# - The summaries are where the agent forgets: a rule given once, early, was not in the 80,000
#   characters the first summary was written from (any model), and this fake then edited the files
#   it had been told never to touch.
# - Working memory is the newest `KEEP_RECENT` results, short-term memory is placeholders, long-term
#   memory is the summary plus the transcripts on disk. The transcripts already hold placeholders
#   (3, 5 and 3 here); the session log is the full record.
#
# Chapter 06 makes the disk side usable: resume a session from its log and replay its compactions.
#
# ## Exercises
#
# ### 1. What did each summary keep?
# Which user requests did each of the three summaries keep? Count the `- User:` lines of every
# auto and manual summary of the compressed run, in order.
#
# *Hint:* the summary text is in `event.detail["summary"]` for events of kind `"auto"` and `"manual"`.

# %%
user_lines_per_summary = None  # replace None with a list of three ints, in order

# %%
if user_lines_per_summary is None:
    print("Exercise 1: fill in user_lines_per_summary, then run this cell.")
else:
    truth = [e.detail["summary"].count("\n- User: ") for e in compressed.events if e.kind in ("auto", "manual")]
    assert list(user_lines_per_summary) == truth, \
        "not yet: take the events in order and count the lines starting with '- User: '"
    print(f"Exercise 1: correct. The summaries kept {truth} requests, out of 71.")

# %% [markdown]
# ### 2. How much of the context is working memory?
# Write `working_share(picture)`: the fraction of a picture's context tokens that is working memory.
# Over all the requests of the compressed run, what is the largest value?
#
# *Hint:* `context_tokens(picture)` is the denominator; parts are in `MEMORY_NAMES` order.

# %%
def working_share(picture):
    raise NotImplementedError("your code here")

# %%
try:
    shares = [working_share(p) for p in compressed.client.records]
except NotImplementedError:
    print("Exercise 2: not implemented yet.")
else:
    truth = [p[MEMORY_NAMES.index("working")].tokens / context_tokens(p) for p in compressed.client.records]
    assert all(abs(a - b) < 1e-9 for a, b in zip(shares, truth)), "not yet: working tokens divided by the context tokens"
    print(f"Exercise 2: correct. The largest share is {max(shares):.0%}.")

# %% [markdown]
# ### 3. Keep the rule alive
# Find a `THRESHOLD` (10,000 to 120,000, in steps of 10,000; the slider shows four of them) at which
# the compressed run of all 71 requests still refuses to edit `tools/t05_shell.py`, then explain from
# its summaries why the rule survived there. A try off the slider is a full run of a few seconds.
#
# *Hint:* `three_layer_run(KEEP_RECENT, threshold, 71, WORK, loop=my_loop).answers[-1]` starts with
# "I will not" when the rule survived. Think about what a summary copies from the summary before it.

# %%
threshold_keeping_rule = None  # replace None with your answer (an int)

# %%
if threshold_keeping_rule is None:
    print("Exercise 3: fill in threshold_keeping_rule, then run this cell.")
else:
    assert threshold_keeping_rule % 10_000 == 0 and 10_000 <= threshold_keeping_rule <= 120_000, \
        "pick a threshold from 10,000 to 120,000 in steps of 10,000"
    kept_rule = three_layer_run(KEEP_RECENT, threshold_keeping_rule, 71, WORK, loop=my_loop)
    assert kept_rule.answers[-1].startswith("I will not"), "at that threshold the agent edits tools/: try another"
    print(f"Exercise 3: correct. That run compacted {kept_rule.stats.compactions}. Now read its summaries.")

# %% [markdown]
# ### 4. Compact after the call instead of before
# Change your loop. Copy `my_agent_loop` into a new function `late_agent_loop` and move one line:
# `compactor.before_call(run)` goes from before the model call to just after it (after
# `response = ...`, before the round). Micro and auto still run every turn, on the same
# history; only now the model has already been sent it. Predict: on the twelve files with THRESHOLD
# 10,000, does any request go above THRESHOLD? Then run the check, which runs both loops.
#
# *Hint:* the check compares the largest request of each run (`session.stats.peak_context`) with
# THRESHOLD, and the layers that fired. Is the lesson one of **any model** or of **this fake**?

# %%
late_agent_loop = None  # replace None with your changed loop (a function with my_agent_loop's signature)

# %%
if late_agent_loop is None:
    print("Exercise 4: fill in late_agent_loop, then run this cell.")
else:
    config_10k = DEFAULTS.with_(threshold=10_000)
    on_time = run_scenario(TWELVE_FILES, config_10k, WORK / "on-time", loop=my_loop)
    late = run_scenario(TWELVE_FILES, config_10k, WORK / "late", loop=taught_loop(late_agent_loop, micro=micro_layer(my_micro_compact),
                                                                      summarise=my_auto_compact))
    assert [e.kind for e in late.events] == [e.kind for e in on_time.events], \
        "the same layers should fire, in the same order: move the before_call line, change nothing else"
    assert on_time.stats.peak_context <= 10_000 < late.stats.peak_context, \
        "your late loop never sent a request above THRESHOLD: is before_call after the model call?"
    print(f"Exercise 4: correct. Late, one request carried {late.stats.peak_context:,} tokens, "
          f"{late.stats.peak_context - 10_000:,} above THRESHOLD; on time the largest was "
          f"{on_time.stats.peak_context:,}. The request that crosses the threshold goes out whole "
          "before anything is compacted (any model).")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch05.py`).
#
# 1. In one turn, which layers run before the model call, which after, and why does manual end the loop?
# 2. Why is the session log synced before `before_call`, and again before `on_compact`?
# 3. Why must every `tool_result` of a round be appended before the compaction runs?
# 4. Where does the agent forget in a long session: in micro-compaction or in the summaries? What shows it?
# 5. What are working, short-term and long-term memory in this loop, and what do the transcripts not keep?
