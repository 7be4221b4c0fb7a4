# %% [markdown]
# # 06 · Resume and replay
#
# **Promise:** you will compact on the usage the provider reports, keep the user's own words through
# every compaction, write a log that is only ever appended to, and bring a stopped session back
# exactly as it was, compaction included.
#
# Chapters 02 to 05 built the reference agent's three layers. This chapter builds the second design
# from the seeds (seed 000), a production-minded one: decide from the *reported* usage, replace the
# whole history by a summary plus the user's recent messages, and make *resume* replay every
# compaction. The last part matters more than it looks: the first version of that design resumed a
# compacted session by reading back every logged message, and the whole old history silently came
# back.
#
# ## What you will be able to do
#
# - decide when to compact from the usage a round reported, with a reason you can audit;
# - replace a history with a pure function that keeps one summary and the user's recent messages,
#   and can never leave a tool_use without its result;
# - check compaction only between rounds, once a round's tool results are committed;
# - resume a session from its append-only log by replaying compaction, and see why the naive way
#   fails silently;
# - survive a crash at any byte of the log, even between a tool call and its result, and refuse a
#   log that is corrupt;
# - retry a failed summary with backoff and stop auto-compaction after 3 failures in a row;
# - set a threshold per model, as a fraction of its context window or as the window minus room for
#   the reply and a safety buffer, and compare it with what real tools use;
# - inspect every compaction in a widget.

# %% [markdown]
# ## Setup
#
# One session does most of the work: the first 8 requests of the long working session (read the 12
# files under `agents/`, an instruction about `tools/`, an edit, a question, a line count, read the
# 12 files under `core/`, another edit, another question), with the new strategy and a session log.
# A second run of the same requests without compaction is the baseline.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import copy
import json
import shutil

import matplotlib.pyplot as plt
from anthropic import BadRequestError
from IPython.display import display
from ipywidgets import IntSlider

from harness import (DEFAULT_MODEL, CompactionConfig, assistant, context_window, count_tokens, is_summary,
                     iter_tool_results, max_output, micro_compact, resolve_threshold, text_of,
                     threshold_below_window, tool_result, tool_use, user, validate_messages)
from harness.core.tokens import MESSAGE_OVERHEAD
from harness.fake import fake_client
from harness.fake.context_management import (CLEARING_KEEP, CLEARING_TRIGGER, COMPACTION_TRIGGER,
                                             MIN_COMPACTION_TRIGGER)
from harness.labs.inspector import compaction_cards, compaction_inspector
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.session.log import Repair, SessionLog
from harness.session.records import CorruptLog, TornLine, read_log
from harness.session.replacement import (SUMMARY_HEADER, decide_compaction, describe_replacement,
                                         plan_replacement, replace_history)
from harness.session.resume import INTERRUPTED, reopen, replay, resume, resume_naive
from harness.session.retry import RetryPolicy
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.usage_triggered import UsageTriggered

WORK = own_scratch("06_resume_and_replay")  # a fresh folder of its own for each run
REQUESTS = LONG_SESSION.requests[:8]
NO_WAIT = RetryPolicy(sleep=lambda seconds: None)  # failures below are retried without really waiting
CONFIG = CompactionConfig()

strategy = UsageTriggered(retry=NO_WAIT)
session = run_scenario(LONG_SESSION, CONFIG, WORK / "main", requests=REQUESTS, log=True, compactor=strategy)
LOG = WORK / "main" / "session.jsonl"
baseline = run_scenario(LONG_SESSION, CompactionConfig(micro=False, auto=False), WORK / "baseline",
                        requests=REQUESTS)
print(f"{len(REQUESTS)} requests; with compaction: {session.stats}")
print(f"without: {baseline.stats.model_calls} calls, peak context {baseline.stats.peak_context:,} tokens")

# %%
assert len(REQUESTS) == 8
assert session.stats.compactions == {"history_compacted": 7}
assert (baseline.stats.model_calls, baseline.stats.peak_context) == (37, 49_801)
assert (session.stats.model_calls, session.stats.re_reads) == (48, 11)

# %% [markdown]
# ## 1. When: what the provider reported
#
# Every response carries a `usage` field counted by the provider: the input tokens of the request
# (cache reads and writes included) and the output tokens. Seed 000 decides from that number, never
# from an estimate, and in a fixed order:
#
# 1. no usage reported: no decision at all (guessing could compact for nothing);
# 2. the reported total is below the threshold: no;
# 3. fewer than 4 history items: nothing worth compacting;
# 4. otherwise compact, with a reason that names the reported total and the threshold.
#
# The seed's threshold is **8,000** tokens, a teaching constant (section 9 makes it follow the
# model).

# %%
cases = {"no usage": (None, 40), "below": (7_999, 40), "too short": (50_000, 3), "reached": (8_000, 4)}
decisions = {name: decide_compaction(total, 8_000, items) for name, (total, items) in cases.items()}
for name, decision in decisions.items():
    print(f"{name:10} compact={decision.compact!s:5}  {decision.reason}")

# %%
assert [d.compact for d in decisions.values()] == [False, False, False, True]
assert decisions["reached"].reason == "reported usage 8,000 tokens reached the threshold 8,000"
assert strategy.threshold == 8_000

# %% [markdown]
# ## 2. What: one summary and the user's own words
#
# `replace_history(messages, summary, budget_chars=20_000)` builds the new history from those two
# inputs only:
#
# - one **summary** message (a user message starting with `[Conversation compressed`);
# - the most recent **user messages**, verbatim, chosen newest first while they fit in 20,000
#   characters; the newest is kept even if it alone is over the budget;
# - nothing else: assistant messages, tool calls and tool results are dropped *whole*, so no
#   tool_use can lose its tool_result. A tool_result message is not the user's words.
#
# The system prompt is the separate `system=` argument in our format, so it is kept without doing
# anything. The summary and the kept messages stay **separate** messages: each kept message is
# byte for byte what the user typed, the next compaction can recognise the old summary and fold it
# into the new one instead of keeping it as a "user message", and the Messages API accepts
# consecutive user messages. The result ends with the newest user message.

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

# %%
assert [text_of(m) for m in replaced[1:]] == ["Read a.py", "From now on, never edit b.py.", "Count the lines of a.py"]
assert replaced[0]["content"].startswith(SUMMARY_HEADER) and is_summary(replaced[0])
assert history == snapshot  # pure: the input is untouched

# %% [markdown]
# The budget, at its edges: with 25 characters only the newest message (23 characters) fits; a 30,000-character message is kept alone although it is over budget; the summary of an
# earlier compaction is folded away.

# %%
tight = replace_history(history, "s", budget_chars=25)
huge = replace_history(history + [assistant("ok"), user("x" * 30_000)], "s")
again = replace_history(replaced + [assistant("ok"), user("And b.py?")], "second summary")
print("budget 25 keeps:", [text_of(m) for m in tight[1:]])
print("a 30,000-char request keeps:", [len(text_of(m)) for m in huge[1:]], "chars")
print("after a second compaction:", sum(is_summary(m) for m in again), "summary,", len(again) - 1, "user messages")

# %%
assert [text_of(m) for m in tight[1:]] == ["Count the lines of a.py"] and strategy.budget_chars == 20_000
assert [len(text_of(m)) for m in huge[1:]] == [30_000]
assert sum(is_summary(m) for m in again) == 1 and len(again) == 5

# %% [markdown]
# ## 3. Between rounds only
#
# `UsageTriggered` is a `Compactor` (chapter 05) that acts in `after_round`: the loop calls it once
# a round is committed, its tool results appended and logged. It can never cut a tool_use from its
# result, because there is none in flight. It decides from the usage *that round* reported, asks
# the same client for a hand-off summary (no tools), replaces the history, appends **one**
# compaction record holding the summary to the session log, and emits a `history_compacted` event.
# A round that ends the turn commits no tool results; it is left alone, so the answer the user is
# about to read stays in the history.
#
# The session compacted 7 times. The log proves the boundary: the record just before every
# compaction record is a user message of tool results.

# %%
records = read_log(LOG).records
compaction_at = [i for i, r in enumerate(records) if r["kind"] == "compaction"]
before_compaction = [records[i - 1]["message"] for i in compaction_at]
events = [e for e in session.events if e.kind == "history_compacted"]
agent_calls = {t.call: t for t in session.trace if t.kind == "agent"}
for event in events:
    d = event.detail
    print(f"after call {event.call:>2}: reported {d['reported_tokens']:,} >= {d['threshold']:,}; "
          f"items {d['items_before']:>2} -> {d['items_kept']} (removed {d['items_removed']})")

# %%
assert len(compaction_at) == len(events) == 7
assert all(m["role"] == "user" and all(b["type"] == "tool_result" for b in m["content"]) for m in before_compaction)
assert all(e.detail["reported_tokens"] == agent_calls[e.call].input_tokens + agent_calls[e.call].output_tokens
           >= 8_000 for e in events)

# %% [markdown]
# The context the model was sent, call by call: the sawtooth stays near the threshold while the
# baseline climbs to 49,801 tokens. (The teeth can overshoot: the usage of a round is known only
# once the round is over, and a turn's last round is left alone.) The price shows in the call
# count: 48 agent calls instead of 37, because 11 times the agent had to read a file again whose
# content was folded into a summary.

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

# %% [markdown]
# ## 4. Stop, then resume the naive way
#
# Say the process stops here. All that survives is the session log. The naive resume reads back
# every logged message, in order, as chapter 05's log would suggest. The log is complete, so the
# result is complete too: it is the **uncompressed** history, every file read and every tool
# result, as if no compaction had ever happened. The live history had 12 messages and the next
# call would have cost 3,870 tokens; the naive resume returns 96 messages, 40 tool results among
# them, and the next call costs 71,634 tokens. Nothing fails: the history is valid and the API
# accepts it. This is the silent failure seed 000 describes: compaction works within a run and
# quietly stops working across runs, where it is needed most.

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

# %%
assert (len(session.messages), len(naive), len(list(iter_tool_results(naive)))) == (12, 96, 40)
assert (next_call_tokens(session.messages), next_call_tokens(naive)) == (3_870, 71_634)
validate_messages(naive + [question])  # a valid request: nothing will complain

# %% [markdown]
# ## 5. Resume by replay
#
# The fix adds no new kind of record: the compaction record the session already wrote doubles as a
# replay marker. `resume(path)` walks the records in order, appends each message, and at each
# compaction record calls `replace_history` again with the recorded summary and budget. Because
# the replacement is a pure function of (history so far, summary), replaying it gives the very
# history the session had in memory.

# %%
resumed = resume(LOG)
print(f"{resumed.records} records, {resumed.compactions} compactions replayed, {len(resumed.messages)} messages")
print("equal to the live history at the stop:", resumed.messages == session.messages)

# %%
assert resumed.messages == session.messages and resumed.compactions == 7 and resumed.torn is None

# %% [markdown]
# Now continue the session from the replayed history. `reopen(path)` opens the log to go on: it
# repairs what a crash may have left (section 7), resumes, and tells the log that the replayed
# messages are already in it, so nothing is written twice. The question
# is about an instruction given at the second request, seven compactions ago; the agent answers it
# from the user's own words, which every replacement kept verbatim. The first call costs the
# 3,870 tokens announced above.

# %%
log_bytes_before = LOG.read_bytes()
log, reopened = reopen(LOG)
continued = Session(session.client, session.toolbox, CONFIG, log=log, compactor=UsageTriggered(retry=NO_WAIT),
                    messages=reopened.messages)
continued.ask(question["content"])
print("answer:", continued.answers[-1])
print(f"first call after resume: {continued.trace[0].input_tokens:,} tokens")

# %%
assert REQUESTS[1].startswith("From now on, never edit anything under tools/")
assert continued.answers[-1] == 'You told me: "From now on, never edit anything under tools/; it is vendored code."'
assert continued.trace[0].input_tokens == next_call_tokens(session.messages)
assert resume(LOG).messages == continued.messages

# %% [markdown]
# ## 6. The log keeps everything
#
# The history the model sees shrank seven times; the log never did. Every committed message is in
# it once, in order, the compaction records hold their summaries and reasons, and continuing the
# session only added lines at the end: the old file is a prefix of the new one.

# %%
log_bytes_after = LOG.read_bytes()
records = read_log(LOG).records
kinds = {kind: sum(r["kind"] == kind for r in records) for kind in ("message", "compaction")}
read_results = [b for r in records if r["kind"] == "message" for _, _, b in iter_tool_results([r["message"]])]
print(f"{len(records)} records: {kinds}; numbered 1..{records[-1]['seq']}")
print(f"tool results kept for audit: {len(read_results)}; in the live history: "
      f"{len(list(iter_tool_results(continued.messages)))}")
print("the old log is a prefix of the new one:", log_bytes_after.startswith(log_bytes_before))

# %%
assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
assert kinds == {"message": 98, "compaction": 7}
assert all(r["summary"] and r["reason"].startswith("reported usage") for r in records if r["kind"] == "compaction")
assert log_bytes_after.startswith(log_bytes_before) and len(log_bytes_after) > len(log_bytes_before)

# %% [markdown]
# ## 7. A crash at any byte
#
# A process can die anywhere, including in the middle of writing the log. The log is built so that
# this costs nothing that was complete:
#
# - **One record, one line, one write.** Each record is written with a single `write` call to a
#   file opened for appending, so a crash can only cut the *last* line short. After every round
#   (and every compaction) the file is flushed to the disk with `fsync`, so even a machine crash
#   loses at most the round in progress.
# - **Every reader forgives a torn last line, and nothing else.** `read_log` (in
#   `harness.session.records`) is the one reader: resume, the recall tool of chapter 09 and the
#   labs all use it. No proper prefix of a JSON object is valid JSON, so a last line without its
#   newline that does not parse is a write cut short: it is reported and left out. Every other line
#   is checked against its kind, and a wrong one is a `CorruptLog` naming the file and the line.
# - **Reopening repairs in one step.** `SessionLog` (and `reopen`, which uses it) cuts a torn last
#   line off with one truncate, or, if the line is a whole record that lost only its newline, adds
#   the newline with a 1-byte write. Either step happens whole or not at all, and doing it again is
#   harmless, so a crash *during* the repair is safe too.
#
# The guarantee: a crash at any byte of opening, repairing or appending leaves a log that opens and
# resumes with every complete record. `tests/test_crash_safety.py` checks it by cutting a session's
# log at every byte, repairing, resuming and sending the next request to the fake.
#
# First, a write cut short in the middle of a record:

# %%
torn = WORK / "crash" / "session.jsonl"
torn.parent.mkdir(parents=True)
shutil.copy(LOG, torn)
half_record = json.dumps({"seq": len(records) + 1, "kind": "message", "message": user("Count the lines")})
with torn.open("a", encoding="utf-8") as f:
    f.write(half_record[:40])  # the crash: half a record, no newline
after_crash = resume(torn)
print("torn:", after_crash.torn, "| everything before it recovered:", after_crash.messages == continued.messages)
repaired = SessionLog(torn)
print("reopening:", repaired.repair, "| the file is the log before the crash again:",
      torn.read_bytes() == log_bytes_after)

# %%
assert after_crash.torn == TornLine(line=len(records) + 1, size=40)
assert after_crash.messages == continued.messages
assert repaired.repair == Repair("cut", len(records) + 1, 40) and torn.read_bytes() == log_bytes_after
assert resume(torn).torn is None and resume(torn).messages == continued.messages

# %% [markdown]
# The dangerous crash is a different one. A round is two records: the assistant's message with its
# `tool_use` blocks, then the user message with the `tool_result` blocks. The results are usually
# the larger write, so they are the likelier to be torn. Cut the log inside the last round's results:
# the history that comes back ends with a tool call nobody answered, and the API refuses every
# request that contains one.

# %%
lines = LOG.read_bytes().splitlines(keepends=True)
last_call = max(i for i, r in enumerate(records) if r["kind"] == "message" and any(
    b["type"] == "tool_use" for b in r["message"]["content"] if isinstance(r["message"]["content"], list)))
mid_round = WORK / "crash" / "mid_round.jsonl"
mid_round.write_bytes(b"".join(lines[:last_call + 1]) + lines[last_call + 1][:len(lines[last_call + 1]) // 2])
open_call = [b for b in records[last_call]["message"]["content"] if b["type"] == "tool_use"][0]
print(f"the crash: record {last_call + 2} (the result of {open_call['name']} {open_call['input']}) torn halfway")

as_logged = replay(read_log(mid_round).records) + [user(REQUESTS[7])]
try:
    session.client.messages.create(model=CONFIG.model, max_tokens=1_000, system=SYSTEM_PROMPT,
                                   tools=session.toolbox.schemas, messages=as_logged)
except BadRequestError as error:
    print("sent as logged:", error.status_code, error.body["error"]["message"][:95], "...")
    refused = error.status_code

# %%
assert records[last_call + 1]["message"]["content"][0]["tool_use_id"] == open_call["id"]
assert refused == 400

# %% [markdown]
# `resume` therefore answers every call left open with an error result saying the run was
# interrupted, the normalisation seed 000 describes for unanswered calls. (The other choice is to
# drop the unfinished round. Keeping it tells the model what it had asked for, and the error tells
# it to check before asking again, which matters for a tool such as `edit_file` that may have run.)
# `resume` only reads. `reopen`, which continues a session, also writes the answer to the log as an
# `interrupted` record, so replay stays a pure function of the log: resuming before and after gives
# the same history.

# %%
log, reopened = reopen(mid_round)
print("repair:", log.repair)
print("last record:", {k: v for k, v in read_log(mid_round).records[-1].items() if k != "message"})
answer_given = reopened.messages[-1]["content"][0]
print("answer given:", answer_given["content"])
after = Session(session.client, session.toolbox, CONFIG, log=log, compactor=UsageTriggered(retry=NO_WAIT),
                messages=reopened.messages)
after.ask(REQUESTS[7])
print("the session goes on:", after.tool_calls, "->", after.answers[-1])

# %%
assert log.repair.action == "cut" and read_log(mid_round).records[last_call + 1]["kind"] == "interrupted"
assert answer_given == tool_result(open_call["id"], INTERRUPTED, is_error=True)
assert after.tool_calls == [("read_file", open_call["input"])]
assert after.answers[-1] == session.answers[-1]
assert resume(mid_round).messages == after.messages

# %% [markdown]
# A damaged line anywhere but at the end is not a crash, and neither is a line that is valid JSON but
# not a valid record. Skipping either would resume a different history, so `resume` stops with an
# error naming the line:

# %%
corrupt = WORK / "crash" / "corrupt.jsonl"
for number, damage in ((10, lines[9][:30] + b"\n"), (11, b'{"seq": 11, "kind": "message"}\n')):
    corrupt.write_bytes(b"".join(lines[:number - 1]) + damage + b"".join(lines[number:]))
    try:
        resume(corrupt)
    except CorruptLog as error:
        print("CorruptLog:", error)
        assert error.line == number

# %% [markdown]
# ## 8. When the summary call fails
#
# The summary is a model call like any other, and calls fail. Seed 000 let the whole run fail with
# it. Here a failed call is retried after a pause that doubles each time (1 s, then 2 s by
# default); the pause function is injected, so this notebook records the pauses instead of
# waiting. A compaction whose every try failed leaves the history exactly as it was and emits a
# `compaction_failed` event. After **3** failed compactions in a row, a circuit breaker turns
# auto-compaction off for the session (the limit Claude Code uses) and emits
# `auto_compaction_stopped`: better an uncompressed session than a doomed summary call every round.
#
# First, two failures then a success: one compaction that needed 3 tries.

# %%
paused = []
flaky = run_scenario(LONG_SESSION, CONFIG, WORK / "flaky", requests=REQUESTS[:1], log=True,
                     compactor=UsageTriggered(retry=RetryPolicy(attempts=3, sleep=paused.append)), fail_summaries=2)
first = next(e for e in flaky.events if e.kind.startswith(("history", "compaction")))
print(first.kind, "after", first.detail["tries"], "tries; paused", paused)

# %%
assert first.kind == "history_compacted" and first.detail["tries"] == 3 and paused == [1.0, 2.0]

# %% [markdown]
# Now a summariser that never recovers, with 2 tries per compaction:

# %%
broken = run_scenario(LONG_SESSION, CONFIG, WORK / "broken", requests=REQUESTS[:3], log=True,
                      compactor=UsageTriggered(retry=RetryPolicy(attempts=2, sleep=lambda s: None)),
                      fail_summaries=10**6)
failures = [e for e in broken.events if e.kind in ("compaction_failed", "auto_compaction_stopped",
                                                    "history_compacted")]
for event in failures:
    print(f"after call {event.call:>2}: {event.kind:24} {event.detail.get('error', event.detail['reason'])[:70]}")
broken_log = WORK / "broken" / "session.jsonl"
print("history untouched:", resume(broken_log).messages == resume_naive(broken_log) == broken.messages)

# %%
assert [e.kind for e in failures] == ["compaction_failed"] * 3 + ["auto_compaction_stopped"]
assert all(e.detail["tries"] == 2 for e in failures[:3])
assert broken.stats.summary_calls == 0 and broken.stats.compactions["compaction_failed"] == 3
assert resume(broken_log).messages == resume_naive(broken_log) == broken.messages
assert broken.stats.peak_context > 20_000  # it keeps working, uncompressed

# %% [markdown]
# ## 9. A threshold per model
#
# A fixed 8,000 is far too early for a model with a 1M-token window and only right by accident for
# any other. `UsageTriggered(threshold=...)` takes tokens (an `int`) or a fraction of the model's
# context window (a `float`), looked up in a small table (`MODEL_WINDOWS`; a dated id such as
# `claude-sonnet-4-5-20250929` uses its base name; an unlisted model is an error, never a guess).
# The seed's 8,000 is 4% of a 200,000-token window.

# %%
for model in ("claude-sonnet-4-5", "claude-haiku-4-5-20251001", "claude-sonnet-5"):
    print(f"{model:27} window {context_window(model):>9,}  0.04 -> {resolve_threshold(0.04, model):>6,}"
          f"  0.8 -> {resolve_threshold(0.8, model):>7,}")

# %%
assert resolve_threshold(0.04, DEFAULT_MODEL) == 8_000 and context_window(DEFAULT_MODEL) == 200_000
assert context_window("claude-sonnet-5") == 1_000_000 and resolve_threshold(0.8, "claude-sonnet-5") == 800_000
fractional = UsageTriggered(threshold=0.04, retry=NO_WAIT)
same = run_scenario(LONG_SESSION, CONFIG, WORK / "fraction", requests=REQUESTS[:1], compactor=fractional)
same_events = [e for e in same.events if e.kind == "history_compacted"]
print("thresholds used:", [e.detail["threshold"] for e in same_events], "after calls", [e.call for e in same_events])
assert [e.detail["threshold"] for e in same_events] == [8_000, 8_000]
assert [e.call for e in same_events] == [e.call for e in events[:2]]  # the same compactions as with 8,000

# %% [markdown]
# ### Count down from the window
#
# The threshold is checked on the input of the round just finished, but the *next* request must
# still fit, reply included: the API refuses a request whose input plus `max_tokens` passes the
# window, and so does the fake. So set the threshold from the top:
#
# **threshold = window − output reserve − safety buffer**
#
# - the *output reserve* is the `max_tokens` the next call may ask for, an agent reply or a summary;
# - the *safety buffer* covers what the history gains between the check and that call (a round's
#   tool results) and any gap between our token count and the provider's.
#
# `threshold_below_window(model, output_reserve=..., buffer=...)` does the subtraction, and refuses a
# reserve and a buffer that leave no room for input.
#
# Tokens or a fraction? A number of tokens means the same on every model, so it ignores the window.
# A fraction follows the window but knows nothing about the reply. Counting down from the window does
# both. The table shows what real tools use, computed for this course's model and for a model with a
# 1M-token window; *room* is what the trigger leaves free for the reply and the buffer. Each rule
# comes with the source it was checked against, or says that it could not be checked.

# %%
BIG = "claude-sonnet-5"  # a 1M-token window
BUFFER = 13_000          # our safety buffer: the one Claude Code is reported to use
CC_SUMMARY_CAP, CC_BUFFER = 20_000, 13_000  # Claude Code's cap on the summary's reserve, its buffer: as reported
CODEX_FRACTION, GEMINI_FRACTION, GEMINI_KEEP = 0.9, 0.5, 0.3


def claude_code(model):
    return threshold_below_window(model, output_reserve=min(max_output(model), CC_SUMMARY_CAP), buffer=CC_BUFFER)


def this_chapter(model):
    return threshold_below_window(model, output_reserve=max_output(model), buffer=BUFFER)


SYSTEMS = [  # (who, rule, the rule as a function of the model, source)
    ("Claude Code", f"window - min(max output, {CC_SUMMARY_CAP:,}) - {CC_BUFFER:,}", claude_code,
     "UNVERIFIED (closed source): read from its minified bundle in anthropics/claude-code issues #31806, #12004"),
    ("Codex CLI", f"{CODEX_FRACTION:.0%} of the window", lambda m: resolve_threshold(CODEX_FRACTION, m),
     "openai/codex codex-rs/protocol/src/openai_models.rs, ModelInfo::auto_compact_token_limit "
     "(config key model_auto_compact_token_limit sets another value)"),
    ("Gemini CLI", f"{GEMINI_FRACTION:.0%} of the window, keeps the newest {GEMINI_KEEP:.0%}",
     lambda m: resolve_threshold(GEMINI_FRACTION, m),
     "google-gemini/gemini-cli packages/core/src/services/chatCompressionService.ts "
     "(DEFAULT_COMPRESSION_TOKEN_THRESHOLD, COMPRESSION_PRESERVE_THRESHOLD)"),
    ("API compact_20260112", f"{COMPACTION_TRIGGER:,} input tokens, at least {MIN_COMPACTION_TRIGGER:,}",
     lambda m: COMPACTION_TRIGGER,
     "platform.claude.com/docs/en/build-with-claude/compaction; the minimum UNVERIFIED"),
    ("API clear_tool_uses_20250919", f"{CLEARING_TRIGGER:,} input tokens, keeps {CLEARING_KEEP} tool uses",
     lambda m: CLEARING_TRIGGER,
     "platform.claude.com/docs/en/build-with-claude/context-editing; the 3 kept UNVERIFIED"),
    ("this chapter", f"window - max output - {BUFFER:,}", this_chapter, "threshold_below_window, above"),
]
triggers = {who: (rule(DEFAULT_MODEL), rule(BIG)) for who, _, rule, _ in SYSTEMS}
print(f"{'system':29} {'rule':44} {DEFAULT_MODEL + ' (room)':>24} {BIG + ' (room)':>24}")
for who, text, rule, source in SYSTEMS:
    cells = [f"{t:,} ({context_window(m) - t:,})" for m, t in zip((DEFAULT_MODEL, BIG), triggers[who])]
    print(f"{who:29} {text:44} {cells[0]:>24} {cells[1]:>24}\n{'':31}source: {source}")

# %%
assert (max_output(DEFAULT_MODEL), context_window(BIG), max_output(BIG)) == (64_000, 1_000_000, 128_000)
assert triggers == {"Claude Code": (167_000, 967_000), "Codex CLI": (180_000, 900_000),
                    "Gemini CLI": (100_000, 500_000), "API compact_20260112": (150_000, 150_000),
                    "API clear_tool_uses_20250919": (100_000, 100_000), "this chapter": (123_000, 859_000)}
assert (MIN_COMPACTION_TRIGGER, CLEARING_KEEP) == (50_000, 3)
assert COMPACTION_TRIGGER / context_window(DEFAULT_MODEL) == 0.75
assert COMPACTION_TRIGGER / context_window(BIG) == 0.15
codex_room = context_window(DEFAULT_MODEL) - triggers["Codex CLI"][0]
assert codex_room == 20_000 < max_output(DEFAULT_MODEL) == 64_000
assert all(context_window(m) - this_chapter(m) == max_output(m) + BUFFER for m in (DEFAULT_MODEL, BIG))

# %% [markdown]
# Down the columns: the API's fixed 150,000 is 75% of this course's window but 15% of a 1M one, so
# on the big model it compacts very early. A fraction leaves room in proportion to the window, not to
# the reply: 90% of 200,000 leaves 20,000 tokens, less than the 64,000-token reply this model may be
# asked for. The last row keeps the largest reply and the buffer free on both models.
#
# ### The margin, checked by the fake
#
# Requests sized at a trigger, each asking for this model's largest reply, go through the real SDK to
# the fake. At 90% of the window the reply does not fit; at our threshold it does, and still does
# once the buffer is used up; one token more is refused.

# %%
def sized(tokens):
    """One user message; a request holding it counts exactly ``tokens`` input tokens."""
    messages = [user("go" + " go" * (tokens - MESSAGE_OVERHEAD - 1))]
    assert count_tokens(messages) == tokens
    return messages


client = fake_client()
REPLY = max_output(DEFAULT_MODEL)  # max_tokens: the largest reply this model may be asked for
ours = this_chapter(DEFAULT_MODEL)


def ask(input_tokens):
    """'200' if a request of ``input_tokens`` asking for REPLY is served, else the status and the API's words."""
    try:  # the SDK wants an explicit timeout before it sends a request for so long a reply
        client.messages.create(model=DEFAULT_MODEL, max_tokens=REPLY, messages=sized(input_tokens), timeout=600)
    except BadRequestError as error:
        return f"{error.status_code} {error.body['error']['message'].split(', decrease')[0]}"
    return "200"


sizes = {"90% of the window": resolve_threshold(CODEX_FRACTION, DEFAULT_MODEL), "our threshold": ours,
         "ours + the buffer": ours + BUFFER, "ours + the buffer + 1": ours + BUFFER + 1}
margins = {label: ask(tokens) for label, tokens in sizes.items()}
for label, answer in margins.items():
    print(f"{label:22} {sizes[label]:>8,} input + {REPLY:,} reply -> {answer}")

# %%
limit = "400 input length and `max_tokens` exceed context limit: {} + 64000 > 200000"
assert margins == {"90% of the window": limit.format(180_000), "our threshold": "200",
                   "ours + the buffer": "200", "ours + the buffer + 1": limit.format(136_001)}

# %% [markdown]
# ## 10. One resume for both strategies
#
# The three-layer agent of chapter 05 writes compaction records too (`layer` auto or manual), each
# holding the one summary message that replaced everything. `resume` replays those as well: the
# history becomes that message. One detail: micro-compaction edits old tool results *in place*
# after they were logged, so the replayed history has the full results where the live one has
# placeholders; the next call runs micro-compaction again, and then the two are identical.

# %%
layers = run_scenario(TWELVE_FILES, CompactionConfig(threshold=10_000), WORK / "three_layers", log=True,
                      compact_policy=5_000)
layer_log = WORK / "three_layers" / "session.jsonl"
layer_kinds = [r["layer"] for r in read_log(layer_log).records if r["kind"] == "compaction"]
replayed = resume(layer_log).messages
live = copy.deepcopy(layers.messages)
for messages in (replayed, live):
    micro_compact(messages, CONFIG.keep_recent, CONFIG.preserve_tools, CONFIG.min_chars)
print("compaction records:", layer_kinds, "| replay equals the live history after micro:", replayed == live)

# %%
assert layer_kinds == ["auto", "auto", "manual"] and replayed == live

# %% [markdown]
# ## 11. The compaction inspector
#
# Seed 000 shows compactions in a debug console; here it is a widget. A header counts the
# compactions and failures; each card shows the reported tokens, the threshold, the items before,
# removed and kept, the estimate before and after, the reason, and a folded "Summary sent to the
# model" with the exact message the model received. Failed compactions and a stopped breaker have
# cards too. (The widget is live only when the notebook runs.)

# %%
all_events = session.events + continued.events + broken.events
cards = compaction_cards(all_events)
print(f"{len(cards)} cards:", {kind: sum(c.kind == kind for c in cards) for kind in sorted({c.kind for c in cards})})

# %%
assert len(cards) == 7 + len([e for e in continued.events if e.kind == "history_compacted"]) + 4

# %% tags=["nbval-ignore-output"]
display(compaction_inspector(all_events))

# %% [markdown]
# ## 12. Try it: the budget
#
# Move the budget and watch which of the session's requests a replacement would keep verbatim (the
# whole session, as the naive resume rebuilt it). Below the newest request's length only that one
# stays; from the total of all of them, everything does. The callback is
# `harness.session.replacement.describe_replacement`, a pure function; `tests/test_replacement.py` runs it over the
# slider's whole range.

# %%
request_chars = sorted(len(text_of(m)) for m in naive if m["role"] == "user" and isinstance(m["content"], str))
print(f"{len(request_chars)} requests, {sum(request_chars)} characters in all, longest {request_chars[-1]}")

# %%
assert plan_replacement(naive, sum(request_chars)).kept_chars == sum(request_chars)
assert len(plan_replacement(naive, 0).kept) == 1

# %% tags=["nbval-ignore-output"]
budget_slider = panel(describe_replacement, messages=naive,
                      budget_chars=IntSlider(value=200, min=0, max=sum(request_chars) + 50, step=10))

# %% [markdown]
# ## Summary
#
# - Decide from the **reported** usage of the round just committed: none reported, no decision;
#   below the threshold or fewer than 4 items, no; otherwise compact, with a reason naming both
#   numbers.
# - Replace the history with a **pure** function: one summary, then the user's recent messages
#   verbatim within 20,000 characters (the newest always), and nothing from the assistant or the
#   tools, so no pair can be broken.
# - Compact **between rounds**, after the tool results are committed.
# - The log is **append-only**: every message once, plus one record per compaction holding its
#   summary. The live history is derived from it by **replay**; reading the messages back naively
#   resurrects the uncompressed history without any error.
# - One record, one line, one write, flushed after every round: a crash can only tear the last
#   line, which every reader skips and reopening cuts off in one step. A tool call a crash left
#   unanswered gets an "interrupted" error result, recorded in the log. Any other bad line is an
#   error naming it.
# - Retry the summary with backoff; after 3 failed compactions in a row, stop auto-compacting and
#   say so, history untouched.
# - A threshold can be a fraction of the model's window; better, count it down from the window:
#   window − output reserve − safety buffer, so the next request and its reply always fit.

# %% [markdown]
# ## Exercises
#
# ### 1. Replay by hand
# Write `my_replay(records)` that rebuilds the live history from a list of log records: append
# every `message` record's message; at a `compaction` record, use `replace_history` with the
# record's `summary` and `budget_chars` if it has a summary, else replace everything by its
# `message`; an `interrupted` record's message is appended like any other.
#
# *Hint:* this is the whole of `harness.session.resume.replay`; try not to look.

# %%
def my_replay(records):
    raise NotImplementedError("your code here")

# %%
try:
    mine = [my_replay(read_log(path).records) for path in (LOG, layer_log, torn, mid_round)]
except NotImplementedError:
    print("Exercise 1: not implemented yet.")
else:
    assert mine[0] == continued.messages, "the usage-triggered session does not replay to its live history"
    assert mine[1] == resume(layer_log).messages, "the three-layer session does not replay"
    assert mine[2] == continued.messages, "the torn log does not replay"
    assert mine[3] == after.messages, "the log with an interrupted round does not replay"
    print("Exercise 1: correct.")

# %% [markdown]
# ### 2. Tear it anywhere
# Write `tear(source, target, record, keep)`: copy the log `source` to `target`, then append the
# first `keep` characters of the line `record` (no newline), as a crash in the middle of writing it
# would. Then check that for *every* cut point the resume recovers the same history and reports
# the torn line, and that reopening the log gives back the file as it was before the crash.
#
# *Hint:* `shutil.copy`, then open the target in append mode.

# %%
def tear(source, target, record, keep):
    raise NotImplementedError("your code here")

# %%
try:
    extra = json.dumps({"seq": 999, "kind": "message", "message": user("never committed")})
    (WORK / "exercise").mkdir(exist_ok=True)
    outcomes = set()
    for keep in range(1, len(extra)):
        tear(LOG, WORK / "exercise" / "torn.jsonl", extra, keep)
        result = resume(WORK / "exercise" / "torn.jsonl")
        SessionLog(WORK / "exercise" / "torn.jsonl")
        outcomes.add((result.messages == continued.messages, result.torn is not None,
                      (WORK / "exercise" / "torn.jsonl").read_bytes() == LOG.read_bytes()))
except NotImplementedError:
    print("Exercise 2: not implemented yet.")
else:
    assert outcomes == {(True, True, True)}, f"some cut point was not recovered: {outcomes}"
    print(f"Exercise 2: correct for all {len(extra) - 1} cut points.")

# %% [markdown]
# ### 3. A budget in tokens
# Codex keeps recent user messages up to 20,000 *tokens*, not characters. Write
# `kept_by_tokens(messages, budget_tokens)`: the indexes of the user messages (use
# `harness.session.replacement.is_user_words`) to keep, oldest first, chosen newest first while their
# `count_tokens([message])` total fits, the newest always.
#
# *Hint:* copy `plan_replacement` and change one line.

# %%
def kept_by_tokens(messages, budget_tokens):
    raise NotImplementedError("your code here")

# %%
try:
    picks = {budget: kept_by_tokens(naive, budget) for budget in (0, 50, 100, 10_000)}
except NotImplementedError:
    print("Exercise 3: not implemented yet.")
else:
    from harness.session.replacement import is_user_words
    words = [i for i, m in enumerate(naive) if is_user_words(m)]
    for budget, kept in picks.items():
        assert list(kept) == words[len(words) - len(kept):], "keep a run of the most recent user messages, in order"
        assert len(kept) >= 1 and (len(kept) == 1 or sum(count_tokens([naive[i]]) for i in kept) <= budget)
    assert len(picks[10_000]) == len(words) and len(picks[0]) == 1
    print("Exercise 3: correct.")
