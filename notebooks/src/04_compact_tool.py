# %% [markdown]
# # 04 · The compact tool: the agent tidies its own memory
#
# **The promise:** give the model a tool whose only job is to manage the model itself, write its
# handler and the end of the loop's round yourself, in the one order the API accepts, check both
# against the harness, and see what an agent that compacts on its own judgement can and cannot do.
#
# Chapters 02 and 03 compacted the history *to* the agent: micro before every call, auto past a
# threshold. The third layer lets the agent ask for it. Every other tool acts on the world (read a
# file, run a command); `compact` acts on the conversation.
#
# ## What you will be able to do
#
# - read the `compact` tool's schema and say why its one argument, `focus`, is optional;
# - write `compact`'s handler, and say why it only acknowledges;
# - write the end of a round: every result appended, `compact`'s included, then the compaction,
#   then out of the loop; and check it against the harness on hundreds of rounds;
# - read the HTTP 400 that each wrong order earns;
# - measure, with a slider that runs *your* round, how far past its own limit an agent can go.
#
# Each lesson says whether it holds for **any model** (it follows from the API's rules, or from what
# the request contains) or only for **this fake** (it depends on how our fake agent decides).

# %% [markdown]
# ## Setup
#
# Everything runs offline: `FakeModel` is a deterministic fake of Claude behind the real `anthropic`
# SDK. `FakeModel(compact_policy=...)` decides when the fake agent calls `compact`: `"judgement"`
# (the default: after a request, once the request nears a context limit its system prompt states;
# our prompts state none, so never here), `"never"`, `"after_task"` (whenever it has finished a
# request), or an integer *N* (after a request, if the request it just sent was above *N* tokens). Scratch files go under `_work/04/`,
# inside a fresh folder under `_work/` for each run, removed when the kernel stops.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's sweeps run on every core: their workers start now, in the background

import copy
import json
import shutil

import anthropic
from ipywidgets import IntSlider

from harness import (COMPACT_ACK, COMPACT_TOOL, COMPACT_TOOL_NAME, CompactionConfig, InvalidHistory, SummaryFailed,
                     Toolbox, ToolOutcome, assistant, build_summary_request, compact_focus, finish_round,
                     read_transcript, run_agent, text, tool_result, tool_use, user, validate_messages)
from harness.fake import FakeModel
from harness.labs.loop_lab import compact_tool_lab, compact_tool_runs, layer_markers, uncompressed_run
from harness.labs.panel import panel
from harness.labs.scenarios import LONG_SESSION, READ_AGENTS, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import check
from harness.labs.yours import compare, random_histories
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.three_layers import ThreeLayers

WORK = own_scratch("04")                     # _work/04, in a fresh folder of its own for each run
CONFIG = CompactionConfig(transcript_dir=WORK / "transcripts")
toolbox = Toolbox(TWELVE_FILES.build(WORK / "workspace"))
print("tools the agent is offered:", toolbox.names)

# %% [markdown]
# ## 1 · A tool that manages the agent itself
#
# Here is the schema the model sees. It reads like any other tool; only the description says what
# it is for: free context when a task is done or the conversation is long.

# %%
print(json.dumps(COMPACT_TOOL, indent=2))

# %% [markdown]
# One argument, `focus`, and it is optional: the schema has no `required` list. Most of the time the
# agent just wants to tidy up, and the summary's three questions (chapter 03) are enough. When it
# knows what must survive, say *the user's rules about tools/*, it passes that as `focus`, and the
# loop adds one line to the summary request. `compact_focus` reads the argument: stripped, and
# `None` when it is missing or blank.

# %%
focus_examples = [{"focus": "  the user's rules about tools/ "}, {}, {"focus": "   "}]
for tool_input in focus_examples:
    print(f"{json.dumps(tool_input):45} -> {compact_focus(tool_input)!r}")
request = build_summary_request([user(READ_AGENTS)], tail_chars=CONFIG.tail_chars, model=CONFIG.model,
                                max_tokens=CONFIG.summary_max_tokens, focus="the user's rules about tools/")
prompt = request["messages"][0]["content"]
print("\n" + prompt.split("\n\n<conversation>")[0])

# %%
schema = COMPACT_TOOL["input_schema"]
assert set(schema["properties"]) == {"focus"} and not schema.get("required")
assert [compact_focus(i) for i in focus_examples] == ["the user's rules about tools/", None, None]
assert "Focus especially on: the user's rules about tools/" in prompt
assert "tools" not in request, "the summary call offers no tools"

# %% [markdown]
# ## 2 · Step 1: the handler only says "understood"
#
# Every tool has a handler: a function from the tool's input to an outcome, the text that goes back
# to the model in a `tool_result`. `read_file`'s handler reads the file. `compact`'s cannot do its
# job, and that is by design (**any model**: it follows from how a loop runs tools):
#
# - **It cannot see the history.** A handler gets the tool's input and nothing else. The history is a
#   list the loop owns; compaction replaces all of it (`messages[:] = [summary]`), and only the code
#   holding that list can.
# - **It runs in the middle of a round.** The model may ask for several tools in one reply, `compact`
#   among them. While the handler runs, the other calls of the round may not have run yet, and none
#   of their results is in the history. Compacting now would cut the round in half.
#
# So the handler does what every handler does first, check its input against the schema, and then
# only acknowledges. The loop notes that `compact` was called, and acts once the round is whole
# (step 2).
#
# **Write it.** Each step is a stub: fill it in, run it, and run the cell after it, which checks
# yours against the reference on many cases and says *not written yet*, where yours differs, or
# that it passes. Until yours passes, the rest of the chapter runs the reference (stuck? it is in
# `harness/labs/solutions/ch04.py`).

# %% tags=["stub"]
def handle_compact(tool_input):
    """compact's handler: refuse an input its schema does not allow, else only acknowledge.

    Returns a ToolOutcome: is_error=True (the wording is yours) unless tool_input is a dict with no key
    but "focus", whose value (if present) is a string; then ToolOutcome(COMPACT_ACK)."""
    # not a dict: an error outcome
    # for each key and value: a key other than "focus", or a value that is not a str: an error outcome
    # else: acknowledge, nothing more
    raise NotImplementedError("your code here")

# %%
handle_compact = check(handle_compact)

# %%
for tool_input in ({"focus": "the notes on each file"}, {}, {"focus": 3}, {"topic": "notes"}):
    outcome = handle_compact(tool_input)
    print(f"{json.dumps(tool_input):36} -> is_error={outcome.is_error!s:5} {outcome.content!r}")

# %% [markdown]
# **Check yours against the harness's.** The toolbox runs the harness's `compact` handler
# (`toolbox.run("compact", tool_input)`, in `harness/core/tools.py`). `compare` (from
# `harness/labs/yours.py`) runs both on a fresh copy of each input and reports, for each input where
# they differ, the first place they differ. What must match: whether the input is refused, and the
# acknowledgement when it is not; the wording of an error is yours.

# %%
handler_inputs = [{}, {"focus": "the notes"}, {"focus": ""}, {"focus": "  the rules  "}, {"focus": 3},
                  {"focus": None}, {"focus": ["a", "b"]}, {"topic": "notes"}, {"focus": "x", "topic": "y"},
                  [], "focus", None]


def handler_outcome(handler, args):
    outcome = handler(*args)
    return {"is_error": outcome.is_error, "content": None if outcome.is_error else outcome.content}


handler_check = compare("handle_compact", handle_compact, lambda tool_input: toolbox.run("compact", tool_input),
                        [(json.dumps(i), (i,)) for i in handler_inputs], observe=handler_outcome, label="outcome")
print(handler_check)

# %%
assert handler_check.ok and handler_check.cases == len(handler_inputs) == 12

# %% [markdown]
# ## 3 · Why `compact`'s own result goes in first
#
# A tempting shortcut: the model called `compact`, so compact right away; its result is only
# "understood" anyway. Two ways to take it, both built here by hand from the same pieces, and both
# refused by the API (**any model**: these are the API's rules on `tool_use` and `tool_result`; the
# fake server checks each request with them and answers HTTP 400, so the SDK raises
# `anthropic.BadRequestError`, as with real Claude).

# %%
ask = user(READ_AGENTS)
reply = assistant([text("What each file under agents/ does: ..."),
                   tool_use("toolu_compact_01", "compact", {"focus": "the notes on each file"})])
ack = user([tool_result("toolu_compact_01", COMPACT_ACK)])
summary = user("[Conversation compressed. Transcript: _work/04/transcripts/transcript_0001.jsonl]\n\n"
               "1. What was accomplished: ...")
next_ask = user("What is VERSION_TAG in agents/s01_agent_loop.py?")

histories = {
    "compact first, then append the results": [summary, ack, next_ask],
    "never append compact's result, and the summary call fails": [ask, reply, next_ask],
    "append all results, then compact (the summary call fails)": [ask, reply, ack, next_ask],
    "append all results, then compact (it succeeds)": [summary, next_ask],
}
client = FakeModel().client()
outcomes = {}
for name, history in histories.items():
    try:
        client.messages.create(model=CONFIG.model, max_tokens=CONFIG.max_tokens, system=SYSTEM_PROMPT,
                               tools=toolbox.schemas, messages=history)
        outcomes[name] = "accepted"
    except anthropic.BadRequestError as error:
        outcomes[name] = f"HTTP {error.status_code}: {error.body['error']['message']}"
    print(f"{name}\n    {outcomes[name]}")

# %%
broken = list(histories)[:2]
assert all(outcomes[name].startswith("HTTP 400") for name in broken)
assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_compact_01" in outcomes[broken[0]]
assert "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_compact_01" in outcomes[broken[1]]
assert all(outcomes[name] == "accepted" for name in list(histories)[2:])

# %% [markdown]
# - **Compact first, then append.** The summary replaces the history, and then the round's results
#   are appended after it: a `tool_result` that answers a `tool_use` the history no longer has. Users
#   meet this 400 in the wild (anthropics/claude-code issue #8484, *Conversation Compaction Corrupts
#   Tool Use/Result Pairs*: "unexpected `tool_use_id` found in `tool_result` blocks"). The course
#   this chapter follows met it too, in a later lesson: learn-claude-code issue #500 reports that its
#   `s08_context_compact/code.py` appended the `compact` call's result after the history had been
#   replaced, and the next request failed with this 400. PR #502 proposed the fix (append first,
#   then compact); it was closed without merging, a comment on it noting that s08 had meanwhile been
#   changed to append the whole round's results before compacting. The s06 code this course follows
#   appends first (`agents/s06_context_compact.py` at commit 7864a30, `agent_loop`).
# - **Never append.** As long as the compaction succeeds, the dangling `tool_use` disappears with the
#   rest of the history and nobody notices. The day the summary call fails, the history is left as it
#   was (chapter 03's promise), now ending in a `tool_use` with no answer, and the user's next request
#   is refused. A compaction that keeps the newest messages verbatim would keep the unanswered
#   `tool_use` too, and be refused even when nothing fails (HKUDS/OpenHarness issue #191 reports
#   exactly that of its `/compact`).
#
# Appending every result first makes the history valid *before* anything can go wrong.
#
# ## 4 · Step 2: the end of a round
#
# After each model call the loop (chapter 05 has you write all of it) hands the model's reply to one
# function that ends the round. Its contract, the harness's `finish_round` in `harness/core/loop.py`:
# `finish_round(messages, content, tools, compact)` appends the reply (`content`, a list of blocks),
# runs every tool it asked for, appends all their results in one user message, `compact`'s included,
# and only then, if the model called `compact`, calls `compact(focus)`, the loop's way of running the
# summary of chapter 03. It returns True when the loop must end. First, the tools:

# %% tags=["stub"]
def run_tools(content, tools):
    """Run every tool_use of a reply, in order: (result blocks, whether compact was called, its focus).

    ``content`` is the reply's list of blocks; ``tools.run(name, input)`` runs any tool but compact and
    returns a ToolOutcome. Returns a tuple (list of tool_result blocks, bool, str or None)."""
    # for each block that is a tool_use:
    #     compact: its outcome from handle_compact (step 1); note it was called, its focus = compact_focus(input)
    #     any other tool: its outcome from tools.run
    #     append tool_result(the block's id, the outcome's content, its is_error)
    raise NotImplementedError("your code here")

# %%
run_tools = check(run_tools)

# %%
sample_reply = [text("One more file, then I tidy up."),
                tool_use("toolu_read_01", "read_file", {"path": "agents/s01_agent_loop.py"}),
                tool_use("toolu_compact_02", "compact", {"focus": " the notes on each file "})]
results, called, focus = run_tools(sample_reply, toolbox)
for block in results:
    print(block["tool_use_id"], "->", block["content"].splitlines()[0][:60])
print("compact called:", called, "| focus:", repr(focus))

# %%
assert [b["tool_use_id"] for b in results] == ["toolu_read_01", "toolu_compact_02"]
assert results[1]["content"] == COMPACT_ACK and (called, focus) == (True, "the notes on each file")

# %% [markdown]
# Then the exit. Three lines carry the whole lesson of section 3: the results go in, *then* the
# compaction, *then* the loop ends.

# %% tags=["stub"]
def my_finish_round(messages, content, tools, compact):
    """End a round: append the reply and all its results, then compact if the model asked; True ends the loop."""
    # append the reply: assistant(content)
    # run its tools (step 2); if there are results, append them all in one user message
    # only then, if compact was called: compact(focus)
    # return whether compact was called
    raise NotImplementedError("your code here")

# %%
my_finish_round = check(my_finish_round)

# %%
def stand_in_compact(messages, seen):
    """A compaction for testing: note what it was handed (was it valid? which focus?), then replace the history."""
    def compact(focus):
        try:
            validate_messages(messages)
            valid = True
        except InvalidHistory:
            valid = False
        seen.append({"valid": valid, "focus": focus, "history": copy.deepcopy(messages)})
        messages[:] = [user("[Conversation compressed.]")]
    return compact


messages, seen = [user(READ_AGENTS)], []
ended = my_finish_round(messages, sample_reply, toolbox, stand_in_compact(messages, seen))
print("loop ends:", ended, "| the compaction was handed", len(seen[0]["history"]), "messages, valid:",
      seen[0]["valid"], "| focus:", repr(seen[0]["focus"]), "| left:", messages)

# %%
assert ended and seen[0]["valid"] and len(seen[0]["history"]) == 3 and len(messages) == 1

# %% [markdown]
# **Check yours against the harness's `finish_round`**, on many rounds: every reply of 100 random
# valid histories (`random_histories(100, seed=4)`, replies with one to four tool calls, `compact`
# among the tools, text before and after), each ended from the history before it, plus a few written
# by hand (a focus, a blank focus, two `compact` calls in one reply, no tool at all). `observe_round`
# runs a round with the stand-in compaction and looks at three things: whether the loop ends, what
# each compaction was handed, and the history left.

# %%
def round_cases(histories):
    """(name, (history before the reply, the reply's blocks)) for every assistant reply of every history."""
    for n, history in enumerate(histories):
        for i, message in enumerate(history):
            if message["role"] == "assistant":
                content = message["content"]
                blocks = [text(content)] if isinstance(content, str) else content
                yield f"history {n}, reply {i}", (history[:i], blocks)


def observe_round(finish, args):
    messages, content = args
    seen = []
    ended = finish(messages, content, toolbox, stand_in_compact(messages, seen))
    return {"ended": ended, "compactions": seen, "history": messages}


two_compacts_reply = [tool_use("t1", "compact", {"focus": "the notes"}), tool_use("t2", "compact", {"focus": "the rules"})]
by_hand = [
    ("a focus", ([user(READ_AGENTS)], sample_reply)),
    ("a blank focus", ([user(READ_AGENTS)], [tool_use("t1", "compact", {"focus": "   "})])),
    ("two compact calls", ([user(READ_AGENTS)], two_compacts_reply)),
    ("no tool", ([user(READ_AGENTS)], [text("Done.")])),
]
round_check_cases = list(round_cases(random_histories(100, seed=4))) + by_hand
with_compact = sum(any(b.get("name") == COMPACT_TOOL_NAME for b in content) for _, (_, content) in round_check_cases)
round_check = compare("finish_round", my_finish_round, finish_round, round_check_cases, observe=observe_round,
                      label="round")
print(round_check)
print(f"({with_compact} of the {len(round_check_cases)} rounds call compact)")

# %%
assert round_check.ok and (round_check.cases, with_compact) == (420, 129)

# %% [markdown]
# Here is what the same check says about the tempting shortcut of section 3, compact first and
# append after: every round that calls `compact` differs, and the first difference is the one that
# matters, the history the compaction was handed is not valid.

# %%
def compact_first(messages, content, tools, compact):
    """The shortcut: compact as soon as the model asked, append the results after."""
    messages.append(assistant(content))
    results, called, focus = run_tools(content, tools)
    if called:
        compact(focus)
    if results:
        messages.append(user(results))
    return called


shortcut_check = compare("finish_round", compact_first, finish_round, round_check_cases, observe=observe_round,
                         label="round")
print(shortcut_check)

# %%
assert len(shortcut_check.differences) == with_compact
assert all(d.where == "round.compactions[0].valid" for d in shortcut_check.differences)

# %% [markdown]
# ## 5 · Your round in the loop
#
# `run_agent` (the harness's loop) takes the function that ends each round as `finish`. `my_loop` is
# that loop with `my_finish_round` in it, so from here on every run of this chapter goes through
# `handle_compact` and `my_finish_round`: yours once they passed their checks, else the reference
# (the checks' lines above say which). The fake agent with `compact_policy="after_task"` reads the
# twelve files of `agents/`, answers, and in the same reply calls `compact`.

# %%
def my_loop(*args, **kwargs):
    """The harness's loop, with the chapter's handler and end of round."""
    return run_agent(*args, finish=my_finish_round, **kwargs)


messages = [user(READ_AGENTS)]
result = my_loop(FakeModel(compact_policy="after_task").client(), messages, system=SYSTEM_PROMPT,
                 tools=toolbox, config=CONFIG, compactor=ThreeLayers())
manual = result.events[-1]
agent_calls = [t for t in result.trace if t.kind == "agent"]
print("stop:", result.stop, "| agent calls:", len(agent_calls), "| tools of the last call:", agent_calls[-1].tools)
for event in result.events:
    print(f"{event.kind:7} at call {event.call:2}: {event.tokens_before:6,} -> {event.tokens_after:5,} tokens (estimate)")
print("messages left:", len(messages))
print(messages[0]["content"][:200], "...")

# %% [markdown]
# The manual compaction shrank the history from 25,125 to 425 estimated tokens: 29 messages became one
# (the sizes are **this fake**'s: its summariser writes one line per file). The same `auto_compact`
# does the work as in chapter 03 (transcript, summary, replace); only the trigger differs. The
# transcript shows the order (**any model**: it is your loop's order): its last two messages are the
# agent's reply with the `compact` call, and the user message with `compact`'s result. The pair was
# whole when it was saved.

# %%
transcript = read_transcript(manual.detail["transcript"])
last_reply, last_results = transcript[-2], transcript[-1]
print(len(transcript), "messages in the transcript; the last two:")
print(" ", last_reply["role"], [b["type"] for b in last_reply["content"]], last_reply["content"][-1]["input"])
print(" ", last_results["role"], [(b["type"], b["content"]) for b in last_results["content"]],
      "| answers the compact call:", last_results["content"][0]["tool_use_id"] == last_reply["content"][-1]["id"])

# %%
assert result.stop == "compact" and len(agent_calls) == 14 and agent_calls[-1].tools == ("compact",)
assert [e.kind for e in result.events] == ["micro", "manual"] and manual.call == 14
assert (manual.tokens_before, manual.tokens_after) == (25_125, 425)
assert manual.detail["messages_before"] == len(transcript) == 29
assert len(messages) == 1 and messages[0]["content"].startswith("[Conversation compressed. Transcript:")
compact_id = last_reply["content"][-1]["id"]
assert last_results["content"] == [{"type": "tool_result", "tool_use_id": compact_id, "content": COMPACT_ACK}]
validate_messages(messages)

# %% [markdown]
# And when the summary fails? Here the fake's summariser fails once (`fail_summaries=1`, a failure
# **this fake** injects on purpose): the loop raises `SummaryFailed`, the history still ends with a
# whole pair, and the session simply goes on (**any model**: your round appended the results before
# the compaction started).

# %%
model = FakeModel(compact_policy="after_task", fail_summaries=1)
flaky_client = model.client()
messages = [user(READ_AGENTS)]
try:
    my_loop(flaky_client, messages, system=SYSTEM_PROMPT, tools=toolbox,
            config=CONFIG.with_(transcript_dir=WORK / "flaky"), compactor=ThreeLayers())
except SummaryFailed as error:
    failure = str(error)
kept = len(messages)
print("SummaryFailed:", failure)
print("the history still has", kept, "messages; the last two:", [[b["type"] for b in m["content"]] for m in messages[-2:]])
validate_messages(messages)
messages.append(user("What is VERSION_TAG in agents/s01_agent_loop.py?"))
after = my_loop(flaky_client, messages, system=SYSTEM_PROMPT, tools=toolbox,
                config=CONFIG.with_(transcript_dir=WORK / "flaky"), compactor=ThreeLayers())
print("next request:", after.stop, "|", after.reply)
print("requests the fake received, in order:", model.requests)

# %%
assert "500" in failure and kept == 29
assert len(messages) == 1, "the second compaction succeeded"
assert model.requests.count("summary") == 2 and after.stop == "compact"
assert after.reply == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'

# %% [markdown]
# ## 6 · The loop ends after a manual compaction
#
# After auto-compaction the loop carries on: the agent is in the middle of a task and the summary
# tells it where it was. After a manual compaction the loop returns (`stop == "compact"`), as seed 001
# describes and the reference code does (`return` right after the manual compaction in `agent_loop`,
# `agents/s06_context_compact.py`). The agent called `compact` because it judged a piece of work
# finished, so this is the natural moment to hand control back: show the user the reply and wait for
# the next request. That reply is no longer in the history (the summary replaced it), so the loop
# keeps it for the caller in `RunResult.reply`, and the transcript has it too.
#
# A session of four requests from the long scenario, run by your loop (`Session(..., loop=my_loop)`),
# with an agent that compacts after every task:

# %%
shutil.rmtree(WORK / "session", ignore_errors=True)
session = Session(FakeModel(compact_policy="after_task").client(),
                  Toolbox(LONG_SESSION.build(WORK / "session" / "workspace")),
                  CONFIG.with_(transcript_dir=WORK / "session" / "transcripts"), ThreeLayers(), loop=my_loop)
stops, sizes = [], []
for request_text in LONG_SESSION.requests[:4]:
    stops.append(session.ask(request_text).stop)
    sizes.append(len(session.messages))
    print(f"{stops[-1]:8} {sizes[-1]} message(s) left | {session.answers[-1].splitlines()[-1][:70]}")
print(session.stats.compactions)

# %%
assert stops == ["compact"] * 4 and sizes == [1] * 4
assert session.stats.compactions == {"manual": 4, "micro": 1}
assert session.answers[1] == "Understood. From now on, never edit anything under tools/; it is vendored code."
assert session.answers[2] == 'Changed VERSION_TAG in agents/s03_todo_write.py to "v3-planning".'

# %% [markdown]
# Each request starts from one summary message plus the new request, and ends the same way.
#
# ## 7 · Try it: an agent that compacts on its own judgement
#
# `compact_policy=N` gives the fake agent a limit: after a request, if what it just sent was above *N*
# tokens, it calls `compact`. With micro and auto switched off, that is the only thing that shrinks
# the context. The first cell below runs the first 25 requests of the long session that way through
# your loop (`loop=my_loop`), once for each limit on the slider (13 runs, under a progress bar), and
# once with no compaction. The slider's `requests` then cuts a run after its *n*-th request
# (`Session.first(n)`): nothing in the loop looks ahead, so that is what a run of only *n* requests
# does. (Almost: a summary quotes the folder of its transcripts, and a run of *n* requests would have
# its own folder, so its bill could differ by a few tokens.) The callback, `compact_tool_lab` in
# `harness/labs/loop_lab.py`, only looks a run up and draws it. Green diamonds mark the calls after
# which the agent compacted; the grey curve is the same requests with no compaction at all.

# %% tags=["nbval-ignore-output"]
LIMITS = range(0, 60_001, 5_000)
SLIDER_REQUESTS = 25
compact_runs = compact_tool_runs(LIMITS, SLIDER_REQUESTS, WORK / "lab", loop=my_loop)
no_compaction = uncompressed_run(SLIDER_REQUESTS, WORK / "lab", loop=my_loop)

# %%
assert len(compact_runs) == 13 and all(len(run.answers) == 25 for run in compact_runs.values())

# %% tags=["nbval-ignore-output"]
compact_slider = panel(
    compact_tool_lab,
    limit=IntSlider(value=30_000, min=LIMITS[0], max=LIMITS[-1], step=LIMITS.step, description="limit"),
    requests=IntSlider(value=12, min=1, max=SLIDER_REQUESTS, description="requests"),
    runs=compact_runs, uncompressed=no_compaction)

# %% [markdown]
# At the starting position (limit 30,000, first 12 requests) the agent compacts once, and its context
# peaks at 49,468 tokens, far above its own limit of 30,000. The sixth request (read the twelve files
# of `core/`) takes it from about 25,000 to over 49,000 tokens in one task, and **this fake** calls
# `compact` only once a request is done. A real model could call it in the middle of a task, but in
# this loop (**any model**) a manual compaction also ends the loop: the agent would hand control back
# to the user with its task half done. Either way, the agent's judgement is a good trigger for tidying
# up at natural breaks, and no guard against one long task. That is what the threshold of
# auto-compaction is for, and chapter 05 runs all three layers together.

# %%
lab_run = compact_runs[30_000].first(12)  # what the slider shows at its starting position
markers = layer_markers(lab_run)
context = {t.call: t.input_tokens for t in lab_run.trace if t.kind == "agent"}
core_start = [t.call for t in lab_run.trace if t.tools == ("list_files",)][1]  # request 6 lists core/ first
print(lab_run.stats)
print(markers)
print(f"request 6 starts at call {core_start} with {context[core_start]:,} tokens; "
      f"the agent compacts after call {markers[0].call}, at {markers[0].tokens:,}")

# %%
assert [m.layer for m in markers] == ["manual"] and all(m.tokens > 30_000 for m in markers)
assert lab_run.stats.peak_context == markers[0].tokens == 49_468
assert 24_000 < context[core_start] < 26_000 and markers[0].call > core_start
assert no_compaction.first(12).stats.peak_context > lab_run.stats.peak_context

# %% [markdown]
# ## Summary
#
# - `compact` is a tool that acts on the agent itself. Its schema has one optional argument, `focus`,
#   which adds a line to the summary request.
# - Its handler checks its input and only acknowledges (`COMPACT_ACK`): it cannot see the history, and
#   it runs mid-round. You wrote it as a stub, checked against the reference; `compare` then matched
#   `handle_compact` with the harness's handler on all 12 inputs.
# - The end of a round: append the reply, run every tool, append every result (`compact`'s too), then
#   compact, then leave the loop. You wrote `run_tools` and `my_finish_round`; `compare` then matched
#   `my_finish_round` with the harness's `finish_round` on all 420 rounds;
#   compacting first made every one of the 129 rounds that call `compact` hand the compaction an
#   invalid history. The API answers both wrong orders with HTTP 400 (any model).
# - After a manual compaction the loop returns; the last reply travels in `RunResult.reply`.
# - On the long session, an agent with a limit of 30,000 still peaked at 49,468 tokens: this fake
#   compacts only between tasks, and in this loop a compaction mid-task would end the task.
#
# Next, chapter 05: you write the whole loop, and run the three layers together on 71 requests.
#
# ## Exercises
#
# ### 1. Break a third rule
# Build a history in which `compact`'s `tool_result` is present and answers the right `tool_use`, and
# is still refused with HTTP 400.
#
# *Hint:* the rules are in `validate_messages` (`harness/core/messages.py`); look at what must come
# *first* in the user message after a `tool_use`.

# %%
third_broken_history = None  # replace None with your list of messages

# %%
if third_broken_history is None:
    print("Exercise 1: fill in third_broken_history, then run this cell.")
else:
    try:
        client.messages.create(model=CONFIG.model, max_tokens=CONFIG.max_tokens, system=SYSTEM_PROMPT,
                               tools=toolbox.schemas, messages=third_broken_history)
        refusal = None
    except anthropic.BadRequestError as error:
        refusal = error.body["error"]["message"]
    assert refusal is not None, "the API accepted that history: try again"
    answered = any(b.get("type") == "tool_result" and b.get("tool_use_id") == "toolu_compact_01"
                   for m in third_broken_history if isinstance(m["content"], list) for b in m["content"])
    assert answered, "keep a tool_result that answers toolu_compact_01"
    assert "tool_results_first" in refusal, f"refused, but for another rule: {refusal}"
    print(f"Exercise 1: correct. ({refusal})")

# %% [markdown]
# ### 2. Two `compact` calls in one reply
# A reply calls `compact` twice: first with focus `"the notes"`, then with `"the rules"`. How many
# times does the harness's `finish_round` compact, and with which focus? Predict, return the pair
# `(times, focus)` from `two_compacts`, run the check. Then check your own `my_finish_round` agrees (the comparison of
# section 4 had this case).
#
# *Hint:* read `finish_round` in `harness/core/loop.py`: where is `compact` called, and what does the
# loop over the tool calls do to `focus`?

# %% tags=["stub"]
def two_compacts():
    """Your prediction, as a tuple: (how many times finish_round compacts, with which focus)."""
    # return (times, focus)
    raise NotImplementedError("your code here")

# %%
two_compacts = check(two_compacts)

# %% [markdown]
# ### 3. How often can the agent compact?
# With the slider at 12 requests, find the largest limit, in steps of 5,000, at which the agent
# compacts at least twice. How far above that limit does its context still peak?
#
# *Hint:* `compact_runs[limit].first(12).stats` (the slider's run) has `compactions` and `peak_context`.

# %%
largest_limit_with_two = None  # replace None with your answer (an int)

# %%
def manual_count(limit):
    return compact_runs[limit].first(12).stats.compactions.get("manual", 0)


if largest_limit_with_two is None:
    print("Exercise 3: fill in largest_limit_with_two, then run this cell.")
else:
    assert largest_limit_with_two in compact_runs, "pick a limit on the slider: 0 to 60,000 in steps of 5,000"
    assert manual_count(largest_limit_with_two) >= 2, "at that limit the agent does not compact twice"
    assert largest_limit_with_two + 5_000 not in compact_runs or manual_count(largest_limit_with_two + 5_000) < 2, \
        "a larger limit still gives two compactions"
    peak = compact_runs[largest_limit_with_two].first(12).stats.peak_context
    print(f"Exercise 3: correct. The context still peaks at {peak:,} tokens, "
          f"{peak - largest_limit_with_two:,} above the limit.")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch04.py`).
#
# 1. Why can `compact`'s handler not do the compaction itself?
# 2. What does the API answer when the history is compacted first and the round's results appended
#    after, and why?
# 3. The summary replaces the history anyway: why append `compact`'s own result before compacting?
# 4. Why does the loop return after a manual compaction, and where does the agent's last reply go?
# 5. Why did the agent with a limit of 30,000 still peak at 49,468 tokens, and what guards against that?
