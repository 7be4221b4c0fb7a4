# %% [markdown]
# # 00 · The wall
#
# **The promise:** see, in numbers from a real run of the agent, why a long session without compaction
# cannot go on: the context climbs towards the window, every call pays for everything again, and each
# early instruction becomes a smaller and smaller part of what the model reads.
#
# By the end of this chapter you will be able to:
#
# - run the course's agent on two tasks, with every compaction layer switched off;
# - turn a session's trace into two curves, the context sent per call and the input tokens billed so far;
# - take a request apart into what it is made of: system prompt, user text, assistant text, tool calls
#   and tool results (and, from chapter 02 on, placeholders and summaries);
# - explain with the run's own numbers why the window is finite, why attention thins and why cost compounds.
#
# Everything runs offline. The "model" is a deterministic fake of Claude behind the real `anthropic` SDK:
# it answers `client.messages.create(...)` like the API does and reports the input tokens of every request,
# counted with a tokenizer (chapter 01 looks at counting closely).

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import shutil

from IPython.display import display
from ipywidgets import IntSlider

from harness import CompactionConfig, Toolbox
from harness.core.tokens import text_tokens
from harness.fake import fake_client
from harness.labs.growth import composition_recorder, growth_series
from harness.labs.panel import panel
from harness.labs.plots import composition_figure, growth_figure, session_growth_figure
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.session.runner import Session
from harness.strategies.base import Compactor

WORK = own_scratch("00")                   # _work/00, in a fresh folder of its own for each run
NO_COMPACTION = CompactionConfig(micro=False, auto=False)
CLAUDE_WINDOW = 200_000                    # a fact: Claude's context window, in tokens
PRICE_PER_MILLION = 3.00                   # an example price in dollars per million input tokens, not a quote
print("micro:", NO_COMPACTION.micro, "| auto:", NO_COMPACTION.auto)

# %% [markdown]
# ## 1 · One request, twelve files
#
# The first task is the worked example of the reference agent: a folder `agents/` with 12 Python files
# of about 150 lines each, and one request, *read every .py file under agents/ and summarise what each
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
# ## 2 · A working session
#
# A real session is many requests. `LONG_SESSION` is 71 of them over four folders (`agents/`, `core/`,
# `tools/`, `plugins/`): read a folder, change a `VERSION_TAG`, ask what a tag is, count lines, search
# for TODOs, and near the end, questions about instructions given at the start. We send the requests one
# at a time and note how many model calls the session has made after each one (the slider below needs that).

# %%
long_root = WORK / "long"
shutil.rmtree(long_root, ignore_errors=True)
long_client = composition_recorder(fake_client())
session = Session(long_client, Toolbox(LONG_SESSION.build(long_root / "workspace")), NO_COMPACTION,
                  Compactor())
request_ends = []                          # request_ends[i]: model calls made after request i + 1
for request in LONG_SESSION.requests:
    session.ask(request)
    request_ends.append(len(session.trace))
series = growth_series(session.trace)
print(session.stats)
print("requests:", len(request_ends), "| model calls:", len(series))

# %%
display(growth_figure({"no compaction": series}, window=CLAUDE_WINDOW,
                      title="the long session with no compaction"))

# %% [markdown]
# Two curves, two scales. On the left, the context climbs with every call and never comes down: nothing
# is ever removed. After 71 requests and 158 calls it holds 125,406 tokens, 63% of the window. On the right,
# the bill grows much faster: 12,433,623 input tokens, about 99 times the final context.

# %%
print(f"last context {series.context[-1]:,} = {series.context[-1] / CLAUDE_WINDOW:.0%} of the window")
print(f"billed {series.billed[-1]:,} = {series.billed[-1] / series.context[-1]:.0f} x the last context")

# %%
assert [folder for folder, _ in LONG_SESSION.folders] == ["agents", "core", "tools", "plugins"]
assert len(request_ends) == 71 and len(series) == 158
assert list(series.context) == sorted(series.context), "with no compaction the context never shrinks"
assert series.context[-1] == max(series.context) == 125_406
assert round(series.context[-1] / CLAUDE_WINDOW, 2) == 0.63
assert series.billed[-1] == 12_433_623
assert 98 <= series.billed[-1] / series.context[-1] <= 100

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
assert round(last["tool results"] / sum(last.values()), 3) == 0.946
assert last["user text"] == 1_182

# %% [markdown]
# Almost all of it is tool output: 94.6% of the last request is file contents and command results. The 71
# requests the user typed take 1,182 tokens in total. That is where compaction will have to cut.
#
# ## 4 · Why this is a wall
#
# **The window is finite.** A model reads at most its context window in one call, 200,000 tokens for
# Claude; a request beyond it is refused. (Some of the window must also stay free for the reply.) Our session
# adds about 1,766 tokens per request on average, so at that pace the window is full after about 113
# requests. And our requests are small: real files are longer, and the very first request here, reading one
# folder, took the context from nothing to 24,808 tokens.

# %%
per_request = series.context[-1] / len(request_ends)
requests_to_fill = CLAUDE_WINDOW / per_request
print(f"{per_request:,.0f} tokens per request on average; the window is full after about "
      f"{requests_to_fill:.0f} requests")

# %%
assert round(per_request) == 1_766
assert 110 <= requests_to_fill <= 116
assert series.context[request_ends[0] - 1] == 24_808  # the first request: read the 12 files of agents/

# %% [markdown]
# **Attention thins.** Request 2 is an instruction that must hold for the whole session: *never edit
# anything under tools/*. It is 17 tokens. In the call that answered it, those tokens were 0.068% of what
# the model read; in the last call they are 0.014%, diluted about 5 times by everything that came after.
# The model attends over the whole window at once, and the work of attention grows with the square of the
# length; long contexts make it easier for one short, early sentence to be outweighed. (Our fake model
# never forgets what it can still see; real models are less reliable, and from chapter 03 on you will
# see how compaction itself can lose this sentence.)

# %%
rule = LONG_SESSION.requests[1]
rule_tokens = text_tokens(rule)
context_when_given = series.context[request_ends[0]]  # the first call of request 2
share_then, share_now = rule_tokens / context_when_given, rule_tokens / series.context[-1]
print(f"{rule!r}: {rule_tokens} tokens")
print(f"share of the context when given: {share_then:.3%}; at the last call: {share_now:.3%}; "
      f"diluted {share_then / share_now:.1f} times")

# %%
assert rule_tokens == 17
assert round(share_then, 5) == 0.00068 and round(share_now, 5) == 0.00014
assert 4.5 <= share_then / share_now <= 5.5
assert session.answers[-2].startswith("You told me"), "without compaction the rule is still visible"

# %% [markdown]
# **Cost compounds.** Every call is billed for its whole input, so a token read early is paid for again in
# every later call. Of the 12,433,623 input tokens billed, 99.0% had already been sent in an earlier
# call; only the 125,406 tokens of the final context were ever new. At an example price of &#36;3 per million
# input tokens (`PRICE_PER_MILLION`, change it to your model's price) the session's input costs &#36;37.30;
# sending each token once would cost &#36;0.38. The bill grows with the square of the session's length: the
# second half of the calls cost more than twice the first half.

# %%
resent = 1 - series.context[-1] / series.billed[-1]
half = len(series) // 2
first_half = series.billed[half - 1]
second_half = series.billed[-1] - first_half
print(f"re-sent share of the bill: {resent:.1%}")
cost, cost_once = (tokens * PRICE_PER_MILLION / 1e6 for tokens in (series.billed[-1], series.context[-1]))
print(f"input cost at ${PRICE_PER_MILLION:.2f} per million tokens: ${cost:,.2f}; each token once: ${cost_once:,.2f}")
print(f"first {half} calls billed {first_half:,}; last {len(series) - half} calls billed {second_half:,} "
      f"({second_half / first_half:.2f} x)")

# %%
assert round(resent, 3) == 0.990
example_price = 3.00  # the prose's example price, dollars per million input tokens
assert round(series.billed[-1] * example_price / 1e6, 2) == 37.30
assert round(series.context[-1] * example_price / 1e6, 2) == 0.38
assert 2 < second_half / first_half < 3

# %% [markdown]
# ## 5 · Try it: grow the session request by request
#
# Move the slider to run only the first *n* requests of the session (the curves come from the run above:
# the fake is deterministic, so the first *n* requests of a longer run are exactly a shorter run). The
# axes stay fixed to the whole session, so you can watch the context crawl towards the dashed window
# line while the bill bends upwards. The callback, `session_growth_figure`, is a pure function in
# `harness/labs/plots.py`: data in, figure out.

# %% tags=["nbval-ignore-output"]
growth_slider = panel(session_growth_figure, series=series, request_ends=request_ends,
                      requests=IntSlider(value=len(request_ends), min=1, max=len(request_ends),
                                         description="requests"),
                      window=CLAUDE_WINDOW)

# %% [markdown]
# ## Summary
#
# - Without compaction the context only grows: 158 calls for 71 small requests took it to 125,406 tokens,
#   63% of a 200,000-token window, and nothing would stop it from going past.
# - Tool results are almost all of it (94.6% at the end); the user's own words are a sliver.
# - Every call pays for the whole history: the input bill was about 99 times the final context, and it
#   grows with the square of the session's length.
# - Early instructions are diluted: a 17-token rule went from 0.068% to 0.014% of what the model reads.
#
# The next chapter looks at how these tokens are counted, and why the count itself needs care.
#
# ## Exercises
#
# **1.** At which model call did the long session's context first pass half of Claude's window?
#
# *Hint:* `series.calls` and `series.context` run side by side; `zip` them.

# %%
first_call_over_half = None  # replace None with your answer (an int)


def check_exercise_1(answer):
    expected = next(c for c, tokens in zip(series.calls, series.context) if tokens > CLAUDE_WINDOW // 2)
    if answer is None:
        return "exercise 1: not attempted yet"
    return "exercise 1: correct" if answer == expected else f"exercise 1: call {answer} is not it, try again"


print(check_exercise_1(first_call_over_half))

# %% [markdown]
# **2.** What did the 12-file task's input cost, in dollars, at `PRICE_PER_MILLION`?
#
# *Hint:* the last value of `twelve_series.billed` is the whole bill in tokens.

# %%
twelve_cost = None  # replace None with your answer (a float, in dollars)


def check_exercise_2(answer):
    expected = twelve_series.billed[-1] * PRICE_PER_MILLION / 1e6
    if answer is None:
        return "exercise 2: not attempted yet"
    return "exercise 2: correct" if abs(answer - expected) < 0.01 else "exercise 2: not yet, check the units"


print(check_exercise_2(twelve_cost))

# %% [markdown]
# **3.** If the context grew by the same *g* tokens every call, *n* calls would bill
# g·n(n+1)/2 tokens. Compute that prediction for the long session, with *g* its final context divided by
# its number of calls. Is the real bill higher or lower, and why?
#
# *Hint:* look at the left curve of section 2: where does the context grow fastest?

# %%
predicted_bill = None  # replace None with your prediction (tokens)


def check_exercise_3(answer):
    n = len(series)
    expected = series.context[-1] / n * n * (n + 1) / 2
    if answer is None:
        return "exercise 3: not attempted yet"
    if abs(answer - expected) > 0.01 * expected:
        return "exercise 3: not yet, use g = series.context[-1] / len(series)"
    return (f"exercise 3: correct; the real bill is {series.billed[-1] / answer:.2f} x the prediction: "
            "the session reads a whole folder first, so the context is large early on")


print(check_exercise_3(predicted_bill))
