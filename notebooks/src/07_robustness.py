# %% [markdown]
# # 07 · Robustness: crashes, failing summaries, other models
#
# **Promise:** the session of chapter 06 will survive a crash at any byte of its log, a summariser
# that fails, and a model whose window is five times larger, and you will see every compaction,
# failed ones included, in one widget.
#
# Chapter 06 built seed 000's design: compact on the reported usage, replace the history by a
# summary and the user's words, append everything to a log and resume by replaying it. It worked
# because nothing went wrong. Here things go wrong on purpose: the process dies in the middle of a
# write, the summary call fails, the threshold meets a model it was not chosen for. Seed 000 lists
# the last two among the things it has not done yet; the fixes here are ours, and where a real
# system does the same, its source is named.
#
# Each lesson says whether it holds for *any model* (it follows from the API, the file system or the
# arithmetic) or depends on *this fake* (on how our fake model chooses to act).
#
# ## What you will be able to do
#
# - survive a crash at any byte of the log, even between a tool call and its result (you write the
#   answer to the calls left open), and refuse a log that is corrupt;
# - retry a failed summary with backoff, only when trying again can help, and stop auto-compaction
#   after 3 failures in a row;
# - set a threshold per model, as a fraction of its context window or as the window minus room for
#   the reply and a safety buffer, and compare it with what real tools use;
# - inspect every compaction, failed ones included, in a widget.

# %% [markdown]
# ## Setup
#
# The session of chapter 06 again, in a folder of this chapter's own: the first 8 requests of the
# long working session with the usage-triggered strategy and a session log. Its log is what the
# crashes below damage.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import json
import shutil

import anthropic
import httpx2
from anthropic import BadRequestError
from IPython.display import display

from harness import (DEFAULT_MODEL, CompactionConfig, context_window, count_tokens, max_output, resolve_threshold,
                     threshold_below_window, tool_result, user)
from harness.core.tokens import MESSAGE_OVERHEAD
from harness.fake import fake_client
from harness.fake.context_management import (CLEARING_KEEP, CLEARING_TRIGGER, COMPACTION_TRIGGER,
                                             MIN_COMPACTION_TRIGGER)
from harness.labs.inspector import compaction_cards, compaction_inspector
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION
from harness.labs.scratch import own_scratch
from harness.labs.steps import check
from harness.session.log import Repair, SessionLog
from harness.session.records import CorruptLog, TornLine, read_log
from harness.session.resume import INTERRUPTED, replay, resume, resume_naive
from harness.session.retry import RetryPolicy, call_with_retry, is_transient
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.usage_triggered import UsageTriggered

WORK = own_scratch("07_robustness")  # a fresh folder of its own for each run
REQUESTS = LONG_SESSION.requests[:8]
NO_WAIT = RetryPolicy(sleep=lambda seconds: None)  # failures are retried without really waiting
CONFIG = CompactionConfig()

session = run_scenario(LONG_SESSION, CONFIG, WORK / "main", requests=REQUESTS, log=True,
                       compactor=UsageTriggered(retry=NO_WAIT))
LOG = WORK / "main" / "session.jsonl"
LOG_BYTES = LOG.read_bytes()
records = read_log(LOG).records
print(f"{len(REQUESTS)} requests: {session.stats.model_calls} agent calls, {session.stats.compactions}; "
      f"the log holds {len(records)} records")

# %%
assert (session.stats.model_calls, session.stats.compactions) == (48, {"history_compacted": 7})
assert len(records) == 103 and resume(LOG).messages == session.messages

# %% [markdown]
# ## 1. A crash at any byte
#
# A process can die anywhere, including in the middle of writing the log. The log is built so that
# this costs nothing that was complete (*any model*: this is about the file, not the model):
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
# First, a write cut short in the middle of a record, 40 characters into it:

# %%
torn = WORK / "crash" / "session.jsonl"
torn.parent.mkdir(parents=True)
shutil.copy(LOG, torn)
half_record = json.dumps({"seq": len(records) + 1, "kind": "message", "message": user("Count the lines")})
with torn.open("a", encoding="utf-8") as f:
    f.write(half_record[:40])  # the crash: half a record, no newline
after_crash = resume(torn)
print("torn:", after_crash.torn, "| everything before it recovered:", after_crash.messages == session.messages)
repaired = SessionLog(torn)
print("reopening:", repaired.repair, "| the file is the log before the crash again:", torn.read_bytes() == LOG_BYTES)

# %%
assert after_crash.torn == TornLine(line=len(records) + 1, size=40)
assert after_crash.messages == session.messages
assert repaired.repair == Repair("cut", len(records) + 1, 40) and torn.read_bytes() == LOG_BYTES
assert resume(torn).torn is None and resume(torn).messages == session.messages

# %% [markdown]
# ## 2. A crash inside a round
#
# The dangerous crash is a different one. A round is two records: the assistant's message with its
# `tool_use` blocks, then the user message with the `tool_result` blocks. The results are usually
# the larger write, so they are the likelier to be torn. Cut the log inside the last round's results:
# the history that comes back ends with a tool call nobody answered, and the API refuses every
# request that contains one (*any model*: the fake enforces the API's rule, and the real API's 400
# for it, "`tool_use` ids were found without `tool_result` blocks immediately after", is quoted in
# anthropics/claude-code issue #1237).

# %%
lines = LOG_BYTES.splitlines(keepends=True)
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
assert last_call + 2 == 102 and records[last_call + 1]["message"]["content"][0]["tool_use_id"] == open_call["id"]
assert refused == 400

# %% [markdown]
# `resume` therefore answers every call left open with an error result saying the run was
# interrupted. Seed 000 says its resume normalises calls left without an output, but not how; Codex
# gives each such call an output that reads "aborted" (openai/codex
# `codex-rs/core/src/context_manager/normalize.rs`, `ensure_call_outputs_present`). Ours says a
# little more. (The other choice is to drop the unfinished round. Keeping it tells the model what it
# had asked for, and the error tells it to check before asking again, which matters for a tool such
# as `edit_file` that may have run.) `resume` only reads. `reopen`, which continues a session, also
# writes the answer to the log as an `interrupted` record, so replay stays a pure function of the
# log: resuming before and after gives the same history.
#
# **Write it.** The answer is the stub below: fill it in, run it, and run the cell after it, which
# checks yours against the reference on many histories and says *not written yet*, where yours
# differs, or that it passes. Until yours passes, the chapter runs the reference (stuck? it is in
# `harness/labs/solutions/ch07.py`).

# %% tags=["stub"]
def my_interruption(history):
    """The user message answering the tool calls the history ends with, or None if no call is open.

    Only the last message can hold open calls, and only if it is the assistant's with tool_use blocks
    (its content may also be a plain string). The answer: one user message with, for each of those
    blocks in order, tool_result(its id, INTERRUPTED, is_error=True)."""
    # None for an empty history, or one whose last message is not the assistant's
    # the ids of the tool_use blocks of that last message (none if its content is a string)
    # None if there are none; else user([...one error tool_result per id...])
    raise NotImplementedError("your code here")

# %%
my_interruption = check(my_interruption)

# %% [markdown]
# The cell below continues the session as `reopen` does, with your answer: open the log (which cuts
# the torn line), replay it, record the answer, go on. What the agent does with that error depends on
# *this fake*: it reads the file again and answers as the uninterrupted session did. A real model
# reads the same words and may choose otherwise.

# %%
log = SessionLog(mid_round)                    # the lock, then the torn line cut off
history = replay(read_log(mid_round).records)  # ends with the open call
answer = my_interruption(history)
log.append("interrupted", message=answer)      # in the log before the session goes on
history.append(answer)
log.mark_logged(history)                       # all of it is in the log already
print("repair:", log.repair)
print("last record:", {k: v for k, v in read_log(mid_round).records[-1].items() if k != "message"})
answer_given = answer["content"][0]
print("answer given:", answer_given["content"])
after = Session(session.client, session.toolbox, CONFIG, log=log, compactor=UsageTriggered(retry=NO_WAIT),
                messages=history)
after.ask(REQUESTS[7])
print("the session goes on:", after.tool_calls, "->", after.answers[-1])

# %%
assert log.repair.action == "cut" and read_log(mid_round).records[last_call + 1]["kind"] == "interrupted"
assert answer_given == tool_result(open_call["id"], INTERRUPTED, is_error=True)
assert after.tool_calls == [("read_file", open_call["input"])]
assert after.answers[-1] == session.answers[-1]
assert resume(mid_round).messages == after.messages

# %% [markdown]
# ## 3. A corrupt line is an error
#
# A damaged line anywhere but at the end is not a crash, and neither is a line that is valid JSON but
# not a valid record. Skipping either would resume a different history, so `resume` stops with an
# error naming the line:

# %%
corrupt = WORK / "crash" / "corrupt.jsonl"
refusals = {}
for number, damage in ((10, lines[9][:30] + b"\n"), (11, b'{"seq": 11, "kind": "message"}\n')):
    corrupt.write_bytes(b"".join(lines[:number - 1]) + damage + b"".join(lines[number:]))
    try:
        resume(corrupt)
    except CorruptLog as error:
        print("CorruptLog:", error)
        refusals[number] = error.line

# %%
assert refusals == {10: 10, 11: 11}

# %% [markdown]
# ## 4. When the summary call fails
#
# The summary is a model call like any other, and calls fail. Seed 000 let the whole run fail with
# it, and lists retries and a circuit breaker as not done. Here there are two levels (*any model*:
# the failures are injected by the fake, the policy does not look at who failed):
#
# - **Retry, but only what can succeed.** A failed call is tried again after a pause that doubles
#   each time (1 s, then 2 s by default; the pause function is injected, so this notebook records
#   the pauses instead of waiting). Only a *transient* failure is tried again: a request timeout
#   (408), a conflict (409), a rate limit (429), a server error (5xx, 529 "overloaded" among them), a
#   lost connection or a timeout. These are the ones the `anthropic` SDK itself retries
#   (anthropic-sdk-python `src/anthropic/_base_client.py`, `_should_retry`; twice by default,
#   `DEFAULT_MAX_RETRIES` in `_constants.py`). For the summary call the harness turns the SDK's own
#   retries off, so one policy decides: 3 harness tries would otherwise be up to 9 requests. Any
#   other refusal, such as a 400 "prompt is too long", fails the same way every time.
# - **Stop after 3 failures in a row.** A compaction whose every try failed leaves the history
#   exactly as it was and emits a `compaction_failed` event. After **3** failed compactions in a row
#   a circuit breaker turns auto-compaction off for the session and emits `auto_compaction_stopped`:
#   better an uncompressed session than a doomed summary call every round. Claude Code added the
#   same kind of breaker in version 2.1.76: its changelog says auto-compaction no longer retries
#   forever after consecutive failures but stops after 3 attempts (anthropics/claude-code
#   `CHANGELOG.md`, section 2.1.76).
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
# A refused request is not tried again. Here is a summary request whose input alone is over the
# window: the fake answers 400 as the API does, and `call_with_retry` raises it after one try, with
# no pause.

# %%
def sized(tokens):
    """One user message; a request holding it counts exactly ``tokens`` input tokens."""
    messages = [user("go" + " go" * (tokens - MESSAGE_OVERHEAD - 1))]
    assert count_tokens(messages) == tokens
    return messages


client = fake_client().with_options(max_retries=0)
sent, refused_pauses = [], []


def summary_of_too_much():
    sent.append(1)
    return client.messages.create(model=DEFAULT_MODEL, max_tokens=2_000, messages=sized(context_window(DEFAULT_MODEL) + 1))


try:
    call_with_retry(summary_of_too_much, RetryPolicy(attempts=3, sleep=refused_pauses.append))
except BadRequestError as error:
    too_long = error
print(f"{too_long.status_code} {too_long.body['error']['message']} | transient: {is_transient(too_long)}; "
      f"requests sent: {len(sent)}, pauses: {refused_pauses}")

# %%
assert (too_long.status_code, is_transient(too_long), len(sent), refused_pauses) == (400, False, 1, [])
assert too_long.body["error"]["message"] == "prompt is too long: 200001 tokens > 200000 maximum"

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
print(f"peak context, uncompressed from then on: {broken.stats.peak_context:,} tokens")

# %%
assert [e.kind for e in failures] == ["compaction_failed"] * 3 + ["auto_compaction_stopped"]
assert all(e.detail["tries"] == 2 for e in failures[:3])
assert broken.stats.summary_calls == 0 and broken.stats.compactions["compaction_failed"] == 3
assert resume(broken_log).messages == resume_naive(broken_log) == broken.messages
assert broken.stats.peak_context > 20_000  # it keeps working, uncompressed

# %% [markdown]
# ## 5. A threshold per model
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
eight_thousand = [e for e in session.events if e.kind == "history_compacted"]
fractional = UsageTriggered(threshold=0.04, retry=NO_WAIT)
same = run_scenario(LONG_SESSION, CONFIG, WORK / "fraction", requests=REQUESTS[:1], compactor=fractional)
same_events = [e for e in same.events if e.kind == "history_compacted"]
print("thresholds used:", [e.detail["threshold"] for e in same_events], "after calls", [e.call for e in same_events])
assert [e.detail["threshold"] for e in same_events] == [8_000, 8_000]
assert [e.call for e in same_events] == [e.call for e in eight_thousand[:2]]  # the same compactions as with 8,000

# %% [markdown]
# ### Count down from the window
#
# The threshold is checked on the input of the round just finished, but the *next* request must
# still fit, reply included: the API refuses a request whose input plus `max_tokens` passes the
# window (its 400 "input length and `max_tokens` exceed context limit", quoted in
# docker/docker-agent issue #569), and so does the fake. So set the threshold from the top:
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
# both (*any model*: this is arithmetic on the window). The table shows what real tools use, computed
# for this course's model and for a model with a 1M-token window; *room* is what the trigger leaves
# free for the reply and the buffer. Each rule comes with the source it was checked against, or says
# that it could not be checked.

# %%
BIG = "claude-sonnet-5"  # a 1M-token window
BUFFER = 13_000          # our safety buffer: the one Claude Code is reported to use (unverified, see below)
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
# asked for. The last row keeps the largest reply and the buffer free on both models. Our buffer of
# 13,000 is Claude Code's as reported in those issues, so it is as unverified as that row; any
# buffer larger than a round's tool results works the same way.
#
# ### The margin, checked by the fake
#
# Requests sized at a trigger, each asking for this model's largest reply, go through the real SDK to
# the fake. At 90% of the window the reply does not fit; at our threshold it does, and still does
# once the buffer is used up; one token more is refused.

# %%
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
# ## 6. The compaction inspector
#
# Seed 000 shows compactions in a debug console; here it is a widget. A header counts the
# compactions and failures; each card shows the reported tokens, the threshold, the items before,
# removed and kept, the estimate before and after, the reason, and a folded "Summary sent to the
# model" with the exact message the model received. Failed compactions and a stopped breaker have
# cards too, so a failure is never silent. Below are the cards of this chapter's sessions: the main
# one, its continuation after the crash, the flaky summariser and the broken one. (The widget is
# live only when the notebook runs.)

# %%
all_events = session.events + after.events + flaky.events + broken.events
cards = compaction_cards(all_events)
kinds = {kind: sum(c.kind == kind for c in cards) for kind in sorted({c.kind for c in cards})}
print(f"{len(cards)} cards:", kinds)

# %%
compacted = sum(e.kind == "history_compacted" for e in all_events)
assert kinds == {"auto_compaction_stopped": 1, "compaction_failed": 3, "history_compacted": compacted}
assert len(cards) == compacted + 4

# %% tags=["nbval-ignore-output"]
display(compaction_inspector(all_events))

# %% [markdown]
# ## Summary
#
# - One record, one line, one write, flushed after every round: a crash can only tear the last
#   line, which every reader skips and reopening cuts off in one step. A tool call a crash left
#   unanswered gets an "interrupted" error result (you wrote it: `my_interruption`), recorded in the
#   log, as Codex answers "aborted"; without it the API refuses the history (400). Any other bad line is an error naming it.
# - Retry the summary with backoff (1 s, then 2 s), and only when trying again can succeed: a 400
#   is raised after 1 try. After 3 failed compactions in a row, stop auto-compacting and say so,
#   history untouched, as Claude Code's breaker does since 2.1.76.
# - A threshold can be a fraction of the model's window; better, count it down from the window:
#   window − output reserve − safety buffer (123,000 of 200,000 here), so the next request and its
#   reply always fit. 90% of the window (180,000) leaves 20,000 tokens, less than a 64,000-token
#   reply.
# - Every compaction, failed or not, is a card in the inspector.

# %% [markdown]
# ## Exercises
#
# ### 1. Tear it anywhere
# Write `tear(source, target, record, keep)`: copy the log `source` to `target`, then append the
# first `keep` characters of the line `record` (no newline), as a crash in the middle of writing it
# would. The check then makes sure that for *every* cut point the resume recovers the same history
# and reports the torn line, and that reopening the log gives back the file as it was before the
# crash.
#
# *Hint:* `shutil.copy`, then open the target in append mode.

# %%
def tear(source, target, record, keep):
    raise NotImplementedError("your code here")

# %%
try:
    extra = json.dumps({"seq": len(records) + 1, "kind": "message", "message": user("never committed")})
    (WORK / "exercise").mkdir(exist_ok=True)
    outcomes = set()
    for keep in range(1, len(extra)):
        tear(LOG, WORK / "exercise" / "torn.jsonl", extra, keep)
        result = resume(WORK / "exercise" / "torn.jsonl")
        SessionLog(WORK / "exercise" / "torn.jsonl")
        outcomes.add((result.messages == session.messages, result.torn is not None,
                      (WORK / "exercise" / "torn.jsonl").read_bytes() == LOG_BYTES))
except NotImplementedError:
    print("Exercise 1: not implemented yet.")
else:
    assert outcomes == {(True, True, True)}, f"some cut point was not recovered: {outcomes}"
    print(f"Exercise 1: correct for all {len(extra) - 1} cut points.")

# %% [markdown]
# ### 2. Which failures are tried again?
# Below are ten HTTP statuses an API call can fail with. Predict which of them `is_transient` says
# are worth trying again, write them as a set in `retried`, then run the check.
#
# *Hint:* would the same request, sent again a second later, get a different answer?

# %%
STATUSES = (400, 401, 403, 404, 408, 409, 413, 429, 500, 529)
retried = None  # e.g. {429, ...}

# %%
def status_error(status):
    """The SDK's error for a response with this status."""
    response = httpx2.Response(status, request=httpx2.Request("POST", "https://api.anthropic.com/v1/messages"))
    return anthropic.APIStatusError(f"status {status}", response=response, body=None)


truth = {status for status in STATUSES if is_transient(status_error(status))}
if retried is None:
    print("Exercise 2: fill in retried, then run this cell.")
else:
    assert retried == truth, f"not quite: missing {sorted(truth - retried)}, extra {sorted(retried - truth)}"
    print("Exercise 2: correct.")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch07.py`).
#
# 1. Why can a crash only tear the last line of the log, and why may a reader skip a torn last line
#    but no other bad line?
# 2. What does the API do with a history cut inside a round, and why answer the open calls with an
#    error rather than drop the round?
# 3. Why does `reopen` write that answer to the log before the session goes on?
# 4. Which failed summary calls are tried again, and why is the SDK's own retry turned off for them?
# 5. Why count the threshold down from the window rather than take 90% of it?
