# %% [markdown]
# # 12 · Summaries that hold up
#
# **Promise:** one long session, five or more compactions in a row: you will watch what each summary
# still knows, compaction after compaction, and test three ways to make summaries hold up: merge into
# the previous summary, check the summary with a second call, and prepare it before it is needed.
#
# Chapter 03 summarised the history when it passed a threshold. After the first compaction, that history
# *starts with a summary*, so every later summary is a summary of a summary. Chapter 08 probed only the
# final history; here we probe every summary on its own, right after it was written.
#
# ## What you will be able to do
#
# - build the *incremental* summary request (the previous summary whole, then the new turns, with an
#   instruction to merge) and check it against the harness;
# - measure how facts drift over many compactions, per strategy, at matched settings (same trigger, same
#   summary budget, same number of characters shown to the summariser), and name the mechanism;
# - price a self-check: a second call that compares the summary with the conversation;
# - prepare the summary ahead of time, and read the wait it saves against the tokens it costs.

# %% [markdown]
# ## Setup
#
# Working files go to `_work/12_better_summaries/`, inside a fresh folder under `_work/` for each run.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's sweeps run on every core: their workers start now, in the background

import json

import matplotlib.pyplot as plt
from IPython.display import display
from ipywidgets import FloatSlider, SelectionSlider

from harness.core.auto import SUMMARY_PROMPT, is_summary, tail_request
from harness.core.messages import check_shape, user
from harness.labs.amnesia import WORK_REQUESTS
from harness.labs.panel import panel
from harness.labs.scratch import own_scratch
from harness.labs.summary_lab import (MATCHED_SETTING, READ_TOKENS_PER_SECOND, WRITE_TOKENS_PER_SECOND, ahead_figure,
                                      ahead_outcomes, blocking_wait, drift_figure, drift_sweep, run_drift,
                                      wait_seconds)
from harness.labs.steps import check
from harness.strategies.incremental_summary import MERGE_PROMPT, IncrementalSummary
from harness.strategies.three_layers import ThreeLayers
from harness.strategies.verified_summary import VERIFY_PROMPT, VerifiedSummary

WORK = own_scratch("12_better_summaries")
assert len(WORK_REQUESTS) == 68
print(f"matched setting: threshold {MATCHED_SETTING.threshold:,} estimated tokens, the summariser shown "
      f"{MATCHED_SETTING.tail_chars:,} characters, summary budget {MATCHED_SETTING.summary_max_tokens:,} tokens")

# %% [markdown]
# ## 1 · The setting: many compactions, matched
#
# The long session of chapter 08 (68 work requests) compacts rarely at s06's threshold of 50,000 tokens.
# To see a chain of summaries we lower the threshold to **20,000** estimated tokens. Every strategy below
# runs with the same trigger, the same summary budget (`summary_max_tokens`, 2,000: the fake cuts any
# longer reply, as the API does) and the same input budget (`tail_chars`, 80,000 characters, s06's value:
# how much the summariser is shown). Only the *request* differs.
#
# After each compaction we put chapter 08's probe to the summary *alone* (the summary message and the
# question, nothing else), asking only the facts the session had heard by then. That isolates what the
# chain of summaries carries forward from what the turns after it show again.

# %% [markdown]
# ## 2 · Build it: the incremental request
#
# Chapter 03's request quotes the last `tail_chars` characters of the history as JSON. After a compaction
# the history's first message is the previous summary, so when the turns since then are longer than
# the tail, the previous summary falls off the head and the new summary can only keep what the tail shows.
#
# The incremental request spends the same budget differently:
#
# 1. a history that does not start with a summary gets chapter 03's request (`tail_request`);
# 2. otherwise: `MERGE_PROMPT` (plus `"\nFocus especially on: ..."` when a focus is given), then the
#    previous summary **whole** between `<previous_summary>` tags (its text after the
#    `[Conversation compressed ...]` line and the blank line), then `<conversation>` tags around the
#    **last** characters of the later messages as JSON, as many as fit in `tail_chars` minus the
#    summary's length (none if the summary fills it);
# 3. the model and `max_tokens` as in chapter 03.
#
# Gemini CLI does the merge with one instruction: when the history it summarises holds an earlier
# `<state_snapshot>`, it asks the model to integrate everything still relevant from it into the new one
# (`packages/core/src/services/chatCompressionService.ts` in google-gemini/gemini-cli at commit
# `02b2885c`, the `anchorInstruction`). Gemini's summariser is shown the whole part of the history it
# compresses (old tool outputs truncated when that is too long), not a tail, and it keeps the newest
# 30% of the history verbatim (`COMPRESSION_PRESERVE_THRESHOLD`); ours keeps nothing verbatim.

# %%
print(MERGE_PROMPT)


# %% [markdown]
# **Write it.** Fill in the stub and run the cell after it: it checks yours against the reference on
# the histories this chapter's incremental session summarises and 640 random ones (with and without a
# summary in front, four tails, one shorter than the summary, with and without a focus), and says *not
# written yet*, where yours differs, or that it passes. Until yours passes, the chapter runs the
# reference (stuck? it is in `harness/labs/solutions/ch12.py`).

# %% tags=["stub"]
def my_merge_request(messages, config, focus):
    """The incremental summary request for a history, as the keyword arguments of ``client.messages.create``.

    A malformed history raises ``check_shape``'s error before anything is built."""
    # check_shape(messages); no summary first (is_summary): return tail_request(messages, config, focus)
    # previous = the first message's content after its first "\n\n"
    # dump = json.dumps(messages[1:], ensure_ascii=False); room = tail_chars - len(previous), at least 0
    # prompt: MERGE_PROMPT (+ the focus line), the previous summary in its tags, then the last `room`
    #     characters of dump in <conversation> tags, each part after "\n\n", each tag on its own line
    # return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(prompt)]}
    raise NotImplementedError("your code here")

# %%
my_merge_request = check(my_merge_request)

# %% [markdown]
# The function the check returned (yours once it passes) now drives the incremental strategy:
# `IncrementalSummary` is the reference three layers with its summary request swapped, so we swap in yours.

# %%
class MyIncremental(ThreeLayers):
    summary_request = staticmethod(my_merge_request)


plain = run_drift("summary_of_summaries", ThreeLayers(), MATCHED_SETTING, WORK)
merged = run_drift("incremental", MyIncremental(), MATCHED_SETTING, WORK)
for run in (plain, merged):
    print(f"{run.key:21} {len(run.points)} compactions, facts kept after each: {run.kept}; "
          f"summary tokens {run.summary_tokens:,}")
display(drift_figure({"summary of summaries": plain.kept, "incremental (yours)": merged.kept},
                     "facts each summary still knows (threshold 20,000; 80,000 chars shown; budget 2,000)"))
plt.close("all")

# %%
assert len(plain.points) == 10 and len(merged.points) == 11
assert plain.kept == [0, 0, 1, 0, 0, 0, 1, 0, 0, 1] and merged.kept == [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2]
assert [p.request for p in plain.points][:3] == [1, 6, 12] and merged.points[1].request == 6
early = {"first file changed", "constraint and its reason", "decision and its reason"}
assert all(set(run.points[1].asked) == early and not run.points[1].kept for run in (plain, merged))
assert all(e.tokens_before * 4 >= 80_000 for e in plain.session.events if e.kind == "auto")

# %% [markdown]
# **Reading it.** Both chains lose the three facts of requests 2 and 3 (the first file changed, the rule
# about `tools/` and its reason) at once: the second summary is written during request 6 and its 80,000
# characters do not reach back to them (*any model*: nothing can keep what it is not shown). After that
# the summary of summaries keeps at most one fact, and never for long: at 20,000 estimated tokens the
# history is at least 80,000 characters (the estimate is characters / 4), so the previous summary at its
# head is cut off every time and each summary knows only its own window. The incremental chain keeps what it once
# learned and ends with 2 facts where the other ends with 1 (*any model*, for the same reason: the
# previous summary is always shown).
#
# What carries over is small in both, and that is *this fake*: its summaries keep the user's requests and
# the files touched, never the agent's answers, so the two tags that lived only in a tool result can
# never survive a summary; and a tag the user set early is only kept while that request is still listed.
#
# **The cost of merging.** The merged summary grows with the session, so it costs more tokens, and
# above all more *output* tokens, the slow ones: with the rates of section 5 (assumptions), the user
# waits far longer for the merged summaries.

# %%
print(f"summary tokens: summary of summaries {plain.summary_tokens:,}, incremental {merged.summary_tokens:,} "
      f"({merged.summary_tokens / plain.summary_tokens:.2f}x); modelled wait {blocking_wait(plain.session)} s "
      f"against {blocking_wait(merged.session)} s")

# %%
assert round(merged.summary_tokens / plain.summary_tokens, 2) == 1.15
assert blocking_wait(plain.session) == 108.9 and blocking_wait(merged.session) > 3 * 108.9

# %% [markdown]
# ## 3 · The knobs: what the summariser is shown, and how long it may write
#
# Two budgets decide what a chain can keep. `tail_chars` is what the summariser is shown; the summary
# budget (`summary_max_tokens`) is how long it may write, and the fake, like the API, cuts a longer
# reply. Both strategies run at every combination below (same trigger each time), once, up front; the
# slider only looks the results up.

# %%
TAILS, BUDGETS = (40_000, 80_000, 160_000), (1_000, 2_000)
grid = drift_sweep({"summary of summaries": ThreeLayers, "incremental": IncrementalSummary}, TAILS, BUDGETS,
                   WORK / "grid")
print({f"{key}, tail {tail:,}, budget {budget:,}": kept[-1] for (key, tail, budget), kept in grid.items()})

# %%
assert grid["summary of summaries", 80_000, 2_000] == plain.kept and grid["incremental", 80_000, 2_000] == merged.kept
assert all(max(grid[key, 40_000, b]) == 0 for key in ("summary of summaries", "incremental") for b in BUDGETS)
assert grid["summary of summaries", 160_000, 2_000] == grid["incremental", 160_000, 2_000] == [0, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4]
assert grid["incremental", 160_000, 1_000] == [0, 3, 2, 0, 0, 0, 0, 0, 0]


# %% [markdown]
# Three things to find with the sliders:
#
# - **40,000 characters**: every summary knows nothing it is asked. The tail never reaches back to the
#   request that said a fact before the next summary is due (*any model*).
# - **160,000 characters, budget 2,000**: the summariser sees the whole history since the last summary,
#   previous summary included, and the two chains are the *same* (4 facts from the third compaction on).
#   In *this fake* a summary of a summary loses nothing it is shown whole, because it copies lines; a real
#   model rewording its own rewording could lose more at each step (unverified here).
# - **160,000 characters, budget 1,000**: drift. The chain knows 3 facts, then 2, then none: each summary
#   lists more requests than the last, the list passes the budget and the reply is cut. *This fake* writes
#   the user's requests last, so the cut takes them first; any model with a bounded summary must drop
#   something, but which facts go first depends on the model.

# %%
def drift_view(tail, budget):
    curves = {key: grid[key, tail, budget] for key in ("summary of summaries", "incremental")}
    line = "; ".join(f"{key}: {len(kept)} compactions, last summary knows {kept[-1]}" for key, kept in curves.items())
    return line, drift_figure(curves, f"shown {tail:,} characters, summary budget {budget:,} tokens")


# %% tags=["nbval-ignore-output"]
drift_panel = panel(drift_view,
                    tail=SelectionSlider(options=[(f"{t:,}", t) for t in TAILS], value=80_000,
                                         description="characters shown"),
                    budget=SelectionSlider(options=[(f"{b:,}", b) for b in BUDGETS], value=2_000,
                                           description="summary budget"))

# %% [markdown]
# ## 4 · A second look: the summary self-check
#
# Gemini CLI follows each summary with a second call (its "probe" verification): the same history, the
# summary it just wrote, and an instruction to check it critically for omitted details, file paths, tool
# results and user constraints, and to write an improved summary or repeat it
# (`chatCompressionService.ts`, same file and commit as above). `VerifiedSummary` does the same: the draft
# between `<draft_summary>` tags, then the conversation, and the instruction to restore what the draft
# omitted. We try it with the same view as the draft (80,000 characters) and with the whole history,
# and compare with a control: one ordinary summary shown the whole history.

# %%
checked_same = run_drift("check_same_view", VerifiedSummary(), MATCHED_SETTING, WORK)
checked_whole = run_drift("check_whole_history", VerifiedSummary(view_chars=10**7), MATCHED_SETTING, WORK)
control = run_drift("one_call_whole_history", ThreeLayers(), MATCHED_SETTING.with_(tail_chars=10**7), WORK)
for run in (plain, checked_same, checked_whole, control):
    print(f"{run.key:22} facts kept after each compaction: {run.kept}; summary tokens {run.summary_tokens:,} "
          f"({run.summary_tokens / plain.summary_tokens:.2f}x)")
display(drift_figure({f"{run.key} ({run.summary_tokens / plain.summary_tokens:.2f}x tokens)": run.kept
                      for run in (plain, checked_same, checked_whole, control)},
                     "the self-check: facts each summary knows, and summary tokens against one plain call"))
plt.close("all")

# %%
assert checked_same.kept == plain.kept and round(checked_same.summary_tokens / plain.summary_tokens, 2) == 2.01
assert checked_whole.kept == [0, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0]
assert control.kept == [0, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4]
assert round(checked_whole.summary_tokens / plain.summary_tokens, 2) == 2.35
assert round(control.summary_tokens / plain.summary_tokens, 2) == 1.24

# %% [markdown]
# **Reading it.**
#
# - Shown the same 80,000 characters, the check recovers **nothing** (its line hides the summary of
#   summaries' line exactly) and doubles the summary tokens
#   (2.01x). *This fake* never overlooks what it is shown, so a second look at the same material finds
#   nothing new. A real model that skips details carelessly could gain from it; we cannot measure that
#   here. What no second look can restore, in *any model*, is what neither call was shown.
# - Shown the whole history, the check restores the three early facts, for 2.35x the tokens, and then
#   loses them again from the eighth compaction on: in *this fake*, the restored requests are appended
#   after the draft's, and the budget cuts the end of the list first.
# - The control, one ordinary call shown the whole history, keeps 4 facts from the third compaction on for
#   1.24x. Here the gain of the check came from what it was shown, not from checking.

# %% [markdown]
# ## 5 · Compaction ahead of time
#
# A summary at the threshold makes the user wait: the summariser reads the whole history and writes the
# summary before the next answer can start. The Anthropic cookbook's session memory compaction builds
# the session memory in a background thread so that compaction is instant when it is needed
# (`misc/session_memory_compaction.ipynb` in anthropics/claude-cookbooks; read in the fork
# KaloyanBorisov/claude-cookbooks at commit `251d6a27`).
#
# `PreparedSummary(prepare_fraction)` writes the summary once the context passes that fraction of the
# threshold and sets it aside with the number of messages it covers. At the threshold the history becomes
# the prepared summary followed, **verbatim**, by every message added since: the turns the summary never
# saw are kept, not lost. A prepared summary the session never reaches the threshold to use was paid for
# and wasted.
#
# **Wait, modelled.** No clock here: a summary call waits for its input to be read at
# **5,000 tokens a second** and its output to be written at **50 tokens a second**. Both rates are
# assumptions, round numbers for a small model; only comparisons at the same rates mean anything. A
# prepared summary is written while the user reads the last answer, so it costs tokens but no wait.

# %%
print(f"rates: {READ_TOKENS_PER_SECOND:,} input tokens/s, {WRITE_TOKENS_PER_SECOND} output tokens/s; "
      f"a 20,000-token history summarised into 2,000 tokens waits {wait_seconds(20_000, 2_000):.0f} s")
FRACTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
ahead = ahead_outcomes(FRACTIONS, WORK / "ahead")
for f, o in ahead.items():
    print(f"prepare at {f:.1f}: {o.swaps:2} swaps, {o.blocking:2} summaries on the spot, wait {o.wait:5.1f} s, "
          f"summary tokens {o.summary_tokens:,} (unused {o.unused_tokens:,}), {o.kept_verbatim} messages kept "
          f"verbatim, input billed {o.billed:,}, last summary knows {o.kept[-1]}")
display(ahead_figure(ahead, 0.7))
plt.close("all")

# %%
assert wait_seconds(20_000, 2_000) == 44
assert ahead[1.0].wait == 108.9 and ahead[1.0].blocking == 10 and ahead[1.0].swaps == 0 and ahead[1.0].kept == tuple(plain.kept)
assert all(ahead[f].wait == 0 and ahead[f].blocking == 0 for f in FRACTIONS[:-1])
assert ahead[0.7].swaps == 14 and ahead[0.7].unused_tokens == 18_750 and ahead[0.8].unused_tokens == 0
assert round(ahead[0.7].summary_tokens / ahead[1.0].summary_tokens, 2) == 1.23
assert round(ahead[0.7].billed / ahead[1.0].billed, 2) == 1.24
assert [ahead[f].kept[-1] for f in FRACTIONS] == [4, 4, 4, 5, 0, 1]

# %% [markdown]
# **Reading it.**
#
# - Summarising at the threshold makes the user wait 108.9 s over the session's 10 summaries; preparing
#   at any fraction below 1 brings the wait to 0 (*any model*: the wait moved off the user's path; the
#   number is only as good as the assumed rates).
# - It costs tokens. At 0.7 the session swaps 14 times instead of compacting 10 times (the verbatim turns
#   fill the context again sooner), spends 1.23x the summary tokens and bills 1.24x the input tokens in
#   all; 18,750 tokens went into a summary prepared after the last swap and never used. At 0.8 nothing
#   was wasted: the session ended before the next summary was due. (*Any model*: turns kept verbatim
#   fill the context again sooner, and a summary prepared early may never be needed.) The wait counts
#   only summaries: every call after a swap also reads those verbatim turns, which is the 1.24x billed.
# - It kept more: at 0.8 or below the last summary knows 4 or 5 facts instead of 1, but at 0.9 it knows
#   none. Not because it was early as such: a summary written at 0.8 of the threshold is written from a
#   history short enough for the 80,000 characters to reach its head, the previous summary included; at
#   0.9 they no longer do (*any model*, the same cause as in section 2).
#
# Move the slider: 1.0 is chapter 03's compaction at the threshold.

# %%
def ahead_view(fraction):
    o = ahead[fraction]
    line = (f"prepare at {fraction:.1f}: wait {o.wait:.1f} s, {o.swaps} swaps + {o.blocking} on the spot, "
            f"summary tokens {o.summary_tokens:,} (unused {o.unused_tokens:,}), last summary knows {o.kept[-1]}")
    return line, ahead_figure(ahead, fraction)


# %% tags=["nbval-ignore-output"]
ahead_panel = panel(ahead_view, fraction=SelectionSlider(options=[(f"{f:.1f}", f) for f in FRACTIONS], value=0.7,
                                                         description="prepare fraction"))

# %% [markdown]
# ## Summary
#
# - You wrote the incremental request, `my_merge_request`, checked against the reference; it drove the
#   incremental runs of section 2 once it passed.
# - At matched settings (threshold 20,000, 80,000 characters shown, budget 2,000), a summary of summaries
#   kept at most 1 fact after any of its 10 compactions; the incremental merge, which always shows the
#   previous summary, kept 2 at the end, for 1.15x the summary tokens and over 3 times the modelled wait
#   (*any model*: a summariser keeps only what it is shown; a longer summary takes longer to write).
# - Facts drift in two ways: the input budget cuts what the summariser sees (40,000 characters: nothing
#   survives), and the summary budget cuts what it writes (160,000 characters shown but 1,000 tokens to
#   write: 3 facts, then 2, then none).
#   Which facts the second cut takes first is *this fake*'s order.
# - A self-check shown the same material recovered nothing for 2.01x the tokens (*this fake* never
#   overlooks); shown the whole history it recovered 3 facts for 2.35x, while one plain call shown the
#   whole history kept 4 for 1.24x.
# - Preparing the summary at 0.7 of the threshold took the modelled wait from 108.9 s to 0, for 1.23x the
#   summary tokens (18,750 of them never used) and 1.24x the input billed; the turns after preparation
#   stay verbatim.

# %%
assert max(plain.kept) == 1 and merged.kept[-1] == 2

# %% [markdown]
# ## Exercises
#
# ### 1. Where the chain breaks
# At the matched setting the summary of summaries loses its previous summary every time. Find the
# smallest `tail_chars` in `(80_000, 90_000, 100_000, 120_000)` at which `ThreeLayers` keeps at least
# 3 facts after its last compaction (threshold and budget as in `MATCHED_SETTING`).
#
# *Hint:* at 20,000 estimated tokens the history is about 80,000 characters as `str` (chapter 01);
# how long is it as JSON, with the summary's header in front?

# %%
ex1_tail = None  # e.g. 80_000

# %%
if ex1_tail is None:
    print("Exercise 1: fill in ex1_tail, then run this cell.")
else:
    found = next(t for t in (80_000, 90_000, 100_000, 120_000)
                 if run_drift(f"ex1_{t}", ThreeLayers(), MATCHED_SETTING.with_(tail_chars=t), WORK).kept[-1] >= 3)
    assert ex1_tail == found, f"not quite: the first tail that keeps 3 facts is {found:,}"
    print(f"Exercise 1: correct; from {found:,} characters on, the previous summary stays in view.")

# %% [markdown]
# ### 2. A summary that never pays off
# Which prepare fractions of `FRACTIONS` spent tokens on a summary that was never swapped in? Write
# the set.
#
# *Hint:* look at `unused_tokens` in `ahead`.

# %%
ex2_wasted = None  # e.g. {0.9}

# %%
if ex2_wasted is None:
    print("Exercise 2: fill in ex2_wasted, then run this cell.")
else:
    truth = {f for f, o in ahead.items() if o.unused_tokens}
    assert set(ex2_wasted) == truth, "not quite: check unused_tokens fraction by fraction"
    print(f"Exercise 2: correct; {len(truth)} fractions paid for a summary they never used.")

# %% [markdown]
# ### 3. Merge, with a smaller summary budget
# Predict how many facts the *incremental* chain's last summary knows at the matched setting but with a
# summary budget of 1,000 tokens; then the cell checks with `grid`.

# %%
ex3_kept = None  # an int

# %%
if ex3_kept is None:
    print("Exercise 3: fill in ex3_kept, then run this cell.")
else:
    truth = grid["incremental", 80_000, 1_000][-1]
    assert ex3_kept == truth, f"not quite: it knows {truth}"
    print("Exercise 3: correct; the merged summary outgrew the budget and its requests were cut.")

# %% [markdown]
# ### 4. The self-check's request
# Write `my_verify_request`, the second call of section 4: what `VerifiedSummary` sends once the draft is
# written. The check compares it with the reference on the chapter's histories and 640 random ones; nothing
# after depends on it.

# %% tags=["stub"]
def my_verify_request(messages, draft, config, view_chars=None):
    """The self-check request for a history and its draft summary, as the keyword arguments of
    ``client.messages.create``; ``view_chars`` (a positive int, or None: ``config.tail_chars``, what the
    draft was written from) is how much of the history the check is shown.

    A malformed history raises ``check_shape``'s error before anything is built."""
    # check_shape(messages); view = view_chars, or config.tail_chars when it is None
    # prompt: VERIFY_PROMPT, the draft in <draft_summary> tags, then the last `view` characters of
    #     json.dumps(messages, ensure_ascii=False) in <conversation> tags (parts and tags as in section 2)
    # the model and max_tokens of the draft's request, the prompt as the one user message
    raise NotImplementedError("your code here")

# %%
my_verify_request = check(my_verify_request)

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch12.py`).
#
# 1. Why does the summary of summaries keep at most one fact at the matched setting?
# 2. In `my_merge_request`, what would `dump[-room:]` show when the previous summary fills `tail_chars`?
# 3. Why does the incremental summary cost more output tokens, and more wait, than a summary of summaries?
# 4. Why did the self-check shown the same 80,000 characters recover nothing, and where did the gain of the
#    check shown the whole history come from?
# 5. What does preparing the summary ahead of time save, and what does it cost?
