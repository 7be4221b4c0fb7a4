# %% [markdown]
# # 13 · What production agents do now
#
# **The promise:** you add four techniques that today's coding agents ship to the three layers, run
# chapter 00's long session with each, and read off what each one buys and what it costs.
#
# By the end of this chapter you will be able to:
#
# - save a big tool result to a file *as it is written*, and read it back in parts;
# - hand a search-heavy task to a sub-agent and keep only its report;
# - put the user's instructions and recent files back after a summary, within a budget;
# - send the summary request over the cached prefix, and price all of it under caching.
#
# **Reading time:** about 25 minutes (stubs included).
#
# The three layers keep a session alive. Claude Code, Codex, Deep Agents and Cursor do more: each
# technique below is one of theirs, built small.

# %% [markdown]
# ## Setup
#
# Working files go to `_work/13_production_agents/`.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's runs use every core: the workers start now, in the background

from functools import partial

import matplotlib.pyplot as plt
from IPython.display import display
from ipywidgets import SelectionSlider

from harness import CompactionConfig, Toolbox
from harness.core.auto import tail_request
from harness.core.loop import run_agent
from harness.core.manual import COMPACT_TOOL_NAME, compact_focus
from harness.core.messages import assistant, tool_result, user
from harness.core.tokens import text_tokens
from harness.core.tools import PathEscape
from harness.fake import fake_client
from harness.labs.panel import panel
from harness.labs.production_lab import LIMITS, ROWS, TIGHT_THRESHOLD, limit_figure, rows_figure, run_row, run_rows
from harness.labs.scenarios import LONG_SESSION, READ_AGENTS, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.production.cached_summary import prefix_sharing_request
from harness.production.offload import (OFFLOAD_FOLDER, PartReadingToolbox, offload_placeholder, reads_saved,
                                        save_output)
from harness.production.reinject import (RESTORED_HEADER, Restorable, file_entry, instruction_entry,
                                         what_to_restore)
from harness.production.subagent import SUBAGENT_TOOL_NAME, SubagentToolbox
from harness.session.runner import Session
from harness.strategies.three_layers import ThreeLayers

WORK = own_scratch("13_production_agents")
print(f"{len(LONG_SESSION.requests)} requests; threshold {TIGHT_THRESHOLD:,} tokens; rows: {', '.join(ROWS)}")

# %% jupyter={"source_hidden": true}
assert len(LONG_SESSION.requests) == 71 and TIGHT_THRESHOLD == 20_000 and len(ROWS) == 5

# %% [markdown]
# ## 1 · Big results go to a file as they are written
#
# **Micro-compaction clears a result after it has been paid for; offloading never lets it in.** A result
# over a limit is saved under `.tool_results/`, and the context gets its size, its path, its first six
# lines and how to read the rest with `read_file`'s `offset` and `limit`.
#
# Claude Code saves results over 50,000 characters to disk [1]; Deep Agents evicts results over 20,000
# estimated tokens to its filesystem [2]; Cursor calls this *dynamic context discovery* [3].
#
# **Write it.** Start from chapter 04's end of round. For each result that is not an error, not
# `compact`'s and not a read of a saved result, over `limit` tokens: `save_output` first, then put
# `offload_placeholder(saved, output)` in its place. Then append, once.

# %% tags=["stub"]
def my_finish_offloading(messages, content, tools, compact, limit):
    """Chapter 04's end of round, with each result over ``limit`` tokens (``text_tokens``) saved to a file
    under ``.tool_results/`` before it goes into the history. Returns True when the model called compact."""
    # Append the reply; run each tool; for a result to offload, save_output(tools.workspace, name, output)
    # and use offload_placeholder(saved, output) as the block's content; append all results in one message;
    # then compact(focus) if the model asked.
    # Trap: replace a result after appending it and it was in the history whole, for a moment.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: the test is `not outcome.is_error and block["name"] != COMPACT_TOOL_NAME and not
# reads_saved(block["name"], block["input"]) and text_tokens(output) > limit`; build the result list first and
# call messages.append(user(results)) once, as chapter 04 does.

# %%
my_finish_offloading = check(my_finish_offloading)

# %% [markdown]
# Yours now ends every round of one request: read the twelve files under `agents/` and summarise them.

# %%
def one_request(toolbox_for, limit=None, **options):
    """READ_AGENTS on a fresh twelve-file workspace; with ``limit``, every round ends with yours."""
    folder = WORK / ("twelve_offloaded" if limit else "twelve_plain")
    workspace = TWELVE_FILES.build(folder / "workspace")
    client = fake_client(**options)
    loop = partial(run_agent, finish=partial(my_finish_offloading, limit=limit)) if limit else run_agent
    session = Session(client, toolbox_for(workspace, client), CompactionConfig(transcript_dir=folder / "tr"),
                      compactor=ThreeLayers(), loop=loop)
    session.ask(READ_AGENTS)
    return session, workspace


plain, _ = one_request(lambda ws, client: PartReadingToolbox(ws))
offloaded, twelve_ws = one_request(lambda ws, client: PartReadingToolbox(ws), limit=1_000)
saved_files = sorted(p.name for p in twelve_ws.resolve(OFFLOAD_FOLDER).iterdir())
first_result = next(b["content"] for m in offloaded.messages if isinstance(m["content"], list)
                    for b in m["content"] if b["type"] == "tool_result" and "saved to" in b["content"])
print(first_result.split("\n")[0])
print(f"files saved: {len(saved_files)}; calls: {len(plain.trace)} plain, {len(offloaded.trace)} offloaded; "
      f"largest context: {max(t.counted for t in plain.trace):,} plain, {max(t.counted for t in offloaded.trace):,} offloaded")

# %% [markdown]
# **Twelve files go to disk and the context stays small.** The largest request drops from about 24,000
# tokens to about 2,000, and the model never saw a whole file.
#
# Here the previews were enough: each file's docstring is in its first lines, all a summary needs. A
# task that needs a line further down pays a call to read it back (section 5).
#
# **Holds for:** *any model* (a saved result is never sent); *this fake* (what it needs to read back).

# %% jupyter={"source_hidden": true}
assert len(saved_files) == 12 and saved_files[0] == "001_read_file.txt"
assert first_result.startswith("[Output of read_file (") and "Lines 1-6 below" in first_result.split("\n")[0]
assert 23_500 < max(t.counted for t in plain.trace) < 24_500 and 1_500 < max(t.counted for t in offloaded.trace) < 2_500
assert len(offloaded.trace) == len(plain.trace) and not any(OFFLOAD_FOLDER in str(i) for _, i in offloaded.tool_calls)

# %% [markdown]
# ## 2 · A sub-agent for the search-heavy work
#
# **A sub-agent spends its own context, and the parent keeps only the report.** The `task` tool starts a
# child with a fresh history holding only the prompt, its own budget and turn limit. Its report comes
# back as one tool result; its whole conversation goes to `transcripts/subagents/`.
#
# Claude Code's sub-agents work in their own context window and return a summary [4]; Deep Agents'
# parent gets one message, the child's last reply [2].

# %%
delegated, _ = one_request(lambda ws, client: SubagentToolbox(Toolbox(ws), client, CompactionConfig(
    transcript_dir=WORK / "twelve_plain" / "tr")))
[child] = delegated.toolbox.runs
print(f"parent's tool calls: {[name for name, _ in delegated.tool_calls]}; child: {child.calls} calls, "
      f"stopped: {child.stop}; largest parent context: {max(t.counted for t in delegated.trace):,}")
print(child.report.split("\n")[0])
seen_by_child = child.transcript.read_text(encoding="utf-8")
print(f"VERSION_TAG in the child's transcript: {'VERSION_TAG' in seen_by_child}; in its report: "
      f"{'VERSION_TAG' in child.report}")

over, _ = one_request(lambda ws, client: SubagentToolbox(Toolbox(ws), client, CompactionConfig(
    transcript_dir=WORK / "twelve_plain" / "tr"), budget=10_000))
print(f"with a child budget of 10,000: child stopped {over.toolbox.runs[0].stop}; the parent then made "
      f"{len(over.tool_calls) - 1} tool calls itself")

# %% [markdown]
# **The parent's context holds a report, not twelve files.** Its largest request is under 1,500
# tokens; the child read the folder in 3 calls.
#
# The report drops a detail: every file's `VERSION_TAG` is in the child's transcript, none is in its
# report. A later question about a tag costs the parent a read of its own.
#
# A child that runs out of budget comes back as an error result, and the parent does the work itself:
# at a budget of 10,000 tokens it made 13 tool calls of its own.
#
# **Holds for:** *this design* (a fresh history, one result back).

# %% jupyter={"source_hidden": true}
assert [name for name, _ in delegated.tool_calls] == [SUBAGENT_TOOL_NAME] and child.calls == 3
assert child.stop == "end_turn" and max(t.counted for t in delegated.trace) < 1_500
assert "VERSION_TAG" in seen_by_child and "VERSION_TAG" not in child.report
assert over.toolbox.runs[0].stop == "over_budget" and len(over.tool_calls) - 1 == 13

# %% [markdown]
# ## 3 · What comes back after compaction
#
# **A summary keeps what the summariser chose; production agents put the rest back.** Users of Claude
# Code and Codex report agents that forget an instruction after compaction [5, 6]. Claude Code re-reads
# its instruction files and recently read files after a summary [7].
#
# Here the user's standing instructions come back first, oldest first: each message that opens with
# "From now on", "Always" or "Never". Then the files read most recently, newest first, at most five,
# each as it is on disk now. All of it within a token budget.

# %%
history = [user(LONG_SESSION.requests[1]), *offloaded.messages[1:5]]
restore = what_to_restore(history)
print(restore)

# %% [markdown]
# **Write it.** Start with `RESTORED_HEADER`; add `instruction_entry(text)` for each instruction, then
# `file_entry(path, content)` for each file that can still be read. Count each entry with `text_tokens`
# against what is left of the budget; skip what does not fit. Nothing fits: return None.

# %% tags=["stub"]
def my_reinjection(restore, workspace, budget, max_files):
    """The text to put back after a summary: the header, the instructions oldest first, then up to
    ``max_files`` files newest first as they are now, at most ``budget`` tokens of entries; None if none fit."""
    # Instructions first, then files, each entry counted with text_tokens against what is left.
    # Trap: a file may be gone (workspace.read_file raises); skip it, and do not count it as a file.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: keep `left = budget` and `files = 0`; for a file, `try: content = workspace.read_file(path)` `except
# (OSError, UnicodeError, PathEscape): continue`; stop the files at max_files; join with "\n\n".

# %%
my_reinjection = check(my_reinjection)

# %%
restored = my_reinjection(restore, twelve_ws, 8_000, 5)
print(f"{text_tokens(restored):,} tokens put back:", [line for line in restored.split("\n")
                                                      if line.startswith(("Standing", "File "))])

# %% [markdown]
# **The rule comes back word for word**, then the files read last, as many as fit: four of twelve. A
# model that sees only the new history still has them.
#
# **Holds for:** *any model* (only what is in the context can be followed).

# %% jupyter={"source_hidden": true}
assert restore.instructions == (LONG_SESSION.requests[1],) and restored.startswith(RESTORED_HEADER)
assert restored.count("Standing instruction") == 1 and restored.count("\nFile ") == 4 and len(restore.recent_files) == 12
assert text_tokens(restored) <= 8_000 + text_tokens(RESTORED_HEADER)

# %% [markdown]
# ## 4 · A summary over the cached prefix
#
# **Chapter 03's summary request is a new prompt, so nothing of it is cached.** Send instead the agent's
# own system prompt, tools and messages, with one instruction at the end. The request then starts as the
# last agent call did, and the provider's cache serves the history at a tenth of the price.
#
# Codex's remote compaction sends its usual input with a `CompactionTrigger` item after it [8]; users
# complain of the cost of the other way [9, 10].

# %%
system, tools = "You are a coding agent.", Toolbox(twelve_ws).schemas
shared = prefix_sharing_request(history, CompactionConfig(), None, system=system, tools=tools)
fresh = tail_request(history, CompactionConfig(), None)
print(f"shared prefix: the history's {len(history)} messages, then 1 more; chapter 03's: "
      f"{len(fresh['messages'])} message, no system, no tools")

# %% jupyter={"source_hidden": true}
assert shared["messages"][:-1] == history and shared["tools"] == tools and shared["system"] == system
assert len(fresh["messages"]) == 1 and "tools" not in fresh and "system" not in fresh

# %% [markdown]
# **Holds for:** *any model* served by a prefix cache (the request matches what was cached).

# %% [markdown]
# ## 5 · All five on one session
#
# Each row adds one technique to the row before, on all 71 requests, with caching on every call. The
# threshold is 20,000 tokens, so even offloaded rows compact (exercise 4 tries chapter 05's 50,000); the
# three-layer row is chapter 05's agent.

# %%
runs, sweep = run_rows(WORK / "rows", reinject=my_reinjection)
print(f"{'row':24} {'calls a/c/s':>12} {'compactions':>11} {'cache read':>11} {'write':>9} {'uncached':>9} "
      f"{'output':>7} {'USD':>6}  rule kept")
for run in runs:
    calls = "/".join(str(run.count(kind)) for kind in ("agent", "child", "summary"))
    print(f"{run.name:24} {calls:>12} {run.compactions:>11} {run.tokens('cache_read'):>11,} "
          f"{run.tokens('cache_write'):>9,} {run.tokens('uncached'):>9,} {run.tokens('output'):>7,} "
          f"{run.dollars():>6.3f}  {'yes' if run.keeps_the_rule else 'no'}")
display(rows_figure(runs, "the long session, five ways (cached, Claude Haiku 4.5 prices)"))
plt.close("all")

# %% [markdown]
# What each row buys, and what it costs:
#
# | row | buys | costs |
# |---|---|---|
# | three layers | the session runs | 8 summaries, 44 re-reads |
# | + offloading | 3 summaries, almost a quarter off the bill | a call each time a saved part is read back |
# | + sub-agent | 2 summaries, 10 re-reads | the children's calls, none of them cached; a report without the tags |
# | + re-injection | the rule about `tools/` is kept | the restored tokens, in every call |
# | + cached-prefix summary | summaries at the cache-read price | longer summaries, as the fake writes them |
#
# **Offloading buys the most.** It takes the bill from USD 0.62 to 0.47, almost a quarter off, and the
# summaries from 8 to 3; each saved result read back is one more call.
#
# **The sub-agent makes this session dearer.** Its four children cost USD 0.13 and read nothing from the
# cache; the parent, already small, saves less. A sub-agent pays when the parent's context is scarce.

# %% jupyter={"source_hidden": true}
plain_row, offload_row, child_row, reinject_row, cached_row = runs
assert [r.compactions for r in runs] == [8, 3, 2, 3, 3] and [r.re_reads for r in runs][:3] == [44, 24, 10]
assert (f"{plain_row.dollars():.2f}", f"{offload_row.dollars():.2f}") == ("0.62", "0.47")
assert 0.22 < 1 - offload_row.dollars() / plain_row.dollars() < 0.25  # almost a quarter off
assert offload_row.read_backs > 0 and offload_row.count("agent") > plain_row.count("agent")
assert len(child_row.child_stops) == 4 and round(child_row.dollars("child"), 2) == 0.13
assert child_row.tokens("cache_read", "child") == 0 and child_row.dollars() > offload_row.dollars()

# %% [markdown]
# **Only re-injection keeps the rule.** The last request asks for an edit under `tools/`, which the user
# forbade in request 2; every row before it makes the edit, this one refuses. It adds USD 0.07.
#
# **The cached prefix cuts the summaries' price.** Three summaries cost USD 0.04 instead of 0.10, read
# from the cache; the fake, shown the whole history, writes each to its 2,000-token budget.
#
# **Holds for:** *this design* (the rows' order, the threshold); *this fake* (its reads back, its
# children, its summaries' length).

# %% jupyter={"source_hidden": true}
assert [r.keeps_the_rule for r in runs] == [False, False, False, True, True]
assert f"{reinject_row.dollars() - child_row.dollars():.2f}" == "0.07"
assert (f"{cached_row.dollars('summary'):.2f}", f"{reinject_row.dollars('summary'):.2f}") == ("0.04", "0.10")
assert cached_row.tokens("cache_read", "summary") > 0 == reinject_row.tokens("cache_read", "summary")
assert [c.output for c in cached_row.of("summary")] == [2_000] * 3

# %% [markdown]
# **The limit decides what is saved.** Each file's read is just under 2,000 tokens: at a limit of 2,000
# almost nothing is saved, and the session compacts as often as with the three layers alone.

# %%
def limit_view(limit):
    run = sweep[limit]
    line = (f"limit {limit:,}: {run.saved} results saved, {run.read_backs} read back, {run.compactions} "
            f"compactions, USD {run.dollars():.3f} (three layers: {plain_row.compactions}, "
            f"USD {plain_row.dollars():.3f})")
    return line, limit_figure(sweep, limit, plain_row)


print({limit: (run.saved, run.compactions) for limit, run in sweep.items()})

# %% jupyter={"source_hidden": true}
assert list(sweep) == list(LIMITS) and sweep[1_000] is offload_row
assert sweep[2_000].compactions == plain_row.compactions == 8 and sweep[2_000].saved <= 2
assert all(1_500 < text_tokens(twelve_ws.read_file(p)) < 2_000 for p in restore.recent_files)

# %% tags=["nbval-ignore-output"]
limit_panel = panel(limit_view, limit=SelectionSlider(options=[(f"{x:,}", x) for x in LIMITS], value=1_000,
                                                      description="offload over"))

# %% [markdown]
# ## Summary
#
# - Offloading saves a big result as it is written: on this session, 3 summaries instead of 8 and
#   almost a quarter off the bill, for a call each time a part is read back.
# - A sub-agent spends its own context; here its uncached calls cost more than the parent saved.
# - Re-injection alone kept the user's rule through the summaries.
# - A summary sent over the cached prefix is read from the cache.

# %% jupyter={"source_hidden": true}
assert (plain_row.compactions, offload_row.compactions) == (8, 3) and reinject_row.keeps_the_rule

# %% [markdown]
# ## Exercises
#
# ### 1. When offloading stops helping
# What is the largest limit of `LIMITS` at which offloading alone compacts less often than the three
# layers? Use the slider.

# %% tags=["answer"]
ex1_limit = None  # e.g. 250

# %%
answer("ex1_limit", ex1_limit)

# %% [markdown]
# ### 2. A budget too small
# With a re-injection budget of 10 tokens (`run_row(3, ..., budget=10)`), is the edit under `tools/`
# still refused? Predict, then run it.

# %% tags=["answer"]
ex2_kept = None  # True or False

# %%
answer("ex2_kept", ex2_kept)

# %% [markdown]
# ### 3. Children over budget
# With a child budget of 10,000 tokens (`run_row(2, ..., child_budget=10_000)`), how many of the four
# sub-agents stop over their budget?

# %% tags=["answer"]
ex3_over = None  # an int

# %%
answer("ex3_over", ex3_over)

# %% [markdown]
# ### 4. At chapter 05's threshold
# At a threshold of 50,000 tokens (`run_row(1, ..., threshold=50_000)`), how many times does offloading
# alone compact over the whole session?

# %% tags=["answer"]
ex4_compactions = None  # an int

# %%
answer("ex4_compactions", ex4_compactions)

# %% [markdown]
# ## Recap
#
# Answer each, then compare with `RECAP` in `harness/labs/solutions/ch13.py`.
#
# 1. Why does offloading save tokens that micro-compaction cannot?
# 2. What is wrong with appending a big result and replacing it right after?
# 3. What does a sub-agent cost, and when does it pay?
# 4. Why does re-injection keep the rule when the summary does not?
# 5. Why is a summary sent over the cached prefix cheaper than chapter 03's?

# %% [markdown]
# ## Sources
#
# 1. anthropics/claude-code, `CHANGELOG.md`, version 2.1.51 — https://github.com/anthropics/claude-code/blob/main/CHANGELOG.md ("Tool results larger than 50K characters are now persisted to disk"; the preview's size is not stated)
# 2. langchain-ai/deepagents, `libs/deepagents/deepagents/middleware/filesystem.py` at commit `23b83ad5` — https://github.com/langchain-ai/deepagents (`tool_token_limit_before_evict = 20000`, results saved under `/large_tool_results/`; a sub-agent's last message returned to the parent)
# 3. Cursor, "Dynamic context discovery" — https://cursor.com/blog/dynamic-context-discovery (long tool responses turned into files)
# 4. Anthropic, "Create custom subagents" — https://code.claude.com/docs/en/sub-agents (a sub-agent's own context window; only its summary returns)
# 5. anthropics/claude-code issues 4017, 19736 and 68636 — https://github.com/anthropics/claude-code/issues/4017 (instructions forgotten after compaction)
# 6. openai/codex issue 18720 — https://github.com/openai/codex/issues/18720 (task details lost after compaction)
# 7. Anthropic, Claude Code documentation, the table "What survives compaction" — https://code.claude.com/docs/en/context-window (instruction files, the plan and up to five recently read files come back; read here only as quoted by secondary sources, not verified on the page itself)
# 8. openai/codex, `codex-rs/core/src/compact_remote_v2.rs` at commit `009bd870` — https://github.com/openai/codex (`ResponseItem::CompactionTrigger` after the usual input; `RETAINED_MESSAGE_TOKEN_BUDGET = 64_000`)
# 9. anomalyco/opencode issue 48542 — https://github.com/anomalyco/opencode/issues/48542 (cache writes never read)
# 10. anthropics/claude-code issue 94197 — https://github.com/anthropics/claude-code/issues/94197 (the summary placed before stable material)
