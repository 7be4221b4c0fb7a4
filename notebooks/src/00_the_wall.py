# %% [markdown]
# # 00 · The wall
#
# **The promise:** see, in numbers from a run of the agent, why a long session without compaction
# cannot go on.
#
# By the end of this chapter you will be able to:
#
# - turn a session's trace into two curves: the context sent per call and the input billed so far;
# - take a request apart into what it is made of;
# - run a session into the context window and tell what the API does at its edge.
#
# Everything runs offline, on a deterministic fake of Claude behind the real `anthropic` SDK.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import shutil

import anthropic
from IPython.display import display
from ipywidgets import IntSlider

from harness import CompactionConfig, Toolbox, context_window, count_tokens, validate_messages
from harness.core.loop import run_agent
from harness.core.tokens import text_tokens
from harness.fake import FakeModel, fake_client
from harness.labs.growth import composition_recorder, growth_series
from harness.labs.panel import panel
from harness.labs.plots import composition_figure, growth_figure, session_growth_figure
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES, WALL_SESSION
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer
from harness.session.runner import Session
from harness.strategies.base import Compactor
from harness.strategies.one_call import OneCallPerTurn

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
# The model, window and price are real: `claude-haiku-4-5`, 200K tokens, USD 1 per million input
# tokens [1] (*legacy*; kept for its 200K window). The rest is measured on the fake, so each result
# carries a label:
#
# - *any model*: a different model that saw the same context would do the same;
# - *this fake*: it follows from how our fake decides (what it reads, and when, and how many at once);
# - *this design*: a choice of this harness or of the sources it follows.

# %% [markdown]
# ## 1 · One request, twelve files
#
# The course started from *the s06 lesson* [7], a Chinese-language lesson on *the s06 agent*
# (`agents/s06_context_compact.py` of shareAI-lab/learn-claude-code [6]). Its worked example: a folder
# `agents/` of 12 Python files of about 150 lines, and *read every .py file under agents/ and summarise
# what each does*. `composition_recorder` remembers what each request was made of.

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
# Claude may call several tools in one turn by default [8], and so does the fake (*this fake*, rule in
# `harness/fake/agent.py`): it lists the folder, reads all 12 files in one turn, then answers.
# `growth_series` gives each call's input tokens and the running total billed.

# %%
twelve_series = growth_series(twelve.trace)
print(" call   context   billed so far")
for call, context, billed in zip(twelve_series.calls, twelve_series.context, twelve_series.billed):
    print(f"{call:5} {context:9,} {billed:15,}")

# %% [markdown]
# Every call re-sends the whole history and is billed for it (*any model*): the bill sums the contexts.
# The number of calls is *this fake*'s; a control asks for one tool call per turn (`OneCallPerTurn`
# sends `disable_parallel_tool_use` [8]).

# %%
one_at_a_time = growth_series(run_scenario(TWELVE_FILES, NO_COMPACTION, WORK / "twelve_one",
                                           compactor=OneCallPerTurn(Compactor())).trace)
for label, s in (("parallel calls", twelve_series), ("one call per turn", one_at_a_time)):
    print(f"{label:18} calls {len(s):2}, last context {s.context[-1]:,} "
          f"({s.context[-1] / CLAUDE_WINDOW:.0%} of the window), billed {s.billed[-1]:,} "
          f"= {s.billed[-1] / s.context[-1]:.1f} x the last context")

# %%
twelve_ratio = twelve_series.billed[-1] / twelve_series.context[-1]
one_ratio = one_at_a_time.billed[-1] / one_at_a_time.context[-1]
assert twelve.stats.model_calls == len(twelve_series) == 3 and len(one_at_a_time) == 14
assert (twelve_series.context[-1], one_at_a_time.context[-1]) == (24_485, 24_808)
assert round(twelve_series.context[-1] / CLAUDE_WINDOW, 2) == 0.12
assert (twelve_series.billed[-1], one_at_a_time.billed[-1]) == (25_775, 166_848)
assert (round(twelve_ratio, 1), round(one_ratio, 1)) == (1.1, 6.7)

# %% [markdown]
# Parallel: 3 calls, 25,775 tokens billed, 1.1 times the final 24,485. One per turn: 14 calls, 166,848,
# 6.7 times (both *this fake*). The same files arrive either way; fewer turns re-send less.

# %% [markdown]
# ## 2 · A working session, until the API refuses
#
# `LONG_SESSION`, reused later, is 71 requests over four folders: read a folder, change a `VERSION_TAG`,
# count lines, search for TODOs, then questions about instructions given at the start. It ends at 125,112
# tokens, so `WALL_SESSION` adds 13 requests over three new folders. We send them one at a time and stop
# when the SDK raises `anthropic.BadRequestError`.

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
# `re_reads` = 0: with nothing removed, the agent never reads an unchanged file again (*this fake*). The
# 15 `reads_after_edit` re-read a changed file, which no compaction causes.

# %%
assert session.stats.re_reads == 0 and session.stats.reads_after_edit == 15

# %%
display(growth_figure({"no compaction": series}, window=CLAUDE_WINDOW, refused=(refused_call, refused_input),
                      title="the long session with no compaction, up to the refused call"))

# %% [markdown]
# On the left, the context climbs and never comes down: `LONG_SESSION` ends at 125,112 tokens, the next
# 12 requests at 179,386. The 84th asks for the 12 files of `examples/`; after the listing the context is
# 179,518 tokens, 89.8% of the window, after 142 calls. Call 143 carries all 12 reads of one turn; the API
# refuses it (red cross). On the right, the bill: 14,498,069 tokens, about 81 times the final context.
# These counts are *this fake*'s trajectory, shaped by its parallel calls.

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
assert series.context[request_ends[70] - 1] == 125_112  # the end of LONG_SESSION, as in later chapters
assert series.context[request_ends[-1] - 1] == 179_386  # the end of request 83
assert refused is not None and refused.status_code == 400
assert refused.body["error"]["type"] == "invalid_request_error"
assert len(request_ends) == 83 and len(series) == 142 and refused_call == 143
assert WALL_SESSION.requests[83] == "Read every .py file under examples/ and summarise what each does."
assert unfinished == ["list_files"] + ["read_file"] * 12
assert session.trace[-1].tools == ("read_file",) * 12  # call 142 asked for all 12 reads at once
assert list(series.context) == sorted(series.context), "with no compaction the context never shrinks"
assert series.context[-1] == max(series.context) == 179_518
assert round(series.context[-1] / CLAUDE_WINDOW, 3) == 0.898
assert series.billed[-1] == 14_498_069
assert round(series.billed[-1] / series.context[-1]) == 81

# %% [markdown]
# ## 3 · What the context is made of
#
# `composition` sorts every token of a request into one category (system prompt and tool schemas are
# *system*; *placeholders* and *summaries* stay empty until chapters 02 and 03). On the fake they add up
# exactly to the reported input (*this fake*); the real API also adds a tool-use system prompt of a few
# hundred tokens whenever tools are sent [2].

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
assert round(last["tool results"] / sum(last.values()), 3) == 0.952
assert last["user text"] == 1_393

# %% [markdown]
# 95.2% of the last request is tool output; the 84 requests the user typed take 1,393 tokens. That is
# where compaction will cut (*this fake*'s share: it reads whole files, and every file it is asked for).
#
# ## 4 · Why this is a wall
#
# **The window is finite** (*any model*). A model reads at most its window in one call, reply
# included [3]. A request that does not fit:
#
# | what is over the window | what the API does | source |
# |---|---|---|
# | the input alone | a 400, *prompt is too long: N tokens > 200000 maximum* | [4] |
# | input + `max_tokens`, Sonnet 4.5 and newer | serves it; the reply gets what the window leaves and, cut there, stops with `model_context_window_exceeded` | [9] |
# | input + `max_tokens`, earlier models | a 400, *input length and `max_tokens` exceed context limit* | [5] |
#
# The fake counts every model it serves among the newer ones, Haiku 4.5 included (released after Sonnet
# 4.5; `harness/fake/window.py`). The loop (`harness/core/loop.py`) handles both: a 400 is raised, and
# `Session.ask` keeps the calls before it; a stop at the window ends the run without running the cut
# reply's tool calls.
#
# Call 142 sent 179,518 (+ 1,024 = 180,542, fits). Call 143 added the 12 reads of one turn, 23,737
# tokens, to 203,255: the input alone is over, so *prompt is too long*. One turn of parallel reads is 23
# times the 1,024-token band of the other case.

# %%
reserve_limit = CLAUDE_WINDOW - NO_COMPACTION.max_tokens  # the largest input a request may send
step = refused_input - series.context[-1]
print(f"inputs above {reserve_limit:,} tokens are refused with max_tokens = {NO_COMPACTION.max_tokens:,}")
print(f"call {refused_call - 1}: {series.context[-1]:,} + {NO_COMPACTION.max_tokens:,} = "
      f"{series.context[-1] + NO_COMPACTION.max_tokens:,}, accepted")
print(f"call {refused_call}: {refused_input:,} tokens ({step:,} more), refused")

# %%
assert reserve_limit == 198_976
assert series.context[-1] + NO_COMPACTION.max_tokens == 180_542 <= CLAUDE_WINDOW
assert refused_input == 203_255 and step == 23_737 and round(step / NO_COMPACTION.max_tokens) == 23
assert refused.body["error"]["message"] == \
    f"prompt is too long: {refused_input} tokens > {CLAUDE_WINDOW} maximum"

# %% [markdown]
# The other case, on a pretend window (`FakeModel(window=...)`) that leaves call 142 3 tokens for its
# reply: the 12 read calls do not fit, and none runs.

# %%
before_142 = session.messages[:-2]         # a new list: the input of call 142
tight = FakeModel(window=series.context[-1] + 3)
cut = run_agent(tight.client(), before_142, system=session.system, tools=session.toolbox, config=NO_COMPACTION,
                compactor=Compactor())
print(f"call 142, 3 tokens of room: stop {cut.stop!r}, tool calls run: {len(cut.tool_calls)}")

# %%
assert cut.stop == "model_context_window_exceeded" and cut.tool_calls == []
assert all(b["type"] != "tool_use" for m in before_142[len(session.messages) - 2:] for b in m["content"])

# %% [markdown]
# Nothing else broke: the history is valid, only too large. The way on is to send fewer tokens:
# compaction, from chapter 02 on.
#
# The average pace, 1,762 tokens a request over `LONG_SESSION`, would fill the window after about 113
# requests; it was full at request 84, because reading a folder adds 20,000 to 24,000 tokens at once (10
# or 12 files of about 2,000 tokens; the first request, 24,485). The pace is *this fake*'s.

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
assert round(per_request) == 1_762
assert round(requests_to_fill) == 113
assert len(request_ends) + 1 == 84
assert list(folder_reads) == ["core", "tools", "plugins", "tests", "scripts"]
each_read = [tokens for _, tokens in folder_reads.values()]
assert round(min(each_read), -3) == 20_000 and round(max(each_read), -3) == 24_000
assert {files for files, _ in folder_reads.values()} == {10, 12}
assert all(round(tokens / files, -2) == 2_000 for files, tokens in folder_reads.values())
assert series.context[request_ends[0] - 1] == 24_485  # the first request: read the 12 files of agents/

# %% [markdown]
# **Attention thins.** Request 2 must hold for the whole session: *never edit anything under tools/*.
# Its 17 tokens were 0.068% of what the model read when it was given, 0.0095% at the last call: diluted
# about 7 times (arithmetic on *this fake*'s trajectory). Anthropic's guide says accuracy and recall
# degrade as the token count grows, *context rot* [3]. *This fake* cannot show it: it never forgets what
# it can still see.

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
assert round(share_then, 5) == 0.00068 and round(share_now, 6) == 0.000095
assert round(share_then / share_now) == 7
recall_answer = session.answers[WALL_SESSION.requests.index("What did I tell you about tools/?")]
assert recall_answer.startswith("You told me"), "without compaction the rule is still visible"

# %% [markdown]
# **Cost compounds** (*any model* billed for its whole input on every call). Of the 14,498,069 tokens
# billed, 98.8% had been sent before. At USD 1 per million the input costs USD 14.50; each token once,
# USD 0.18. Both are without prompt caching (chapter 09); the sizes are *this fake*'s session.

# %%
resent = 1 - series.context[-1] / series.billed[-1]
cost, cost_once = (tokens * PRICE_PER_MILLION / 1e6 for tokens in (series.billed[-1], series.context[-1]))
print(f"re-sent share of the bill: {resent:.1%}")
print(f"input cost at ${PRICE_PER_MILLION:.2f} per million tokens: ${cost:,.2f}; "
      f"each token once: ${cost_once:,.2f}")

# %%
assert round(resent, 3) == 0.988
assert round(cost, 2) == 14.50 and round(cost_once, 2) == 0.18

# %% [markdown]
# **How fast does the bill grow?** "With the square of the length", says the shorthand. The last 71 of
# the 142 calls billed 1.84 times the first 71.
#
# | a context that | ratio of the halves |
# |---|---|
# | starts at nothing and grows the same every call (square law) | 2.97 |
# | follows the fitted line: starts at 34,340, climbs 948 a call | 1.98 |
# | this session | 1.84 |
# | never grows | 1 |
#
# With a context of *a* + *b*·*k* at call *k*, the bill after *n* calls is *a*·*n* + *b*·*n*(*n* + 1)/2:
# the square term wins in the long run, but *a* pulls the ratio towards 1. Here *a* is front-loading,
# not the 574 tokens of system prompt and tools: three folders are read in the first 12 requests, so a
# quarter of the way the context is 41% of its final size. The arithmetic is *any model*'s; the 1.84,
# *this fake*'s.

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
assert (half, len(calls) - half) == (71, 71)
assert round(measured, 2) == 1.84 and round(square_law, 2) == 2.97 and round(flat) == 1
assert (round(line_start), round(line_slope)) == (34_340, 948) and round(line_ratio, 2) == 1.98
assert fixed_part == 574 < line_start
assert round(quarter_share, 2) == 0.41
assert request_ends[0] == 3  # the first request: 12 files read in one turn, 3 calls
assert [WALL_SESSION.requests.index(f"Read every .py file under {folder}/ and summarise what each does.")
        for folder in ("agents", "core", "tools")] == [0, 5, 11]  # three folders within the first 12 requests
assert flat < measured < line_ratio < square_law

# %% [markdown]
# ## 5 · Try it: grow the session request by request
#
# The slider shows the first *n* of the 83 answered requests (the fake is deterministic: the first *n*
# requests of a longer run are a shorter run). The callback, `session_growth_figure` in
# `harness/labs/plots.py`, is a pure function.

# %% tags=["nbval-ignore-output"]
growth_slider = panel(session_growth_figure, series=series, request_ends=request_ends,
                      requests=IntSlider(value=len(request_ends), min=1, max=len(request_ends),
                                         description="requests"),
                      window=CLAUDE_WINDOW)

# %% [markdown]
# ## Summary
#
# - Without compaction the context grows until the API refuses (*any model*); here at call 143, 203,255
#   tokens (*this fake*).
# - Input + `max_tokens` over the window: a stop, `model_context_window_exceeded`, on newer models, a 400
#   on earlier ones; the loop handles both.
# - Tool results are 95.2% of the context; the user's words, 1,393 tokens.
# - Every call pays for the whole history: 81 times the final context (USD 14.50 against 0.18), faster
#   than linear but not a square (1.84, not 2.97).

# %% [markdown]
# ## Exercises
#
# ### 1. Half the window
# At which model call did the long session's context first pass half the window?
#
# *Hint:* `series.calls` and `series.context` run side by side; `zip` them.

# %% tags=["answer"]
first_call_over_half = None  # an int: the model call

# %%
answer("first_call_over_half", first_call_over_half)

# %% [markdown]
# ### 2. The price of one request
# What did the 12-file task's input cost with parallel calls, in dollars, at `PRICE_PER_MILLION`, without
# caching?
#
# *Hint:* the last value of `twelve_series.billed` is the whole bill in tokens.

# %% tags=["answer"]
twelve_cost = None  # a float, in dollars

# %%
answer("twelve_cost", twelve_cost)

# %% [markdown]
# ### 3. The straight-line prediction
# If the context grew by the same *g* tokens every call, *n* calls would bill g·n(n+1)/2 tokens.
# Compute that for the long session, with *g* its final context over its number of calls. Is the real
# bill higher or lower, and why is section 4's ratio still only 1.84?
#
# *Hint:* on the left curve of section 2, where does the context run above the line from zero to the
# final context, and where below?

# %% tags=["answer"]
predicted_bill = None  # tokens (a number)

# %%
if answer("predicted_bill", predicted_bill):
    n = len(series)
    above = sum(1 for k, tokens in zip(series.calls, series.context) if tokens > series.context[-1] / n * k)
    print(f"The real bill is {series.billed[-1] / predicted_bill:.2f} x the prediction: {above} of the {n} "
          "calls run above the line, because the context jumps early (three folders are read in the first 12 "
          "requests, each folder's files in one turn) and then climbs slowly. A dearer early half makes the "
          "second half look cheaper by comparison.")

# %% [markdown]
# ### 4. An earlier model, a larger reply reserve
# On a model that answers input plus `max_tokens` over the window with a 400, and with `max_tokens` =
# 32,000, at which model call would this session have been refused, and with which error? Write
# `"prompt is too long"` or `"input length and max_tokens"`.
#
# *Hint:* such a model refuses a call once its input plus `max_tokens` is over the window; the calls
# before it are the same as above.

# %% tags=["answer"]
call_refused_at_32k = None  # an int: the model call
error_at_32k = None         # one of the two strings above

# %%
answer("call_refused_at_32k", call_refused_at_32k)
answer("error_at_32k", error_at_32k)

# %% [markdown]
# ## Recap
#
# Answer each before you look (`RECAP` in `harness/labs/solutions/ch00.py`).
#
# 1. Why was the 12-file task billed 6.7 times its final context one call per turn, 1.1 with parallel calls?
# 2. What does the API do when the input, or input + `max_tokens`, is over the window? Why was call 143
#    refused with *prompt is too long*?
# 3. What is almost all of the context made of, and what does that tell compaction?
# 4. Why did the second half of the calls bill 1.84 times the first, not a square law's 2.97?
# 5. Which lesson of the chapter does this fake not show, and why?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (200K window, USD 1 per million input tokens, legacy)
# 2. Anthropic, "Tool use pricing and tokens" — https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens (the tool-use system prompt added when tools are sent)
# 3. Anthropic, "Context windows" — https://platform.claude.com/docs/en/build-with-claude/context-windows (the reply counts in the window; context rot)
# 4. anthropics/claude-code issue #12186 — https://github.com/anthropics/claude-code/issues/12186 (the *prompt is too long* wording)
# 5. anthropics/claude-code issue #228 — https://github.com/anthropics/claude-code/issues/228; docker/docker-agent issue #569 — https://github.com/docker/docker-agent/issues/569 (the *input length and `max_tokens`* 400)
# 6. shareAI-lab/learn-claude-code, `agents/s06_context_compact.py` at commit 7864a30804828223862c3d665c39579db823fc50 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (*the s06 agent*)
# 7. *The s06 lesson*, "Context Compact", on the s06 agent of shareAI-lab/learn-claude-code (three layers, `KEEP_RECENT` = 3, the 12-file example): not publicly available
# 8. Anthropic, "Parallel tool use" — https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use
# 9. Anthropic, "Handling stop reasons" — https://platform.claude.com/docs/en/api/handling-stop-reasons (`model_context_window_exceeded`, "available by default in Sonnet 4.5 and newer models")
