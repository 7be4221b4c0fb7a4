# %% [markdown]
# # 04 · The compact tool: the agent tidies its own memory
#
# **The promise:** give the model a tool whose only job is to manage the model itself, wire it into
# the loop in the one order the API accepts, and see what an agent that compacts on its own
# judgement can and cannot do.
#
# Chapters 02 and 03 compacted the history *to* the agent: micro before every call, auto past a
# threshold. The third layer lets the agent ask for it. Every other tool acts on the world (read a
# file, run a command); `compact` acts on the conversation.
#
# ## What you will be able to do
#
# - read the `compact` tool's schema and say why its one argument, `focus`, is optional;
# - explain why the tool's handler only acknowledges, and the loop does the compaction;
# - build by hand the two histories that a wrong order produces and read the HTTP 400 the API sends back;
# - say why the loop returns after a manual compaction, and where the agent's last reply went;
# - measure, with a slider, how far past its own limit an agent that compacts only between tasks can go.

# %% [markdown]
# ## Setup
#
# Everything runs offline: `FakeModel` is a deterministic fake of Claude behind the real `anthropic`
# SDK. `FakeModel(compact_policy=...)` decides when the fake agent calls `compact`: `"never"` (the
# default), `"after_task"` (whenever it has finished a request), or an integer *N* (after a request,
# if the request it just sent was above *N* tokens). Scratch files go under `_work/04/`,
# inside a fresh folder under `_work/` for each run, removed when the kernel stops.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import json
import shutil

import anthropic
from ipywidgets import IntSlider

from harness import (COMPACT_ACK, COMPACT_TOOL, CompactionConfig, SummaryFailed, Toolbox, assistant,
                     build_summary_request, compact_focus, read_transcript, run_agent, text, tool_result,
                     tool_use, user, validate_messages)
from harness.fake import FakeModel
from harness.labs.loop_lab import compact_tool_lab, layer_markers, manual_only_run, uncompressed_run
from harness.labs.panel import panel
from harness.labs.scenarios import LONG_SESSION, READ_AGENTS, TWELVE_FILES
from harness.labs.scratch import own_scratch
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
# ## 2 · The handler only says "understood"
#
# Every tool has a handler: a function from the tool's input to a string. This is `compact`'s, as the
# toolbox runs it:

# %%
for tool_input in ({"focus": "the notes on each file"}, {}, {"focus": 3}, {"topic": "notes"}):
    outcome = toolbox.run("compact", tool_input)
    print(f"{json.dumps(tool_input):36} -> is_error={outcome.is_error!s:5} {outcome.content!r}")

# %%
assert toolbox.run("compact", {"focus": "the notes on each file"}).content == COMPACT_ACK
assert toolbox.run("compact", {}).content == COMPACT_ACK
assert toolbox.run("compact", {"focus": 3}).is_error and toolbox.run("compact", {"topic": "notes"}).is_error

# %% [markdown]
# It checks its input and acknowledges. It cannot do more, and that is by design:
#
# - **It cannot see the history.** A handler gets the tool's input and nothing else. The history is a
#   list the loop owns; compaction has to replace all of it (`messages[:] = [summary]`), and only the
#   code holding that list can.
# - **It runs in the middle of a round.** The model may ask for several tools in one reply, `compact`
#   among them. While the handler runs, the other calls of the round may not have run yet, and none of
#   their results is in the history. Compacting now would cut the round in half.
#
# So the handler returns `COMPACT_ACK`, the loop notes that `compact` was called (and its focus), and
# acts once the round is whole. Here is the loop doing it: the fake agent with
# `compact_policy="after_task"` reads the twelve files of `agents/`, answers, and in the same reply
# calls `compact`.

# %%
messages = [user(READ_AGENTS)]
result = run_agent(FakeModel(compact_policy="after_task").client(), messages, system=SYSTEM_PROMPT,
                   tools=toolbox, config=CONFIG, compactor=ThreeLayers())
manual = result.events[-1]
agent_calls = [t for t in result.trace if t.kind == "agent"]
print("stop:", result.stop, "| agent calls:", len(agent_calls), "| tools of the last call:", agent_calls[-1].tools)
for event in result.events:
    print(f"{event.kind:7} at call {event.call:2}: {event.tokens_before:6,} -> {event.tokens_after:5,} tokens (estimate)")
print("messages left:", len(messages))
print(messages[0]["content"][:200], "...")

# %% [markdown]
# The manual compaction shrank the history from 25,125 to 425 estimated tokens: 29 messages became one.
# The same `auto_compact` does the work as in chapter 03 (transcript, summary, replace); only the
# trigger differs. The transcript shows the order: its last two messages are the agent's reply with
# the `compact` call, and the user message with `compact`'s result. The pair was whole when it was
# saved.

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
# ## 3 · Why `compact`'s own result goes in first
#
# A tempting shortcut: the model called `compact`, so compact right away; its result is only
# "understood" anyway. Two ways to take it, both built here by hand from the same pieces, and both
# refused by the API. (The fake server checks each request with the API's rules and answers HTTP 400,
# so the SDK raises `anthropic.BadRequestError`, as with real Claude.)

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
assert "tool_result_answers_previous: messages[1], tool id toolu_compact_01" in outcomes[broken[0]]
assert "tool_use_answered: messages[1], tool id toolu_compact_01" in outcomes[broken[1]]
assert all(outcomes[name] == "accepted" for name in list(histories)[2:])

# %% [markdown]
# - **Compact first, then append.** The summary replaces the history, and then the round's results
#   are appended after it: a `tool_result` that answers a `tool_use` the history no longer has. This
#   is the error users meet in the wild after a compaction (Claude Code issue #8484: *unexpected
#   `tool_use_id` found in `tool_result` blocks*).
# - **Never append.** As long as the compaction succeeds, the dangling `tool_use` disappears with the
#   rest of the history and nobody notices. The day the summary call fails, the history is left as it
#   was (chapter 03's promise), now ending in a `tool_use` with no answer, and the user's next request
#   is refused. A strategy that keeps the last few messages verbatim (chapter 08) trips over it even
#   when nothing fails. The reference agent fixed exactly this (learn-claude-code issue #500, PR #502).
#
# Appending every result first makes the history valid *before* anything can go wrong. Here is the
# real loop with a summariser that fails once (`fail_summaries=1`): `run_agent` raises
# `SummaryFailed`, the history still ends with a whole pair, and the session simply goes on.

# %%
model = FakeModel(compact_policy="after_task", fail_summaries=1)
flaky_client = model.client()
messages = [user(READ_AGENTS)]
try:
    run_agent(flaky_client, messages, system=SYSTEM_PROMPT, tools=toolbox,
              config=CONFIG.with_(transcript_dir=WORK / "flaky"), compactor=ThreeLayers())
except SummaryFailed as error:
    failure = str(error)
kept = len(messages)
print("SummaryFailed:", failure)
print("the history still has", kept, "messages; the last two:", [[b["type"] for b in m["content"]] for m in messages[-2:]])
validate_messages(messages)
messages.append(user("What is VERSION_TAG in agents/s01_agent_loop.py?"))
after = run_agent(flaky_client, messages, system=SYSTEM_PROMPT, tools=toolbox,
                  config=CONFIG.with_(transcript_dir=WORK / "flaky"), compactor=ThreeLayers())
print("next request:", after.stop, "|", after.reply)
print("requests the fake received, in order:", model.requests)

# %%
assert "500" in failure and kept == 29
assert len(messages) == 1, "the second compaction succeeded"
assert model.requests.count("summary") == 2 and after.stop == "compact"
assert after.reply == 'VERSION_TAG in agents/s01_agent_loop.py is "v1-agent".'

# %% [markdown]
# ## 4 · The loop ends after a manual compaction
#
# After auto-compaction the loop carries on: the agent is in the middle of a task and the summary
# tells it where it was. After a manual compaction the loop returns (`stop == "compact"`). The agent
# called `compact` because it judged a piece of work finished, so this is the natural moment to hand
# control back: show the user the reply and wait for the next request. That reply is no longer in the
# history (the summary replaced it), so the loop keeps it for the caller in `RunResult.reply`, and the
# transcript has it too.
#
# A session of four requests from the long scenario, with an agent that compacts after every task:

# %%
shutil.rmtree(WORK / "session", ignore_errors=True)
session = Session(FakeModel(compact_policy="after_task").client(),
                  Toolbox(LONG_SESSION.build(WORK / "session" / "workspace")),
                  CONFIG.with_(transcript_dir=WORK / "session" / "transcripts"), ThreeLayers())
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
# ## 5 · Try it: an agent that compacts on its own judgement
#
# `compact_policy=N` gives the fake agent a limit: after a request, if what it just sent was above *N*
# tokens, it calls `compact`. With micro and auto switched off, that is the only thing that shrinks
# the context. The slider runs the first requests of the long session that way (the callback,
# `compact_tool_lab`, is a pure function in `harness/labs/loop_lab.py`; each run is cached, so a position
# you have seen redraws at once). Green diamonds mark the calls after which the agent compacted; the
# grey curve is the same requests with no compaction at all.

# %% tags=["nbval-ignore-output"]
compact_slider = panel(
    compact_tool_lab,
    limit=IntSlider(value=30_000, min=0, max=60_000, step=5_000, continuous_update=False, description="limit"),
    requests=IntSlider(value=12, min=1, max=25, continuous_update=False, description="requests"),
    root=str(WORK / "lab"))

# %% [markdown]
# At the starting position (limit 30,000, first 12 requests) the agent compacts once, and its context
# peaks at 49,468 tokens, far above its own limit of 30,000. It can only compact between tasks, and the
# sixth request (read the twelve files of `core/`) takes it from about 25,000 to over 49,000 tokens in
# one task. An agent's judgement is a good trigger for tidying up at natural breaks; it is no guard
# against one long task. That is what the threshold of auto-compaction is for, and chapter 05 runs all
# three layers together.

# %%
lab_run = manual_only_run(30_000, 12, WORK / "lab")
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
assert uncompressed_run(12, WORK / "lab").stats.peak_context > lab_run.stats.peak_context

# %% [markdown]
# ## Summary
#
# - `compact` is a tool that acts on the agent itself. Its schema has one optional argument, `focus`,
#   which adds a line to the summary request.
# - The handler only acknowledges (`COMPACT_ACK`): it cannot see the history, and it runs mid-round.
#   The loop compacts, after the round.
# - The order is: run every tool, append every result (`compact`'s too), then compact. Compacting
#   first leaves an orphaned `tool_result`; never appending leaves an orphaned `tool_use` that bites
#   when a summary fails. The API answers both with HTTP 400.
# - After a manual compaction the loop returns; the last reply travels in `RunResult.reply`.
# - An agent compacts only between tasks, so inside a long task it can go far past its own limit.
#
# ## Exercises
#
# **1.** Break a third rule. Build a history in which `compact`'s `tool_result` is present and answers
# the right `tool_use`, and is still refused with HTTP 400.
#
# *Hint:* the rules are in `validate_messages` (`harness/core/messages.py`); look at what must come
# *first* in the user message after a `tool_use`.

# %%
third_broken_history = None  # replace None with your list of messages


def check_exercise_1(history):
    if history is None:
        return "exercise 1: not attempted yet"
    try:
        client.messages.create(model=CONFIG.model, max_tokens=CONFIG.max_tokens, system=SYSTEM_PROMPT,
                               tools=toolbox.schemas, messages=history)
    except anthropic.BadRequestError as error:
        message = error.body["error"]["message"]
        answered = any(b.get("type") == "tool_result" and b.get("tool_use_id") == "toolu_compact_01"
                       for m in history if isinstance(m["content"], list) for b in m["content"])
        if "tool_results_first" in message and answered:
            return f"exercise 1: correct ({message})"
        return f"exercise 1: refused, but for another reason: {message}"
    return "exercise 1: the API accepted it, try again"


print(check_exercise_1(third_broken_history))

# %% [markdown]
# **2.** Write the loop's round for yourself. `finish_round(messages, reply_blocks, toolbox)` gets the
# model's reply as a list of blocks; it appends the reply, runs every `tool_use` in order with
# `toolbox.run`, appends all the results in *one* user message, and returns the focus of the `compact`
# call, `None` if it had none, or `False` if there was no `compact` call.
#
# *Hint:* `tool_result(id, outcome.content, outcome.is_error)` builds a result block; `compact_focus`
# reads the focus.

# %%
def finish_round(messages, reply_blocks, toolbox):
    raise NotImplementedError("your code here")


# %%
def check_exercise_2(finish):
    blocks = [text("Reading one more file, then tidying up."),
              tool_use("toolu_read_01", "read_file", {"path": "agents/s01_agent_loop.py"}),
              tool_use("toolu_compact_02", "compact", {"focus": " the notes "})]
    history = [user(READ_AGENTS)]
    try:
        focus = finish(history, blocks, toolbox)
    except NotImplementedError:
        return "exercise 2: not implemented yet"
    if len(history) != 3 or history[1] != assistant(blocks):
        return "exercise 2: append the reply, then one user message with every result"
    ids = [b.get("tool_use_id") for b in history[2]["content"]]
    if ids != ["toolu_read_01", "toolu_compact_02"]:
        return f"exercise 2: the results should answer both calls in order, got {ids}"
    validate_messages(history)
    if focus != "the notes":
        return f"exercise 2: the focus should be 'the notes', got {focus!r}"
    return "exercise 2: correct"


print(check_exercise_2(finish_round))

# %% [markdown]
# **3.** With the slider (12 requests), find the largest limit, in steps of 5,000, at which the agent
# compacts at least twice. How far above that limit does its context still peak?
#
# *Hint:* `manual_only_run(limit, 12, WORK / "lab").stats` has `compactions` and `peak_context`.

# %%
largest_limit_with_two = None  # replace None with your answer (an int)


def check_exercise_3(limit):
    if limit is None:
        return "exercise 3: not attempted yet"
    def manual_count(n):
        return manual_only_run(n, 12, WORK / "lab").stats.compactions.get("manual", 0)
    if limit % 5_000 or manual_count(limit) < 2:
        return "exercise 3: at that limit the agent does not compact twice"
    if limit + 5_000 <= 60_000 and manual_count(limit + 5_000) >= 2:
        return "exercise 3: a larger limit still gives two compactions"
    peak = manual_only_run(limit, 12, WORK / "lab").stats.peak_context
    return f"exercise 3: correct; the context still peaks at {peak:,} tokens, {peak - limit:,} above the limit"


print(check_exercise_3(largest_limit_with_two))
