# %% [markdown]
# # 03 · auto_compact: past a threshold, save everything, then summarise
#
# **The promise:** you will write the function that swaps the whole history for one summary,
# losing nothing on disk, and watch it drive a long session.
#
# By the end of this chapter you will be able to:
#
# - write `auto_compact` in three steps that lose nothing;
# - read a long session's sawtooth;
# - say what the summary's *tail* keeps, and what it costs;
# - say what a transcript misses, and what keeps it.
#
# **Reading time:** about 55 minutes (stubs included).

# %% [markdown]
# ## Setup
#
# Micro-compaction (chapter 02) slows growth; auto-compaction stops it. Two baselines run without
# either: `twelve`, chapter 02's task, and `first20`, the long session's first 20 requests, which climb
# to 76,354 tokens, reading no file twice.

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
                     SummaryFailed, assistant, count_tokens, estimate_tokens, is_placeholder, iter_tool_results,
                     micro_compact, read_transcript, text, tool_result, tool_use, user, validate_messages)
from harness.fake import Reading, explain, fake_client
from harness.fake.interpretation import HELD_OUT_READ, PHRASING
from harness.fake.summarizer import GIST_WORDS, LOSSY_BUDGET, whole_messages
from harness.labs.auto_lab import (SAWTOOTH_REQUESTS, THRESHOLD_RANGE, explore_threshold, logged_results,
                                   placeholder_results, sawtooth_figure, threshold_run)
from harness.labs.cost import SESSION_PRICES, cache_recorder, cost_of
from harness.labs.micro_lab import outline
from harness.labs.panel import panel
from harness.labs.prompt_check import try_summary_prompt
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.labs.strip import message_parts, strip_figure
from harness.labs.yours import Raised, compare, random_histories
from harness.session.runner import SYSTEM_PROMPT
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

# %% jupyter={"source_hidden": true}
assert (len(twelve), estimate_tokens(twelve)) == (6, 24_879)
assert (len(first20.trace), max(t.estimated for t in first20.trace), first20.stats.re_reads) == (36, 76_354, 0)
assert SAWTOOTH_REQUESTS == LONG_SESSION.requests[:20]

# %% [markdown]
# **The chapter in one picture:** the twelve-file history just before auto-compaction, and after: one
# short summary replaces every call and result.

# %%
from harness import auto_compact  # the harness's layer: by section 4 yours does the same

preview = copy.deepcopy(twelve)
auto_compact(fake_client(), preview, CompactionConfig(transcript_dir=fresh(WORK / "preview")))
display(strip_figure({"just before auto-compaction": twelve, "just after": preview}, system=SYSTEM_PROMPT,
                     title="the twelve-file history, replaced by a summary"))

# %% jupyter={"source_hidden": true}
assert len(preview) == 1 and preview[0]["content"].startswith(COMPRESSED_HEADER.split("{")[0])
assert [p.kind for p in message_parts(preview, SYSTEM_PROMPT)] == ["system", "summaries"]
assert {"tool calls", "tool results"} <= {p.kind for p in message_parts(twelve, SYSTEM_PROMPT)}
assert abs(count_tokens(twelve, SYSTEM_PROMPT) - estimate_tokens(twelve)) < 0.05 * estimate_tokens(twelve)

# %% [markdown]
# ## 1. When: THRESHOLD
#
# The reference agent [1] compacts when its estimate, `len(str(messages)) // 4`, passes
# **50,000** tokens, checked before every model call. The twelve-file history is below; 20,000
# would fire.

# %%
THRESHOLD = CompactionConfig().threshold


def needs_auto_compact(messages, threshold=THRESHOLD):
    return estimate_tokens(messages) > threshold


print(f"THRESHOLD = {THRESHOLD:,}; twelve needs it: {needs_auto_compact(twelve)}; "
      f"at 20,000 it would: {needs_auto_compact(twelve, 20_000)}")

# %% jupyter={"source_hidden": true}
assert THRESHOLD == 50_000 and not needs_auto_compact(twelve) and needs_auto_compact(twelve, 20_000)

# %% [markdown]
# Each function is tried first on a history small enough to read: 5 messages, 125 tokens.

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

# %% jupyter={"source_hidden": true}
assert (len(small), estimate_tokens(small)) == (5, 125)

# %% [markdown]
# ## 2. Step 1: the transcript
#
# First the whole history goes to disk, one JSON message a line; if the summary then fails, the
# history stays as it was. Name the file from a counter, opened with mode `"x"`, which fails if
# the file exists [4]; then try the next number.
#
# **Write it:** fill in each stub, then run its check; until yours passes, the reference
# (`harness/labs/solutions/ch03.py`) runs.

# %% tags=["stub"]
def save_transcript(messages, folder):
    """Write one JSON object per line to a new transcript_NNNN.jsonl in folder; return its path.

    The first free name from transcript_0001.jsonl; the folder (and its parents) is created if missing;
    an existing file is never overwritten."""
    # Every message on a line of its own, as JSON, in the first free transcript_NNNN.jsonl.
    # Trap: the folder, or even its parent, may not exist yet; it may come as a str.
    # Trap: counting the files there gives a taken name when the numbers have a gap.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: Path(folder).mkdir(parents=True, exist_ok=True); the text is "".join(json.dumps(m, ensure_ascii=False)
# + "\n" for m in messages); from number 1 up, open folder / f"transcript_{number:04d}.jsonl" with mode "x"
# and write; on FileExistsError try the next number; return the path.

# %%
save_transcript = check(save_transcript)

# %% [markdown]
# The transcript reads back identical; a second call takes the next name:

# %%
folder = fresh(WORK / "transcripts")
first = save_transcript(small, folder)
print(first.as_posix())
print(first.read_text(encoding="utf-8"))
print(f"reads back identical: {read_transcript(first) == small}; a second call writes "
      f"{save_transcript(small, folder).name}")

# %% jupyter={"source_hidden": true}
assert first.name == "transcript_0001.jsonl" and read_transcript(first) == small
assert sorted(p.name for p in folder.glob("*.jsonl")) == ["transcript_0001.jsonl", "transcript_0002.jsonl"]

# %% [markdown]
# ### Two compactions in one second
#
# The reference names the file `transcript_{int(time.time())}.jsonl`, opened with `"w"` [1]. Two
# compactions in one second share the name, and the second overwrites the first: one file
# survives, holding the second history's 4 messages.

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

# %% jupyter={"source_hidden": true}
assert survivors == ["transcript_1750000000.jsonl"] and len(read_transcript(collide / survivors[0])) == 4
assert names == ["transcript_0001.jsonl", "transcript_0002.jsonl"]

# %% [markdown]
# ## 3. Step 2: the summary request
#
# The summary is an ordinary model call, without tools: a prompt of three questions, then the
# history as JSON.

# %%
print(SUMMARY_PROMPT)

# %% jupyter={"source_hidden": true}
assert SUMMARY_PROMPT.count("?") == 3 and "accomplished" in SUMMARY_PROMPT

# %% [markdown]
# Send only the *last* `config.tail_chars` characters (80,000, as in [1]), in `<conversation>` tags,
# dumped with `ensure_ascii=False`, or `é` becomes six characters.

# %% tags=["stub"]
def my_summary_request(messages, config, focus=None):
    """The keyword arguments of the summary call: the prompt, then the tail of the history as JSON.

    {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [one user message]};
    the message: SUMMARY_PROMPT, then (when focus is given and not "") a line "Focus especially on: <focus>",
    a blank line, and the conversation between a line "<conversation>" and a line "</conversation>"."""
    # The three keyword arguments, every setting from config, the message laid out as the docstring says.
    # Trap: json.dumps escapes non-ASCII text unless told otherwise, and the escapes eat into the tail.
    # Trap: an empty focus is no focus.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: conversation = json.dumps(messages, ensure_ascii=False)[-config.tail_chars:]; prompt = SUMMARY_PROMPT,
# plus f"\nFocus especially on: {focus}" if focus; the content is
# f"{prompt}\n\n<conversation>\n{conversation}\n</conversation>".

# %%
my_summary_request = check(my_summary_request)

# %% [markdown]
# The request has three keys and caps the summary at 2,000 tokens:

# %%
config = CompactionConfig(transcript_dir=folder)
request = my_summary_request(small, config)
print(f"keys: {sorted(request)}; max_tokens {request['max_tokens']:,}; the message:\n")
print(request["messages"][0]["content"])

# %% jupyter={"source_hidden": true}
assert sorted(request) == ["max_tokens", "messages", "model"] and request["max_tokens"] == 2_000
assert config.tail_chars == 80_000

# %% [markdown]
# The twelve-file history is 103,165 characters of JSON, so its tail starts mid-message:

# %%
dump = json.dumps(twelve, ensure_ascii=False)
tail_start = my_summary_request(twelve, config)["messages"][0]["content"].split("<conversation>\n")[1]
print(f"history as JSON: {len(dump):,} characters; the conversation sent starts {tail_start[:60]!r}")

# %% jupyter={"source_hidden": true}
assert len(dump) == 103_165

# %% [markdown]
# Now send it. A call that raises and a reply with no text both become `SummaryFailed`, all the
# caller catches.

# %% tags=["stub"]
def ask_for_summary(client, request):
    """(summary text, usage) of one summary call, or SummaryFailed.

    The text: the text of all the reply's text blocks, stripped. SummaryFailed (with the cause chained) when
    the call raises anything, or when that text is empty."""
    # One call; the caller gets either the summary and its usage, or SummaryFailed: nothing else.
    # Trap: not every failure is an APIError, and a reply can hold several blocks, not all of them text.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: call client.messages.create(**request) inside try/except Exception, raising SummaryFailed(...) from the
# error; the summary is "".join(b.text for b in response.content if b.type == "text").strip(); empty: raise
# SummaryFailed too; else return summary, response.usage.

# %%
ask_for_summary = check(ask_for_summary)

# %% [markdown]
# The summary names what was read, the request in progress, and every user request, for 228
# tokens in and 90 out.

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

# %% jupyter={"source_hidden": true}
assert summary.startswith("1. What was accomplished:") and "- In progress: In a.py, change VERSION_TAG" in summary
assert (usage.input_tokens, usage.output_tokens) == (228, 90)

# %% [markdown]
# A summary keeps only what its tail holds; the fake's copy what whole messages say. The
# twelve-file tail starts inside the results: twelve notes survive, no read, no request, for 21,837
# tokens in, 318 out:

# %%
twelve_summary, twelve_usage = ask_for_summary(client, my_summary_request(twelve, config))
print(twelve_summary)
print(f"\nthe summary call: {twelve_usage.input_tokens:,} tokens in, {twelve_usage.output_tokens:,} out")

# %% jupyter={"source_hidden": true}
assert "3. Key decisions:" in twelve_summary and twelve_summary.count("- read: agents/") == 0
assert twelve_summary.count("Note: agents/") == 12 and "1. What was accomplished:\n- nothing recorded" in twelve_summary
assert "- No request is visible in what I was given." in twelve_summary
assert json.dumps(TWELVE_FILES.requests[0])[1:-1] not in tail_start  # the request is not in the tail sent
assert (twelve_usage.input_tokens, twelve_usage.output_tokens) == (21_837, 318)

# %% [markdown]
# ### How the fake read your request
#
# The fake reads requests by rules and says how (`explain`, or each reply's `x-fake-reading`
# header):

# %%
reading = explain(request)
print(reading)
print("the header:", reading.header())

# %% jupyter={"source_hidden": true}
assert (reading.kind, reading.sure) == ("summary request", True)
assert Reading.from_header(reading.header()) == reading

# %% [markdown]
# Rules miss phrasings: of 60 written by someone who had never seen the rules, the fake read 41
# as meant (an earlier set: 39). A misread is said, with a phrasing that works:

# %%
french = try_summary_prompt("Résumez la conversation ci-dessous, s'il vous plaît.", small, config)
print(french)

# %% jupyter={"source_hidden": true}
assert HELD_OUT_READ[5] == (60, 41) and HELD_OUT_READ[4] == (60, 39)
assert not french.read_as_summary and not french.reading.sure
assert str(french).startswith("The fake took your prompt for an agent turn") and PHRASING in str(french)

# %% [markdown]
# **Holds for:** *any model* (a tail without the request loses it); *this fake* (the copied summaries; the French misread).
#
# ## 4. Step 3: replace the history by one message
#
# Save, summarise, and only then replace. `messages[:] = [...]` changes the loop's own list; `build`,
# the request builder, is yours by default.

# %% tags=["stub"]
def my_auto_compact(client, messages, config, focus=None, build=my_summary_request):
    """Transcript first, then the summary, then replace messages in place; SummaryFailed changes nothing.

    The one message left: COMPRESSED_HEADER with path= the transcript's as_posix(), a blank line, the summary.
    Returns AutoReport(transcript, summary, messages before, tokens before, tokens after, summary input
    tokens, summary output tokens), tokens by estimate_tokens."""
    # Your three steps, in the order that loses nothing, then the report.
    # Trap: when the summary fails, the caller's history must be exactly as it was.
    # Trap: the caller holds the list, so change its contents; and build is the caller's to choose.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: note len(messages) and estimate_tokens(messages); transcript = save_transcript(messages,
# config.transcript_dir); summary, usage = ask_for_summary(client, build(messages, config, focus)); then
# messages[:] = [user(f"{COMPRESSED_HEADER.format(path=transcript.as_posix())}\n\n{summary}")].

# %%
my_auto_compact = check(my_auto_compact)

# %% [markdown]
# The small history becomes one message that names its transcript:

# %%
auto_folder = fresh(WORK / "transcripts")  # emptied: run this cell again and it writes the same file
config = CompactionConfig(transcript_dir=auto_folder)
history = copy.deepcopy(small)
report = my_auto_compact(client, history, config)
print(history[0]["content"])
print(f"\n{report.messages_before} messages, {report.tokens_before} tokens -> {len(history)} message, "
      f"{report.tokens_after} tokens; transcript {report.transcript.name}")
validate_messages(history)

# %% jupyter={"source_hidden": true}
assert history[0]["content"].startswith("[Conversation compressed. Transcript: ")
assert (report.messages_before, len(history), report.transcript.name) == (5, 1, "transcript_0001.jsonl")
assert read_transcript(report.transcript) == small

# %% [markdown]
# The twelve-file history's 6 messages, 24,879 tokens, become one of 389. When the summary fails,
# nothing is replaced and the transcript stays:

# %%
history = copy.deepcopy(twelve)
report = my_auto_compact(client, history, config)
print(f"{report.messages_before} messages, {report.tokens_before:,} tokens -> {len(history)} message, "
      f"{report.tokens_after:,} tokens")

untouched = copy.deepcopy(twelve)
count_before = len(list(auto_folder.glob("*.jsonl")))
try:
    my_auto_compact(fake_client(fail_summaries=1), untouched, config)
except SummaryFailed as error:
    print(f"SummaryFailed: {str(error)[:60]}...")
print(f"history unchanged: {untouched == twelve}; "
      f"transcripts on disk: {count_before} -> {len(list(auto_folder.glob('*.jsonl')))}")

# %% jupyter={"source_hidden": true}
assert (report.messages_before, report.tokens_before, len(history), report.tokens_after) == (6, 24_879, 1, 389)
assert untouched == twelve and len(list(auto_folder.glob("*.jsonl"))) == count_before + 1

# %% [markdown]
# The reference [1] does worse with an empty reply: the history becomes the one line
# `"No summary generated."`.
#
# ## 5. Check yours against the harness
#
# `compare` runs yours and `harness.auto_compact` on 49 cases, 40 of them random: histories,
# transcripts and reports must match, and the four failing calls raise `SummaryFailed`.

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

# %% jupyter={"source_hidden": true}
assert agreement.ok and agreement.cases == 49 == 9 + 40
failures = [what_it_did(auto_compact, args)["outcome"] for name, args in cases if args[1] != "answers"]
assert failures == [Raised("SummaryFailed")] * 4

# %% [markdown]
# ## 6. Several compactions in one run: the sawtooth
#
# The context grows back and compacts again: your `my_auto_compact` now runs the long session's
# 71 requests. The context sent never passes 49,901 tokens; each diamond is a history replaced, never sent.

# %%
recorder = cache_recorder(fake_client())  # keeps every request as sent, to price the session
long = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "long", client=recorder, log=True,
                    compactor=ThreeLayers(summarise=my_auto_compact))
autos = [e for e in long.events if e.kind == "auto"]
for e in autos:
    print(f"before call {e.call}: {e.detail['messages_before']} messages, "
          f"{e.tokens_before:,} -> {e.tokens_after:,} tokens, transcript {Path(e.detail['transcript']).name}")
run = threshold_run(long)
stats = long.stats
print(f"{len(LONG_SESSION.requests)} requests, {stats.model_calls} agent calls, {stats.summary_calls} summary "
      f"calls, {stats.re_reads} re-reads, context never above {run.peak:,}")
sawtooth = sawtooth_figure(run, [t.estimated for t in first20.trace],
                           "the long session, your auto_compact (the uncompressed baseline: its first 20 requests)",
                           uncompressed_label="uncompressed, first 20 requests")
display(sawtooth)

# %% jupyter={"source_hidden": true}
assert len(LONG_SESSION.requests) == 71
assert [e.call for e in autos] == [17, 60, 118]
assert [(e.tokens_before, e.tokens_after) for e in autos] == [(50_359, 395), (72_235, 84), (50_428, 433)]
assert [e.detail["messages_before"] for e in autos] == [33, 87, 117]
assert (stats.model_calls, stats.summary_calls, stats.re_reads) == (154, 3, 36)
assert run.peak == 49_901 and run.peak < THRESHOLD < max(t.estimated for t in first20.trace)
[diamonds] = sawtooth.axes[0].collections  # the figure shows each replaced history, the 72,235 one too
assert [tuple(map(int, point)) for point in diamonds.get_offsets()] == [(17, 50_359), (60, 72_235), (118, 50_428)]

# %% [markdown]
# The second diamond stands at 72,235: request 28 reads twelve files in one turn, and the
# threshold is checked only before a call. Those results alone outrun the 80,000 characters
# sent: the tail holds no request, the summary is nearly empty, the agent loses track:

# %%
second = autos[1]
results_message = read_transcript(second.detail["transcript"])[-1]  # the twelve results, in one message
size = len(json.dumps(results_message, ensure_ascii=False))
print(f"request 28: {LONG_SESSION.requests[27]}\nits last message: {size:,}"
      f" characters of JSON\nthe summary:\n{second.detail['summary']}\nthe agent's answer: {long.answers[27]}")

# %% jupyter={"source_hidden": true}
assert LONG_SESSION.requests[27].startswith("Read every .py file under plugins/") and second.tokens_after < 100
assert size > config.tail_chars
assert "- No request is visible in what I was given." in second.detail["summary"]
assert long.answers[27] == "I have lost track of the current request. What should I do next?"

# %% [markdown]
# **What it costs** on Claude Haiku 4.5 [5], with chapter 09's cache model [6]:

# %%
costs = {caching: cost_of(long.trace, recorder.records, SESSION_PRICES, caching=caching) for caching in (False, True)}
summaries = {caching: sum(c.dollars for c in report.calls if c.kind == "summary") for caching, report in costs.items()}
print(f"{'USD':<12}{'session':>9}{'3 summaries':>13}")
for caching, report in costs.items():
    print(f"{'caching' if caching else 'no caching':<12}{report.dollars:>9.2f}{summaries[caching]:>13.2f}")

# %% [markdown]
# Caching cuts the bill by 80%, from USD 3.73 to 0.75; the summaries cost USD 0.07.

# %% jupyter={"source_hidden": true}
assert {caching: round(report.dollars, 2) for caching, report in costs.items()} == {False: 3.73, True: 0.75}
assert {caching: round(dollars, 2) for caching, dollars in summaries.items()} == {False: 0.07, True: 0.07}
assert round(100 * (1 - costs[True].dollars / costs[False].dollars)) == 80 and len(recorder.records) == len(long.trace)

# %% [markdown]
# **Re-reads.** What leaves the context must be read again: 36 re-reads in the long session; in the
# first 20 requests, none uncompressed and 5 compacted.

# %%
first20_compacted = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "first20_compacted",
                                 requests=SAWTOOTH_REQUESTS, compactor=ThreeLayers(summarise=my_auto_compact))
print(f"first 20 requests: re-reads uncompressed {first20.stats.re_reads}, "
      f"with your auto_compact {first20_compacted.stats.re_reads}")

# %% jupyter={"source_hidden": true}
assert (first20.stats.re_reads, first20_compacted.stats.re_reads) == (0, 5)

# %% [markdown]
# ### What a copying summariser hides
#
# Real summaries paraphrase and drop; the fake's copy. A lossy control cuts items to gists of at
# most 8 words, the 3 latest of each kind. Three answers change:

# %%
lossy = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "lossy", summary_style="lossy",
                     compactor=ThreeLayers(summarise=my_auto_compact))
changed = [i for i, (a, b) in enumerate(zip(long.answers, lossy.answers)) if a != b]
for i in changed:
    print(f"request {i + 1}: {LONG_SESSION.requests[i]}\n  copying: {long.answers[i]}\n  lossy:   {lossy.answers[i]}")

# %% [markdown]
# Request 55's edit came as the third compaction fired; its gist dropped the new value, so
# request 56 reads the old tag. Even copying, the best case, fails request 69, the first file
# changed: request 3 fell outside the first tail.

# %% jupyter={"source_hidden": true}
assert [i + 1 for i in changed] == [55, 56, 69] and len(lossy.answers) == len(long.answers) == 71
assert lossy.answers[54] == "I do not know how to do that in this workspace."
assert lossy.answers[55] == 'VERSION_TAG in core/c12_shutdown.py is "v12-shutdown".'
lossy_third = [e for e in lossy.events if e.kind == "auto"][2]
assert lossy_third.call == autos[2].call and '"v12-clean"' not in lossy_third.detail["summary"]
assert '"v12-clean"' in autos[2].detail["summary"]
assert LONG_SESSION.requests[68] == "Which file did I first ask you to change?"
first_change = "agents/s03_todo_write.py"  # request 3, the first change the user asked for
assert first_change in LONG_SESSION.requests[2] and not any("change" in r for r in LONG_SESSION.requests[:2])
assert first_change not in long.answers[68] and first_change not in lossy.answers[68]
assert LONG_SESSION.requests[2] not in autos[0].detail["summary"]
assert (GIST_WORDS, LOSSY_BUDGET) == (8, 3)  # the lossy rule's two knobs

# %% [markdown]
# **Holds for:** *any model* (what leaves the context is read again or lost); *this fake* (when the teeth come, the counts); *this design* (the check before a call).
#
# ## 7. Why the tail, not the head
#
# The tail holds the current work: an older reference summarised the head and lost the current
# state (issue #109 [2]), so PR #110 [3] switched to the tail. At the first compaction, the head
# holds 4 whole messages, the tail 10.

# %%
at_first = read_transcript(autos[0].detail["transcript"])
dump = json.dumps(at_first, ensure_ascii=False)
head, tail = dump[:80_000], dump[-80_000:]
print(f"{len(at_first)} messages, {len(dump):,} characters of JSON; "
      f"whole messages in the head: {len(whole_messages(head))}, in the tail: {len(whole_messages(tail))}")

# %% jupyter={"source_hidden": true}
assert (len(at_first), len(dump)) == (33, 208_752)
assert (len(whole_messages(head)), len(whole_messages(tail))) == (4, 10)

# %% [markdown]
# Micro-compaction cleared the head longest: with nothing preserved (chapter 02), 26 of its 30
# results are placeholders:

# %%
nothing_kept = copy.deepcopy(at_first)
micro_compact(nothing_kept, 3, frozenset())
print("\n".join(outline(nothing_kept)[:12]))
cleared = placeholder_results(nothing_kept)
print(f"... {len(cleared)} of {len(list(iter_tool_results(nothing_kept)))} results are placeholders")

# %% jupyter={"source_hidden": true}
assert (len(cleared), len(list(iter_tool_results(nothing_kept)))) == (26, 30)

# %% [markdown]
# With `read_file` preserved (the reference's `PRESERVE_RESULT_TOOLS` [1]), the head holds a finished
# task; only the tail's summary names the current one, request 9:

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

# %% jupyter={"source_hidden": true}
assert state_line(head_summary) == "- In progress: Read every .py file under agents/ and summarise what each does."
assert state_line(tail_summary) == "- In progress: Search core/ for TODO comments."
assert tail_summary == autos[0].detail["summary"]
assert LONG_SESSION.requests[8] == "Search core/ for TODO comments."
current = json.dumps(LONG_SESSION.requests[8])[1:-1]  # the request as it is written in the JSON
assert current in tail and current not in head

# %% [markdown]
# The tail's price: request 2, the rule "never edit anything under tools/", is in neither tail
# nor summary. At the end the user asks for what it forbids; the agent does it:

# %%
rule = LONG_SESSION.requests[1]
print("request 2:", rule)
print("in the tail sent:", rule in tail, "; in its summary:", rule in tail_summary)
last_request = LONG_SESSION.requests[-1]
shell_tool = (WORK / "long" / "workspace" / "tools" / "t05_shell.py").read_text(encoding="utf-8")
print(f"the last request: {last_request}\nthe agent's answer: {long.answers[-1]}")

# %% jupyter={"source_hidden": true}
assert rule.startswith("From now on, never edit") and rule not in tail and rule not in tail_summary
assert last_request == 'In tools/t05_shell.py, change VERSION_TAG to "v5-unsafe".'
assert 'VERSION_TAG = "v5-unsafe"' in shell_tool

# %% [markdown]
# **Holds for:** *any model* (no summary names a request it was not sent); *this fake* (complying once the rule is gone).
#
# ## 8. A transcript has already lost tool outputs
#
# The reference runs micro before *every* call, then the threshold check [1]. On the twelve-file
# history, micro first leaves 10 placeholders in the transcript; transcript first, none.

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

# %% jupyter={"source_hidden": true}
assert placeholders_saved == {"micro, then transcript": 10, "transcript, then micro": 0}

# %% [markdown]
# The long session's three transcripts lost 11 outputs; swapping micro and auto inside a turn
# saves one, the others were cleared turns earlier.

# %%
transcripts = [Path(e.detail["transcript"]) for e in autos]
lost = {p.name: placeholder_results(read_transcript(p)) for p in transcripts}
for name, items in lost.items():
    print(name, dict(Counter(tool for _, tool in items)))
cleared_at_firing = [sum(e.detail["cleared"] for e in long.events if e.kind == "micro" and e.call == a.call)
                     for a in autos]
print("of those, cleared in the very call where auto fired:", cleared_at_firing)

# %% jupyter={"source_hidden": true}
assert [len(items) for items in lost.values()] == [3, 6, 2] and sum(map(len, lost.values())) == 11
assert cleared_at_firing == [0, 1, 0]

# %% [markdown]
# **The fix: write first.** Our loop appends each new message to a `SessionLog` before
# micro-compaction, so the log holds all 125 tool results whole:

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

# %% jupyter={"source_hidden": true}
assert Counter(r["kind"] for r in records) == {"message": 308, "compaction": 3}
assert len(full) == 125 and not any(content.startswith("[Previous: used") for content in full.values())
assert all(len(full[tool_id]) > 100 for items in lost.values() for tool_id, _ in items)

# %% [markdown]
# **Holds for:** *this design* (micro before every call; the log written first).
#
# ## Your turn: the THRESHOLD slider
#
# Slide `THRESHOLD` over the first 20 requests and watch teeth, re-reads and tokens billed. At
# 80,000 nothing compacts, above the uncompressed peak.

# %% tags=["nbval-ignore-output"]
threshold_slider = panel(
    explore_threshold,
    threshold=IntSlider(value=THRESHOLD, min=THRESHOLD_RANGE[0], max=THRESHOLD_RANGE[1], step=THRESHOLD_RANGE[2],
                        continuous_update=False),
    uncompressed=[t.estimated for t in first20.trace], root=WORK / "slider",
    requests=SAWTOOTH_REQUESTS, compact=my_auto_compact, draw_all=True)

# %% jupyter={"source_hidden": true}
assert THRESHOLD_RANGE == (10_000, 80_000, 10_000) and max(t.estimated for t in first20.trace) < 80_000

# %% [markdown]
# ## Summary
#
# - Past `THRESHOLD`: a transcript, then a summary, then one message replaces the history.
# - A failed summary changes nothing; mode `"x"` overwrites no transcript.
# - The tail keeps the current request; early rules fall off.
# - Transcripts miss cleared outputs; a log written first keeps them.
#
# ## Exercises
#
# ### 1. What did the first compaction forget?
# Write `forgotten_requests(transcript, summary)`: the user requests (string contents) the summary
# does not repeat word for word.

# %% tags=["stub"]
def forgotten_requests(transcript, summary):
    """The user requests of transcript (its user messages whose content is a string) that summary does not
    repeat word for word, in the transcript's order, repeats included."""
    # Each request the summary does not contain, character for character.
    # Trap: a user message holding tool results is not a request.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: [m["content"] for m in transcript if m["role"] == "user" and isinstance(m["content"], str)
# and m["content"] not in summary]

# %%
forgotten_requests = check(forgotten_requests)

# %% [markdown]
# ### 2. Summarise the head instead
# Write `head_summary_request`: `my_summary_request` with the *first* `config.tail_chars`
# characters. Predict, then set `run_head = True`: will request 16's edit happen? More
# compactions, or fewer?

# %% tags=["stub"]
def head_summary_request(messages, config, focus=None):
    """my_summary_request, but the conversation is the first config.tail_chars characters of the JSON."""
    # The request of my_summary_request, with the other end of the history.
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
    prompts = (WORK / "exercise_head" / "workspace" / "core" / "c09_prompts.py").read_text(encoding="utf-8")
    edited = 'VERSION_TAG = "v9-sections"' in prompts
    head_autos = [e for e in head_run.events if e.kind == "auto"]
    print(f"With the head: {len(head_autos)} compactions (tail: {len(autos)}), {head_run.stats.re_reads} "
          f"re-reads (tail: {stats.re_reads}); request 16's edit made: {edited}; the first summary says "
          f"{state_line(head_autos[0].detail['summary'])!r}")

# %% jupyter={"source_hidden": true}
assert LONG_SESSION.requests[15].startswith("In core/c09_prompts.py, change VERSION_TAG")  # request 16

# %% [markdown]
# ### 3. One tooth
# With the slider, find the lowest `THRESHOLD` at which the first 20 requests compact exactly
# once; set `one_tooth` to it. (After one compaction, the context must grow back.)

# %% tags=["answer"]
one_tooth = None

# %%
answer("one_tooth", one_tooth)

# %% [markdown]
# ### 4. Restore a transcript from the log
# Write `restore_from_log(transcript, full)`: a copy whose placeholders hold again the outputs
# logged for their `tool_use_id` (`full`, above).

# %% tags=["stub"]
def restore_from_log(transcript, full):
    """A copy of transcript in which every placeholder whose tool_use_id is in full holds full[id] again.

    A placeholder whose id full lacks stays as it is; the transcript given is not changed."""
    # A new transcript with every placeholder the log can fill filled.
    # Trap: the transcript given stays as it is; the log may lack an id; a result still whole stays whole.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: restored = copy.deepcopy(transcript); for each _, _, block of iter_tool_results(restored): when
# is_placeholder(block["content"]) and block["tool_use_id"] in full, block["content"] = full[...].

# %%
restore_from_log = check(restore_from_log)

# %% [markdown]
# ### 5. A prompt of your own
# Write a summary prompt of your own; the check says how the fake read it.

# %% tags=["answer"]
my_prompt = None  # a str

# %%
if answer("my_prompt", my_prompt):
    print(try_summary_prompt(my_prompt, small, config))

# %% [markdown]
# ## Recap
#
# The answers are `RECAP` in `harness/labs/solutions/ch03.py`.
#
# 1. Why save the transcript before the summary, and what is left when the summary fails?
# 2. Why a counter and mode `"x"`, not the clock's second and mode `"w"`?
# 3. Why does the summary get the tail of the history, and what does the tail cost?
# 4. What does the reference do with an empty summary, and what does `SummaryFailed` keep?
# 5. Why does a transcript already miss tool outputs, and what keeps them?

# %% [markdown]
# ## Sources
#
# 1. shareAI-lab/learn-claude-code, "agents/s06_context_compact.py" at 7864a30 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (threshold, estimate, loop order, preserve set, transcript name and mode, tail, empty reply)
# 2. shareAI-lab/learn-claude-code, issue #109 — https://github.com/shareAI-lab/learn-claude-code/issues/109 (the head's summary lost the current state; unverified here)
# 3. shareAI-lab/learn-claude-code, PR #110 — https://github.com/shareAI-lab/learn-claude-code/pull/110 (the switch to the tail; unverified here)
# 4. Python, "Built-in functions" — https://docs.python.org/3/library/functions.html#open (mode "x")
# 5. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (legacy; 200K window; USD 1 in, 5 out a million tokens)
# 6. Anthropic, "Pricing" — https://platform.claude.com/docs/en/about-claude/pricing (cache write 1.25x, read 0.1x); "Prompt caching" — https://platform.claude.com/docs/en/build-with-claude/prompt-caching (automatic caching)
