# %% [markdown]
# # 00 · The wall
#
# **The promise:** see, in numbers from a real run of the agent, why a long session without compaction
# cannot go on: the context climbs until the API refuses the next request, every call pays for everything
# again, and each early instruction becomes a smaller and smaller part of what the model reads.
#
# By the end of this chapter you will be able to:
#
# - run the course's agent on two tasks, with every compaction layer switched off;
# - turn a session's trace into two curves, the context sent per call and the input tokens billed so far;
# - take a request apart into what it is made of: system prompt, user text, assistant text, tool calls
#   and tool results (and, from chapter 02 on, placeholders and summaries);
# - run a session into the context window, read the API's refusal, and tell its two window errors apart;
# - explain with the run's own numbers why the window is finite, why attention thins and why cost compounds.
#
# Everything runs offline. The "model" is a deterministic fake of Claude behind the real `anthropic` SDK:
# it answers `client.messages.create(...)` like the API does and reports the input tokens of every request,
# counted with a tokenizer (chapter 01 looks at counting closely). Like the API, it refuses a request that
# does not fit the model's context window, with the API's own error.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import shutil

import anthropic
from IPython.display import display
from ipywidgets import IntSlider

from harness import CompactionConfig, Toolbox, context_window, count_tokens, validate_messages
from harness.core.tokens import text_tokens
from harness.fake import fake_client
from harness.labs.growth import composition_recorder, growth_series
from harness.labs.panel import panel
from harness.labs.plots import composition_figure, growth_figure, session_growth_figure
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES, WALL_SESSION
from harness.labs.scratch import own_scratch
from harness.session.runner import Session
from harness.strategies.base import Compactor

WORK = own_scratch("00")                   # _work/00, in a fresh folder of its own for each run
NO_COMPACTION = CompactionConfig(micro=False, auto=False)
CLAUDE_WINDOW = context_window(NO_COMPACTION.model)  # the model's real window (harness/core/models.py)
PRICE_PER_MILLION = 1.00                   # dollars per million input tokens: claude-haiku-4-5's listed price
print(f"model: {NO_COMPACTION.model} | window: {CLAUDE_WINDOW:,} tokens | "
      f"max_tokens: {NO_COMPACTION.max_tokens:,} | micro: {NO_COMPACTION.micro} | auto: {NO_COMPACTION.auto}")

# %%
assert NO_COMPACTION.model == "claude-haiku-4-5" and CLAUDE_WINDOW == 200_000
assert NO_COMPACTION.max_tokens == 1_024 and PRICE_PER_MILLION == 1.00

# %% [markdown]
# The model, its window and its price are real: Anthropic's page for `claude-haiku-4-5` lists a
# 200K-token context window and USD 1 per million input tokens
# (https://platform.claude.com/docs/en/models/haiku-4-5/overview). Everything else in this chapter is
# measured on the fake. Where a lesson holds for *any model* the text says so; where it depends on how
# *this fake* agent chose to work (which files it read, and when), it says that too.

# %% [markdown]
# ## 1 · One request, twelve files
#
# The first task is seed 001's worked example for the reference agent: a folder `agents/` with 12 Python
# files of about 150 lines each, and one request, *read every .py file under agents/ and summarise what each
# does*. `run_scenario` builds the files in a fresh workspace and sends the request. We wrap the client in
# a `composition_recorder`, which passes every call through and remembers what each request was made of.

# %%
twelve_client = composition_recorder(fake_client())
twelve = run_scenario(TWELVE_FILES, NO_COMPACTION, WORK / "twelve", client=twelve_client)
workspace = twelve.toolbox.workspace
files = workspace.list_files("agents").split()
lines = [len(workspace.read_file(path).splitlines()) for path in files]
print(f"{len(files)} files of {min(lines)} to {max(lines)} lines")
print(twelve.stats)

# %%
assert len(files) == 12 and all(140 <= n <= 160 for n in lines)

# %% [markdown]
# Each model call answers with one tool call (list the folder, then read a file) until the agent can
# write its summary. `growth_series` turns the session's trace into per-call numbers: the input tokens the
# API reported for each call, and the running total billed.

# %%
twelve_series = growth_series(twelve.trace)
print(" call   context   billed so far")
for call, context, billed in zip(twelve_series.calls, twelve_series.context, twelve_series.billed):
    print(f"{call:5} {context:9,} {billed:15,}")

# %% [markdown]
# One request took 14 model calls. The last call sent 24,808 tokens, about 12% of Claude's window, and
# the session was billed 166,848 input tokens: about 6.7 times the final context, because each call
# sends the whole history again, not just what is new.

# %%
twelve_ratio = twelve_series.billed[-1] / twelve_series.context[-1]
print(f"calls {len(twelve_series)}, last context {twelve_series.context[-1]:,} "
      f"({twelve_series.context[-1] / CLAUDE_WINDOW:.0%} of the window), billed {twelve_series.billed[-1]:,} "
      f"= {twelve_ratio:.1f} x the last context")

# %%
assert len(twelve_series) == 14
assert twelve_series.context[-1] == 24_808
assert round(twelve_series.context[-1] / CLAUDE_WINDOW, 2) == 0.12
assert twelve_series.billed[-1] == 166_848
assert round(twelve_ratio, 1) == 6.7

# %% [markdown]
# ## 2 · A working session, until the API refuses
#
# A real session is many requests. `LONG_SESSION`, which later chapters reuse, is 71 of them over four
# folders (`agents/`, `core/`, `tools/`, `plugins/`): read a folder, change a `VERSION_TAG`, ask what a tag
# is, count lines, search for TODOs, and near the end, questions about instructions given at the start.
# Uncompressed it ends at 125,406 tokens, still well under the window. So here the work goes on:
# `WALL_SESSION` is those 71 requests and 13 more of the same kinds over three new folders (`tests/`,
# `scripts/`, `examples/`). We send the requests one at a time, note how many model calls the session has
# made after each one (the slider below needs that), and stop when the API refuses a request: the SDK
# raises `anthropic.BadRequestError`.

# %%
long_root = WORK / "long"
shutil.rmtree(long_root, ignore_errors=True)
long_client = composition_recorder(fake_client())
session = Session(long_client, Toolbox(WALL_SESSION.build(long_root / "workspace")), NO_COMPACTION,
                  Compactor())
request_ends = []                          # request_ends[i]: model calls made after request i + 1
refused = None                             # the API's refusal, once it comes
for request in WALL_SESSION.requests:
    try:
        session.ask(request)
    except anthropic.BadRequestError as error:
        refused = error
        break
    request_ends.append(len(session.trace))
series = growth_series(session.trace)
refused_call = len(series) + 1             # the call after the last one that went through
refused_input = count_tokens(session.messages, system=session.system, tools=session.toolbox.schemas)
print(session.stats)
print(f"requests answered: {len(request_ends)} of {len(WALL_SESSION.requests)} | "
      f"model calls made: {len(series)}")
print(f"request {len(request_ends) + 1}, model call {refused_call}: refused with {refused.status_code} "
      f"{refused.body['error']['type']}")
print(refused.body["error"]["message"])

# %% [markdown]
# In the stats, `re_reads` = 0: with nothing ever removed, the agent never has to read an unchanged file
# again. The 15 `reads_after_edit` are reads of a file it had changed since it last read it, which no
# compaction causes. Keep the 0 in mind: from chapter 02 on, compaction
# can make it grow.

# %%
assert session.stats.re_reads == 0 and session.stats.reads_after_edit == 15

# %%
display(growth_figure({"no compaction": series}, window=CLAUDE_WINDOW, refused=(refused_call, refused_input),
                      title="the long session with no compaction, up to the refused call"))

# %% [markdown]
# Two curves, two scales. On the left, the context climbs with every call and never comes down: nothing
# is ever removed. The 71 requests of `LONG_SESSION` end at 125,406 tokens and the next 12 at 179,834. The
# 84th request asks for the 12 files of `examples/`: the agent lists the folder and reads 10 of them, which
# brings the context to 198,049 tokens, 99.0% of the window, after 215 calls. Then the API refuses call 216
# with a 400 (the red cross). On the right, the bill grows much faster: 21,685,505 input tokens up to the
# last call that went through, about 109 times the final context.

# %%
unfinished = [tool for t in session.trace[request_ends[-1]:] for tool in t.tools]
print(f"last context {series.context[-1]:,} = {series.context[-1] / CLAUDE_WINDOW:.1%} of the window")
print(f"billed {series.billed[-1]:,} = {series.billed[-1] / series.context[-1]:.0f} x the last context")
print(f"request {len(request_ends) + 1} before the refusal: {unfinished.count('list_files')} listing, "
      f"{unfinished.count('read_file')} files read")

# %%
assert [folder for folder, _ in LONG_SESSION.folders] == ["agents", "core", "tools", "plugins"]
assert [folder for folder, _ in WALL_SESSION.folders[4:]] == ["tests", "scripts", "examples"]
assert WALL_SESSION.requests[:71] == LONG_SESSION.requests and len(WALL_SESSION.requests) == 84
assert series.context[request_ends[70] - 1] == 125_406  # the end of LONG_SESSION, as in later chapters
assert series.context[request_ends[-1] - 1] == 179_834  # the end of request 83
assert refused is not None and refused.status_code == 400
assert refused.body["error"]["type"] == "invalid_request_error"
assert len(request_ends) == 83 and len(series) == 215 and refused_call == 216
assert WALL_SESSION.requests[83] == "Read every .py file under examples/ and summarise what each does."
assert unfinished == ["list_files"] + ["read_file"] * 10
assert list(series.context) == sorted(series.context), "with no compaction the context never shrinks"
assert series.context[-1] == max(series.context) == 198_049
assert round(series.context[-1] / CLAUDE_WINDOW, 3) == 0.990
assert series.billed[-1] == 21_685_505
assert round(series.billed[-1] / series.context[-1]) == 109

# %% [markdown]
# ## 3 · What the context is made of
#
# `composition` sorts every token of a request into one category. The system prompt and the tool schemas
# count as *system*; a tool call is the model's request to run a tool, a tool result is what the tool
# returned. Two more categories stay empty here and fill up in later chapters: *placeholders*, the short
# notes that replace old tool results (chapter 02), and *summaries* (chapter 03). The categories add up
# exactly to the tokens the API reported for that call.

# %%
display(composition_figure(long_client.records, title="the long session, call by call"))

# %%
last = long_client.records[-1]
for category, tokens in last.items():
    print(f"{category:15} {tokens:8,}  {tokens / sum(last.values()):6.1%}")

# %%
assert len(long_client.records) == len(session.trace)
assert all(sum(parts.values()) == t.input_tokens for parts, t in zip(long_client.records, session.trace))
assert last["placeholders"] == last["summaries"] == 0
assert round(last["tool results"] / sum(last.values()), 3) == 0.954
assert last["user text"] == 1_393

# %% [markdown]
# Almost all of it is tool output: 95.4% of the last request that went through is file contents and
# command results. The 84 requests the user typed take 1,393 tokens in total. That is where compaction will
# have to cut.
#
# ## 4 · Why this is a wall
#
# **The window is finite** (*any model*). A model reads at most its context window in one call: 200,000
# tokens for `claude-haiku-4-5`, the real model the harness names (`CompactionConfig.model`; model page
# above). Anthropic counts the reply inside the window too
# (https://platform.claude.com/docs/en/build-with-claude/context-windows), and the API answers a request
# that does not fit with one of two 400 errors, both quoted in public bug reports. The input alone must
# fit, or the answer is *prompt is too long: N tokens > 200000 maximum* (quoted in anthropics/claude-code
# issue #12186). The input plus `max_tokens`, the room the request keeps for the reply, must fit too, or
# the answer is *input length and `max_tokens` exceed context limit: N + M > ...* (issue #228 of the same
# repository). The fake answers with the same two wordings. The harness asks for `max_tokens` = 1,024
# (`CompactionConfig.max_tokens`), so an input above 198,976 tokens is refused although it would fit on its
# own: as a context creeps up, the reserve check is the one that trips first.
#
# Our context did not creep, it jumped. Call 215 sent 198,049 tokens, and 198,049 + 1,024 = 199,073 fits.
# Call 216 carried one more file read, 1,993 tokens, and would have sent 200,042: over the window itself, so the
# error is *prompt is too long*. The other error needs an input between 198,977 and 200,000 tokens, a gap of
# 1,024, and one file read is wider than that gap.

# %%
reserve_limit = CLAUDE_WINDOW - NO_COMPACTION.max_tokens  # the largest input a request may send
step = refused_input - series.context[-1]
print(f"inputs above {reserve_limit:,} tokens are refused with max_tokens = {NO_COMPACTION.max_tokens:,}")
print(f"call {refused_call - 1}: {series.context[-1]:,} + {NO_COMPACTION.max_tokens:,} = "
      f"{series.context[-1] + NO_COMPACTION.max_tokens:,}, accepted")
print(f"call {refused_call}: {refused_input:,} tokens ({step:,} more), refused")

# %%
assert reserve_limit == 198_976
assert series.context[-1] + NO_COMPACTION.max_tokens == 199_073 <= CLAUDE_WINDOW
assert refused_input == 200_042 and step == 1_993 > NO_COMPACTION.max_tokens
assert refused.body["error"]["message"] == \
    f"prompt is too long: {refused_input} tokens > {CLAUDE_WINDOW} maximum"

# %% [markdown]
# Nothing else broke. The calls made before the refusal are in the session's trace, and the history still
# ends with the result of the last file read: a valid request, only too large. Sending it again would be
# refused again. The only way on is to send fewer tokens, and that is what compaction does, from chapter 02
# on.
#
# The average pace hides how close the wall is. Over the 71 requests of `LONG_SESSION` the context grew by
# about 1,766 tokens per request; at that pace the window would be full after about 113 requests. It was
# full at request 84: reading a whole folder adds 20,000 to 24,000 tokens at once (10 or 12 files of about
# 2,000 tokens each), and the last 13 requests go through three new folders. Even the very first request,
# reading one folder, took the context from nothing to 24,808 tokens. The files here are about 150 lines;
# a codebase with longer files fills the window sooner. (The pace is *this fake* agent's: it reads whole
# folders when asked to. That whole-file reads dominate is a property of the task, not of the model.)

# %%
per_request = series.context[request_ends[70] - 1] / 71
requests_to_fill = CLAUDE_WINDOW / per_request
print(f"LONG_SESSION: {per_request:,.0f} tokens per request on average; at that pace the window is full "
      f"after about {requests_to_fill:.0f} requests")
after = [series.context[end - 1] for end in request_ends]  # the context at the end of each answered request
folder_reads = {}                                          # folder -> (files, tokens its reading added)
for folder, files in WALL_SESSION.folders[1:6]:            # the folders read in full after agents/
    i = WALL_SESSION.requests.index(f"Read every .py file under {folder}/ and summarise what each does.")
    added = after[i] - after[i - 1]
    folder_reads[folder] = len(files), added
    print(f"reading {folder + '/':9} {len(files)} files: {added:,} tokens, {added / len(files):,.0f} a file")

# %%
validate_messages(session.messages)  # the history is still one the API accepts
assert session.messages[-1]["content"][0]["type"] == "tool_result"
assert round(per_request) == 1_766
assert round(requests_to_fill) == 113
assert len(request_ends) + 1 == 84
assert list(folder_reads) == ["core", "tools", "plugins", "tests", "scripts"]
each_read = [tokens for _, tokens in folder_reads.values()]
assert round(min(each_read), -3) == 20_000 and round(max(each_read), -3) == 24_000
assert {files for files, _ in folder_reads.values()} == {10, 12}
assert all(round(tokens / files, -2) == 2_000 for files, tokens in folder_reads.values())
assert series.context[request_ends[0] - 1] == 24_808  # the first request: read the 12 files of agents/

# %% [markdown]
# **Attention thins.** Request 2 is an instruction that must hold for the whole session: *never edit
# anything under tools/*. It is 17 tokens. In the call that answered it, those tokens were 0.068% of what
# the model read; in the last call that went through they are 0.0086%, diluted about 8 times by everything
# that came after. The share is arithmetic and holds for *any model*. What it does to a real model's
# answers is a separate, empirical matter: Anthropic's context-window guide says that as the token count
# grows, accuracy and recall degrade, and calls it *context rot*
# (https://platform.claude.com/docs/en/build-with-claude/context-windows). *This fake* cannot show it: it
# never forgets what it can still see, so below it still recalls the rule at the end. From chapter 03 on
# you will see how compaction itself can lose this sentence.

# %%
rule = LONG_SESSION.requests[1]
rule_tokens = text_tokens(rule)
context_when_given = series.context[request_ends[0]]  # the first call of request 2
share_then, share_now = rule_tokens / context_when_given, rule_tokens / series.context[-1]
print(f"{rule!r}: {rule_tokens} tokens")
print(f"share of the context when given: {share_then:.3%}; at the last call: {share_now:.4%}; "
      f"diluted {share_then / share_now:.1f} times")

# %%
assert rule_tokens == 17
assert round(share_then, 5) == 0.00068 and round(share_now, 6) == 0.000086
assert round(share_then / share_now) == 8
recall_answer = session.answers[WALL_SESSION.requests.index("What did I tell you about tools/?")]
assert recall_answer.startswith("You told me"), "without compaction the rule is still visible"

# %% [markdown]
# **Cost compounds** (*any model* whose API bills the whole input of every call). Every call is billed for
# its whole input, so a token read early is paid for again in every later call. Of the 21,685,505 input tokens billed, 99.1% had
# already been sent in an earlier call; only the 198,049 tokens of the final context were ever new. At
# `claude-haiku-4-5`'s listed USD 1 per million input tokens (`PRICE_PER_MILLION`; change it to your
# model's price) the session's input costs USD 21.69; sending each token once would cost USD 0.20. These
# are prices without prompt caching, which bills a re-sent prefix for less; chapter 09 prices it.

# %%
resent = 1 - series.context[-1] / series.billed[-1]
cost, cost_once = (tokens * PRICE_PER_MILLION / 1e6 for tokens in (series.billed[-1], series.context[-1]))
print(f"re-sent share of the bill: {resent:.1%}")
print(f"input cost at ${PRICE_PER_MILLION:.2f} per million tokens: ${cost:,.2f}; "
      f"each token once: ${cost_once:,.2f}")

# %%
assert round(resent, 3) == 0.991
assert round(cost, 2) == 21.69 and round(cost_once, 2) == 0.20

# %% [markdown]
# **How fast does the bill grow?** "With the square of the session's length" is the usual shorthand. Here is
# what this run measures. Split the 215 calls into halves: the last 108 calls billed 2.29 times what the
# first 107 billed. A pure square law, a context that starts from nothing and grows by the same amount every
# call, would give 3.02 for 215 calls (3 in the limit); a context that never grew would give about 1.
#
# Why in between? The bill is the sum of the contexts sent. If the context at call *k* is *a* + *b*·*k*,
# the bill after *n* calls is *a*·*n* + *b*·*n*(*n* + 1)/2: a square term that wins in the long run, plus a
# linear term from the constant *a*, which pulls the ratio towards 1. `straight_line` fits such a line to
# the 215 contexts: it starts at 16,886 tokens and climbs 778 tokens a call, and by itself predicts a ratio
# of 2.44. The constant is not the system prompt and tool schemas (574 tokens of every request); it is
# front-loading: the first request reads 12 files in 14 calls, and three folders are read within the
# first 12 requests, so after a quarter of the calls the context is already 35% of its final size. The
# rest of the gap, from 2.44 down to 2.29, is growth no straight line follows: slow through the long
# stretch of small requests, then a jump at the end as three new folders are read. So: quadratic in the
# limit, clearly faster than linear here, but not the square law. The arithmetic holds for *any model*;
# the 2.29 is this session's, shaped by when *this fake* agent read what.

# %%
def half_ratio(contexts):
    """What the second half of the calls billed over what the first half billed (the bill sums the contexts)."""
    half = len(contexts) // 2
    return sum(contexts[half:]) / sum(contexts[:half])


def straight_line(xs, ys):
    """The least-squares line y = a + b·x through the points, as (a, b)."""
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
    return mean_y - b * mean_x, b


calls = list(series.calls)
measured = half_ratio(series.context)
square_law = half_ratio(calls)              # context k at call k: grows the same every call, from nothing
flat = half_ratio([1] * len(calls))         # a context that never grows
line_start, line_slope = straight_line(calls, series.context)
line_ratio = half_ratio([line_start + line_slope * k for k in calls])
fixed_part = count_tokens([], system=session.system, tools=session.toolbox.schemas)
quarter_share = series.context[len(calls) // 4 - 1] / series.context[-1]
half = len(calls) // 2
print(f"first {half} calls billed {series.billed[half - 1]:,}; last {len(calls) - half} billed "
      f"{series.billed[-1] - series.billed[half - 1]:,}: ratio {measured:.2f}")
print(f"square law {square_law:.2f} | never growing {flat:.2f} | fitted line: starts at {line_start:,.0f}, "
      f"climbs {line_slope:,.0f} a call, ratio {line_ratio:.2f}")
print(f"system prompt and tools: {fixed_part} tokens | context after a quarter of the calls: "
      f"{quarter_share:.0%} of the final")

# %%
assert measured == (series.billed[-1] - series.billed[half - 1]) / series.billed[half - 1]
assert (half, len(calls) - half) == (107, 108)
assert round(measured, 2) == 2.29 and round(square_law, 2) == 3.02 and round(flat) == 1
assert (round(line_start), round(line_slope)) == (16_886, 778) and round(line_ratio, 2) == 2.44
assert fixed_part == 574 < line_start
assert round(quarter_share, 2) == 0.35
assert request_ends[0] == 14  # the first request: 12 files read in 14 calls
assert [WALL_SESSION.requests.index(f"Read every .py file under {folder}/ and summarise what each does.")
        for folder in ("agents", "core", "tools")] == [0, 5, 11]  # three folders within the first 12 requests
assert flat < measured < line_ratio < square_law

# %% [markdown]
# ## 5 · Try it: grow the session request by request
#
# Move the slider to run only the first *n* of the 83 requests that were answered (the curves come from
# the run above: the fake is deterministic, so the first *n* requests of a longer run are exactly a shorter
# run). The axes stay fixed to the whole session, up to the last call before the refusal, so you can watch
# the context crawl towards the dashed window line while the bill bends upwards. The callback,
# `session_growth_figure`, is a pure function in `harness/labs/plots.py`: data in, figure out.

# %% tags=["nbval-ignore-output"]
growth_slider = panel(session_growth_figure, series=series, request_ends=request_ends,
                      requests=IntSlider(value=len(request_ends), min=1, max=len(request_ends),
                                         description="requests"),
                      window=CLAUDE_WINDOW)

# %% [markdown]
# ## Summary
#
# - Without compaction the context only grows: 215 calls, for 83 small requests and most of an 84th, took
#   it to 198,049 tokens, 99.0% of `claude-haiku-4-5`'s 200,000-token window, and the next call, at 200,042
#   tokens, was refused with a 400: *prompt is too long*. The session cannot go on (*any model*: the window
#   is a hard limit of the API).
# - A request must also leave room for the reply: with `max_tokens` = 1,024, any input above 198,976 tokens
#   is refused. Here one file read jumped over both limits at once.
# - Tool results are almost all of it (95.4% at the end); the user's own words, 1,393 tokens, are a sliver.
# - Every call pays for the whole history: the input bill was about 109 times the final context
#   (USD 21.69 at USD 1 per million, against USD 0.20 to send each token once). It grows faster than
#   linearly but not as a pure square: the second half of the calls billed 2.29 times the first half,
#   where a square law gives 3.02, because the context was front-loaded (a fitted line starts at 16,886
#   tokens) and grew unevenly.
# - Early instructions are diluted: a 17-token rule went from 0.068% to 0.0086% of what the model reads.
#   *This fake* still recalls it; Anthropic documents that real models' recall degrades as contexts grow.
#
# The next chapter looks at how these tokens are counted, and why the count itself needs care.

# %% [markdown]
# ## Exercises
#
# ### 1. Half the window
# At which model call did the long session's context first pass half of Claude's window?
#
# *Hint:* `series.calls` and `series.context` run side by side; `zip` them.

# %%
first_call_over_half = None  # an int: the model call

# %%
if first_call_over_half is None:
    print("Exercise 1: fill in first_call_over_half, then run this cell.")
else:
    truth = next(c for c, tokens in zip(series.calls, series.context) if tokens > CLAUDE_WINDOW // 2)
    assert first_call_over_half == truth, (
        f"call {first_call_over_half} is not it: look for the first call whose context is over "
        f"{CLAUDE_WINDOW // 2:,} tokens")
    print("Exercise 1: correct.")

# %% [markdown]
# ### 2. The price of one request
# What did the 12-file task's input cost, in dollars, at `PRICE_PER_MILLION`?
#
# *Hint:* the last value of `twelve_series.billed` is the whole bill in tokens.

# %%
twelve_cost = None  # a float, in dollars

# %%
if twelve_cost is None:
    print("Exercise 2: fill in twelve_cost, then run this cell.")
else:
    truth = twelve_series.billed[-1] * PRICE_PER_MILLION / 1e6
    assert abs(twelve_cost - truth) < 0.005, "not yet: tokens times the price, divided by one million"
    print("Exercise 2: correct.")

# %% [markdown]
# ### 3. The straight-line prediction
# If the context grew by the same *g* tokens every call, *n* calls would bill g·n(n+1)/2 tokens. Compute
# that prediction for the long session, with *g* its final context divided by its number of calls. Is the
# real bill higher or lower, and why is the half-and-half ratio of section 4 still only 2.29?
#
# *Hint:* look at the left curve of section 2: where does the context run above the line from zero to
# the final context, and where below?

# %%
predicted_bill = None  # tokens (a number)

# %%
if predicted_bill is None:
    print("Exercise 3: fill in predicted_bill, then run this cell.")
else:
    n = len(series)
    truth = series.context[-1] / n * n * (n + 1) / 2
    assert abs(predicted_bill - truth) <= 0.01 * truth, "not yet: use g = series.context[-1] / len(series)"
    above = sum(1 for k, tokens in zip(series.calls, series.context) if tokens > series.context[-1] / n * k)
    print(f"Exercise 3: correct. The real bill is {series.billed[-1] / predicted_bill:.2f} x the prediction, "
          f"almost the same total, but spread differently: {above} of the {n} calls, nearly all in the first "
          "half, run above the line (three folders are read in the first 12 requests), and the long stretch "
          "of small requests after them runs below it. An early half that is dearer than the line makes the "
          "second half look cheaper by comparison.")

# %% [markdown]
# ### 4. A larger reply reserve
# The harness keeps 1,024 tokens of the window for each reply. Had it asked for `max_tokens` = 16,384
# (room for a long answer), at which model call would this session have been refused? And with which of
# the two errors: write `"prompt is too long"` or `"input length and max_tokens"`.
#
# *Hint:* a call is refused as soon as its input plus `max_tokens` is over the window; the calls before it
# are the same as in the run above.

# %%
call_refused_at_16k = None  # an int: the model call
error_at_16k = None         # one of the two strings above

# %%
if call_refused_at_16k is None or error_at_16k is None:
    print("Exercise 4: fill in call_refused_at_16k and error_at_16k, then run this cell.")
else:
    truth = next(c for c, tokens in zip(series.calls, series.context) if tokens + 16_384 > CLAUDE_WINDOW)
    assert call_refused_at_16k == truth, f"call {call_refused_at_16k} is not it: input + 16,384 > 200,000"
    fits_alone = series.context[truth - 1] <= CLAUDE_WINDOW
    assert error_at_16k == ("input length and max_tokens" if fits_alone else "prompt is too long"), (
        "not that error: does that call's input fit the window on its own?")
    print("Exercise 4: correct.")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch00.py`).
#
# 1. Why was the 12-file task billed about 6.7 times its final context?
# 2. What are the API's two context-window errors, and why was call 216 refused with *prompt is too long*?
# 3. What is almost all of the context made of, and what does that tell compaction?
# 4. Why did the second half of the calls bill 2.29 times the first half, and not the 3.02 of a square law?
# 5. Which lesson of the chapter does this fake not show, and why?
