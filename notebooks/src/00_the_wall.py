# %% [markdown]
# # 00 · The wall
#
# **The promise:** you will watch an agent's context grow until the model cannot take it, and see why a
# long session without compaction cannot go on.
#
# By the end of this chapter you will be able to:
#
# - picture a request as a list of messages, and watch it grow;
# - read a session's growth and its bill from its trace;
# - tell what the API does at the edge of the window, and where compaction should cut.
#
# **Reading time:** about 15 minutes (stubs included).

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
from harness.fake.rejection import RequestRejected
from harness.fake.window import WINDOW_STOP, output_room
from harness.labs.growth import composition_recorder, growth_series
from harness.labs.panel import panel
from harness.labs.plots import composition_figure, growth_figure, session_growth_figure
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES, WALL_SESSION
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer
from harness.labs.strip import message_parts, strip_figure
from harness.session.runner import Session, count_re_reads
from harness.strategies.base import Compactor
from harness.strategies.one_call import OneCallPerTurn

WORK = own_scratch("00")                   # _work/00, in a fresh folder of its own for each run
NO_COMPACTION = CompactionConfig(micro=False, auto=False)
CLAUDE_WINDOW = context_window(NO_COMPACTION.model)  # the model's real window (harness/core/models.py)
PRICE_PER_MILLION = 1.00                   # dollars per million input tokens: claude-haiku-4-5's listed price
print(f"model: {NO_COMPACTION.model} | window: {CLAUDE_WINDOW:,} tokens | "
      f"max_tokens: {NO_COMPACTION.max_tokens:,} | micro: {NO_COMPACTION.micro} | auto: {NO_COMPACTION.auto}")

# %% jupyter={"source_hidden": true}
assert NO_COMPACTION.model == "claude-haiku-4-5" and CLAUDE_WINDOW == 200_000
assert NO_COMPACTION.max_tokens == 1_024 and PRICE_PER_MILLION == 1.00

# %% [markdown]
# An agent is a loop around a model. It sends a list of messages; the model answers, and may ask for a
# tool, such as reading a file. The harness runs the tool, appends the result, and sends the whole list
# again. That list is the *context*.
#
# The model and price are real: `claude-haiku-4-5`, a 200K-token window, USD 1 per million input tokens
# [1]; the replies come from an offline fake behind the real `anthropic` SDK. Results hold for:
#
# - *any model*: another model, given the same context, would do the same;
# - *this fake*: it follows from how the fake decides;
# - *this design*: a choice of this harness.

# %% [markdown]
# ## 1 · One request, twelve files
#
# Start with the example of *the s06 lesson* [7], made for *the s06 agent* [6]: 12 Python files in
# `agents/`, and the request *read every .py file under agents/ and summarise what each does*.

# %%
twelve = run_scenario(TWELVE_FILES, NO_COMPACTION, WORK / "twelve")
workspace = twelve.toolbox.workspace
files = workspace.list_files("agents").split()
lines = [len(workspace.read_file(path).splitlines()) for path in files]
print(f"{len(files)} files of {min(lines)} to {max(lines)} lines")
print(twelve.stats)

# %% jupyter={"source_hidden": true}
assert len(files) == 12 and all(140 <= n <= 160 for n in lines)
assert twelve.stats.model_calls == 3
assert [t.tools for t in twelve.trace] == [("list_files",), ("read_file",) * 12, ()]  # list, read all 12, answer

# %% [markdown]
# Three calls. The first sends the request; the model asks to list the folder. The second adds the
# listing; the model asks for all 12 files at once, as Claude may [8]. The third adds
# the files; the model summarises. `growth_series` lists each call's context and the bill so far:

# %%
twelve_series = growth_series(twelve.trace)
print(" call   context   billed so far")
for call, context, billed in zip(twelve_series.calls, twelve_series.context, twelve_series.billed):
    print(f"{call:5} {context:9,} {billed:15,}")

# %% [markdown]
# Every call re-sends the whole history, so the bill is the sum of the contexts.
#
# So more turns cost more. With one tool call per turn (`OneCallPerTurn` sends
# `disable_parallel_tool_use` [8]), the same files take many calls:

# %%
one_at_a_time = growth_series(run_scenario(TWELVE_FILES, NO_COMPACTION, WORK / "twelve_one",
                                           compactor=OneCallPerTurn(Compactor())).trace)
for label, s in (("parallel calls", twelve_series), ("one call per turn", one_at_a_time)):
    print(f"{label:18} calls {len(s):2}, last context {s.context[-1]:,} "
          f"({s.context[-1] / CLAUDE_WINDOW:.0%} of the window), billed {s.billed[-1]:,} "
          f"= {s.billed[-1] / s.context[-1]:.1f} x the last context")

# %% [markdown]
# The last context barely changes, but the bill grows from 1.1 to 6.7 times it.

# %% jupyter={"source_hidden": true}
twelve_ratio = twelve_series.billed[-1] / twelve_series.context[-1]
one_ratio = one_at_a_time.billed[-1] / one_at_a_time.context[-1]
assert twelve.stats.model_calls == len(twelve_series) == 3 and len(one_at_a_time) == 14
assert (twelve_series.context[-1], one_at_a_time.context[-1]) == (24_485, 24_808)
assert round(twelve_series.context[-1] / CLAUDE_WINDOW, 2) == 0.12
assert (twelve_series.billed[-1], one_at_a_time.billed[-1]) == (25_775, 166_848)
assert (round(twelve_ratio, 1), round(one_ratio, 1)) == (1.1, 6.7)
assert twelve_series.billed[-1] == sum(twelve_series.context), "the bill is the sum of the contexts"

# %% [markdown]
# **Holds for:** *any model* (the bill); *this fake* (the number of calls).

# %% [markdown]
# ## 2 · A long session, up to the wall
#
# `WALL_SESSION` is the 71 requests of `LONG_SESSION` (reused later) and 13 more: reading folders,
# editing, counting, searching, recalling early rules. The cell sends them one by one until the SDK
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
# The message list at four moments, a block's width its tokens: it only lengthens, mostly in orange
# tool results, until it crosses the window (dashed).

# %%
replies = [i for i, m in enumerate(session.messages) if m["role"] == "assistant"]


def sent_at(call):
    """The history that model call ``call`` sent: everything before its reply (nothing is ever removed)."""
    return session.messages[:replies[call - 1]] if call <= len(replies) else session.messages


moments = {f"call {request_ends[0]}: the end of request 1": request_ends[0],
           f"call {len(series) // 2}: halfway": len(series) // 2,
           f"call {len(series)}: the last that went through": len(series),
           f"call {refused_call}: refused": refused_call}
wall_strip = strip_figure({label: sent_at(call) for label, call in moments.items()}, system=session.system,
                          tools=session.toolbox.schemas, title="the message list, growing to the window (dashed)")
wall_strip.axes[0].axvline(CLAUDE_WINDOW, color="black", linestyle="--", linewidth=1)
display(wall_strip)

# %% jupyter={"source_hidden": true}
strip_tokens = [sum(p.tokens for p in message_parts(sent_at(call), session.system, session.toolbox.schemas))
                for call in moments.values()]
assert list(moments.values()) == [3, 71, 142, 143]
assert strip_tokens == [series.context[call - 1] for call in list(moments.values())[:3]] + [refused_input]
assert strip_tokens[2] < CLAUDE_WINDOW < strip_tokens[3]
assert all(sent_at(c) == sent_at(c + 1)[:len(sent_at(c))] for c in range(1, refused_call)), "only appended"

# %% [markdown]
# `re_reads` = 0: with nothing removed, the agent never reads an unchanged file twice. Its 15
# `reads_after_edit` re-read a file it had changed, to answer about it. Compaction can add to both
# (chapter 06).

# %% jupyter={"source_hidden": true}
assert session.stats.re_reads == 0 and session.stats.reads_after_edit == 15
ends = [0] + [tool_calls for _, _, tool_calls in session.ends]  # tool calls made after each request
read_after_edit_in = [request for i, request in enumerate(WALL_SESSION.requests[:len(request_ends)])
                      if count_re_reads(session.tool_calls[:ends[i + 1]])[1] > count_re_reads(session.tool_calls[:ends[i]])[1]]
assert len(read_after_edit_in) == 15 and all(r.startswith("What is VERSION_TAG in") for r in read_after_edit_in)

# %% [markdown]
# The same session as two curves, the refused call a red cross.

# %%
display(growth_figure({"no compaction": series}, window=CLAUDE_WINDOW, refused=(refused_call, refused_input),
                      title="the long session with no compaction, up to the refused call"))

# %%
unfinished = [tool for t in session.trace[request_ends[-1]:] for tool in t.tools]
print(f"last context {series.context[-1]:,} = {series.context[-1] / CLAUDE_WINDOW:.1%} of the window")
print(f"billed {series.billed[-1]:,} = {series.billed[-1] / series.context[-1]:.0f} x the last context")
print(f"request {len(request_ends) + 1} before the refusal: {unfinished.count('list_files')} listing, "
      f"{unfinished.count('read_file')} files asked for")

# %% [markdown]
# The context never comes down: it climbs in steps, a tall one per folder read, to 89.8% of the
# window.
# Then request 84 asks for 12 more files at once, and the next call no longer fits.
#
# The bill ends at about 81 times the last context.

# %% jupyter={"source_hidden": true}
assert [folder for folder, _ in LONG_SESSION.folders] == ["agents", "core", "tools", "plugins"]
assert [folder for folder, _ in WALL_SESSION.folders[4:]] == ["tests", "scripts", "examples"]
assert WALL_SESSION.requests[:71] == LONG_SESSION.requests and len(WALL_SESSION.requests) == 84
assert len(WALL_SESSION.requests) - len(LONG_SESSION.requests) == 13
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

# %% jupyter={"source_hidden": true}
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
# **Holds for:** *this fake* (the sizes, the reads, when the wall came).

# %% [markdown]
# ## 3 · What happens at the edge
#
# A model reads at most its window in one call, reply included [3], so a request can be too big in two
# ways:
#
# | over the window | what the API does | source |
# |---|---|---|
# | the input alone | a 400, *prompt is too long* | [4] |
# | input + `max_tokens`, Sonnet 4.5 and newer | serves it; a reply cut at the window stops with `model_context_window_exceeded` | [9] |
# | input + `max_tokens`, earlier models | a 400, *input length and `max_tokens` exceed context limit* | [5] |
#
# The fake treats every model as a newer one. With `max_tokens` at 1,024, that makes three zones,
# checked below against the fake's rule, `output_room`:

# %%
reply_limit = NO_COMPACTION.max_tokens
full_reply_limit = CLAUDE_WINDOW - reply_limit    # the largest input that leaves room for a whole reply


def at_the_edge(tokens, window=CLAUDE_WINDOW, max_tokens=reply_limit):
    """What the API (Sonnet 4.5 and newer, and the fake) does with a request of ``tokens`` input tokens."""
    if tokens > window:
        return "a 400: prompt is too long"
    if tokens + max_tokens > window:
        return f"served; the reply gets {window - tokens:,} tokens at most and, cut there, stops with {WINDOW_STOP}"
    return f"served, with room for a reply of {max_tokens:,} tokens"


print(f"input up to {full_reply_limit:,}: {at_the_edge(full_reply_limit)}")
print(f"input of {full_reply_limit + 1:,} to {CLAUDE_WINDOW:,}: served; the reply gets what the window leaves "
      f"and, cut there, stops with {WINDOW_STOP}")
print(f"input over {CLAUDE_WINDOW:,}: {at_the_edge(CLAUDE_WINDOW + 1)}")
step = refused_input - series.context[-1]
print(f"call {refused_call - 1}: {series.context[-1]:,} tokens, {at_the_edge(series.context[-1])}")
print(f"call {refused_call}: {refused_input:,} tokens ({step:,} more), {at_the_edge(refused_input)}")

# %% jupyter={"source_hidden": true}
assert full_reply_limit == 198_976 and reply_limit == 1_024
for tokens in (full_reply_limit - 1, full_reply_limit, full_reply_limit + 1, CLAUDE_WINDOW - 1, CLAUDE_WINDOW):
    room = output_room({"model": NO_COMPACTION.model, "max_tokens": reply_limit}, tokens)
    assert room == min(reply_limit, CLAUDE_WINDOW - tokens) and at_the_edge(tokens).startswith("served")
    assert (room < reply_limit) == (tokens > full_reply_limit) == (WINDOW_STOP in at_the_edge(tokens))
try:
    output_room({"model": NO_COMPACTION.model, "max_tokens": reply_limit}, CLAUDE_WINDOW + 1)
    raise AssertionError("an input over the window is served")
except RequestRejected:
    assert at_the_edge(CLAUDE_WINDOW + 1).startswith("a 400")
assert series.context[-1] + reply_limit == 180_542 <= CLAUDE_WINDOW
assert refused_input == 203_255 and step == 23_737 and round(step / reply_limit) == 23
assert refused.body["error"]["message"] == \
    f"prompt is too long: {refused_input} tokens > {CLAUDE_WINDOW} maximum"

# %% [markdown]
# Call 143 was no near miss: its 12 reads added 23,737 tokens, far more than the band where a reply gets
# cut. Its input alone was over the window.
#
# To see that band, pretend the window is 3 tokens above call 142's input (`FakeModel(window=...)`). The
# fake serves the call, cuts the reply and stops; none of the 12 reads runs.

# %%
before_142 = session.messages[:-2]         # a new list: the input of call 142
tight = FakeModel(window=series.context[-1] + 3)
cut = run_agent(tight.client(), before_142, system=session.system, tools=session.toolbox, config=NO_COMPACTION,
                compactor=Compactor())
print(f"call 142, 3 tokens of room: stop {cut.stop!r}, tool calls run: {len(cut.tool_calls)}")

# %% jupyter={"source_hidden": true}
assert cut.stop == WINDOW_STOP == "model_context_window_exceeded" and cut.tool_calls == []
assert all(b["type"] != "tool_use" for m in before_142[len(session.messages) - 2:] for b in m["content"])
validate_messages(session.messages)  # the history is still one the API accepts
assert session.messages[-1]["content"][0]["type"] == "tool_result"

# %% [markdown]
# The history is still valid, only too large: the way on is compaction (chapter 02 on).
#
# **Holds for:** *any model* (a finite window, with the reply inside it).

# %% [markdown]
# ## 4 · What the context is made of
#
# `composition` sorts every token of a request into a kind, adding up to the input on the fake (the real
# API adds a tool-use prompt [2]).

# %%
display(composition_figure(long_client.records, title="the long session, call by call"))

# %%
last = long_client.records[-1]
for category, tokens in last.items():
    print(f"{category:15} {tokens:8,}  {tokens / sum(last.values()):6.1%}")

# %% [markdown]
# Almost all of it is tool output, 95.2% of the last request: compaction will cut there. The user's 84
# requests take 1,393 tokens.

# %% jupyter={"source_hidden": true}
assert len(long_client.records) == len(session.trace)
assert all(sum(parts.values()) == t.input_tokens for parts, t in zip(long_client.records, session.trace))
assert last["placeholders"] == last["summaries"] == 0
assert round(last["tool results"] / sum(last.values()), 3) == 0.952
assert last["user text"] == 1_393

# %% [markdown]
# **Holds for:** *this fake* (the share: it reads whole files).

# %% [markdown]
# ## 5 · The cost of a long context
#
# **Attention thins.** Request 2, *never edit anything under tools/*, must hold all session, yet its share
# of the context shrinks about 7 times:

# %%
rule = LONG_SESSION.requests[1]
rule_tokens = text_tokens(rule)
context_when_given = series.context[request_ends[0]]  # the first call of request 2
share_then, share_now = rule_tokens / context_when_given, rule_tokens / series.context[-1]
print(f"{rule!r}: {rule_tokens} tokens")
print(f"share of the context when given: {share_then:.3%}; at the last call: {share_now:.4%}; "
      f"diluted {share_then / share_now:.1f} times")

# %% [markdown]
# Anthropic calls this loss of recall *context rot* [3]. The fake cannot show it: it never forgets what
# it can still see.

# %% jupyter={"source_hidden": true}
assert rule_tokens == 17
assert round(share_then, 5) == 0.00068 and round(share_now, 6) == 0.000095
assert round(share_then / share_now) == 7
recall_answer = session.answers[WALL_SESSION.requests.index("What did I tell you about tools/?")]
assert recall_answer.startswith("You told me"), "without compaction the rule is still visible"

# %% [markdown]
# **Cost compounds.** 98.8% of the tokens billed had been sent before. The input costs USD 14.50, where
# each token once would cost USD 0.18, both without prompt caching (chapter 09).

# %%
resent = 1 - series.context[-1] / series.billed[-1]
cost, cost_once = (tokens * PRICE_PER_MILLION / 1e6 for tokens in (series.billed[-1], series.context[-1]))
print(f"re-sent share of the bill: {resent:.1%}")
print(f"input cost at ${PRICE_PER_MILLION:.2f} per million tokens: ${cost:,.2f}; "
      f"each token once: ${cost_once:,.2f}")

# %% jupyter={"source_hidden": true}
assert round(resent, 3) == 0.988
assert round(cost, 2) == 14.50 and round(cost_once, 2) == 0.18

# %% [markdown]
# **How fast does the bill grow?** Faster than the session, yet here slower than its square. For a
# context growing one unit a call:
#
# | call | 1 | 2 | 3 | 4 |
# |---|---|---|---|---|
# | context sent | 1 | 2 | 3 | 4 |
# | billed so far | 1 | 3 | 6 | 10 |
#
# The second half bills 7, the first 3; over many calls the ratio tends to 3, the square law.

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


print(f"four calls by hand: {half_ratio([1, 2, 3, 4]):.2f}")
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

# %% [markdown]
# A context that starts large bills more evenly: at call *k* it is *a* + *b*·*k*, *n* calls bill
# `a·n + b·n(n + 1)/2`, and a large *a* pulls the ratio towards 1.
#
# | a context that | ratio of the halves |
# |---|---|
# | grows the same every call, from nothing | 2.97 |
# | follows the fitted line: 34,340, plus 948 a call | 1.98 |
# | this session | 1.84 |
# | never grows | 1 |
#
# This session starts large: it reads three folders in its first 12 requests.

# %% jupyter={"source_hidden": true}
assert round(half_ratio([1, 2, 3, 4]), 2) == 2.33 and sum([1, 2]) == 3 and sum([3, 4]) == 7
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
assert round(half_ratio(list(range(1, 10_001))), 2) == 3.00  # many calls: the square law's ratio tends to 3

# %% [markdown]
# **Holds for:** *any model* (the arithmetic); *this fake* (the sizes and the ratio).

# %% [markdown]
# ## 6 · Try it: grow the session
#
# The slider replays the first *n* requests.

# %% tags=["nbval-ignore-output"]
growth_slider = panel(session_growth_figure, series=series, request_ends=request_ends,
                      requests=IntSlider(value=len(request_ends), min=1, max=len(request_ends),
                                         description="requests"),
                      window=CLAUDE_WINDOW)

# %% [markdown]
# ## Summary
#
# - Every call re-sends the whole history; the bill sums the contexts.
# - Without compaction the context only grows, until a call no longer fits.
# - Input over the window is a 400; input leaving less than `max_tokens` is served, and may stop at
#   the window.
# - Tool results are almost all of it: cut there.
# - The bill grows faster than the session, slower than its square.

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
# What did the 12-file task's input cost, in dollars, with parallel calls and no caching?
#
# *Hint:* the bill in tokens is the last of `twelve_series.billed`; the price is `PRICE_PER_MILLION`.

# %% tags=["answer"]
twelve_cost = None  # a float, in dollars

# %%
answer("twelve_cost", twelve_cost)

# %% [markdown]
# ### 3. The straight-line prediction
# If the context grew by the same *g* tokens every call, *n* calls would bill g·n(n+1)/2 tokens.
# Compute it for the long session, *g* being its final context over its calls. Is the real bill higher
# or lower, and why is the ratio of section 5 still only 1.84?
#
# *Hint:* where does section 2's left curve run above the line from zero to its end?

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
# On a model that answers input plus `max_tokens` over the window with a 400, with `max_tokens` =
# 32,000: at which model call would this session have been refused, and with which error, `"prompt is
# too long"` or `"input length and max_tokens"`?

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
# 1. Why did one call per turn bill the 12 files 6.7 times the final context, parallel calls 1.1?
# 2. What does the API do when the input, or input + `max_tokens`, is over the window? Why was call 143
#    refused?
# 3. What is almost all of the context made of, and what does it tell compaction?
# 4. Why did the second half of the calls bill 1.84 times the first, not 2.97?
# 5. Which lesson does the fake not show, and why?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (200K window, USD 1 per million input tokens, legacy)
# 2. Anthropic, "Tool use pricing and tokens" — https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens (the tool-use system prompt added when tools are sent)
# 3. Anthropic, "Context windows" — https://platform.claude.com/docs/en/build-with-claude/context-windows (the reply counts in the window; context rot)
# 4. anthropics/claude-code issue #12186 — https://github.com/anthropics/claude-code/issues/12186 (the *prompt is too long* wording)
# 5. anthropics/claude-code issue #228 — https://github.com/anthropics/claude-code/issues/228; docker/docker-agent issue #569 — https://github.com/docker/docker-agent/issues/569 (the *input length and `max_tokens`* 400)
# 6. shareAI-lab/learn-claude-code, `agents/s06_context_compact.py` at commit 7864a30804828223862c3d665c39579db823fc50 — https://github.com/shareAI-lab/learn-claude-code/blob/7864a30804828223862c3d665c39579db823fc50/agents/s06_context_compact.py (*the s06 agent*)
# 7. *The s06 lesson*, "Context Compact", a Chinese-language lesson on the s06 agent of shareAI-lab/learn-claude-code (three layers, `KEEP_RECENT` = 3, the 12-file example of 12 files of about 150 lines): not publicly available
# 8. Anthropic, "Parallel tool use" — https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use (Claude may call several tools in one turn by default; `disable_parallel_tool_use`)
# 9. Anthropic, "Handling stop reasons" — https://platform.claude.com/docs/en/api/handling-stop-reasons (`model_context_window_exceeded`, "available by default in Sonnet 4.5 and newer models")
