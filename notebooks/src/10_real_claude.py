# %% [markdown]
# # 10 · Real Claude (optional)
#
# **The promise:** the loop you built runs unchanged on the real API, and you can compare it with the
# context management Anthropic now offers on its side.
#
# By the end of this chapter you will be able to:
#
# - switch the whole course from the offline fake to real Claude with two environment variables;
# - get Claude's exact token count and set it beside the offline counts of chapter 01;
# - build requests for the API's own context editing (`clear_tool_uses_20250919`) and server
#   compaction (`compact_20260112`), checked against the SDK's types, and map each knob to the layer
#   you wrote by hand.
#
# Nothing here needs a key. Without one (in CI, and for most readers) every live cell says it was
# skipped and everything else still runs: the payloads are built, validated and serialised offline.

# %%
import json
import os

import harness
from harness import api_context
from harness.clients import default_client, uses_real_model
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.server_side import ServerToolClearing
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
# ## 2 · Three counts and the exact one
#
# Chapter 01 compared the seed's estimate with the cl100k tokenizer. Only Anthropic's
# `messages.count_tokens` endpoint knows Claude's own tokenizer; it needs the network and a key.
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
print(f"count_tokens endpoint ({'Claude' if live else 'fake, cl100k'}): {endpoint if live else f'{endpoint:,}'}")

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
# Anthropic's API can do two of our layers on the server (beta features; the SDK has types for both):
#
# | Server-side edit | What it does | Our layer | Knobs and their counterparts |
# |---|---|---|---|
# | `clear_tool_uses_20250919` | past `trigger` input tokens, replaces old tool results with a placeholder | micro-compaction (ch. 02) | `keep` ≈ KEEP_RECENT, `exclude_tools` ≈ PRESERVE_RESULT_TOOLS, `clear_at_least` (no counterpart: only clear if it frees enough, which protects the prompt cache), `clear_tool_inputs` (also clears the tool_use inputs, which our micro keeps) |
# | `compact_20260112` | past `trigger` input tokens, the API summarises older context | auto-compaction (ch. 03) | `trigger` ≈ THRESHOLD, `instructions` ≈ the focus of the compact tool, `pause_after_compaction` (return to you after compacting) |
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
# Server compaction is left out of the live run: the compaction page lists the models that support it,
# and the copies of that page we could read name only newer models (Opus 4.6 and Sonnet 4.6), not
# `claude-haiku-4-5`, our default; we could not check the page itself. Read
# https://platform.claude.com/docs/en/build-with-claude/compaction and pick a listed model with
# `CLAUDE_MODEL` before you try `ServerCompaction()` live.

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
# ## 5 · Which to use?
#
# - **The server-side edits** are the least code and keep your local history intact (the API edits only
#   what the model sees). But the rules are fixed by the API, they are beta, and they only exist on
#   Anthropic's API.
# - **The harness's layers** run anywhere, are visible and testable offline, and can be changed: the
#   recall tool of chapter 09 or the guards of chapter 08 have no server-side equivalent.
# - Both break the prompt cache when they rewrite earlier messages; `clear_at_least` is the API's
#   answer to that, and chapter 09's cache-aware policy is ours.
#
# ## Summary
#
# - `default_client()` is the one switch: a key *and* `USE_REAL_MODEL=1`, or the fake.
# - Exact counts come from `messages.count_tokens`; cl100k is a close offline proxy.
# - `clear_tool_uses_20250919` is server-side micro-compaction; `compact_20260112` is server-side
#   auto-compaction. Their payloads are checked against the SDK's types before anything is sent.
#
# ## Exercises
#
# 1. Build a `clear_tool_uses` edit that never clears `bash` or `read_file` results and keeps 5 tool uses.
#    *Hint:* `exclude_tools`, `keep`. *Check:* `api_context.check_edit(your_edit)` raises nothing and
#    `api_context.wire_request(...)` shows it in the body.
# 2. With a key: run section 3 with `config.with_(keep_recent=1)` and compare `session.stats.re_reads`
#    with the fake's. *Check:* the fake's number for the same setting is in chapter 09.
# 3. Why does `clear_tool_inputs=True` have no counterpart in our `micro_compact`? What would the fake
#    agent lose if the tool_use inputs were cleared? *Hint:* chapter 02, "why the tool_use blocks stay".
