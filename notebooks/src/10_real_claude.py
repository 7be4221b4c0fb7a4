# %% [markdown]
# # 10 · Real Claude (optional)
#
# **The promise:** the loop you built runs unchanged on the real API, and you can compare it with the
# context management Anthropic now offers on its side.
#
# By the end of this chapter you will be able to:
#
# - switch the whole course from the offline fake to real Claude with two environment variables;
# - get Claude's own token count and set it beside the offline counts of chapter 01;
# - build requests for the API's own context editing (`clear_tool_uses_20250919`) and server
#   compaction (`compact_20260112`), checked against the SDK's types, and map each knob to the layer
#   you wrote by hand;
# - keep the `compaction` block that server compaction returns and send it back unchanged, and show
#   what a request costs when it is dropped.
#
# Claims about the real API cite Anthropic's documentation next to them; what the offline fake shows
# about itself is marked *this fake*.
#
# Nothing here needs a key. Without one (in CI, and for most readers) every live cell says it was
# skipped and everything else still runs: the payloads are built, validated and serialised offline.

# %%
import copy
import json
import os

import harness
from harness import api_context
from harness.clients import default_client, uses_real_model
from harness.fake import fake_client
from harness.labs.recording import RecordingClient
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.server_side import ServerCompaction, ServerToolClearing
from harness.strategies.three_layers import ThreeLayers

live = uses_real_model()
client = default_client()
WORK = own_scratch("10")  # _work/10, in a fresh folder of its own for each run (after the .env look-ups above)
print("live cells will run:", live)
print("client is the offline fake:", client.api_key == "fake-key-offline")

# %% [markdown]
# ## 1 · One switch, in one place
#
# `default_client()` returns real Claude only when **both** are present: a key in
# `ANTHROPIC_API_KEY` and the opt-in `USE_REAL_MODEL=1`, from the environment or from a git-ignored
# `.env` file at the repository root. Either one alone gives the fake. The key goes straight to the SDK;
# the harness never prints, logs or stores it. Below, the decision is shown for made-up environments
# (the key is a dummy string, and the decision never reveals it).

# %%
dummy = "not-a-real-key"
cases = {
    "nothing set": {},
    "key only": {"ANTHROPIC_API_KEY": dummy},
    "opt-in only": {"USE_REAL_MODEL": "1"},
    "key and opt-in": {"ANTHROPIC_API_KEY": dummy, "USE_REAL_MODEL": "1"},
    "key, opt-in 0": {"ANTHROPIC_API_KEY": dummy, "USE_REAL_MODEL": "0"},
}
decisions = {name: uses_real_model(env, dotenv="no-such-file.env") for name, env in cases.items()}
for name, decision in decisions.items():
    print(f"{name:15} -> {'real Claude' if decision else 'offline fake'}")

# %%
assert decisions == {"nothing set": False, "key only": False, "opt-in only": False,
                     "key and opt-in": True, "key, opt-in 0": False}

# %% [markdown]
# To go live, put these two lines in `.env` at the repository root (it is listed in `.gitignore`), or
# export them before `make lab`, then restart the kernel:
#
# ```
# ANTHROPIC_API_KEY=your key here
# USE_REAL_MODEL=1
# ```
#
# Pick the model with `CLAUDE_MODEL` (default below). Live runs cost real money: the cells below keep
# them small.

# %%
model = os.environ.get("CLAUDE_MODEL", harness.DEFAULT_MODEL)
config = harness.CompactionConfig(model=model, transcript_dir=WORK / "transcripts")
print("model:", model)

# %% [markdown]
# ## 2 · Three counts and Claude's own
#
# Chapter 01 compared the seed's estimate with the cl100k tokenizer. Only Anthropic's
# `messages.count_tokens` endpoint uses Claude's own tokenizer; it needs the network and a key, is free
# but rate-limited, and its documentation calls the result an estimate that may differ from the real
# input by a small amount (https://platform.claude.com/docs/en/build-with-claude/token-counting).
# Offline, the fake answers the same endpoint with its cl100k count, so the code path is exercised.

# %%
workspace = TWELVE_FILES.build(WORK / "workspace")
toolbox = harness.Toolbox(workspace)
history = [harness.user("Read agents/s01_agent_loop.py and tell me what it does.")]
history += [harness.assistant([harness.tool_use("toolu_01", "read_file", {"path": "agents/s01_agent_loop.py"})]),
            harness.user([harness.tool_result("toolu_01", workspace.read_file("agents/s01_agent_loop.py"))])]

estimate = harness.estimate_tokens(history)
counted = harness.count_tokens(history, system=SYSTEM_PROMPT, tools=toolbox.schemas)
endpoint = harness.exact_tokens(client, history, model=model, system=SYSTEM_PROMPT,
                                tools=toolbox.schemas)
print(f"estimate len(str)//4 (messages only): {estimate:,}")
print(f"cl100k, offline (system+tools+msgs):  {counted:,}")
print(f"count_tokens endpoint ({'Claude' if live else 'fake, cl100k'}): {endpoint:,}")

# %%
if not live:
    assert endpoint == counted  # offline, the endpoint is the fake answering with cl100k

# %% [markdown]
# ## 3 · The same loop, live
#
# This is `run_agent` from chapter 05, unchanged. With the fake it reads all twelve files; live, it
# asks real Claude to read three of them (to keep the cost down), with the three layers on.

# %%
request = "Read agents/s01_agent_loop.py, agents/s02_tool_use.py and agents/s03_todo_write.py, then say in one line each what they do."
if live:
    session = Session(client, toolbox, config, ThreeLayers())
    session.ask(request)
    print("stats:", session.stats)
    print(session.answers[-1])
else:
    print("skipped: live run (set ANTHROPIC_API_KEY and USE_REAL_MODEL=1 to run it)")
    offline = run_scenario(TWELVE_FILES, config, WORK / "offline")
    print("offline instead, on the fake:", offline.stats.model_calls, "model calls,",
          offline.stats.compactions, "compactions")

# %% [markdown]
# ## 4 · The API's own context management
#
# Anthropic's API can do two of our layers on the server. Both are beta features, each behind its own
# beta header, and the SDK has types for both. Sources: the context-editing page
# (https://platform.claude.com/docs/en/build-with-claude/context-editing) and the compaction page
# (https://platform.claude.com/docs/en/build-with-claude/compaction).
#
# | Server-side edit | What it does | Our layer | Knobs and their counterparts |
# |---|---|---|---|
# | `clear_tool_uses_20250919` (beta `context-management-2025-06-27`) | past `trigger` input tokens (default 100,000), replaces the oldest tool results with placeholder text; the client keeps its full history | micro-compaction (ch. 02) | `keep` (default 3 tool uses) ≈ KEEP_RECENT, `exclude_tools` ≈ PRESERVE_RESULT_TOOLS, `clear_at_least` (no counterpart: clear only if at least that many tokens go, because every clearing invalidates the cached prompt prefix), `clear_tool_inputs` (also clears the tool_use inputs, which our micro keeps) |
# | `compact_20260112` (beta `compact-2026-01-12`) | past `trigger` input tokens (default 150,000, at least 50,000), the API summarises the conversation into a `compaction` block | auto-compaction (ch. 03) | `trigger` ≈ THRESHOLD, `instructions` (replaces the default summary prompt) ≈ the focus of the compact tool, `pause_after_compaction` (return to you after compacting) |
#
# The harness builds both payloads and checks them against the SDK's own `TypedDict`s, then sends the
# request to a capturing transport so you see the exact JSON and beta header the SDK would send.

# %%
edits = [
    api_context.clear_tool_uses(trigger=30_000, keep=config.keep_recent, clear_at_least=5_000,
                                exclude_tools=sorted(config.preserve_tools)),
    api_context.server_compaction(trigger=100_000, instructions="Keep the user's requests verbatim."),
]
request_kwargs = api_context.context_managed_request(history, edits, model=model,
                                                     system=SYSTEM_PROMPT, tools=toolbox.schemas)
body, beta_header = api_context.wire_request(request_kwargs)
print("anthropic-beta:", beta_header)
print(json.dumps(body["context_management"], indent=2))

# %%
assert beta_header == "compact-2026-01-12,context-management-2025-06-27"
assert body["context_management"]["edits"][0]["keep"] == {"type": "tool_uses", "value": 3}
assert body["context_management"]["edits"][0]["exclude_tools"] == ["read_file"]
assert body["messages"] == history  # our plain-dict history goes on the wire unchanged

# %% [markdown]
# A typo is caught before anything is sent, with a message that names the field:

# %%
for bad in ({"type": "clear_tool_uses_20250919", "kep": {"type": "tool_uses", "value": 3}},
            {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": "three"}},
            {"type": "compact_2026"}):
    try:
        api_context.check_edit(bad)
    except ValueError as error:
        print("refused:", str(error).splitlines()[0])
    else:
        raise AssertionError(f"accepted a bad edit: {bad}")

# %% [markdown]
# Chapter 08 ran these edits as strategies, and this is the same code. `ServerToolClearing` and
# `ServerCompaction` only add their edit to every call (`request_options`); the loop then sends the
# call through `client.beta.messages.create`, and the strategy reads what the server did from each
# response. Offline the fake server applies the edit; live, real Claude does. Below: the three-file
# request live, or the twelve-file task on the fake, with clearing past 5,000 input tokens keeping the
# newest tool use.
#
# Which models run these edits live is for the pages above to say. The compaction page lists Claude Opus
# 4.6 and Sonnet 4.6 (and, in its newest copy we read, Opus 4.7 and Mythos Preview), never
# `claude-haiku-4-5`, our default, so server compaction is left out of the live run: pick a listed model
# with `CLAUDE_MODEL` before you try `ServerCompaction()` live. For context editing we could not check
# that `claude-haiku-4-5` is supported (an older copy of its page lists only Opus 4 and 4.1 and Sonnet 4
# and 4.5): unverified. If the live clearing below is refused, do the same.

# %%
clearing = ServerToolClearing(trigger=5_000, keep=1)
if live:
    managed = Session(client, toolbox, config, clearing)
    managed.ask(request)
else:
    managed = run_scenario(TWELVE_FILES, config, WORK / "managed", compactor=clearing)
applied = [e.detail for e in managed.events if e.kind == clearing.name]
print("requests the server edited:", len(applied), "| the last:", applied[-1] if applied else None)
print("history kept by the client:", len(managed.messages), "messages, nothing removed")

# %%
if not live:
    assert len(applied) == 10 and applied[-1] == {"cleared_tool_uses": 12, "cleared_input_tokens": 21_585}
    assert len(managed.messages) == len(offline.messages)  # the edit never touches the client's history

# %% [markdown]
# ## 5 · Server compaction: send the block back, unchanged
#
# When `compact_20260112` fires, the response opens with a `compaction` block holding the summary. The
# compaction page says what to do next: append the response to your messages, and on the next request
# the API drops every message block before the compaction block and continues from the summary
# (https://platform.claude.com/docs/en/build-with-claude/compaction). The client keeps its whole history;
# the block is the marker that tells the server where to cut. So the next request must carry the block,
# as it came. Two ways to get that wrong:
#
# - **Dropped**, by a loop that keeps only the `text` and `tool_use` blocks of a response: nothing tells
#   the server where to cut, so it reads the whole history again. Past the trigger it summarises it again,
#   one more summarising step billed; below the trigger the model reads everything. (That is what the
#   documented rule implies; below, it is shown on the fake.)
# - **Edited** (rewritten, or re-serialised with other fields): what the real API does then we could not
#   check, so it stays unverified here. Sending the block back exactly as received avoids the question.
#
# Our loop keeps it: `to_dicts` in `harness/core/loop.py` turns a response's SDK blocks into plain dicts
# and keeps a `compaction` block with its fields exactly as the API sent them. Below, always on the fake:
# `ServerCompaction(trigger=50_000)` (the documented minimum) on the first 12 requests of chapter 00's long
# session, through a `RecordingClient` that keeps the compaction blocks of every request the loop sends.

# %%
def compaction_blocks_sent(request):
    """The compaction blocks in one request's messages, copied as they were sent."""
    return [copy.deepcopy(block) for message in request["messages"] if isinstance(message["content"], list)
            for block in message["content"] if block["type"] == "compaction"]


server_compaction = ServerCompaction(trigger=50_000)
recorder = RecordingClient(fake_client(), compaction_blocks_sent)
compacted = run_scenario(LONG_SESSION, harness.CompactionConfig(), WORK / "server_compaction", client=recorder,
                         compactor=server_compaction, requests=LONG_SESSION.requests[:12])
event = next(e for e in compacted.events if e.kind == server_compaction.name)
kept_at = next(i for i, message in enumerate(compacted.messages) if isinstance(message["content"], list)
               and any(block["type"] == "compaction" for block in message["content"]))
kept = next(block for block in compacted.messages[kept_at]["content"] if block["type"] == "compaction")
sent_with = [call for call, sent in enumerate(recorder.records, start=1) if sent]
print(f"compaction at call {event.call}: the summarising step read {event.tokens_before:,} tokens, "
      f"the summary is {event.tokens_after:,}")
print(f"history message {kept_at} ({compacted.messages[kept_at]['role']}) keeps the block, "
      f"fields {sorted(kept)}")
print(f"requests that carried it: calls {sent_with[0]} to {sent_with[-1]} of {len(recorder.records)}; "
      f"unchanged every time: {all(sent == [kept] for sent in recorder.records[event.call:])}")

# %%
assert event.call == 39 and (event.tokens_before, event.tokens_after) == (50_304, 1_094)
assert kept["content"] == event.detail["summary"]  # the summary, with the fields to send back verbatim:
assert sorted(kept) == ["content", "encrypted_content", "signature", "tool_changes", "type"]
assert sent_with == list(range(event.call + 1, len(recorder.records) + 1))  # every later request, none before
assert all(sent == [kept] for sent in recorder.records[event.call:])

# %% [markdown]
# The control: the next request, sent twice to a fresh fake with the same edit, once with the history as
# the loop keeps it and once with the compaction block dropped (its message keeps its `tool_use`). *This
# fake* applies the documented rule, so the numbers are the fake's; the difference is the lesson.

# %%
question = harness.user("What did I tell you about tools/?")
with_block = compacted.messages + [question]
without_block = [{**message, "content": [b for b in message["content"] if b["type"] != "compaction"]}
                 if isinstance(message["content"], list) else message
                 for message in compacted.messages] + [question]


def next_request(messages):
    """Send ``messages`` with the same compaction edit to a fresh fake; the response."""
    request = api_context.context_managed_request(messages, [server_compaction.edit],
                                                  model=harness.DEFAULT_MODEL, system=SYSTEM_PROMPT,
                                                  tools=compacted.toolbox.schemas)
    return fake_client().beta.messages.create(**request)


client_side = harness.count_tokens(with_block, system=SYSTEM_PROMPT, tools=compacted.toolbox.schemas)
print(f"the client's history: {len(with_block)} messages, {client_side:,} tokens")
steps = {}
for label, messages in (("block sent back", with_block), ("block dropped", without_block)):
    response = next_request(messages)
    steps[label] = [(step.type, step.input_tokens) for step in response.usage.iterations or ()]
    billed = sum(n for _, n in steps[label]) or response.usage.input_tokens
    print(f"{label:16} the model read {response.usage.input_tokens:6,} tokens | summarising steps: "
          f"{[n for kind, n in steps[label] if kind == 'compaction']} | input billed {billed:,}")

# %%
assert all(message["content"] for message in without_block)
assert client_side == 76_053
assert steps["block sent back"] == []  # the server started from the block: no new summary
assert steps["block dropped"] == [("compaction", 75_005), ("message", 2_070)]  # all of it, summarised again

# %% [markdown]
# With the block, the server read 26,373 tokens: the summary and what came after it, although the client
# holds 76,053. Without it, the server summarised the whole history again, 75,005 tokens in one more
# summarising step, and billed 77,075 input tokens for the request instead of 26,373; a loop that always
# drops the block pays that on every request past the trigger. The rule is the API's, for *any model* that
# supports compaction; the numbers are *this fake*'s.

# %%
assert next_request(with_block).usage.input_tokens == 26_373
assert sum(n for _, n in steps["block dropped"]) == 77_075

# %% [markdown]
# ## 6 · Which to use?
#
# - **The server-side edits** are the least code and keep your local history intact (the API edits only
#   what the model sees). But the rules are fixed by the API, they are beta, they run only on the models
#   their pages list, and another provider's API will not run them.
# - **The harness's layers** run anywhere, are visible and testable offline, and can be changed: the
#   recall tool of chapter 09 or the guards of chapter 08 have no server-side equivalent.
# - Both cost prompt-cache hits when they rewrite earlier messages: the context-editing page says each
#   clearing invalidates the cached prefix and offers `clear_at_least` so it happens less often; chapter
#   09's cache-aware policy is our answer.

# %% [markdown]
# ## Summary
#
# - `default_client()` is the one switch: a key *and* `USE_REAL_MODEL=1`, or the fake.
# - Claude's own counts come from `messages.count_tokens` (Anthropic calls them an estimate); cl100k is an
#   offline stand-in, not Claude's tokenizer.
# - `clear_tool_uses_20250919` is server-side micro-compaction; `compact_20260112` is server-side
#   auto-compaction. Their payloads are checked against the SDK's types before anything is sent.
# - A `compaction` block goes back in the next request exactly as it came: the API cuts the history there.
#   Our loop keeps it (every request after the compaction carried it, unchanged); dropped, the fake server
#   summarised the whole history again (75,005 tokens) instead of reading 26,373.

# %% [markdown]
# ## Exercises
#
# ### 1. A clearing edit of your own
# Build a `clear_tool_uses_20250919` edit that never clears `bash` or `read_file` results and keeps the 5
# newest tool uses, as a plain dict (or with `api_context.clear_tool_uses`).
#
# *Hint:* `exclude_tools`, `keep`; section 4 prints the shape of one.

# %%
my_edit = None  # a dict

# %%
if my_edit is None:
    print("Exercise 1: fill in my_edit, then run this cell.")
else:
    api_context.check_edit(my_edit)  # raises ValueError, naming the field, if the SDK's type refuses it
    assert my_edit["type"] == "clear_tool_uses_20250919", "not that edit type"
    assert my_edit.get("keep") == {"type": "tool_uses", "value": 5}, "keep: {'type': 'tool_uses', 'value': 5}"
    assert sorted(my_edit.get("exclude_tools", [])) == ["bash", "read_file"], "exclude_tools: bash, read_file"
    sent, _ = api_context.wire_request(api_context.context_managed_request(history, [my_edit], model=model))
    assert sent["context_management"]["edits"] == [my_edit]
    print("Exercise 1: correct.")

# %% [markdown]
# ### 2. What the server ignores
# On the next request after the compaction of section 5, how many messages at the start of the client's
# history does the server ignore? Count whole messages before the one that holds the compaction block.
#
# *Hint:* the block opens the content of one assistant message; search `compacted.messages` for it.

# %%
ignored_messages = None  # an int

# %%
if ignored_messages is None:
    print("Exercise 2: fill in ignored_messages, then run this cell.")
else:
    assert ignored_messages == kept_at, "not yet: the index of the message that holds the block is the count"
    print(f"Exercise 2: correct; {kept_at} of the {len(compacted.messages)} messages are still sent, "
          "and ignored.")

# %% [markdown]
# ### 3. Clearing the inputs too
# Run the twelve-file task on the fake with `ServerToolClearing(trigger=5_000, keep=1, clear_tool_inputs=True)`
# (section 4's run, plus `clear_tool_inputs`). How many input tokens did the server clear at the last call?
# Before you run it, predict: more than the 21,585 of section 4's offline run, or fewer?
#
# *Hint:* `run_scenario(TWELVE_FILES, harness.CompactionConfig(), WORK / "ex3", compactor=...)`, then the
# `detail` of the last event whose `kind` is the strategy's `name`.

# %%
cleared_with_inputs = None  # an int

# %%
if cleared_with_inputs is None:
    print("Exercise 3: fill in cleared_with_inputs, then run this cell.")
else:
    check = ServerToolClearing(trigger=5_000, keep=1, clear_tool_inputs=True)
    run = run_scenario(TWELVE_FILES, harness.CompactionConfig(), WORK / "ex3_check", compactor=check)
    truth = [e.detail for e in run.events if e.kind == check.name][-1]["cleared_input_tokens"]
    assert cleared_with_inputs == truth, "not that number: read cleared_input_tokens of the last clearing event"
    print(f"Exercise 3: correct; {truth - 21_585:,} tokens more than without clearing the inputs: the "
          "tool_use inputs (the file paths) went too. Our micro-compaction keeps them: chapter 02 says why.")

# %% [markdown]
# ### 4. Live only: Claude's count against cl100k
# With a key and `USE_REAL_MODEL=1`, ask Claude's counting endpoint for the tokens of section 2's request
# (`history`, `SYSTEM_PROMPT`, `toolbox.schemas`) and compare with `counted`, the cl100k count. Without a
# key the check says it was skipped.
#
# *Hint:* `harness.exact_tokens(client, history, model=model, system=..., tools=...)`.

# %%
claude_count = None  # an int, from the live endpoint

# %%
if not live:
    print("Exercise 4: skipped, it needs real Claude (set ANTHROPIC_API_KEY and USE_REAL_MODEL=1).")
elif claude_count is None:
    print("Exercise 4: fill in claude_count, then run this cell.")
else:
    truth = harness.exact_tokens(client, history, model=model, system=SYSTEM_PROMPT, tools=toolbox.schemas)
    assert claude_count == truth, "not Claude's number: call the endpoint with the system prompt and tools too"
    print(f"Exercise 4: correct; Claude counts {claude_count:,}, cl100k {counted:,} "
          f"({claude_count / counted - 1:+.1%}).")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch10.py`).
#
# 1. What must be set for `default_client()` to return real Claude?
# 2. Which of our layers does each server-side edit stand for, and which knobs match?
# 3. What happens to an edit with a typo, and when?
# 4. Why must a `compaction` block go back unchanged, and what did dropping it cost on the fake?
# 5. Does `clear_tool_uses_20250919` shorten the history the client keeps?
