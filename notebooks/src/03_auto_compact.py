# %% [markdown]
# # 03 · auto_compact: past a threshold, save everything, then summarise
#
# **Promise:** when placeholders are not enough, you will write the function that replaces the
# whole history by one summary message without losing a byte of what was said, and watch it
# drive a long session that compacts again and again.
#
# Micro-compaction (chapter 02) slows the growth of the context but cannot stop it: requests,
# notes, answers and preserved file contents keep piling up. Auto-compaction is the second
# layer. Before a model call, if the history is over `THRESHOLD` tokens: (1) write the whole
# history to a transcript file, (2) ask the model for a summary, (3) replace the history by
# one user message that names the transcript and holds the summary.
#
# ## What you will be able to do
#
# - write `auto_compact` yourself in three small steps, in the right order, and check it
#   against the harness's on many histories;
# - read the summary request: its three questions, and why it gets the *tail* of the history;
# - run a long session with *your* function (the sawtooth) and move `THRESHOLD` yourself;
# - spot the order pitfall (micro-compaction runs before the transcript is written, so the
#   transcript has already lost tool outputs) and fix it with an append-only session log;
# - name transcripts so that two compactions in the same second do not overwrite each other.

# %% [markdown]
# ## Setup
#
# Two runs with compaction off, reused all the way down:
#
# - `twelve`: the 12-file task of chapter 02: a 25,128-token history to try things on;
# - `first20`: the first 20 requests of the long working session of chapter 00, as a baseline.
#
# The long session with compaction on comes in §6, once your `auto_compact` can run it.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import copy
import json
import shutil
from collections import Counter
from pathlib import Path

from IPython.display import display
from ipywidgets import IntSlider

from harness import (COMPRESSED_HEADER, DEFAULT_MODEL, SUMMARY_PROMPT, AutoReport, CompactionConfig,
                     SummaryFailed, assistant, auto_compact, estimate_tokens, is_placeholder, iter_tool_results,
                     micro_compact, read_transcript, text, tool_result, tool_use, user, validate_messages)
from harness.fake import fake_client
from harness.fake.summarizer import whole_messages
from harness.labs.auto_lab import (SAWTOOTH_REQUESTS, THRESHOLD_RANGE, explore_threshold,
                                   logged_results, placeholder_results, run_with_threshold, sawtooth_figure,
                                   threshold_run)
from harness.labs.micro_lab import outline
from harness.labs.panel import panel
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import check
from harness.labs.yours import Raised, compare, random_histories
from harness.strategies.three_layers import ThreeLayers
from harness.session.records import read_log

WORK = own_scratch("03_auto_compact")  # a fresh folder of its own for each run


def fresh(folder):
    """An empty folder under WORK (emptied if its cell ran before)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


OFF = CompactionConfig(micro=False, auto=False)
twelve = run_scenario(TWELVE_FILES, OFF, WORK / "twelve").messages
first20 = run_scenario(LONG_SESSION, OFF, WORK / "first20", requests=SAWTOOTH_REQUESTS)
print(f"twelve: {len(twelve)} messages, {estimate_tokens(twelve):,} tokens")
print(f"first20: {len(first20.trace)} calls, context up to {max(t.estimated for t in first20.trace):,} tokens, "
      f"{first20.stats.re_reads} re-reads")

# %%
assert (len(twelve), estimate_tokens(twelve)) == (28, 25_128)
assert (len(first20.trace), max(t.estimated for t in first20.trace), first20.stats.re_reads) == (67, 77_057, 0)
assert SAWTOOTH_REQUESTS == LONG_SESSION.requests[:20]

# %% [markdown]
# ## 1. When: THRESHOLD
#
# The reference agent (learn-claude-code s06,
# [`agents/s06_context_compact.py`](https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py))
# compacts when the seed's estimate, `len(str(messages)) // 4`, passes **50,000** tokens. Its
# loop checks that before every model call, right after micro-compaction. The 12-file history
# is far below; a lower threshold would fire. How to choose a threshold for a given model,
# leaving room below its window for the reply, and what real tools choose: chapter 07, §5.

# %%
THRESHOLD = CompactionConfig().threshold


def needs_auto_compact(messages, threshold=THRESHOLD):
    return estimate_tokens(messages) > threshold


print(f"THRESHOLD = {THRESHOLD:,}; twelve needs it: {needs_auto_compact(twelve)}; "
      f"at 20,000 it would: {needs_auto_compact(twelve, 20_000)}")

# %%
assert THRESHOLD == 50_000 and not needs_auto_compact(twelve) and needs_auto_compact(twelve, 20_000)

# %% [markdown]
# Your `auto_compact` is three small functions and a fourth that calls them in order. Each is
# tried on this small history as soon as it is written:

# %%
small = [
    user("What is VERSION_TAG in a.py?"),
    assistant([text("Reading a.py."), tool_use("toolu_1", "read_file", {"path": "a.py"})]),
    user([tool_result("toolu_1", 'VERSION_TAG = "v1"  # a.py: the first module')]),
    assistant('VERSION_TAG in a.py is "v1".'),
    user('In a.py, change VERSION_TAG to "v2".'),
]
validate_messages(small)
print(f"{len(small)} messages, {estimate_tokens(small)} tokens")

# %%
assert (len(small), estimate_tokens(small)) == (5, 125)

# %% [markdown]
# ## 2. Step 1: the transcript
#
# Before anything is thrown away, the whole history goes to disk, one JSON object per line
# (JSONL). The summary may fail (a network error, an empty reply); then the history must stay
# exactly as it was, and the transcript is simply one more file.
#
# Name each file from a counter, and open it with mode `"x"`: *create, and fail if it exists*.
# If the name is taken, try the next number. A file is never overwritten. (`json.dumps` with
# `ensure_ascii=False` keeps non-ASCII characters as they are.)
#
# **Write it.** Each step is a stub: fill it in, run it, and run the cell after it, which checks
# yours against the reference on many cases and says *not written yet*, where yours differs, or
# that it passes. Until yours passes, the rest of the chapter runs the reference (stuck? it is in
# `harness/labs/solutions/ch03.py`).

# %% tags=["stub"]
def save_transcript(messages, folder):
    """Write one JSON object per line to a new transcript_NNNN.jsonl in folder; return its path.

    The first free name from transcript_0001.jsonl; the folder (and its parents) is created if missing;
    an existing file is never overwritten."""
    # folder = Path(folder); create it if it is missing
    # lines: json.dumps(m, ensure_ascii=False) + "\n" for each message
    # number = 1; open folder / f"transcript_{number:04d}.jsonl" with mode "x" and write the lines;
    #     on FileExistsError try the next number; return the path you wrote
    raise NotImplementedError("your code here")

# %%
save_transcript = check(save_transcript)

# %%
folder = fresh(WORK / "transcripts")
first = save_transcript(small, folder)
print(first.as_posix())
print(first.read_text(encoding="utf-8"))
print(f"reads back identical: {read_transcript(first) == small}; a second call writes "
      f"{save_transcript(small, folder).name}")

# %%
assert first.name == "transcript_0001.jsonl" and read_transcript(first) == small
assert sorted(p.name for p in folder.glob("*.jsonl")) == ["transcript_0001.jsonl", "transcript_0002.jsonl"]

# %% [markdown]
# ### Two compactions in one second
#
# The reference names a transcript `transcript_{int(time.time())}.jsonl` and opens it with
# `"w"` (`auto_compact` in the file linked in §1). Two compactions within the same second (a manual
# `compact` right after an automatic one, two sessions sharing a folder) get the same name, and
# the second silently replaces the first. We replay that with two fixed clock readings, 0.5 s
# apart, instead of the real clock, and compare with your counter:

# %%
def reference_transcript_name(now):
    return f"transcript_{int(now)}.jsonl"


collide = fresh(WORK / "collide")
for now, messages in [(1_750_000_000.2, twelve[:2]), (1_750_000_000.7, twelve[:4])]:
    with open(collide / reference_transcript_name(now), "w", encoding="utf-8") as f:
        f.writelines(json.dumps(m) + "\n" for m in messages)
survivors = sorted(p.name for p in collide.glob("*.jsonl"))
print("reference naming:", survivors, "holding", len(read_transcript(collide / survivors[0])), "messages")

ours = fresh(WORK / "ours")
names = [save_transcript(twelve[:2], ours).name, save_transcript(twelve[:4], ours).name]
print("counter naming:  ", names)

# %%
assert survivors == ["transcript_1750000000.jsonl"] and len(read_transcript(collide / survivors[0])) == 4
assert names == ["transcript_0001.jsonl", "transcript_0002.jsonl"]

# %% [markdown]
# ## 3. Step 2: the summary request and its three questions
#
# The summary is an ordinary model call with no tools and no system prompt: one user message
# holding the prompt and the history as JSON. The prompt asks three things, the three seed 001
# names as what work needs to continue: what was done, where things stand, and which decisions
# were made and why (the seed calls the last the one most easily lost and the most costly to
# forget).

# %%
print(SUMMARY_PROMPT)

# %%
assert SUMMARY_PROMPT.count("?") == 3 and "accomplished" in SUMMARY_PROMPT

# %% [markdown]
# Build the request as the keyword arguments of `client.messages.create`. The conversation is
# the *last* `config.tail_chars` characters (80,000, as in the reference) of the history as
# JSON: `json.dumps(messages, default=str)[-80000:]` in the reference; §7 shows why the tail.
# Put it inside `<conversation>` tags after the prompt, so the model can tell the instruction
# from the material it is about. The reference puts it after the prompt untagged, and its
# `json.dumps` escapes each non-ASCII character (`é` becomes the six characters `\u00e9`), so
# a conversation in Chinese fills its 80,000 characters sooner. `focus` is what chapter 04's
# `compact` tool may ask the summary to attend to; it is `None` here.

# %% tags=["stub"]
def my_summary_request(messages, config, focus=None):
    """The keyword arguments of the summary call: the prompt, then the tail of the history as JSON.

    {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [one user message]};
    the message: SUMMARY_PROMPT, then (when focus is given and not "") a line "Focus especially on: <focus>",
    a blank line, and the conversation between a line "<conversation>" and a line "</conversation>"."""
    # conversation: the last config.tail_chars characters of json.dumps(messages, ensure_ascii=False)
    # prompt: SUMMARY_PROMPT, plus the focus line if focus
    # the message: user(prompt, a blank line, the conversation in its tags); return the three arguments
    raise NotImplementedError("your code here")

# %%
my_summary_request = check(my_summary_request)

# %%
config = CompactionConfig(transcript_dir=folder)
request = my_summary_request(small, config)
print(f"keys: {sorted(request)}; max_tokens {request['max_tokens']:,}; the message:\n")
print(request["messages"][0]["content"])

# %%
assert sorted(request) == ["max_tokens", "messages", "model"] and request["max_tokens"] == 2_000
assert config.tail_chars == 80_000

# %% [markdown]
# On the 12-file history the JSON is longer than 80,000 characters, so the conversation sent
# starts in the middle of a message:

# %%
dump = json.dumps(twelve, ensure_ascii=False)
tail_start = my_summary_request(twelve, config)["messages"][0]["content"].split("<conversation>\n")[1]
print(f"history as JSON: {len(dump):,} characters; the conversation sent starts {tail_start[:60]!r}")

# %%
assert len(dump) == 104_162

# %% [markdown]
# Now send it. Two things can go wrong, and both must leave the history alone: the call raises
# (network, server error, a request too long), or the reply holds no text. Turn both into one
# exception, `SummaryFailed`, so the caller has one thing to catch. The reply's text is the text
# of all its `text` blocks.

# %% tags=["stub"]
def ask_for_summary(client, request):
    """(summary text, usage) of one summary call, or SummaryFailed.

    The text: the text of all the reply's text blocks, stripped. SummaryFailed (with the cause chained) when
    the call raises anything, or when that text is empty."""
    # response = client.messages.create(**request), inside try; any exception: raise SummaryFailed(...) from it
    # summary: "".join of b.text for the blocks b whose b.type is "text", stripped; empty: SummaryFailed
    # return summary, response.usage
    raise NotImplementedError("your code here")

# %%
ask_for_summary = check(ask_for_summary)

# %%
client = fake_client()
summary, usage = ask_for_summary(client, request)
print(summary)
print(f"\n{usage.input_tokens} tokens in, {usage.output_tokens} out")
for name, failing in [("a server error", fake_client(fail_summaries=1)),
                      ("an empty reply", fake_client(empty_summaries=True))]:
    try:
        ask_for_summary(failing, request)
    except SummaryFailed as error:
        print(f"{name}: SummaryFailed: {error}")

# %%
assert summary.startswith("1. What was accomplished:") and "- In progress: In a.py, change VERSION_TAG" in summary
assert (usage.input_tokens, usage.output_tokens) == (228, 77)

# %% [markdown]
# *This fake*'s summaries are extractive: it recovers every whole message it can find in the
# JSON it was sent, then lists the files touched, the notes and decisions, the current request
# and every user request it saw, verbatim. A real model writes prose, but it too can only
# summarise what it was sent. Here is the 12-file history's summary. Read it closely: it does
# not know what the user asked for, and it lists 9 files read, not 12. The JSON is 104,162
# characters and only the last 80,000 were sent: the request and the first three reads were in
# the part cut off. *Any model* sent this tail misses them.

# %%
twelve_summary, twelve_usage = ask_for_summary(client, my_summary_request(twelve, config))
print(twelve_summary)
print(f"\nthe summary call: {twelve_usage.input_tokens:,} tokens in, {twelve_usage.output_tokens:,} out")

# %%
assert "3. Key decisions:" in twelve_summary and twelve_summary.count("- read: agents/") == 9
assert "- No request is visible in what I was given." in twelve_summary
assert (twelve_usage.input_tokens, twelve_usage.output_tokens) == (21_963, 358)

# %% [markdown]
# The 80,000 characters cost 21,963 input tokens here; seed 001 reckons about 20,000.
#
# ## 4. Step 3: replace the history by one message
#
# Now the three steps together, in this order: save, summarise, and only then replace.
# `messages[:] = [...]` replaces the *contents* of the list the loop holds, so the loop keeps
# working with the same object. If `ask_for_summary` raises, the replacement never runs: the
# history is untouched, and the transcript written first is still on disk.
#
# The function returns an `AutoReport` (from `harness`): what happened, for the loop's trace
# and the charts (the transcript, the summary, the sizes before and after, the summary call's
# tokens). `build` is the request builder, yours by default; an exercise swaps it.

# %% tags=["stub"]
def my_auto_compact(client, messages, config, focus=None, build=my_summary_request):
    """Transcript first, then the summary, then replace messages in place; SummaryFailed changes nothing.

    The one message left: COMPRESSED_HEADER with path= the transcript's as_posix(), a blank line, the summary.
    Returns AutoReport(transcript, summary, messages before, tokens before, tokens after, summary input
    tokens, summary output tokens), tokens by estimate_tokens."""
    # note len(messages) and estimate_tokens(messages) first
    # 1. transcript = save_transcript(messages, config.transcript_dir)
    # 2. summary, usage = ask_for_summary(client, build(messages, config, focus))  (let SummaryFailed through)
    # 3. only now: messages[:] = [user(...)]; return the AutoReport
    raise NotImplementedError("your code here")

# %%
my_auto_compact = check(my_auto_compact)

# %%
history = copy.deepcopy(small)
report = my_auto_compact(client, history, config)
print(history[0]["content"])
print(f"\n{report.messages_before} messages, {report.tokens_before} tokens -> {len(history)} message, "
      f"{report.tokens_after} tokens; transcript {report.transcript.name}")
validate_messages(history)

# %%
assert history[0]["content"].startswith("[Conversation compressed. Transcript: ")
assert (report.messages_before, len(history), report.transcript.name) == (5, 1, "transcript_0003.jsonl")
assert read_transcript(report.transcript) == small

# %% [markdown]
# On the 12-file history, 28 messages and 25,128 tokens become one message of a few hundred
# tokens (seed 001 says a summary message is about 500). And when the summary fails, nothing
# is replaced, and the transcript written first is still there:

# %%
history = copy.deepcopy(twelve)
report = my_auto_compact(client, history, config)
print(f"{report.messages_before} messages, {report.tokens_before:,} tokens -> {len(history)} message, "
      f"{report.tokens_after:,} tokens")

untouched = copy.deepcopy(twelve)
count_before = len(list(folder.glob("*.jsonl")))
try:
    my_auto_compact(fake_client(fail_summaries=1), untouched, config)
except SummaryFailed as error:
    print(f"SummaryFailed: {str(error)[:60]}...")
print(f"history unchanged: {untouched == twelve}; "
      f"transcripts on disk: {count_before} -> {len(list(folder.glob('*.jsonl')))}")

# %%
assert (report.messages_before, report.tokens_before, len(history), report.tokens_after) == (28, 25_128, 1, 416)
assert report.tokens_after < 500
assert untouched == twelve and len(list(folder.glob("*.jsonl"))) == count_before + 1

# %% [markdown]
# The reference agent differs on one of the two failures (`auto_compact` and `agent_loop` in
# the file linked in §1). If its summary call raises, its history is untouched too: it assigns
# `messages[:]` only after `auto_compact` returns, and the exception ends its loop. But an
# empty reply becomes the summary `"No summary generated."`, and the history is replaced by
# that: everything the agent knew, reduced to one line.
#
# ## 5. Check yours against the harness
#
# The harness's `auto_compact` (`harness/core/auto.py`) is the reference yours is checked
# against. `compare` runs both on fresh copies of the same cases: the histories of this
# chapter (the small one, the 12-file one, the 20-request baseline, a history that already
# starts with a summary), 40 random histories, a focus, and three kinds of failing summary call (a
# server error, an empty reply, and a request too long for a window of 2,000 tokens). Each run
# gets its own fresh fake client and an empty transcript folder. What must match:
#
# - the history afterwards, with the transcript's path replaced by `<transcript>`: file names
#   may legitimately differ (yours could use a timestamp and a counter), so the check only
#   requires that the header names the file you wrote;
# - the content of every transcript written (exactly one, on success and on failure);
# - the report: summary, sizes before, size after (as "equals the history's size", since it
#   depends on the path's length), the summary call's tokens, and that it names that file;
# - on failure, the exception's type (`SummaryFailed`).
#
# The harness's version also refuses a malformed history before writing anything
# (`InvalidHistory`); every case here is valid, so yours is not asked to.

# %%
CLIENTS = {"answers": fake_client,
           "fails (HTTP 500)": lambda: fake_client(fail_summaries=1),
           "answers empty": lambda: fake_client(empty_summaries=True),
           "window of 2,000 tokens": lambda: fake_client(window=2_000)}


def what_it_did(function, args):
    """What matters of one run of an auto_compact: history after, transcripts written, report or error."""
    history, client_kind, focus = args
    out = fresh(WORK / "compare")
    try:
        report = function(CLIENTS[client_kind](), history, CompactionConfig(transcript_dir=out), focus)
    except Exception as error:
        outcome = Raised(type(error).__name__)
    else:
        outcome = {"summary": report.summary, "messages_before": report.messages_before,
                   "tokens_before": report.tokens_before,
                   "tokens_after is the history's size": report.tokens_after == estimate_tokens(history),
                   "summary tokens": (report.summary_input_tokens, report.summary_output_tokens),
                   "names the file written": [Path(report.transcript)] == sorted(out.iterdir())}
    written = sorted(out.iterdir())
    shown = json.dumps(history, ensure_ascii=False)
    for path in written:
        shown = shown.replace(path.as_posix(), "<transcript>")
    return {"history": json.loads(shown), "transcripts": [read_transcript(p) for p in written],
            "outcome": outcome}


after_summary = [user(COMPRESSED_HEADER.format(path="old/transcript_0001.jsonl") + "\n\n" + twelve_summary),
                 assistant("I have the summary. What next?"), user("Which files did you read?")]
cases = [("small", (small, "answers", None)), ("twelve", (twelve, "answers", None)),
         ("first20", (first20.messages, "answers", None)), ("after a summary", (after_summary, "answers", None)),
         ("twelve, with a focus", (twelve, "answers", "the user's requests")),
         ("small, server error", (small, "fails (HTTP 500)", None)),
         ("twelve, server error", (twelve, "fails (HTTP 500)", None)),
         ("twelve, empty reply", (twelve, "answers empty", None)),
         ("twelve, too long for the window", (twelve, "window of 2,000 tokens", None))]
cases += [(f"random {n}", (h, "answers", None)) for n, h in enumerate(random_histories(40, seed=3))]
agreement = compare("my_auto_compact", my_auto_compact, auto_compact, cases, observe=what_it_did,
                    label="run")
print(agreement)

# %%
assert agreement.ok and agreement.cases == 49 == 9 + 40
failures = [what_it_did(auto_compact, args)["outcome"] for name, args in cases if args[1] != "answers"]
assert failures == [Raised("SummaryFailed")] * 4

# %% [markdown]
# From here on, the chapter runs *your* `my_auto_compact`. `ThreeLayers(summarise=my_auto_compact)`
# (`harness/strategies/three_layers.py`) is the reference agent's three layers with your function
# plugged in where the summarising happens: micro-compaction before every call, then, past
# `THRESHOLD`, your `auto_compact`.
#
# ## 6. Several compactions in one run: the sawtooth
#
# Auto-compaction does not end the agent's turn: the agent keeps working from the summary, the
# context grows again, and the next compaction comes. The long working session (71 requests)
# with the default knobs (micro, then auto at 50,000) and an append-only session log
# (`log=True`, §7), summarised by your function:

# %%
long = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "long", log=True,
                    compactor=ThreeLayers(summarise=my_auto_compact))
autos = [e for e in long.events if e.kind == "auto"]
for e in autos:
    print(f"before call {e.call}: {e.detail['messages_before']} messages, "
          f"{e.tokens_before:,} -> {e.tokens_after:,} tokens, transcript {Path(e.detail['transcript']).name}")
run = threshold_run(long)
stats = long.stats
print(f"{len(LONG_SESSION.requests)} requests, {stats.model_calls} agent calls, {stats.summary_calls} summary "
      f"calls, {stats.re_reads} re-reads, context never above {run.peak:,}")
display(sawtooth_figure(run, [t.estimated for t in first20.trace],
                        "the long session, your auto_compact (the uncompressed baseline: its first 20 requests)",
                        uncompressed_label="uncompressed, first 20 requests"))

# %%
assert len(LONG_SESSION.requests) == 71
assert [e.call for e in autos] == [35, 87, 134]
assert [(e.tokens_before, e.tokens_after) for e in autos] == [(50_206, 363), (50_524, 341), (50_410, 376)]
assert [e.detail["messages_before"] for e in autos] == [69, 105, 95]
assert (stats.model_calls, stats.summary_calls, stats.re_reads) == (195, 3, 36)
assert run.peak == 49_916 and run.peak < THRESHOLD < max(t.estimated for t in first20.trace)

# %% [markdown]
# Each tooth drops from just over 50,000 tokens to a few hundred: 69, 105 and 95 messages
# become one. Uncompressed, the first 20 requests alone reach 77,057 tokens.
#
# The price shows in the re-reads: 36 times the agent read a file again that had not changed
# since it last read it. The cause is compaction, and a control shows it: the same first 20
# requests uncompressed re-read nothing, and with compaction they re-read 7 times. That an agent
# must read again what no longer is in its context holds for *any model* that does not guess;
# the counts are *this fake*'s.

# %%
first20_compacted = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "first20_compacted",
                                 requests=SAWTOOTH_REQUESTS, compactor=ThreeLayers(summarise=my_auto_compact))
print(f"first 20 requests: re-reads uncompressed {first20.stats.re_reads}, "
      f"with your auto_compact {first20_compacted.stats.re_reads}")

# %%
assert (first20.stats.re_reads, first20_compacted.stats.re_reads) == (0, 7)

# %% [markdown]
# ### What a copying summariser hides
#
# *This fake*'s summaries copy: every request they can find, word for word. A real summary
# paraphrases and drops. As a control, run the same session with a summariser that distorts by a
# fixed rule (`summary_style="lossy"`: each item cut to a gist of at most 8 words, items that then
# read alike merged, only the 3 most recent of each kind kept) and list the answers that change:

# %%
lossy = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "lossy", summary_style="lossy",
                     compactor=ThreeLayers(summarise=my_auto_compact))
changed = [i for i, (a, b) in enumerate(zip(long.answers, lossy.answers)) if a != b]
for i in changed:
    print(f"request {i + 1}: {LONG_SESSION.requests[i]}\n  copying: {long.answers[i]}\n  lossy:   {lossy.answers[i]}")

# %%
assert [i + 1 for i in changed] == [7, 21, 48, 69] and len(lossy.answers) == len(long.answers) == 71
assert lossy.answers[6] == "I do not know how to do that in this workspace."
assert lossy.answers[20] == 'VERSION_TAG in core/c06_storage.py is "v6-storage".'

# %% [markdown]
# The first compaction came in the middle of request 7, an edit. The lossy gist kept "change
# VERSION_TAG to a new value" and dropped the value, so no message the agent could see held it:
# *any model* would have to ask or guess; *this fake* says it cannot. The edit never happened, and
# requests 21 and 48 read the old tag back. A summary that reads well can still have lost the one
# string the next step needs; the copying fake never shows that, so treat its results as a best case.

# %% [markdown]
# ## 7. Why the tail, not the head
#
# The reference sends `json.dumps(messages, default=str)[-80000:]`, the *last* 80,000 characters. An older
# version sent the first 80,000; learn-claude-code issue
# [#109](https://github.com/shareAI-lab/learn-claude-code/issues/109) reported that the
# summary then lost the current state, and PR
# [#110](https://github.com/shareAI-lab/learn-claude-code/pull/110) (merged) switched to the
# tail. Take the history of the long session at the moment of its first auto-compaction: it is
# the first transcript your function wrote.

# %%
at_first = read_transcript(autos[0].detail["transcript"])
dump = json.dumps(at_first, ensure_ascii=False)
head, tail = dump[:80_000], dump[-80_000:]
print(f"{len(at_first)} messages, {len(dump):,} characters of JSON; "
      f"whole messages in the head: {len(whole_messages(head))}, in the tail: {len(whole_messages(tail))}")

# %%
assert (len(at_first), len(dump)) == (69, 208_133)
assert (len(whole_messages(head)), len(whole_messages(tail))) == (22, 20)

# %% [markdown]
# **What the head looks like after micro-compaction.** Seed 001 argues for the tail: the head
# is the oldest part, the part micro-compaction has worked on longest. In the seed's setting,
# where `read_file` results are cleared too, the start of this history is a column of
# placeholders:

# %%
seed_setting = copy.deepcopy(at_first)
micro_compact(seed_setting, 3, frozenset())
print("\n".join(outline(seed_setting)[:12]))
seed_head = placeholder_results(seed_setting)
print(f"... {len(seed_head)} of {len(list(iter_tool_results(seed_setting)))} results are placeholders")

# %%
assert (len(seed_head), len(list(iter_tool_results(seed_setting)))) == (24, 28)

# %% [markdown]
# With our defaults `read_file` is kept, so the head is not placeholders but something just as
# useless: the full text of files read for a task finished long ago. Ask the (fake) model to
# summarise each end and compare what it believes is going on:

# %%
def summary_of(conversation):
    prompt = f"{SUMMARY_PROMPT}\n\n<conversation>\n{conversation}\n</conversation>"
    return ask_for_summary(client, {"model": DEFAULT_MODEL, "max_tokens": 2_000, "messages": [user(prompt)]})[0]


def state_line(text):
    return text.split("2. Current state:\n")[1].splitlines()[0]


head_summary, tail_summary = summary_of(head), summary_of(tail)
print("head says:", state_line(head_summary))
print("tail says:", state_line(tail_summary))
print("actual current request:", [m["content"] for m in at_first if isinstance(m["content"], str)][-1])

# %%
assert state_line(head_summary) == "- In progress: Read every .py file under agents/ and summarise what each does."
assert state_line(tail_summary) == '- In progress: In core/c06_storage.py, change VERSION_TAG to "v6-append-only".'
assert tail_summary == autos[0].detail["summary"]
assert LONG_SESSION.requests[6] == 'In core/c06_storage.py, change VERSION_TAG to "v6-append-only".'

# %% [markdown]
# The head's summary would send the agent back to a task it finished long ago; the tail's
# knows what it is doing now (the tail's is exactly the summary your function wrote). That the
# head cannot name the current request holds for *any model*: the request is not in what it
# was sent. The tail has a price, though: what was said early is cut off. The user's rule
# "never edit anything under tools/" (request 2) is in neither summary, so after this
# compaction the agent no longer knows it.

# %%
rule = LONG_SESSION.requests[1]
print("request 2:", rule)
print("in the head's summary:", rule in head_summary, "; in the tail's:", rule in tail_summary)
last_request = LONG_SESSION.requests[-1]
shell_tool = (WORK / "long" / "workspace" / "tools" / "t05_shell.py").read_text(encoding="utf-8")
print(f"the last request: {last_request}\nthe agent's answer: {long.answers[-1]}")

# %%
assert rule.startswith("From now on, never edit") and rule not in head_summary and rule not in tail_summary
assert last_request == 'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".'
assert 'VERSION_TAG = "v5-unsafe"' in shell_tool

# %% [markdown]
# At the very end of the session the user asks for exactly what the rule forbids, and the
# agent does it. What *this fake* does with a forgotten rule is its own; that the rule is gone
# from what the agent sees holds for any model. Chapter 08 measures this amnesia and compares
# strategies that keep such instructions.
#
# ## 8. The order pitfall, and the fix
#
# Seed 001 says the transcript is saved before micro-compaction runs, so it holds everything.
# The reference loop does the opposite (`agent_loop` in the file linked in §1): micro, *then* the
# threshold check and the transcript. And micro runs before *every* call, so by the time auto
# fires, older results have been placeholders for many calls already. Here it is on the
# 12-file history, in the seed's setting:

# %%
order_folder = fresh(WORK / "order")
placeholders_saved = {}
for order in ("micro, then transcript", "transcript, then micro"):
    h = copy.deepcopy(twelve)
    if order.startswith("micro"):
        micro_compact(h, 3, frozenset())
        path = save_transcript(h, order_folder)
    else:
        path = save_transcript(h, order_folder)
        micro_compact(h, 3, frozenset())
    placeholders_saved[order] = len(placeholder_results(read_transcript(path)))
    print(f"{order}: the transcript has {placeholders_saved[order]} placeholders")

# %%
assert placeholders_saved == {"micro, then transcript": 10, "transcript, then micro": 0}

# %% [markdown]
# In the long session (defaults, `read_file` preserved), the three transcripts your function
# wrote have lost these outputs to placeholders:

# %%
transcripts = [Path(e.detail["transcript"]) for e in autos]
lost = {p.name: placeholder_results(read_transcript(p)) for p in transcripts}
for name, items in lost.items():
    print(name, dict(Counter(tool for _, tool in items)))
cleared_at_firing = [sum(e.detail["cleared"] for e in long.events if e.kind == "micro" and e.call == a.call)
                     for a in autos]
print("of those, cleared in the very call where auto fired:", cleared_at_firing)

# %%
assert [len(items) for items in lost.values()] == [3, 5, 3] and sum(map(len, lost.values())) == 11
assert cleared_at_firing == [0, 0, 0]

# %% [markdown]
# Eleven tool outputs are gone from the transcripts. Swapping micro and auto inside one turn
# would not have saved a single one: none was cleared in the call where auto fired; all were
# cleared turns earlier.
#
# **The fix: write first, then let anyone rewrite.** Our loop keeps an append-only
# `SessionLog`: at the top of every turn, before micro-compaction, it appends each newly
# committed message to a JSONL file, and a compaction appends a record of its own. Nothing ever
# edits a line. (`log=True` gave the long session one.) Every output the transcripts lost is in
# the log, in full:

# %%
records = read_log(WORK / "long" / "session.jsonl").records  # the log's one reader (chapter 06)
full = logged_results(records)
print("log records:", dict(Counter(r["kind"] for r in records)), f"; {len(full)} tool results, "
      f"{sum(content.startswith('[Previous: used') for content in full.values())} of them placeholders")
for name, items in lost.items():
    print(name, "lost outputs, as logged (characters):", [len(full[tool_id]) for tool_id, _ in items])
tool_id, tool = lost["transcript_0002.jsonl"][0]
saved = [b["content"] for _, _, b in iter_tool_results(read_transcript(transcripts[1])) if b["tool_use_id"] == tool_id]
print(f"\nfor example, {tool}: the transcript says {saved[0]!r}; the log starts {full[tool_id][:50]!r}")

# %%
assert Counter(r["kind"] for r in records) == {"message": 390, "compaction": 3}
assert len(full) == 124 and not any(content.startswith("[Previous: used") for content in full.values())
assert all(len(full[tool_id]) > 100 for items in lost.values() for tool_id, _ in items)

# %% [markdown]
# ## Your turn: the THRESHOLD slider
#
# The slider runs the session's first 20 requests (the whole session takes too long for a
# slider) with the default knobs, your `THRESHOLD` and your `my_auto_compact`. The cell runs
# all eight positions before it shows the panel (a progress bar counts them), so every move
# answers at once. Watch the number of teeth, the re-reads and the input billed. Low thresholds
# compact often and forget often.
# The top of the range, 80,000, is above the 77,057 tokens these requests reach even
# uncompressed. `tests/test_auto_lab.py` checks every position of the slider (with the
# harness's `auto_compact`, which yours agrees with).

# %% tags=["nbval-ignore-output"]
threshold_slider = panel(
    explore_threshold,
    threshold=IntSlider(value=THRESHOLD, min=THRESHOLD_RANGE[0], max=THRESHOLD_RANGE[1], step=THRESHOLD_RANGE[2],
                        continuous_update=False),
    uncompressed=[t.estimated for t in first20.trace], root=WORK / "slider",
    requests=SAWTOOTH_REQUESTS, compact=my_auto_compact, draw_all=True)

# %%
assert THRESHOLD_RANGE == (10_000, 80_000, 10_000) and max(t.estimated for t in first20.trace) < 80_000

# %% [markdown]
# ## Summary
#
# - Auto-compaction fires when the estimate passes `THRESHOLD` (50,000 in the reference), and
#   works in a fixed order: transcript, summary, replace. A failed or empty summary changes
#   nothing (the reference replaces the history by "No summary generated." on an empty one).
# - You wrote it in three steps (`save_transcript`, `my_summary_request` and
#   `ask_for_summary`, `my_auto_compact`), each a stub checked against the reference;
#   `my_auto_compact` agrees with `harness.auto_compact` on all 49 cases, and it ran the long
#   session: three compactions, 36 re-reads (7 in the first 20 requests, against none
#   uncompressed).
# - The summary request has no tools, three questions (accomplished, current state, key
#   decisions) and the last 80,000 characters of the history as JSON: the tail knows what is
#   going on now; the head is old work, or placeholders. The tail's price: early instructions
#   fall off, and at the end the agent edits the file the user had put off limits.
# - The history becomes one user message naming the transcript. In a long session this
#   repeats: the sawtooth.
# - *This fake*'s summaries copy, a best case: with a lossy summariser as the control, an edit
#   whose value the gist dropped never happened, and two later answers read the old tag.
# - Micro-compaction runs before the transcript is written, on every call, so a transcript has
#   already lost tool outputs (11 in the long session). Changing the order inside one turn does
#   not help; an append-only log written before any layer rewrites the history does.
# - Name transcripts with a counter and create them exclusively: the whole-second clock collides.
#
# Next, chapter 04: the agent asks for a compaction itself, with the `compact` tool.

# %% [markdown]
# ## Exercises
#
# ### 1. What did the first compaction forget?
# Write `forgotten_requests(transcript, summary)`: the user requests (user messages whose content
# is a string) of a transcript that the summary does not repeat word for word. Once it passes, run
# it on the first transcript of the long session (`at_first`) and the tail summary above.
#
# *Hint:* a request the summary repeats is part of its text (it lists the requests it kept as
# `- User: ...` lines).

# %% tags=["stub"]
def forgotten_requests(transcript, summary):
    """The user requests of transcript (its user messages whose content is a string) that summary does not
    repeat word for word, in the transcript's order, repeats included."""
    # the content of each user message whose content is a string; keep those that are not in summary
    raise NotImplementedError("your code here")

# %%
forgotten_requests = check(forgotten_requests)

# %% [markdown]
# ### 2. Summarise the head instead
# Write `head_summary_request(messages, config, focus=None)`: your `my_summary_request`, but
# sending the *first* `config.tail_chars` characters of the JSON instead of the last. Then set
# `run_head = True` below: it runs the whole long session with
# `my_auto_compact(..., build=head_summary_request)` and draws its sawtooth. Before you run it,
# predict: will the agent still make the edit the user asked for just before the first
# compaction (request 7, `core/c06_storage.py`)? Will it compact more or less often?
#
# *Hint:* one slice changes.

# %% tags=["stub"]
def head_summary_request(messages, config, focus=None):
    """my_summary_request, but the conversation is the first config.tail_chars characters of the JSON."""
    # the same three arguments and the same message as my_summary_request; only the slice changes
    raise NotImplementedError("your code here")

# %%
head_summary_request = check(head_summary_request)

# %%
run_head = False  # True once you have written down your prediction (the whole long session, some seconds)


def head_compact(client, messages, config, focus=None):
    return my_auto_compact(client, messages, config, focus, build=head_summary_request)


if not run_head:
    print("Exercise 2: write down your prediction, set run_head = True, then run this cell.")
else:
    head_run = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "exercise_head",
                            compactor=ThreeLayers(summarise=head_compact))
    display(sawtooth_figure(threshold_run(head_run), run.context, "head summaries (the tail's run in grey)",
                            uncompressed_label="your tail summaries"))
    storage = (WORK / "exercise_head" / "workspace" / "core" / "c06_storage.py").read_text(encoding="utf-8")
    edited = 'VERSION_TAG = "v6-append-only"' in storage
    head_autos = [e for e in head_run.events if e.kind == "auto"]
    print(f"With the head: {len(head_autos)} compactions (tail: {len(autos)}), {head_run.stats.re_reads} "
          f"re-reads (tail: {stats.re_reads}); request 7's edit made: {edited}; the first summary says "
          f"{state_line(head_autos[0].detail['summary'])!r}")

# %% [markdown]
# ### 3. One tooth
# Using the slider, find the lowest `THRESHOLD` in its range (a multiple of 10,000) at which
# the first 20 requests compact exactly once. Write it down and run the check (it runs the
# session twice with your `my_auto_compact`, a few seconds).
#
# *Hint:* the uncompressed context of these requests reaches about 77,000 tokens; after one
# compaction it has to grow back past the threshold to need a second.

# %%
one_tooth = None  # e.g. 30_000

# %%
if one_tooth is None:
    print("Exercise 3: fill in one_tooth, then run this cell.")
else:
    assert len(run_with_threshold(one_tooth, WORK / "exercise", compact=my_auto_compact).compactions) == 1, \
        "that threshold does not give one tooth"
    assert len(run_with_threshold(one_tooth - 10_000, WORK / "exercise", compact=my_auto_compact).compactions) != 1, \
        "a lower one also does"
    print("Exercise 3: correct.")

# %% [markdown]
# ### 4. Restore a transcript from the log
# Write `restore_from_log(transcript, full)` that returns a copy of a transcript in which every
# placeholder is replaced by the output logged for the same `tool_use_id` (`full` is the
# `logged_results` dict above). Do not change the transcript you were given. Once it passes, try
# it on `read_transcript(transcripts[1])`.
#
# *Hint:* `iter_tool_results` gives you each result block, `is_placeholder` tells a placeholder;
# change the blocks of a deep copy.

# %% tags=["stub"]
def restore_from_log(transcript, full):
    """A copy of transcript in which every placeholder whose tool_use_id is in full holds full[id] again.

    A placeholder whose id full lacks stays as it is; the transcript given is not changed."""
    # restored = a deep copy; for each result block of it: a placeholder with its id in full gets full[id]
    raise NotImplementedError("your code here")

# %%
restore_from_log = check(restore_from_log)

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch03.py`).
#
# 1. Why is the transcript written before the summary is asked for, and what is left when the summary
#    call fails?
# 2. Why a counter and mode `"x"` rather than the clock's whole second and mode `"w"`?
# 3. Why does the summary request quote the tail of the history, and what does the tail cost?
# 4. What does the reference agent do with an empty summary reply, and what does raising `SummaryFailed`
#    keep instead?
# 5. Why does a transcript already miss tool outputs, and what keeps them?
