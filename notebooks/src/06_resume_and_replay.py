# %% [markdown]
# # 06 · Resume and replay
#
# **The promise:** a compacted session can stop and resume with exactly the history it had, if the
# resume replays each compaction. You run one with `harness.session`, stop it, and inspect two resumes:
# a naive one that silently restores the whole old history, and a replay.
#
# By the end of this chapter you will be able to:
#
# - decide when to compact from the usage a round reported, cache fields included;
# - say what `replace_history` keeps, and why no tool call loses its result;
# - explain why a naive resume undoes compaction without an error;
# - replay a log by hand (exercise 1).
#
# **Reading time:** about 30 minutes (stubs included).

# %% [markdown]
# ## Setup
#
# The session is the long session's first 8 requests: read two folders of twelve files, obey a rule
# about `tools/`, edit, answer, count lines. It compacts twice with the **usage-triggered design** and
# logs every message; the baseline runs without compaction.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import copy
import json

import matplotlib.pyplot as plt
from anthropic.types import Usage
from IPython.display import display
from ipywidgets import IntSlider

from harness import (CompactionConfig, assistant, count_tokens, is_summary, iter_tool_results, micro_compact,
                     text_of, tool_result, tool_use, user, validate_messages)
from harness.fake import fake_client
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.labs.strip import message_parts, strip_figure
from harness.session.records import read_log
from harness.session.replacement import (SUMMARY_HEADER, decide_compaction, describe_replacement,
                                         plan_replacement, replace_history, reported_total)
from harness.session.resume import reopen, replay, resume, resume_naive
from harness.session.retry import RetryPolicy
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.usage_triggered import UsageTriggered

WORK = own_scratch("06_resume_and_replay")  # a fresh folder of its own for each run
REQUESTS = LONG_SESSION.requests[:8]
NO_WAIT = RetryPolicy(sleep=lambda seconds: None)  # no summary fails here; chapter 07 makes them fail
CONFIG = CompactionConfig()

strategy = UsageTriggered(retry=NO_WAIT)
session = run_scenario(LONG_SESSION, CONFIG, WORK / "main", requests=REQUESTS, log=True, compactor=strategy)
LOG = WORK / "main" / "session.jsonl"
baseline = run_scenario(LONG_SESSION, CompactionConfig(micro=False, auto=False), WORK / "baseline",
                        requests=REQUESTS)
print(f"{len(REQUESTS)} requests; with compaction: {session.stats}")
print(f"without: {baseline.stats.model_calls} calls, peak context {baseline.stats.peak_context:,} tokens, "
      f"{baseline.stats.re_reads} re-reads")

# %% jupyter={"source_hidden": true}
assert len(REQUESTS) == 8
assert session.stats.compactions == {"history_compacted": 2}
assert (baseline.stats.model_calls, baseline.stats.peak_context, baseline.stats.re_reads) == (15, 49_647, 0)
assert (session.stats.model_calls, session.stats.re_reads, session.stats.reads_after_edit) == (19, 2, 2)
assert max(len(t.tools) for t in baseline.trace) == 12  # a folder's twelve reads go out in one call

# %% [markdown]
# ## 1. When to compact: the usage the provider reported
#
# After every call, Claude's API reports a `usage`. Its input comes in three fields: `input_tokens` is
# the part neither read from nor written to the prompt cache, the two `cache_*` fields the rest; the
# whole input is their sum [1, 2].
#
# The usage-triggered design decides from that reported total, never from an estimate, in order:
#
# 1. no usage reported: no decision (a guess could compact for nothing);
# 2. the total is below the threshold, 8,000 tokens here: no;
# 3. fewer than 4 items in the history: nothing worth compacting;
# 4. otherwise compact, with a reason naming the total and the threshold.
#
# One case of each kind; only the last compacts:

# %%
cases = {"no usage": (None, 40), "below": (7_999, 40), "too short": (50_000, 3), "reached": (8_000, 4)}
decisions = {name: decide_compaction(total, 8_000, items) for name, (total, items) in cases.items()}
for name, decision in decisions.items():
    print(f"{name:10} compact={decision.compact!s:5}  {decision.reason}")

# %% jupyter={"source_hidden": true}
assert [d.compact for d in decisions.values()] == [False, False, False, True]
assert decisions["reached"].reason == "reported usage 8,000 tokens reached the threshold 8,000"
assert strategy.threshold == 8_000

# %% [markdown]
# With caching on, a long conversation is mostly read from the cache, so `input_tokens` alone can be a
# dozen tokens out of thousands: a rule reading only it never compacts. In the made-up usage below, input
# plus output is 92 tokens; all four fields give 9,992.
#
# The fake reports 0 in both cache fields, as the API does when nothing is marked for caching.

# %%
cached_round = Usage(input_tokens=12, cache_read_input_tokens=9_500, cache_creation_input_tokens=400,
                     output_tokens=80)
naive_total = cached_round.input_tokens + cached_round.output_tokens
print(f"input + output only: {naive_total:,} -> {decide_compaction(naive_total, 8_000, 40).reason}")
print(f"all four fields:     {reported_total(cached_round):,} -> "
      f"{decide_compaction(reported_total(cached_round), 8_000, 40).reason}")
fake_usage = fake_client().messages.create(model=CONFIG.model, max_tokens=50, messages=[user("Hello")]).usage
print("what the fake reports:", fake_usage.input_tokens, "input,", fake_usage.output_tokens, "output, cache fields",
      fake_usage.cache_read_input_tokens, fake_usage.cache_creation_input_tokens)

# %% jupyter={"source_hidden": true}
assert (naive_total, reported_total(cached_round)) == (92, 9_992)
assert not decide_compaction(naive_total, 8_000, 40).compact and decide_compaction(9_992, 8_000, 40).compact
assert fake_usage.cache_read_input_tokens == 0 and fake_usage.cache_creation_input_tokens == 0
assert reported_total(fake_usage) == fake_usage.input_tokens + fake_usage.output_tokens

# %% [markdown]
# **Holds for:** *any model* on this API (adding the cache fields); *this design* (the threshold).
#
# ## 2. What to keep: one summary and the user's own words
#
# To compact, `replace_history(messages, summary)` builds a new history:
#
# - one **summary**, a user message starting `[Conversation compressed`;
# - the user's recent requests **verbatim**, newest first while they fit in 20,000 characters (the
#   newest always);
# - nothing else: assistant messages, tool calls and tool results go *whole*, so no call loses its result.
#
# The API merges consecutive user messages, so the result is valid [1]. The function is pure: it leaves
# its input untouched. Try it on a small history:

# %%
history = [
    user("Read a.py"),
    assistant([tool_use("t1", "read_file", {"path": "a.py"})]),
    user([tool_result("t1", "print('a')")]),
    assistant("a.py prints a."),
    user("From now on, never edit b.py."),
    assistant("Understood."),
    user("Count the lines of a.py"),
    assistant([tool_use("t2", "bash", {"command": "wc -l a.py"})]),
    user([tool_result("t2", "1 a.py")]),
]
snapshot = copy.deepcopy(history)
replaced = replace_history(history, "The user asked to read a.py; it prints a.")
for message in replaced:
    print(message["role"], "|", text_of(message).replace("\n", " ")[:100])
validate_messages(replaced)

# %% [markdown]
# As strips: behind the new summary, only the user's three requests (blue) survive.

# %%
display(strip_figure({"before": history, "after replace_history": replaced},
                     title="replace_history on a small history"))

# %% jupyter={"source_hidden": true}
assert [text_of(m) for m in replaced[1:]] == ["Read a.py", "From now on, never edit b.py.", "Count the lines of a.py"]
assert replaced[0]["content"].startswith(SUMMARY_HEADER) and is_summary(replaced[0])
assert history == snapshot  # pure: the input is untouched
assert {p.kind for p in message_parts(replaced)} == {"summaries", "user text"}

# %% [markdown]
# The budget has two edges: with 25 characters only the newest request (23) fits, and a 30,000-character
# request is kept alone, though over. A second compaction folds the old summary into the new one.
#
# Codex keeps the user's words too, on two paths with budgets in tokens. Its local summary keeps up to
# `COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000` [3]; its remote path (v2), where OpenAI's server writes an
# encrypted compaction item, keeps up to `RETAINED_MESSAGE_TOKEN_BUDGET = 64_000` [5].

# %%
tight = replace_history(history, "s", budget_chars=25)
huge = replace_history(history + [assistant("ok"), user("x" * 30_000)], "s")
again = replace_history(replaced + [assistant("ok"), user("And b.py?")], "second summary")
print("budget 25 keeps:", [text_of(m) for m in tight[1:]])
print("a 30,000-char request keeps:", [len(text_of(m)) for m in huge[1:]], "chars")
print("after a second compaction:", sum(is_summary(m) for m in again), "summary,", len(again) - 1, "user messages")

# %% jupyter={"source_hidden": true}
assert [text_of(m) for m in tight[1:]] == ["Count the lines of a.py"] and strategy.budget_chars == 20_000
assert len("Count the lines of a.py") == 23
assert [len(text_of(m)) for m in huge[1:]] == [30_000]
assert sum(is_summary(m) for m in again) == 1 and len(again) == 5

# %% [markdown]
# ## 3. Between rounds only
#
# `UsageTriggered` is a `Compactor` (chapter 05) that acts in `after_round`, once a round's tool results
# are logged, so no call waits for its result. It decides from that round's usage, replaces the history
# and logs **one** compaction record holding the summary. A round that ends the turn is left alone.
#
# The summariser sees the last 80,000 characters, the s06 agent's rule [4], of histories over 100,000;
# the user's words survive anyway, beside the summary. Each compaction record follows a message of tool
# results:

# %%
records = read_log(LOG).records
compaction_at = [i for i, r in enumerate(records) if r["kind"] == "compaction"]
before_compaction = [records[i - 1]["message"] for i in compaction_at]
summarised_chars = [len(json.dumps(replay(records[:i]), ensure_ascii=False)) for i in compaction_at]
events = [e for e in session.events if e.kind == "history_compacted"]
agent_calls = {t.call: t for t in session.trace if t.kind == "agent"}
for event, chars in zip(events, summarised_chars):
    d = event.detail
    print(f"after call {event.call:>2}: reported {d['reported_tokens']:,} >= {d['threshold']:,}; "
          f"items {d['items_before']:>2} -> {d['items_kept']} (removed {d['items_removed']}); "
          f"history sent to the summariser: {chars:,} chars")

# %% jupyter={"source_hidden": true}
assert len(compaction_at) == len(events) == 2
assert all(m["role"] == "user" and all(b["type"] == "tool_result" for b in m["content"]) for m in before_compaction)
assert all(e.detail["reported_tokens"] == agent_calls[e.call].input_tokens + agent_calls[e.call].output_tokens
           >= 8_000 for e in events)
assert CONFIG.tail_chars == 80_000 and summarised_chars == [103_905, 122_303]

# %% [markdown]
# Compacting after the fact overshoots: a round's usage is known only once it is over, and twelve
# parallel reads fill one round. The session peaks at 29,398 tokens, the baseline at 49,647.
#
# It also costs calls, 19 against 15: each extra one re-reads a file summarised away, twice one just
# edited. The fake re-reads whatever is out of view; a real model might guess or ask.

# %%
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot([t.input_tokens for t in baseline.trace], label="no compaction", color="tab:gray")
ax.plot([t.input_tokens for t in session.trace if t.kind == "agent"], label="usage-triggered", color="tab:blue")
ax.axhline(8_000, color="tab:red", linestyle="--", label="threshold 8,000")
ax.set_xlabel("agent call")
ax.set_ylabel("input tokens reported")
ax.set_title("First 8 requests of the long session")
ax.legend()
plt.show()

# %% jupyter={"source_hidden": true}
assert session.stats.model_calls - baseline.stats.model_calls == 4 == session.stats.re_reads + session.stats.reads_after_edit
assert (max(t.input_tokens for t in baseline.trace), session.stats.peak_context) == (49_647, 29_398)

# %% [markdown]
# **Holds for:** *this fake* (twelve reads in one round; the extra reads).
#
# ## 4. Stop, then resume the naive way
#
# Say the process stops here and only the log survives. The naive resume reads back every logged
# message, so it returns the **uncompressed** history: 38 messages where the live one had 15.
#
# Nothing fails: the history is valid, and the next call just costs 57,585 tokens instead of 5,064.
# Compaction quietly stops working across runs.

# %%
naive = resume_naive(LOG)
question = user("What did I tell you about tools/?")
schemas = session.toolbox.schemas


def next_call_tokens(messages):
    """What the next request would cost, counted as the fake provider counts it."""
    return count_tokens(messages + [question], system=SYSTEM_PROMPT, tools=schemas)


print(f"live history at the stop: {len(session.messages)} messages, next call {next_call_tokens(session.messages):,} tokens")
print(f"naive resume:             {len(naive)} messages, next call {next_call_tokens(naive):,} tokens, "
      f"{len(list(iter_tool_results(naive)))} tool results back")

# %% [markdown]
# The naive resume is mostly tool results (orange) that compaction had removed.

# %%
display(strip_figure({"live, at the stop": session.messages, "naive resume": naive}, system=SYSTEM_PROMPT,
                     tools=schemas, title="what the naive resume gives back"))

# %% jupyter={"source_hidden": true}
assert (len(session.messages), len(naive), len(list(iter_tool_results(naive)))) == (15, 38, 33)
assert (next_call_tokens(session.messages), next_call_tokens(naive)) == (5_064, 57_585)
validate_messages(naive + [question])  # a valid request: nothing will complain

# %% [markdown]
# **Holds for:** *any model* (the history itself is wrong).
#
# ## 5. Resume by replay
#
# The fix needs no new record: the compaction record doubles as a replay marker. `resume(path)` appends
# each logged message in order and, at each compaction record, calls `replace_history` again with the
# summary and budget it holds. A pure function of the same inputs gives the same history.

# %%
resumed = resume(LOG)
print(f"{resumed.records} records, {resumed.compactions} compactions replayed, {len(resumed.messages)} messages")
print("equal to the live history at the stop:", resumed.messages == session.messages)

# %% [markdown]
# The live history at the stop and the one rebuilt from the log are the same, block for block:

# %%
display(strip_figure({"live, at the stop": session.messages, "rebuilt by replay": resumed.messages},
                     system=SYSTEM_PROMPT, tools=schemas, title="what replay rebuilds"))

# %% jupyter={"source_hidden": true}
assert resumed.messages == session.messages and resumed.compactions == 2 and resumed.torn is None
assert (message_parts(resumed.messages, SYSTEM_PROMPT, schemas)
        == message_parts(session.messages, SYSTEM_PROMPT, schemas))

# %% [markdown]
# Now go on. `reopen(path)` resumes and marks the replayed messages as logged, so nothing is written
# twice; a log has one writer (a second gets `LogInUse`), so the old session closes it first. The
# question is about a rule given two compactions ago, kept verbatim; the first call costs the 5,064 tokens
# announced.

# %%
log_bytes_before = LOG.read_bytes()
session.log.close()
log, reopened = reopen(LOG)
continued = Session(session.client, session.toolbox, CONFIG, log=log, compactor=UsageTriggered(retry=NO_WAIT),
                    messages=reopened.messages)
continued.ask(question["content"])
print("answer:", continued.answers[-1])
print(f"first call after resume: {continued.trace[0].input_tokens:,} tokens")

# %% jupyter={"source_hidden": true}
assert REQUESTS[1].startswith("From now on, never edit anything under tools/")
assert any(text_of(m) == REQUESTS[1] for m in reopened.messages)  # the user's words, kept verbatim
assert continued.answers[-1] == 'You told me: "From now on, never edit anything under tools/; it is vendored code."'
assert continued.trace[0].input_tokens == next_call_tokens(session.messages) == 5_064
assert resume(LOG).messages == continued.messages

# %% [markdown]
# **Holds for:** *any model* (the rule is there to read); *this fake* (answering by quoting it).
#
# ## 6. The log keeps everything
#
# The history shrank twice; the log never did. It holds every message once, in order, all 33 tool
# results among them, and the compaction records keep their summaries and reasons. Going on only added
# lines: the old file is a prefix of the new one.

# %%
log_bytes_after = LOG.read_bytes()
records = read_log(LOG).records
kinds = {kind: sum(r["kind"] == kind for r in records) for kind in ("message", "compaction")}
read_results = [b for r in records if r["kind"] == "message" for _, _, b in iter_tool_results([r["message"]])]
print(f"{len(records)} records: {kinds}; numbered 1..{records[-1]['seq']}")
print(f"tool results kept for audit: {len(read_results)}; in the live history: "
      f"{len(list(iter_tool_results(continued.messages)))}")
print("the old log is a prefix of the new one:", log_bytes_after.startswith(log_bytes_before))

# %% jupyter={"source_hidden": true}
assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
assert kinds == {"message": 40, "compaction": 2}
assert len(read_results) == 33
assert all(r["summary"] and r["reason"].startswith("reported usage") for r in records if r["kind"] == "compaction")
assert log_bytes_after.startswith(log_bytes_before) and len(log_bytes_after) > len(log_bytes_before)

# %% [markdown]
# ## 7. One resume for both designs
#
# Chapter 05's layers log compaction records too (`auto`, `manual`), each holding the summary that
# replaced everything, and `resume` replays them. Micro-compaction edits tool results in place, so a
# replay may show full results where the live history has placeholders, until the next call's micro.
# Here the two are equal even before.

# %%
layers = run_scenario(TWELVE_FILES, CompactionConfig(threshold=10_000), WORK / "three_layers", log=True,
                      compact_policy="after_task")
layer_log = WORK / "three_layers" / "session.jsonl"
layer_kinds = [r["layer"] for r in read_log(layer_log).records if r["kind"] == "compaction"]
replayed = resume(layer_log).messages
live = copy.deepcopy(layers.messages)
equal_before = replayed == live
for messages in (replayed, live):
    micro_compact(messages, CONFIG.keep_recent, CONFIG.preserve_tools, CONFIG.min_chars)
print("compaction records:", layer_kinds, "| replay equals the live history before micro:", equal_before,
      "| after:", replayed == live)

# %% jupyter={"source_hidden": true}
assert layer_kinds == ["auto", "manual"] and replayed == live and equal_before

# %% [markdown]
# ## 8. Try it: the budget
#
# Move the budget and watch which requests a replacement keeps: below the newest one's length only it,
# from their total (461 characters) all of them.

# %%
request_chars = sorted(len(text_of(m)) for m in naive if m["role"] == "user" and isinstance(m["content"], str))
print(f"{len(request_chars)} requests, {sum(request_chars)} characters in all, longest {request_chars[-1]}")

# %% jupyter={"source_hidden": true}
assert (len(request_chars), sum(request_chars), request_chars[-1]) == (8, 461, 67)
assert plan_replacement(naive, sum(request_chars)).kept_chars == sum(request_chars)
assert len(plan_replacement(naive, 0).kept) == 1

# %% tags=["nbval-ignore-output"]
budget_slider = panel(describe_replacement, messages=naive,
                      budget_chars=IntSlider(value=200, min=0, max=sum(request_chars) + 50, step=10))

# %% [markdown]
# ## Summary
#
# - Decide from the **reported** usage, cache fields included.
# - Replace the history with a **pure** function: one summary and the user's recent requests verbatim.
# - Compact **between rounds**; here that overshot and cost a few re-reads.
# - The log is **append-only**; a naive resume silently restores the uncompressed history.
# - **Replay** runs each logged compaction again and rebuilds the live history exactly.

# %% [markdown]
# ## Exercises
#
# ### 1. Replay by hand
# Write `my_replay(records)`, which rebuilds the live history from a list of log records. Append each
# `message` record's message. At a `compaction` record with a `summary`, call `replace_history` with it
# and the record's `budget_chars`; at one without, replace everything by its `message`. Any other record
# that holds a `message` is appended like one.
#
# *Hint:* this is the whole of `harness.session.resume.replay`; try not to look.

# %% tags=["stub"]
def my_replay(records):
    """The live history a list of log records leaves: messages appended, compactions replayed."""
    # Walk the records in order, rebuilding the history each compaction left behind.
    # Trap: a compaction record holds its own budget; and not every record has the same fields.
    raise NotImplementedError("your code here")

# %%
my_replay = check(my_replay)

# %% [markdown]
# ### 2. A budget in tokens
# Codex counts its budget in *tokens* (section 2). Write `kept_by_tokens(messages, budget_tokens)`: the
# indexes of the user messages (`harness.session.replacement.is_user_words`) to
# keep, oldest first, chosen newest first while their `count_tokens([message])` total fits, the newest
# always.
#
# *Hint:* copy `plan_replacement` and change one line.

# %% tags=["stub"]
def kept_by_tokens(messages, budget_tokens):
    """The indexes of the user messages to keep, oldest first: chosen newest first while their tokens fit,
    the newest always."""
    # A run of the most recent user messages whose tokens fit the budget.
    # Trap: the newest is kept even alone over the budget; the first that does not fit ends the run.
    raise NotImplementedError("your code here")

# %%
kept_by_tokens = check(kept_by_tokens)

# %% [markdown]
# ### 3. The whole input
# Write `whole_input(usage)`: the input tokens a request read, from an SDK `Usage` or a plain dict,
# whose cache fields may be missing or `None`. Then say in `naive_rule_compacts` what a rule that
# compacts at 8,000 tokens of `input_tokens + output_tokens` decides for `cached_round` (`True` or
# `False`).
#
# *Hint:* `getattr(usage, name, None)` for an object, `usage.get(name)` for a dict.

# %% tags=["stub"]
def whole_input(usage):
    """The input tokens a request read: input_tokens and both cache fields, from an SDK Usage or a dict."""
    # The three input fields added up.
    # Trap: a field may be missing or None; a dict has no attributes.
    raise NotImplementedError("your code here")

# %%
whole_input = check(whole_input)

# %% tags=["answer"]
naive_rule_compacts = None  # True or False

# %%
answer("naive_rule_compacts", naive_rule_compacts)

# %% [markdown]
# ## Recap
#
# Answer each before you look (`RECAP` in `harness/labs/solutions/ch06.py`).
#
# 1. Why must the reported total add the cache fields to `input_tokens`? What did it change for
#    `cached_round`?
# 2. What does `replace_history` keep, and why can it never separate a `tool_use` from its result?
# 3. Why does `UsageTriggered` compact only in `after_round`?
# 4. What does the naive resume give back after a compacted session, and why does nothing complain?
# 5. How does `resume` rebuild the very history the session had, with no new kind of record?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Messages API" — https://platform.claude.com/docs/en/api/messages (the `usage` fields; consecutive user messages combined), and its docstring of `Message.usage` in anthropic-sdk-python, `src/anthropic/types/message.py`
# 2. Anthropic, "Prompt caching" — https://platform.claude.com/docs/en/build-with-claude/prompt-caching (the three input fields add up to the whole input)
# 3. openai/codex at `0100b103`, `codex-rs/core/src/compact.rs` — https://github.com/openai/codex/blob/main/codex-rs/core/src/compact.rs (`COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000`, the recent user messages kept, newest first, by `build_compacted_history`)
# 4. shareAI-lab/learn-claude-code, `agents/s06_context_compact.py` at 7864a30 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (the s06 agent: its summary request sends the last 80,000 characters)
# 5. openai/codex at `009bd870`, `codex-rs/core/src/compact_remote_v2.rs` — https://github.com/openai/codex/blob/main/codex-rs/core/src/compact_remote_v2.rs (`RETAINED_MESSAGE_TOKEN_BUDGET = 64_000`, "Mirror the current /responses/compact retained-message default"; `build_v2_compacted_history` keeps the user messages, newest first within it, then the server's `compaction` item)
