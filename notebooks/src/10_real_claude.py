# %% [markdown]
# # 10 · Real Claude (optional)
#
# **The promise:** the loop you built runs unchanged on the real API, beside the context management
# Anthropic offers on its side.
#
# By the end of this chapter you will be able to:
#
# - switch the course to real Claude with two environment variables;
# - build requests for the API's context editing and server compaction, checked against the SDK's
#   types, and map each knob to a layer you wrote;
# - send a `compaction` block back unchanged, and show what dropping it costs.
#
# Nothing here needs a key. Without one, every live cell says it was skipped and the rest runs offline.

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
from harness.labs.steps import answer
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
# `default_client()` returns real Claude only when **both** are set: a key in `ANTHROPIC_API_KEY` and
# `USE_REAL_MODEL=1`, from the environment or a git-ignored `.env` at the repository root. Either alone
# gives the fake. The harness never prints, logs or stores the key. The decision for made-up environments:

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
# To go live, put these two lines in `.env` (it is in `.gitignore`), or export them before `make lab`,
# then restart the kernel:
#
# ```
# ANTHROPIC_API_KEY=your key here
# USE_REAL_MODEL=1
# ```
#
# `CLAUDE_MODEL` picks the model. The default, Claude Haiku 4.5, is a legacy model now [4]; the course
# keeps it for its 200K window. Live runs cost money, so the cells below keep them small.

# %%
model = os.environ.get("CLAUDE_MODEL", harness.DEFAULT_MODEL)
config = harness.CompactionConfig(model=model, transcript_dir=WORK / "transcripts")
print("model:", model)

# %% [markdown]
# ## 2 · Claude's own count
#
# Only the `messages.count_tokens` endpoint uses Claude's tokenizer. It needs the network and a key, and
# its page calls the result an estimate [1]. Offline, the fake answers the same endpoint with its cl100k
# count, so the code path still runs.

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
# This is chapter 05's `run_agent`, unchanged. Live, it asks Claude to read three files, to keep the
# cost down; offline, the fake runs the twelve-file task.

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
# The API can run two of our layers on the server. Each is a beta behind its own header, and the SDK has
# types for both [2, 3].
#
# | Edit | Our layer | Knobs and their counterparts |
# |---|---|---|
# | `clear_tool_uses_20250919`: past `trigger` (default 100,000 input tokens), old tool results become placeholders | micro (ch. 02) | `keep` (default 3) ≈ KEEP_RECENT; `exclude_tools` ≈ PRESERVE_RESULT_TOOLS; `clear_at_least`: clear only if that many tokens go, as each clearing invalidates the cache; `clear_tool_inputs`: inputs go too |
# | `compact_20260112`: past `trigger` (default 150,000, minimum 50,000), a summary in a `compaction` block | auto (ch. 03) | `trigger` ≈ THRESHOLD; `instructions` replaces the whole summary prompt (chapter 03's request, not the compact tool's focus, which adds to it); `pause_after_compaction` |
#
# Not run here: `clear_thinking_20251015` clears old thinking blocks [2]; client-side compaction in the
# SDKs' tool runners [2], shown with the older `compaction_control` in Anthropic's cookbook [5] (the SDK
# installed here, 2.14.0, has `compact_before_next_turn()` instead [6]).
#
# The harness checks both payloads against the SDK's `TypedDict`s and shows the exact JSON and beta
# header the SDK would send.

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
# A typo is refused before anything is sent, and the message names the field:

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
# `ServerToolClearing` and `ServerCompaction` (chapter 08's strategies) add their edit to every call and
# read what the server did from each response; the fake applies the edit offline, Claude live. Below:
# clearing past 5,000 input tokens, keeping the newest tool use. Context editing runs on Haiku 4.5 [2];
# server compaction only on its own list of models (Opus 4.6 and Sonnet 4.6 in the copy we read [3]), so
# try `ServerCompaction()` live with one of those in `CLAUDE_MODEL`.

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
# When `compact_20260112` fires, the response opens with a `compaction` block holding the summary. On
# the next request the API drops every block before it and goes on from the summary [3]: the block marks
# where to cut, so it must go back as it came. Dropped, the server reads the whole history again and,
# past the trigger, summarises it again. Edited: we could not check what happens (unverified).
#
# `to_dicts` in `harness/core/loop.py` keeps the block's fields as sent. Below, on the fake:
# `ServerCompaction(trigger=50_000)` on the first 12 requests of chapter 00's long session, through a
# `RecordingClient` that keeps the compaction blocks of every request.

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
# The control: the next request, sent twice to a fresh fake, once with the history as the loop keeps it
# and once with the block dropped. *This fake* applies the documented rule: the numbers are the fake's;
# the difference is the lesson.

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
# With the block, the server read 26,373 tokens, the summary and what followed, though the client holds
# 76,053. Without it, the server summarised the whole history again (75,005 tokens) and billed 77,075
# input tokens instead of 26,373, on every request past the trigger. The rule holds for *any model* that
# runs compaction; the numbers are *this fake*'s.

# %%
assert next_request(with_block).usage.input_tokens == 26_373
assert sum(n for _, n in steps["block dropped"]) == 77_075

# %% [markdown]
# ## 6 · Which to use?
#
# - **Server-side edits**: the least code, and your history stays whole; but the rules are the API's,
#   beta, on listed models only, and no other provider runs them.
# - **The harness's layers** run anywhere, are testable offline and can be changed (chapter 08's guards
#   have no server-side equivalent).
# - Both cost cache hits when they rewrite old messages: `clear_at_least` is the API's answer [2],
#   chapter 09's cache-aware policy ours.

# %% [markdown]
# ## Summary
#
# - `default_client()` is the one switch: a key *and* `USE_REAL_MODEL=1`, or the fake.
# - Claude's own counts come from `messages.count_tokens`; cl100k is an offline stand-in.
# - `clear_tool_uses_20250919` is server-side micro-compaction, `compact_20260112` server-side
#   auto-compaction. Both payloads are checked against the SDK's types before anything is sent.
# - A `compaction` block goes back exactly as it came. Dropped, the fake server summarised the whole
#   history again (75,005 tokens) instead of reading 26,373.

# %% [markdown]
# ## Exercises
#
# ### 1. A clearing edit of your own
# Build a `clear_tool_uses_20250919` edit, as a plain dict or with `api_context.clear_tool_uses`, that
# never clears `bash` or `read_file` results and keeps the 5 newest tool uses.
#
# *Hint:* `exclude_tools`, `keep`; section 4 prints the shape of one.

# %% tags=["answer"]
my_edit = None  # a dict

# %%
if answer("my_edit", my_edit):
    sent, _ = api_context.wire_request(api_context.context_managed_request(history, [my_edit], model=model))
    print("on the wire:", sent["context_management"]["edits"])

# %% [markdown]
# ### 2. What the server ignores
# On the next request after section 5's compaction, how many whole messages at the start of the
# client's history does the server ignore?
#
# *Hint:* the block opens the content of one assistant message; search `compacted.messages` for it.

# %% tags=["answer"]
ignored_messages = None  # an int

# %%
if answer("ignored_messages", ignored_messages):
    print(f"{ignored_messages} of the {len(compacted.messages)} messages are still sent, and ignored.")

# %% [markdown]
# ### 3. Clearing the inputs too
# Run the twelve-file task on the fake with section 4's clearing plus `clear_tool_inputs=True`. How many
# input tokens did the server clear at the last call? Predict first: more than section 4's 21,585, or
# fewer?
#
# *Hint:* `run_scenario(TWELVE_FILES, harness.CompactionConfig(), WORK / "ex3", compactor=...)`, then the
# `detail` of the last event whose `kind` is the strategy's `name`.

# %% tags=["answer"]
cleared_with_inputs = None  # an int

# %%
if answer("cleared_with_inputs", cleared_with_inputs):
    print(f"{cleared_with_inputs - 21_585:,} tokens more than without clearing the inputs: the tool_use "
          "inputs (the file paths) went too. Our micro-compaction keeps them: chapter 02 says why.")

# %% [markdown]
# ### 4. Live only: Claude's count against cl100k
# With a key and `USE_REAL_MODEL=1`, ask Claude's counting endpoint for section 2's request (`history`,
# `SYSTEM_PROMPT`, `toolbox.schemas`) and compare it with `counted`, the cl100k count.
#
# *Hint:* `harness.exact_tokens(client, history, model=model, system=..., tools=...)`.

# %% tags=["answer"]
claude_count = None  # an int, from the live endpoint

# %%
if answer("claude_count", claude_count):
    print(f"Claude counts {claude_count:,}, cl100k {counted:,} ({claude_count / counted - 1:+.1%}).")

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

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Token counting" — https://platform.claude.com/docs/en/build-with-claude/token-counting (the count is an estimate)
# 2. Anthropic, "Context editing" — https://platform.claude.com/docs/en/build-with-claude/context-editing (`clear_tool_uses_20250919` and its defaults, `clear_at_least` and the cache, `clear_thinking_20251015`, client-side compaction, supported models)
# 3. Anthropic, "Compaction" — https://platform.claude.com/docs/en/build-with-claude/compaction (`compact_20260112`: defaults, minimum, `instructions`, the block sent back, supported models)
# 4. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (legacy status, 200K window)
# 5. anthropics/claude-cookbooks, "Automatic context compaction" — https://github.com/anthropics/claude-cookbooks/blob/main/tool_use/automatic-context-compaction.ipynb (`compaction_control` on the tool runner)
# 6. anthropic-sdk-python 2.14.0, `anthropic/lib/tools/_beta_runner.py` (`compact_before_next_turn`)
