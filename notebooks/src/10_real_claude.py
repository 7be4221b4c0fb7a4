# %% [markdown]
# # 10 · Real Claude (optional)
#
# **The promise:** your loop runs unchanged on the real API, and the API runs each of your three layers on
# its own side.
#
# By the end of this chapter you will be able to:
#
# - switch the course to real Claude;
# - build a request for each surface, and name its layer;
# - send a `compaction` block back, and read each error;
# - say which models run which surface.
#
# **Reading time:** about 15 minutes (stubs included).
#
# Without a key, live cells are skipped.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import inspect
import json
import os

import anthropic
from anthropic import beta_tool
from IPython.display import display

import harness
from harness import api_context
from harness.clients import default_client, uses_real_model
from harness.core.models import MODELS
from harness.fake import FakeModel, fake_client
from harness.labs.recording import RecordingClient
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, READ_AGENTS, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer
from harness.labs.strip import strip_figure
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.base import Compactor
from harness.strategies.registry import COMPACTION_MODEL
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
# `default_client()` returns real Claude only with a key in `ANTHROPIC_API_KEY` and `USE_REAL_MODEL=1`;
# either alone gives you the fake. The harness never prints or stores the key. Below, five made-up
# environments: only the fourth goes live.

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

# %% jupyter={"source_hidden": true}
assert decisions == {"nothing set": False, "key only": False, "opt-in only": False,
                     "key and opt-in": True, "key, opt-in 0": False}

# %% [markdown]
# To go live, put these lines in the git-ignored `.env` and restart the kernel:
#
# ```
# ANTHROPIC_API_KEY=your key here
# USE_REAL_MODEL=1
# ```
#
# `CLAUDE_MODEL` picks the model; the default, Claude Haiku 4.5, is a legacy model now [4], kept for its
# 200K window. Live runs cost money.

# %%
model = os.environ.get("CLAUDE_MODEL", harness.DEFAULT_MODEL)
config = harness.CompactionConfig(model=model, transcript_dir=WORK / "transcripts")
print("model:", model)
print(f"the default, {harness.DEFAULT_MODEL}, has a window of {MODELS[harness.DEFAULT_MODEL].window:,} tokens")

# %% jupyter={"source_hidden": true}
assert MODELS[harness.DEFAULT_MODEL].window == 200_000  # the 200K of the text

# %% [markdown]
# ## 2 · Claude's own count
#
# Only the `messages.count_tokens` endpoint uses Claude's tokenizer; it needs a key, and its page calls its
# count an estimate [1]. Offline, the fake answers with cl100k.

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

# %% jupyter={"source_hidden": true}
if not live:
    assert endpoint == counted  # offline, the endpoint is the fake answering with cl100k

# %% [markdown]
# ## 3 · The same loop, live
#
# Chapter 05's loop, unchanged. Live, Claude reads three files; offline, the fake runs the twelve-file task.

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
# ## 4 · Four surfaces, three layers
#
# Each is a beta, typed in the SDK:
#
# | Surface | What the server does | Your layer | Knobs ≈ yours |
# |---|---|---|---|
# | `clear_tool_uses_20250919` | old tool results become placeholders [2] | micro (chapter 02) | `keep` ≈ KEEP_RECENT; `exclude_tools` ≈ PRESERVE_RESULT_TOOLS |
# | `clear_thinking_20251015` | old turns' thinking is dropped [2] | micro (thinking) | `keep` |
# | `compact_20260112` | the reply opens with a `compaction` block, the summary [3] | auto (chapter 03) | `trigger` ≈ THRESHOLD |
# | `compaction={"type": "summarize"}` | the reply is the block alone [5] | manual (chapter 04) | `instructions` |
#
# Another provider's, for comparison; the fake runs neither:
#
# | OpenAI's Responses API | What the server does | ≈ Anthropic's |
# |---|---|---|
# | `context_management` with `compact_threshold` | past the threshold, the reply carries an encrypted `compaction` item [12] | `compact_20260112` |
# | `POST /responses/compact` | returns the user messages and one `compaction` item [12, 13] | on-demand `compaction` |
#
# Codex's remote path (v2) uses that server, keeping `64_000` tokens of user messages beside the item [14].
#
# An on-demand request cannot carry `context_management` [5]. Below, three edits and one on-demand request
# as the SDK sends them; your history goes out unchanged.

# %%
edits = [
    api_context.clear_thinking_turns(keep=1),
    api_context.clear_tool_uses(trigger=30_000, keep=config.keep_recent, clear_at_least=5_000,
                                exclude_tools=sorted(config.preserve_tools)),
    api_context.server_compaction(trigger=100_000, instructions="Keep the user's requests verbatim."),
]
body, beta_header = api_context.wire_request(api_context.context_managed_request(
    history, edits, model=model, system=SYSTEM_PROMPT, tools=toolbox.schemas))
print("anthropic-beta:", beta_header)
for edit in body["context_management"]["edits"]:
    print(" ", json.dumps(edit))
on_demand, on_demand_header = api_context.wire_request({
    "model": model, "max_tokens": 1024, "messages": history, "betas": [api_context.ON_DEMAND_COMPACTION_BETA],
    "compaction": api_context.on_demand_compaction("Keep the file names.")})
print("anthropic-beta:", on_demand_header, "| compaction:", json.dumps(on_demand["compaction"]))

# %% jupyter={"source_hidden": true}
assert beta_header == "compact-2026-01-12,context-management-2025-06-27"
assert body["context_management"]["edits"][1]["keep"] == {"type": "tool_uses", "value": 3}
assert body["context_management"]["edits"][1]["exclude_tools"] == ["read_file"]
assert body["messages"] == history  # our plain-dict history goes on the wire unchanged
assert on_demand_header == "compact-2026-09-04" and "context_management" not in on_demand

# %% [markdown]
# A typo is refused before anything is sent:

# %%
for bad in ({"type": "clear_tool_uses_20250919", "kep": {"type": "tool_uses", "value": 3}},
            {"type": "clear_thinking_20251015", "keep": {"type": "turns", "value": 1}},
            {"type": "compact_2026"}):
    try:
        api_context.check_edit(bad)
    except ValueError as error:
        print("refused:", str(error).splitlines()[0])
    else:
        raise AssertionError(f"accepted a bad edit: {bad}")

# %% [markdown]
# **Which models.** Compaction does not run on the 4.5 models, the default among them; context editing
# does. Below, each page's list [2, 3] against the fake's model table.

# %%
PAGES = {  # the supportedModels of each page's metadata
    "compaction": {"claude-fable-5-1", "claude-mythos-5-1", "claude-fable-5", "claude-mythos-5",
                   "claude-mythos-preview", "claude-opus-5-5", "claude-opus-5", "claude-opus-4-8",
                   "claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-5-5", "claude-sonnet-5",
                   "claude-sonnet-4-6", "claude-haiku-5-5"},
    "context editing": {"claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"},
}  # the context editing page also lists claude-sonnet-4-5-20250929, retired on 2026-11-30 and gone from the SDK
PAGES["context editing"] |= PAGES["compaction"]
compacting = {name for name, spec in MODELS.items() if spec.compaction}
print(f"compaction: {len(PAGES['compaction'])} models on the pages; the fake runs it on those and on",
      sorted(compacting - PAGES["compaction"]))
print("no compaction in the fake:", sorted(set(MODELS) - compacting))
try:
    fake_client().beta.messages.create(model=harness.DEFAULT_MODEL, max_tokens=1024, messages=history,
                                       betas=[api_context.COMPACTION_BETA],
                                       context_management={"edits": [api_context.server_compaction()]})
except anthropic.BadRequestError as error:
    refusal = error.body["error"]["message"]
print("on", harness.DEFAULT_MODEL, "->", refusal)

# %% jupyter={"source_hidden": true}
assert PAGES["compaction"] <= compacting and compacting - PAGES["compaction"] == {"claude-fable-5-2",
                                                                                   "claude-mythos-5-2"}
assert PAGES["context editing"] <= set(MODELS)
assert PAGES["context editing"] - PAGES["compaction"] == {"claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"}
assert not any(MODELS[name].compaction for name in PAGES["context editing"] - PAGES["compaction"])
assert COMPACTION_MODEL == "claude-sonnet-4-6" and MODELS[COMPACTION_MODEL].compaction

# %% [markdown]
# The fake also compacts on two newer, unlisted models (unverified). Sections 6–8 run on
# `COMPACTION_MODEL`, Claude Sonnet 4.6.
#
# **Holds for:** *this fake* (the refusal's wording).
#
# ## 5 · Clearing on the server: tool results and thinking
#
# The clearing edits change only what the model is sent; your history keeps every message [2]. Below,
# `ServerToolClearing` keeps the newest tool use, then twelve.

# %%
clearings = {keep: ServerToolClearing(trigger=5_000, keep=keep) for keep in (1, 12)}
managed, applied = {}, {}
for keep, clearing in clearings.items():
    if live:
        managed[keep] = Session(client, toolbox, config, clearing)
        managed[keep].ask(request)
    else:
        managed[keep] = run_scenario(TWELVE_FILES, config, WORK / f"managed {keep}", compactor=clearing)
    applied[keep] = [e.detail for e in managed[keep].events if e.kind == clearing.name]
    results = sum(b["type"] == "tool_result" for m in managed[keep].messages if isinstance(m["content"], list)
                  for b in m["content"])
    print(f"keep {keep:2}: {managed[keep].stats.model_calls:2} calls, {managed[keep].stats.re_reads} re-reads, "
          f"requests edited: {len(applied[keep])}, the last {applied[keep][-1] if applied[keep] else None}; "
          f"the client holds all {results} results")

# %% jupyter={"source_hidden": true}
if not live:
    assert [(m.stats.model_calls, m.stats.re_reads) for m in managed.values()] == [(14, 66), (3, 0)]
    assert len(applied[1]) == 12 and applied[1][-1] == {"cleared_tool_uses": 78, "cleared_input_tokens": 150_716}
    assert applied[12] == [{"cleared_tool_uses": 1, "cleared_input_tokens": 83}]  # the listing
    for run in managed.values():  # the edit never touches the client's history: every result is there, whole
        assert sum(b["type"] == "tool_result" for m in run.messages if isinstance(m["content"], list)
                   for b in m["content"]) == len(run.tool_calls)

# %% [markdown]
# `keep` counts tool uses, not turns [2]. The model reads all twelve files in one turn, so `keep=1` clears all
# but one unseen, and the fake reads them again: 66 re-reads. Keeping twelve costs
# none.
#
# Thinking blocks pile up too. Below, four requests of chapter 00's long session keep the newest thinking
# turn, then all.

# %%
class ThinkingOn(Compactor):
    """Adaptive thinking on every call, with ``edits``; keeps what the server reports it cleared."""
    name = "thinking"

    def __init__(self, edits):
        self.edits, self.inputs, self.cleared = edits, [], []

    def request_options(self, run):
        return {"betas": [api_context.CONTEXT_EDITING_BETA], "thinking": {"type": "adaptive"},
                "context_management": {"edits": self.edits}}

    def after_round(self, run, usage):
        self.inputs.append(usage.input_tokens)
        self.cleared.append([edit.to_dict() for edit in run.response.context_management.applied_edits])


server_config = harness.CompactionConfig(model=COMPACTION_MODEL)
thinking = {}
for label, keep in (("keep 1 turn", 1), ("keep all", None)):
    thinking[label] = ThinkingOn([api_context.clear_thinking_turns(keep=keep)])
    thought = run_scenario(LONG_SESSION, server_config, WORK / f"thinking {keep}", compactor=thinking[label],
                           requests=LONG_SESSION.requests[:4])
    print(f"{label:12} the last request read {thinking[label].inputs[-1]:,} tokens; cleared:",
          thinking[label].cleared[-1])
held = sum(isinstance(message["content"], list) and sum(b["type"] == "thinking" for b in message["content"])
           for message in thought.messages)
print("thinking blocks the client still holds:", held)

# %% jupyter={"source_hidden": true}
last_cleared = thinking["keep 1 turn"].cleared[-1][0]
assert thinking["keep all"].cleared[-1] == [] and held == 7
saved = thinking["keep all"].inputs[-1] - thinking["keep 1 turn"].inputs[-1]
assert saved == last_cleared["cleared_input_tokens"] == 348
assert last_cleared["cleared_thinking_turns"] == 2

# %% [markdown]
# Keeping one turn, the last request read 348 tokens fewer, yet your history holds all 7 thinking
# blocks. The edit must come first, with thinking on; each broken rule is refused:

# %%
for label, edits, thinking_on in (
        ("clearing first", [api_context.clear_tool_uses(), api_context.clear_thinking_turns()], True),
        ("thinking off", [api_context.clear_thinking_turns()], False)):
    try:
        fake_client().beta.messages.create(
            model=COMPACTION_MODEL, max_tokens=1024, messages=[harness.user("hi")],
            betas=[api_context.CONTEXT_EDITING_BETA], context_management={"edits": edits},
            **({"thinking": {"type": "adaptive"}} if thinking_on else {}))
    except anthropic.BadRequestError as error:
        print(f"{label:15} 400:", error.body["error"]["message"])

# %% [markdown]
# **Holds for:** *any model* (your history stays whole); *this fake* (the re-reads and the token counts).
#
# ## 6 · Compaction at a threshold: the block goes first
#
# When `compact_20260112` fires, the reply opens with the `compaction` block. The docs say to append it as
# usual; the API then drops everything before the block [8].
#
# The fake is stricter: it follows the SDK's `CompactionBlockMisplacedError`, a 400 for a block that is not
# first [7]. `ServerCompaction` drops the old messages itself, so each later request opens with the block:
# right under both.

# %%
server_compaction = ServerCompaction(trigger=50_000)
recorder = RecordingClient(fake_client(), lambda request: list(request["messages"]))
compacted = run_scenario(LONG_SESSION, server_config, WORK / "server_compaction", client=recorder,
                         compactor=server_compaction, requests=LONG_SESSION.requests[:12])
event = next(e for e in compacted.events if e.kind == server_compaction.name)
whole = recorder.records[event.call - 1]  # the request that was compacted: the whole history
block = compacted.messages[0]["content"][0]
opened = [call for call, sent in enumerate(recorder.records, start=1) if sent[0]["content"][0] == block]
print(f"compaction at call {event.call}: the summarising step read {event.tokens_before:,} tokens, "
      f"the summary is {event.tokens_after:,}")
print(f"the loop dropped the {len(whole)} messages before the reply; the block's fields: {sorted(block)}")
print(f"requests that open with it, unchanged: calls {opened[0]} to {opened[-1]} of {len(recorder.records)}")

# %% jupyter={"source_hidden": true}
assert event.call == 17 and (event.tokens_before, event.tokens_after) == (50_150, 1_187)
assert block["content"] == event.detail["summary"] and len(whole) == 33
assert sorted(block) == ["content", "encrypted_content", "signature", "tool_changes", "type"]
assert opened == list(range(event.call + 1, len(recorder.records) + 1))  # every later request, none before

# %% [markdown]
# Every later request opens with that block, unchanged.
#
# Now the next request three ways: block first, as the loop sends it; in the middle, as "append as
# usual" leaves it; and dropped.

# %%
question = harness.user("What did I tell you about tools/?")
reply_without_block = {**compacted.messages[0], "content": compacted.messages[0]["content"][1:]}
ways = {"block first": compacted.messages + [question],
        "block in the middle": whole + compacted.messages + [question],
        "block dropped": whole + [reply_without_block] + compacted.messages[1:] + [question]}
outcome, read = {}, {}
for label, messages in ways.items():
    try:
        response = fake_client().beta.messages.create(
            model=COMPACTION_MODEL, max_tokens=1024, system=SYSTEM_PROMPT, tools=compacted.toolbox.schemas,
            messages=messages, betas=[api_context.COMPACTION_BETA],
            context_management={"edits": [server_compaction.edit]})
    except anthropic.APIStatusError as error:
        outcome[label] = type(error).__name__
        print(f"{label:20} {error.status_code} {outcome[label]}")
        continue
    outcome[label] = [(step.type, step.input_tokens) for step in response.usage.iterations or ()]
    read[label] = response.usage.input_tokens
    billed = sum(n for _, n in outcome[label]) or response.usage.input_tokens
    print(f"{label:20} the model read {read[label]:6,} | summarising steps: "
          f"{[n for kind, n in outcome[label] if kind == 'compaction']} | input billed {billed:,}")

# %% [markdown]
# Where the red compaction block sits, and what comes before it:

# %%
display(strip_figure(ways, system=SYSTEM_PROMPT,
                     tools=compacted.toolbox.schemas, title="the next request, three ways"))

# %% jupyter={"source_hidden": true}
assert outcome["block first"] == [] and outcome["block in the middle"] == "CompactionBlockMisplacedError"
assert outcome["block dropped"] == [("compaction", 74_788), ("message", 2_213)]  # all of it, summarised again
assert read["block first"] == 26_403 and sum(n for _, n in outcome["block dropped"]) == 77_001

# %% [markdown]
# Sent first, the block stands for 33 messages, and the model read 26,403 tokens. In the middle, the fake
# answers the SDK's 400, where the docs' API would drop what precedes the block.
#
# Dropped, the summary is lost: the server summarises the whole history again (74,788 tokens), and would on
# every request past the trigger.
#
# **Holds for:** *this fake* (the token counts, and the 400 for a block in the middle).
#
# ## 7 · Compaction on demand: the manual layer
#
# Your `compact` tool (chapter 04) lets the model decide; on demand, your application does, with one
# request that asks for the summary alone [5].

# %%
plain = run_scenario(TWELVE_FILES, server_config, WORK / "plain", compactor=Compactor())
summary_reply = fake_client().beta.messages.create(
    model=COMPACTION_MODEL, max_tokens=1024, system=SYSTEM_PROMPT, tools=plain.toolbox.schemas,
    messages=plain.messages, betas=[api_context.ON_DEMAND_COMPACTION_BETA],
    compaction=api_context.on_demand_compaction())
[step] = summary_reply.usage.iterations
swapped = [{"role": "assistant", "content": [summary_reply.content[0].to_dict(mode="json")]},
           harness.user("Which file defines the agent loop?")]
after = fake_client().beta.messages.create(
    model=COMPACTION_MODEL, max_tokens=1024, system=SYSTEM_PROMPT, tools=plain.toolbox.schemas,
    messages=swapped, betas=[api_context.ON_DEMAND_COMPACTION_BETA])
held_tokens = harness.count_tokens(plain.messages, system=SYSTEM_PROMPT, tools=plain.toolbox.schemas)
print(f"stop_reason {summary_reply.stop_reason!r}, blocks {[b.type for b in summary_reply.content]}; the history "
      f"held {held_tokens:,} tokens, the summary is {step.output_tokens:,}")
print(f"the next request, the block first: the model read {after.usage.input_tokens:,} tokens")

# %% jupyter={"source_hidden": true}
assert summary_reply.stop_reason == "compaction" and len(summary_reply.content) == 1
assert summary_reply.usage.input_tokens == 0  # the step is billed as an iteration, not in the top-level fields
assert step.input_tokens > held_tokens  # the step read the history and the summary prompt
assert (held_tokens, step.output_tokens, after.usage.input_tokens) == (25_026, 561, 1_150)

# %% [markdown]
# The history of 25,026 tokens became a request of 1,150.
#
# The SDK's tool runner sends the same request for you. `compact_before_next_turn()` only schedules it: once
# the turn is done, the runner asks for the summary, yields that reply and carries on from the block [6].
#
# Older SDKs had a client-side helper instead, the tool runner's `compaction_control`: past
# `context_token_threshold` (input plus output tokens), the runner had the model summarise the history,
# and replaced the messages with it [11]. Deprecated for server-side compaction, it is gone from the
# installed SDK.
#
# Below, the runner unmodified: it compacts after its second reply, then sends the block first.

# %%
@beta_tool
def list_files(path: str) -> str:
    """List the files under a folder of the workspace.

    Args:
        path: the folder, relative to the workspace
    """
    return toolbox.run("list_files", {"path": path}).content


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the workspace and return its text.

    Args:
        path: the file's path, relative to the workspace
    """
    return toolbox.run("read_file", {"path": path}).content


runner_client, sent = api_context.listening_client(FakeModel().handle)
runner = runner_client.beta.messages.tool_runner(
    model=COMPACTION_MODEL, max_tokens=2_000, tools=[list_files, read_file],
    messages=[{"role": "user", "content": READ_AGENTS}], betas=[api_context.ON_DEMAND_COMPACTION_BETA])
stops = []
for message in runner:
    stops.append(message.stop_reason)
    if len(stops) == 2:
        runner.compact_before_next_turn()
at = stops.index("compaction")
compaction_request, next_request = sent[at][1], sent[at + 1][1]
print("stop reasons:", stops[:at + 2], "...", stops[-1], f"({len(stops)} replies)")
print(f"request {at + 1} sent compaction = {compaction_request['compaction']} with {len(compaction_request['messages'])}"
      f" messages; context_management: {'context_management' in compaction_request}")
print("request", at + 2, "opens with:", [b["type"] for b in next_request["messages"][0]["content"]])
takes_control = "compaction_control" in inspect.signature(runner_client.beta.messages.tool_runner).parameters
print("this SDK's tool runner takes compaction_control:", takes_control)

# %% jupyter={"source_hidden": true}
assert stops[at - 1:at + 1] == ["tool_use", "compaction"] and at == 2 and stops[-1] == "end_turn"
assert compaction_request["compaction"] == {"type": "summarize"} and "context_management" not in compaction_request
assert next_request["messages"][0]["content"][0]["type"] == "compaction" and len(stops) == 5
assert not takes_control

# %% [markdown]
# Live, on Claude, when `CLAUDE_MODEL` compacts:

# %%
if live and MODELS.get(model) and MODELS[model].compaction:
    live_reply = client.beta.messages.create(model=model, max_tokens=1024, system=SYSTEM_PROMPT,
                                             tools=toolbox.schemas, messages=history,
                                             betas=[api_context.ON_DEMAND_COMPACTION_BETA],
                                             compaction=api_context.on_demand_compaction())
    print(live_reply.stop_reason, live_reply.content[0].content)
else:
    print("skipped: live on-demand compaction (real Claude and a model from section 4's list)")

# %% [markdown]
# **Holds for:** *this fake* (the summary's length and the number of replies).
#
# ## 8 · The round trip and its errors
#
# A compaction block goes back first, only the last one returned carries content, and it comes back exactly
# as it came [5, 7]. Each broken rule and compaction fault has its SDK error:

# %%
second = fake_client().beta.messages.create(
    model=COMPACTION_MODEL, max_tokens=1024, system=SYSTEM_PROMPT, tools=compacted.toolbox.schemas,
    messages=ways["block first"] + [harness.assistant("Never edit tools/.")],
    betas=[api_context.ON_DEMAND_COMPACTION_BETA],
    compaction=api_context.on_demand_compaction()).content[0].to_dict(mode="json")


def with_block(changed):
    """The loop's next request with its block replaced by ``changed``."""
    return [{**compacted.messages[0], "content": [changed, *compacted.messages[0]["content"][1:]]},
            *ways["block first"][1:]]


unfinished = harness.assistant([harness.tool_use("toolu_x", "read_file", {"path": "agents/s01_agent_loop.py"})])
many_tools = [harness.user("Run them all."),
              harness.assistant([harness.tool_use(f"t{k}", f"tool_{k}", {}) for k in range(129)]),
              harness.user([harness.tool_result(f"t{k}", "done") for k in range(129)])]
summarize = {"compaction": api_context.on_demand_compaction()}
broken = {  # rule broken -> (messages, extra request fields, the fake)
    "block not first": (ways["block in the middle"], {}, FakeModel()),
    "two blocks with content": (ways["block first"] + [harness.assistant([second]), harness.user("Go on.")], {},
                                FakeModel()),
    "summary edited": (with_block({**block, "content": block["content"] + " Edited."}), {}, FakeModel()),
    "signature dropped": (with_block({k: v for k, v in block.items() if k != "signature"}), {}, FakeModel()),
    "tool_changes dropped": (with_block({k: v for k, v in block.items() if k != "tool_changes"}), {}, FakeModel()),
    "ends on a tool call": (ways["block first"] + [unfinished], summarize, FakeModel()),
    "only failed blocks": ([harness.assistant([{"type": "compaction", "content": None}])], summarize, FakeModel()),
    "129 distinct tools": (many_tools, summarize, FakeModel()),
    "server busy (529)": (ways["block first"] + [harness.assistant("Noted.")], summarize,
                          FakeModel(compaction_unavailable=1)),
}
raised, codes = {}, {}
for rule, (messages, fields, fake) in broken.items():
    try:
        fake.client().beta.messages.create(model=COMPACTION_MODEL, max_tokens=1024, messages=messages,
                                           betas=[api_context.COMPACTION_BETA, api_context.ON_DEMAND_COMPACTION_BETA],
                                           **fields)
    except anthropic.APIStatusError as error:
        raised[rule], codes[rule] = type(error).__name__, error.status_code
        print(f"{rule:24} {error.status_code} {raised[rule]:38} {error.error_code}")

# %% jupyter={"source_hidden": true}
assert raised == {"block not first": "CompactionBlockMisplacedError",
                  "two blocks with content": "CompactionBlockAmbiguousError",
                  "summary edited": "CompactionContentMismatchError",
                  "signature dropped": "CompactionSignatureInvalidError",
                  "tool_changes dropped": "CompactionToolChangesMismatchError",
                  "ends on a tool call": "CompactionIncompleteTurnError",
                  "only failed blocks": "CompactionNothingToSummarizeError",
                  "129 distinct tools": "CompactionTooManyToolReferencesError",
                  "server busy (529)": "CompactionUnavailableError"}
assert codes.pop("server busy (529)") == 529 and set(codes.values()) == {400}

# %% [markdown]
# Each class and `error_code` is the SDK's [7]. Only the 529, a busy server, is worth retrying; every 400 is
# yours to fix.
#
# **Holds for:** *this fake* (the messages, the limit on tools, the signature: an HMAC).
#
# ## 9 · Beyond one conversation
#
# Anthropic's hosted Managed Agents keep versioned memory stores, chapter 11's memory tool on the server [9];
# Dreams, a research preview, writes a new store from an old one and past transcripts [10]. The fake runs
# neither.
#
# ## 10 · Which to use?
#
# The docs recommend server-side compaction, where Claude writes the summary; of its two kinds, use on-demand
# wherever it is available [8].
#
# - **The API's surfaces**: the least code, but betas on listed models.
# - **Your layers**: anywhere, testable offline, yours to change.
# - **Both** lose cache hits when they rewrite old messages [2].

# %% [markdown]
# ## Summary
#
# - `default_client()` is the one switch: a key *and* `USE_REAL_MODEL=1`, or the fake.
# - Four surfaces, three layers: clearing is micro, `compact_20260112` auto, on-demand `compaction` manual.
# - `keep` counts tool uses, not turns.
# - Append a threshold reply as usual, or send the block first; dropped, it costs a new summary of everything.
# - Prefer server-side compaction, on demand where available; `compaction_control` is gone.

# %% [markdown]
# ## Exercises
#
# ### 1. A clearing edit of your own
# Build a `clear_tool_uses_20250919` edit (a dict, or `api_context.clear_tool_uses`) that never clears `bash`
# or `read_file` results and keeps the 5 newest tool uses.
#
# *Hint:* `exclude_tools`, `keep` (section 4).

# %% tags=["answer"]
my_edit = None  # a dict

# %%
if answer("my_edit", my_edit):
    sent_body, _ = api_context.wire_request(api_context.context_managed_request(history, [my_edit], model=model))
    print("on the wire:", sent_body["context_management"]["edits"])

# %% [markdown]
# ### 2. What the block stands for
# In section 6's run, how many messages did the loop drop from its history when the block came back?
#
# *Hint:* the compacted request held them all; see `recorder.records`.

# %% tags=["answer"]
dropped_messages = None  # an int

# %%
if answer("dropped_messages", dropped_messages):
    print(f"One compaction block now stands for those {dropped_messages} messages.")

# %% [markdown]
# ### 3. Clearing the inputs too
# Run section 5's clearing with `clear_tool_inputs=True` too. How many input tokens did the server clear at
# the last call? Predict first: more than section 5's 150,716 (`keep=1`), or fewer?
#
# *Hint:* `run_scenario(TWELVE_FILES, harness.CompactionConfig(), WORK / "ex3", compactor=...)`, then the
# `detail` of the last event whose `kind` is the strategy's `name`.

# %% tags=["answer"]
cleared_with_inputs = None  # an int

# %%
if answer("cleared_with_inputs", cleared_with_inputs):
    print(f"{cleared_with_inputs - applied[1][-1]['cleared_input_tokens']:,} tokens more than without clearing the inputs: the tool_use "
          "inputs (the file paths) went too. Our micro-compaction keeps them: chapter 02 says why.")

# %% [markdown]
# ### 4. Live only: Claude's count against cl100k
# Live, count section 2's request (`history`, `SYSTEM_PROMPT`, `toolbox.schemas`) with Claude's endpoint;
# compare it with `counted`, the cl100k count.
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
# Answer each before you look (`RECAP` in `harness/labs/solutions/ch10.py`).
#
# 1. What must be set for `default_client()` to return real Claude?
# 2. Which of our layers does each of the API's four compaction surfaces stand for?
# 3. Where does a `compaction` block go in the next request? What if it is edited or dropped?
# 4. What does the tool runner's `compact_before_next_turn()` send, and what comes back?
# 5. Does `clear_tool_uses_20250919` shorten the history the client keeps?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Token counting" — https://platform.claude.com/docs/en/build-with-claude/token-counting (the count is an estimate)
# 2. Anthropic, "Context editing" — https://platform.claude.com/docs/en/build-with-claude/context-editing (both clearing edits and their knobs; `keep` counts tool uses; `clear_at_least` and the cache; the client keeps its full, unmodified history; "Client-side SDK compaction ... (server-side compaction is generally preferred)"; its supported models, the 4.5 models among them)
# 3. Anthropic, "Compaction at a token threshold" — https://platform.claude.com/docs/en/build-with-claude/compaction-threshold (`compact_20260112`, its `trigger`, `instructions` and `pause_after_compaction`; its supported models, section 4's `PAGES["compaction"]`, which no 4.5 model is on)
# 4. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (legacy, a 200K window)
# 5. Anthropic, "Compaction on demand" — https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand (the request and its beta, the block sent back first and unchanged, not with `context_management`)
# 6. anthropic-sdk-python 2.17.0 (the installed package), `anthropic/lib/tools/_beta_runner.py` (`compact_before_next_turn()`: "This only schedules the compaction", the request it sends without `context_management`)
# 7. anthropic-sdk-python 2.17.0, `anthropic/_error_classes.py` and `anthropic/types/compaction_*_error.py` (the nine compaction errors and their status codes; `CompactionBlockMisplacedError`: "The `compaction` block is not the first block of the conversation"; `CompactionBlockAmbiguousError`: "Send only the block the conversation returned last"; `CompactionUnavailableError`: "Retry the request"). The threshold docs [8] have the client append the reply with the block in the middle and the API drop what precedes it; the fake follows the SDK's stricter error instead, and `ServerCompaction` sends the block first, which both accept.
# 8. Anthropic, "Compaction overview" — https://platform.claude.com/docs/en/build-with-claude/compaction ("Compaction replaces the older turns of a conversation with a summary that Claude writes on the server"; "Use on-demand compaction wherever it is available"; for threshold compaction, what you send back is "The response, appended as usual. The API drops what came before the block"). An earlier version of the same English page, when it covered threshold compaction alone, opened with "Server-side compaction is the recommended strategy for managing context in long-running conversations and agentic workflows": both kinds are server-side, so the two recommendations agree.
# 9. Anthropic, "Using agent memory" — https://platform.claude.com/docs/en/managed-agents/memory (memory stores)
# 10. Anthropic, "Dreams" — https://platform.claude.com/docs/en/managed-agents/dreams (a research preview; "produces a new, reorganized memory store"; "The input store is never modified")
# 11. anthropic-sdk-python v0.121.0, `src/anthropic/lib/tools/_beta_compaction_control.py` — https://github.com/anthropics/anthropic-sdk-python (`CompactionControl`: "Client-side compaction control configuration", deprecated: "Use server-side compaction instead"; `context_token_threshold`, default 100,000: "When the cumulative token count (input + output) across all messages exceeds this threshold, the message history will be automatically summarized and compressed"; the summary request is in `_beta_runner.py`'s `_check_and_compact`). The installed 2.17.0 has neither the file nor the parameter, as section 7's cell prints.
# 12. OpenAI, "Compaction" — https://developers.openai.com/api/docs/guides/compaction ("You can enable server-side compaction in a Responses create request (`POST /responses` or `client.responses.create`) by setting `context_management` with `compact_threshold`"; "When the rendered token count crosses the configured threshold, the server runs server-side compaction"; "The response stream includes the encrypted compaction item")
# 13. openai/openai-python at `e43b4224` — https://github.com/openai/openai-python (`src/openai/types/responses/response_create_params.py`: `ContextManagement.compact_threshold`, "Token threshold at which compaction should be triggered"; `src/openai/resources/responses/responses.py`: `compact()` posts to `/responses/compact`; `src/openai/types/responses/compacted_response.py`: "a list of all user messages, followed by a single compaction item"; `response_compaction_item.py`: `encrypted_content`)
# 14. openai/codex at `009bd870`, `codex-rs/core/src/compact_remote_v2.rs` — https://github.com/openai/codex (`RETAINED_MESSAGE_TOKEN_BUDGET = 64_000`, "Mirror the current /responses/compact retained-message default"; the server's `compaction` item kept last)
