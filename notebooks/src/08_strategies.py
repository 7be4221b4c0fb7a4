# %% [markdown]
# # 08 · Strategies side by side
#
# **The promise:** six ways to compact one long session: what each costs, what each forgets, and why.
#
# By the end of this chapter you will be able to:
#
# - read a strategy's bill, with and without caching;
# - say which facts a strategy forgot, and why;
# - test an explanation with a control;
# - guard against a broken history and a compaction loop.
#
# **Reading time:** about 30 minutes (stubs included).

# %% [markdown]
# ## Setup
#
# Working files: `_work/08_strategies/`, removed when the kernel stops.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's sweeps run on every core: their workers start now, in the background

import copy
from dataclasses import replace

import anthropic
import matplotlib.pyplot as plt
from anthropic.types.beta import BetaCompact20260112EditParam
from IPython.display import display
from ipywidgets import Checkbox, IntSlider
from matplotlib.ticker import StrMethodFormatter

from harness import DEFAULT_MODEL, CompactionConfig, Event, Toolbox, estimate_tokens, text_of
from harness.core.models import MODELS, context_window
from harness.fake import fake_client
from harness.fake.context_management import EDIT_FIELDS
from harness.fake.view import build_view
from harness.labs.amnesia import PROBES, WORK_REQUESTS, Probe, probe_amnesia, probes_for, tag_from_memory
from harness.labs.cost import SESSION_PRICES, SONNET_4_6_PRICES
from harness.labs.growth import growth_series
from harness.labs.panel import panel
from harness.labs.runs import fresh_folder, run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.labs.strategy_lab import (ClearingKnobs, cleared_so_far, one_call_per_turn, retention_figure,
                                       retention_table, run_strategies, strategy_table, summary_requests)
from harness.labs.strip import strip_figure
from harness.labs.tables import Table
from harness.session.runner import SYSTEM_PROMPT, Session
from harness.strategies.base import Compactor
from harness.strategies.guards import Guarded, check_next_request
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.registry import (COMPACTION_MODEL, MATCHED, PRETEND_WINDOW, all_strategies,
                                         control_strategies)
from harness.strategies.server_side import ServerCompaction, ServerToolClearing
from harness.strategies.structured_summary import SECTIONS, structured_request
from harness.strategies.three_layers import ThreeLayers

WORK = own_scratch("08_strategies")
print(f"the long session: {len(LONG_SESSION.requests)} requests; the pretend window: {PRETEND_WINDOW:,} tokens")

# %% [markdown]
# ## 1 · One window for everyone
#
# Every strategy (a `Compactor`, chapter 05) runs under one small window, so that each must compact: the
# long session peaks near 125,000 tokens, and would never fill a real 200,000-token window.
#
# So the window is a pretend **60,000 tokens**, enforced as the API does, with an HTTP 400. With no
# compaction:

# %%
wall_root = fresh_folder(WORK / "wall")
no_compaction = Session(fake_client(window=PRETEND_WINDOW), Toolbox(LONG_SESSION.build(wall_root / "workspace")),
                        CompactionConfig(transcript_dir=wall_root / "transcripts"), compactor=Compactor())
for done, request in enumerate(WORK_REQUESTS):
    try:
        no_compaction.ask(request)
    except anthropic.BadRequestError as error:
        refusal = error
        break
last_answered = no_compaction.trace[-1].input_tokens
print(f"refused during request {done + 1} of {len(WORK_REQUESTS)}, after {len(no_compaction.trace)} calls "
      f"(the last one answered: {last_answered:,} input tokens):")
print(f"HTTP {refusal.status_code}: {refusal.body['error']['message']}")

# %% [markdown]
# It is refused during its 12th request. So **none**, the baseline, runs on the real window; the others
# on the pretend one.

# %% jupyter={"source_hidden": true}
assert (done + 1, len(no_compaction.trace) + 1) == (12, 23) and refusal.status_code == 400
assert refusal.body["error"]["message"] == f"prompt is too long: 70002 tokens > {PRETEND_WINDOW} maximum"
assert 70_002 - last_answered == 19_654 > PRETEND_WINDOW - MATCHED * PRETEND_WINDOW == 9_000
assert context_window(DEFAULT_MODEL) == 200_000

# %% [markdown]
# **Triggers are matched** at 85% of the window, near Claude Code's reported trigger [4], so that no
# strategy looks cheap just by firing early. Codex keeps its own 90% [2], s06 its 50,000 estimated tokens.
#
# **One tool call per turn.** The refused turn read twelve files in parallel, 19,654 tokens, more than a
# matched trigger leaves. So every run sends `disable_parallel_tool_use` (`OneCallPerTurn`).
#
# New here are **structured**, modelled on Claude Code [4], and the API's two edits [3] [5]. The API's
# compaction does not run on Haiku 4.5, the course's model, so its row uses Sonnet 4.6 [5].

# %%
chosen = all_strategies()
controls = control_strategies()
for s in chosen + controls:
    print(f"{s.key:<15}{s.title}  [modelled on {s.modelled_on}; runs on {s.model or DEFAULT_MODEL}]")
    print(f"{'':15}fires: {s.fires}")
    print(f"{'':15}simplified: {s.simplified}")

# %% [markdown]
# **Holds for:** *this design* (the window, the triggers, one call a turn).

# %% jupyter={"source_hidden": true}
assert [s.key for s in chosen] == ["none", "s06", "usage", "structured", "clearing", "compaction"]
assert [s.key for s in controls] == ["s06 whole", "usage 85%", "clear_at_least"]
assert PRETEND_WINDOW == 60_000 and MATCHED == 0.85 and CompactionConfig().threshold == 50_000
made = [s.make() for s in chosen]
assert (made[2].threshold, made[3].threshold, made[4].trigger, made[5].trigger) == (54_000, 51_000, 51_000, 51_000)
assert made[2].threshold == 0.9 * PRETEND_WINDOW and ServerToolClearing().trigger == 100_000
assert [s.model for s in chosen + controls if s.model] == [COMPACTION_MODEL] == ["claude-sonnet-4-6"]
assert MODELS[COMPACTION_MODEL].compaction and not MODELS[DEFAULT_MODEL].compaction
assert DEFAULT_MODEL == "claude-haiku-4-5"

# %% [markdown]
# ## 2 · A nine-section summary
#
# **structured** asks for a summary under nine fixed headings, one of them *All user messages*, and sends
# the **whole** conversation, where s06 sends its last 80,000 characters. One of its three requests:

# %%
early = run_scenario(LONG_SESSION, CompactionConfig(), WORK / "early", requests=WORK_REQUESTS[:3],
                     compactor=Compactor())
request = structured_request(early.messages, CompactionConfig(model=DEFAULT_MODEL), None)
reply = early.client.messages.create(**request)
summary = reply.content[0].text
print(f"summary request: {reply.usage.input_tokens:,} input tokens for a {len(early.messages)}-message history")
print("\n".join(line for line in summary.splitlines() if not line.startswith("Note: ")))

# %% jupyter={"source_hidden": true}
headings = [line for line in summary.splitlines() if line[:1].isdigit()]
assert headings == [f"{n}. {title}:" for n, title in enumerate(SECTIONS, start=1)] and len(SECTIONS) == 9
assert f"- User: {WORK_REQUESTS[1]}" in summary and f"- User: {WORK_REQUESTS[2]}" in summary
assert request["messages"][:-1] == early.messages and CompactionConfig().tail_chars == 80_000

# %% [markdown]
# ## 3 · The API's tool-result clearing
#
# `clear_tool_uses_20250919` replaces old tool results on the server [3], never user or assistant text,
# and writes no summary. The client sends its full history; the server edits what the model sees. With a
# 10,000-token trigger and `keep=3`:

# %%
plain = run_scenario(TWELVE_FILES, CompactionConfig(), WORK / "twelve_plain", compactor=OneCallPerTurn(Compactor()))
clearing = ServerToolClearing(trigger=10_000, keep=3)
cleared = run_scenario(TWELVE_FILES, CompactionConfig(), WORK / "twelve_clearing", compactor=OneCallPerTurn(clearing))
edits = [e for e in cleared.events if e.kind == clearing.name]
last_edit = cleared_so_far(cleared)
print(f"no compaction: peak {plain.stats.peak_context:,}, billed {plain.stats.input_tokens_billed:,}")
print(f"clearing:      peak {cleared.stats.peak_context:,}, billed {cleared.stats.input_tokens_billed:,}; "
      f"{len(edits)} requests edited, the last with {last_edit['cleared_tool_uses']} tool uses "
      f"({last_edit['cleared_input_tokens']:,} tokens) cleared")
print("same final answer:", cleared.answers[-1] == plain.answers[-1],
      "| history kept by the client:", len(cleared.messages), "messages, as many as without clearing:",
      len(plain.messages))

# %% [markdown]
# The context stays under the trigger, the answer is the same, and nothing is read twice: the agent's
# notes on each file stay.

# %% jupyter={"source_hidden": true}
assert cleared.stats.peak_context < clearing.trigger < plain.stats.peak_context
assert len(edits) == 8 and last_edit == {"cleared_tool_uses": 10, "cleared_input_tokens": 17_713}
assert cleared.stats.re_reads == 0 and len(cleared.messages) == len(plain.messages)
assert cleared.answers[-1] == plain.answers[-1]  # the agent's notes stay, so nothing is read again

# %% [markdown]
# ## 4 · The amnesia probe
#
# The probe asks a **copy** of the final history about eight facts, each graded by when it was *said* and
# its *source* (the user, or only a tool). A fact is remembered if the reply **calls no tool** and holds
# the phrases expected.

# %%
for probe in PROBES:
    print(f"{probe.name:<27} said in {', '.join(map(str, probe.said_in)):<10} {probe.position:<7} {probe.source}")
    print(f"{'':27} {probe.question!r}\n{'':27} expects {probe.expect}")
print(f"\nthe session: the other {len(WORK_REQUESTS)} requests")
early_report = probe_amnesia(early)
print("probe on the 3-request session of section 2:", [a.probe.name for a in early_report.answers],
      early_report.score)

# %% jupyter={"source_hidden": true}
assert len(WORK_REQUESTS) == len(LONG_SESSION.requests) - 3 == 68 and len(PROBES) == 8
assert tuple(p.question for p in PROBES[:3]) == LONG_SESSION.requests[-3:]
assert {p.position for p in PROBES} == {"early", "middle", "late"} and [p.source for p in PROBES].count("tool") == 2
assert [a.probe for a in early_report.answers] == list(probes_for(WORK_REQUESTS[:3])) == list(PROBES[:3])
assert early_report.score == 1.0

# %% [markdown]
# The check matches words, so a paraphrase scores as forgetting. *Lost* usually means the fact left the
# context; *kept*, that it is there and the fake found it.

# %% [markdown]
# ## 5 · Nine runs, one session
#
# Every strategy runs the 68 requests, then the probe, priced at its model's list prices [6] [7],
# without and with caching (chapter 09's model [1]).
#
# Three **controls** change one thing each: **s06 whole** summarises the whole conversation, **usage 85%**
# fires at the matched trigger, **clear_at_least** clears only when 20,000 tokens go. The slow cell:

# %%
runs = run_strategies(WORK / "runs", [one_call_per_turn(s) for s in chosen + controls])
print(strategy_table(runs))
by_key = {run.strategy.key: run for run in runs}

# %% [markdown]
# The fake refuses what the API refuses, so each finished run stayed valid:

# %%
for run in runs:
    check_next_request(run.session.messages)
stats = {key: run.session.stats for key, run in by_key.items()}
scores = {key: run.amnesia.score for key, run in by_key.items()}
print({key: f"{sum(run.amnesia.remembered.values())}/{len(PROBES)}" for key, run in by_key.items()})

# %% jupyter={"source_hidden": true}
assert all(all(run.session.answers) for run in runs)
compacting = [key for key in by_key if key != "none"]
summarising = ("s06", "usage", "structured", "compaction", "s06 whole", "usage 85%")
assert stats["none"].peak_context == 125_294 > 2 * PRETEND_WINDOW and round(stats["none"].peak_context, -3) == 125_000
assert all(stats[k].peak_context < PRETEND_WINDOW for k in compacting)
assert scores == {"none": 1.0, "s06": 5 / 8, "usage": 6 / 8, "structured": 7 / 8, "clearing": 1.0,
                  "compaction": 1.0, "s06 whole": 5 / 8, "usage 85%": 6 / 8, "clear_at_least": 1.0}
assert {k: sum(r.amnesia.remembered.values()) for k, r in by_key.items()} == {
    "none": 8, "s06": 5, "usage": 6, "structured": 7, "clearing": 8, "compaction": 8, "s06 whole": 5,
    "usage 85%": 6, "clear_at_least": 8}
assert all(stats[k].summary_calls == 3 for k in summarising)
assert stats["none"].summary_calls == stats["clearing"].summary_calls == stats["clear_at_least"].summary_calls == 0
assert by_key["clear_at_least"].strategy.make().inner.clear_at_least == 20_000

# %% [markdown]
# ## 6 · Which facts each strategy forgets

# %%
print(retention_table(runs))

# %%
display(retention_figure(runs))

# %% [markdown]
# A summary keeps only what it writes; what came after the last one is there, word for word. When was
# each written?

# %%
summaries = {key: summary_requests(run.session) for key, run in by_key.items()}
lost = {key: [name for name, kept in run.amnesia.remembered.items() if not kept] for key, run in by_key.items()}
for key in by_key:
    print(f"{key:<15} summaries during requests {summaries[key]!s:<13} lost {lost[key]}")

# %% [markdown]
# The final histories: look for each summary, and what follows it.

# %%
display(strip_figure({key: by_key[key].session.messages for key in ("s06", "usage", "structured", "compaction")},
                     system=SYSTEM_PROMPT, title="the final histories of the four summarising strategies"))

# %% [markdown]
# The fake's reply also says where it found a tag: a fresh *read*, or *said*.

# %%
TAGS = PROBES[3:]  # the five "Without opening any file" questions


def found_in(reply):
    """Where the fake found a tag: a fresh read, something said, or nowhere."""
    return "read" if reply.startswith("VERSION_TAG in") else "said" if reply.startswith("As far as") else "lost"


answered = {key: {a.probe.name: found_in(a.reply) for a in run.amnesia.answers if a.probe in TAGS}
            for key, run in by_key.items()}
print(f"{'':15}" + "".join(f"{p.name:>22}" for p in TAGS))
for key, row in answered.items():
    print(f"{key:<15}" + "".join(f"{row[p.name]:>22}" for p in TAGS))

# %% [markdown]
# - **After the last summary, all is kept:** c01's tag (request 64) came after every last summary.
# - **A tail summary loses the beginning:** s06's first summary (request 7) was not sent requests 2 and 3.
# - **Being sent everything is not enough:** s06 whole lost them too, its third summary cut at the token
#   cap (section 8) before its list of user requests.
# - **User words last where they are kept:** usage keeps every user message; usage 85% loses the same
#   facts, so the trigger is not the cause.
# - **Clearing never touches assistant text** [3]: the answer quoting c04's tag stayed.
#
# **Holds for:** *any model* (what was never sent, or was cut off, is lost); *this fake* (where the
# summaries fall, and what it finds).

# %% jupyter={"source_hidden": true}
name = {p.name: p for p in PROBES}
EARLY_THREE = ["first file changed", "constraint and its reason", "decision and its reason"]
C06, P05, C04, C10 = "c06_storage's tag", "p05_cache's tag", "c04_transport's tag", "c10_metrics's tag"
assert lost == {"none": [], "s06": EARLY_THREE, "usage": ["first file changed", C04],
                "structured": ["first file changed"], "clearing": [], "compaction": [], "s06 whole": EARLY_THREE,
                "usage 85%": ["first file changed", C04], "clear_at_least": []}
assert summaries == {"none": (), "s06": (7, 26, 43), "usage": (12, 28, 52), "structured": (12, 28, 48),
                     "clearing": (), "compaction": (12, 28, 47), "s06 whole": (7, 26, 43),
                     "usage 85%": (12, 28, 51), "clear_at_least": ()}
last = {k: summaries[k][-1] for k in summarising}
assert name["c01_config's tag"].said_in[0] == 64 and all(n < 64 for n in last.values())
assert name[C04].said_in == (31,) and all(n > 31 for n in last.values())
assert summaries["s06"][0] == 7 and name["constraint and its reason"].said_in == (2,)
assert name["first file changed"].said_in == (3,)
assert all(answered[k][C06] == answered[k][P05] == "read" for k in ("s06", "s06 whole", "compaction"))
assert answered["usage"][C06] == answered["usage"][P05] == "said"
assert answered["clearing"][C04] == "said" and answered["none"][C04] == "read"
assert all(p.question == tag_from_memory(p.question.split(" in ")[-1].removesuffix(" now?")) for p in TAGS)
s06_text = "\n".join(text_of(m) for m in by_key["s06"].session.messages)
assert WORK_REQUESTS[1] not in s06_text and WORK_REQUESTS[2] not in s06_text
usage_history = by_key["usage"].session.messages
assert set(WORK_REQUESTS) <= {text_of(m) for m in usage_history if m["role"] == "user"}
first_edit = next(t for t in build_view(usage_history).user_texts if "change VERSION_TAG" in t)
assert "s03_todo_write" not in first_edit and build_view(usage_history).user_texts.index(WORK_REQUESTS[2]) > 0

# %% [markdown]
# ## 7 · One figure per metric
#
# Context per call, then input billed so far; controls dotted.

# %%
series = {key: growth_series(run.session.trace) for key, run in by_key.items()}
dotted = {s.key for s in controls}
plt.figure(figsize=(9, 4.5))
for key, s in series.items():
    plt.plot(list(s.calls), s.context, label=key, linewidth=1.2, linestyle=":" if key in dotted else "-")
plt.axhline(PRETEND_WINDOW, color="black", linestyle="--", linewidth=1,
            label=f"pretend window ({PRETEND_WINDOW:,})")
plt.xlabel("agent model call")
plt.ylabel("input tokens sent in this call")
plt.gca().yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
plt.title("context per call: the peak is the highest point of each line")
plt.legend(loc="upper left", fontsize=8)
plt.show()

# %%
plt.figure(figsize=(9, 4.5))
for key, s in series.items():
    plt.plot(list(s.calls), [b / 1e6 for b in s.billed], label=key, linewidth=1.2,
             linestyle=":" if key in dotted else "-")
plt.xlabel("agent model call")
plt.ylabel("input tokens billed so far (millions)")
plt.title("cumulative input tokens, summary calls included (no caching)")
plt.legend(loc="upper left", fontsize=8)
plt.show()

# %%
colours = dict(zip(by_key, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.5))
for key in by_key:
    left.bar(key, stats[key].re_reads, color=colours[key])
    left.text(key, stats[key].re_reads + 1, str(stats[key].re_reads), ha="center")
    right.bar(key, scores[key], color=colours[key])
    right.text(key, scores[key] + 0.02, f"{scores[key]:.2f}", ha="center")
left.set(ylim=(0, 60), ylabel="reads of a file unchanged since last read", title="re-reads")
right.set(ylim=(0, 1.2), ylabel="fraction of the 8 facts kept", title="amnesia probe (1.0: nothing forgotten)")
for axis in (left, right):
    axis.tick_params(axis="x", labelrotation=45, labelsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 8 · What each costs
#
# Compaction runs on Sonnet 4.6 and pays its prices: three times Haiku's per token [11].

# %%
dollars = {key: (round(run.uncached.dollars, 2), round(run.cached.dollars, 2)) for key, run in by_key.items()}
writes = {key: int(run.cached.total("cache_write")) for key, run in by_key.items()}
print(Table(["strategy", "runs on, priced at", "input billed", "USD, no caching", "USD, cached",
             "tokens written to the cache"],
            [[key, by_key[key].model, f"{stats[key].input_tokens_billed:,}", f"{no_cache:.2f}", f"{cached:.2f}",
              f"{writes[key]:,}"] for key, (no_cache, cached) in dollars.items()]))
clearing_run = by_key["clearing"].session
clearings = [e for e in clearing_run.events if e.kind == ServerToolClearing.name]
agent_calls = [t.call for t in clearing_run.trace if t.kind == "agent"]
print(f"clearing: first at call {clearings[0].call} ({clearings[0].detail['cleared_input_tokens']:,} tokens), "
      f"then on {len(clearings)} of the {len(agent_calls) - clearings[0].call + 1} agent calls from there on")

# %% jupyter={"source_hidden": true}
haiku_rows = [key for key in by_key if key != "compaction"]
assert by_key["compaction"].model == COMPACTION_MODEL and by_key["compaction"].cached.prices == SONNET_4_6_PRICES
assert all(by_key[k].model == DEFAULT_MODEL and by_key[k].cached.prices == SESSION_PRICES for k in haiku_rows)
assert all(run.uncached.prices == run.cached.prices for run in runs)
assert (SONNET_4_6_PRICES.input, SONNET_4_6_PRICES.output) == (3 * SESSION_PRICES.input, 3 * SESSION_PRICES.output)
assert (SESSION_PRICES.input, SESSION_PRICES.output, SESSION_PRICES.cache_write_factor,
        SESSION_PRICES.cache_read_factor) == (1.0, 5.0, 1.25, 0.1)
uncached_of = {key: d[0] for key, d in dollars.items()}
cached_of = {key: d[1] for key, d in dollars.items()}
assert dollars["none"] == (12.08, 1.38) and dollars["clearing"] == (2.84, 1.41)
assert dollars["compaction"] == (16.55, 2.89)
assert min(uncached_of, key=uncached_of.get) == "clearing" and max(uncached_of, key=uncached_of.get) == "compaction"
assert max(haiku_rows, key=cached_of.get) == "clearing" and cached_of["clearing"] > cached_of["none"]
assert abs(stats["compaction"].input_tokens_billed / stats["structured"].input_tokens_billed - 1) < 0.03
assert writes["none"] == 125_294 and round(writes["clearing"], -3) == 955_000
assert clearings[0].call == 45 and clearings[0].detail["cleared_input_tokens"] == 47_483
assert min(e.detail["cleared_input_tokens"] for e in clearings) == 47_483
assert [e.call for e in clearings] == [c for c in agent_calls if c >= 45]
assert by_key["clear_at_least"].session.trace == clearing_run.trace and dollars["clear_at_least"] == dollars["clearing"]
assert stats["none"].re_reads == 0 and all(stats[k].re_reads > 30 for k in compacting)

# %% [markdown]
# **Without caching, clearing bills least,** writing no summary: USD 2.84, against none's 12.08.
#
# **Compaction bills most, for its price list alone:** tokens within 3% of structured's cost USD 16.55.
#
# **With caching, clearing costs more than none:** USD 1.41 against 1.38. From call 45 the fake's server
# clears on every call, and the cache rewrites all after the cleared point: about 955,000 tokens.
#
# The control `clear_at_least` changes nothing: every clearing frees 47,483 tokens or more.
#
# Each summary enters the next request, so its size matters (compaction's: its iteration's
# `output_tokens`):

# %%
summary_outputs = {key: [t.output_tokens for t in by_key[key].session.trace if t.kind == "summary"]
                   for key in ("s06 whole", "structured", "compaction")}
Table(["strategy", "summary tokens, in order", "cap"],
      [[key, ", ".join(f"{n:,}" for n in sizes),
        "none can be set" if key == "compaction" else f"summary_max_tokens = {CompactionConfig().summary_max_tokens:,}"]
       for key, sizes in summary_outputs.items()])

# %% jupyter={"source_hidden": true}
assert summary_outputs["structured"][1:] == [CompactionConfig().summary_max_tokens] * 2 == [2_000] * 2
assert summary_outputs["s06 whole"][2] == 2_000 > summary_outputs["structured"][0]
assert max(summary_outputs["compaction"]) == 3_010 > CompactionConfig().summary_max_tokens
assert set(BetaCompact20260112EditParam.__annotations__) == EDIT_FIELDS[ServerCompaction.name] == {
    "type", "trigger", "pause_after_compaction", "instructions"}
assert set(ServerCompaction(trigger=51_000).edit) <= EDIT_FIELDS[ServerCompaction.name]

# %% [markdown]
# **Client summaries stop at the cap** (`summary_max_tokens`, 2,000) and lose their end.
#
# **The server's summary has no cap you can set.** The edit's only fields are `type`, `trigger`,
# `pause_after_compaction` and `instructions` [12]; instructions can ask for a length in words, no more.
# Compaction's longest summary ran to 3,010 tokens.
#
# **Holds for:** *this fake* (a server that clears on every call, and how long summaries run); *this
# design* (the cache model).

# %% [markdown]
# ## 9 · Guards
#
# Two failures hide from the loop: a history the API refuses, and a compaction that frees too little and
# fires again at once. Claude Code users report both [8] [9]; a later release stops the loop [10].
#
# `Guarded` wraps any compactor. After each compaction it checks that the next request is valid (else it
# restores the history) and that the context fell under half the threshold; it stops
# compacting when compactions come within 3 calls. Here, s06 where every call compacts (a 1,000-token
# threshold):

# %%
tiny = CompactionConfig(threshold=1_000)
bare = run_scenario(TWELVE_FILES, tiny, WORK / "loop_bare", compactor=OneCallPerTurn(ThreeLayers()))
guarded = run_scenario(TWELVE_FILES, tiny, WORK / "loop_guarded", compactor=OneCallPerTurn(Guarded(ThreeLayers())))
for label, session in (("bare", bare), ("guarded", guarded)):
    stops = [e.kind for e in session.events if e.kind in ("max_turns", "compaction_loop")]
    print(f"{label:8} {session.stats.model_calls} calls, {session.stats.summary_calls} summaries, "
          f"{session.stats.re_reads} re-reads, stopped by {stops}")
loop = next(e for e in guarded.events if e.kind == "compaction_loop")
print(loop.detail["reason"])
print(f"guarded peak context once compaction stopped: {guarded.stats.peak_context:,} tokens")

# %% [markdown]
# Unguarded, it hits the turn limit at 100 calls, with no answer. Guarded, compaction stops at call 4,
# the task done in 16 calls.

# %% jupyter={"source_hidden": true}
assert bare.stats.model_calls == 100 and bare.stats.summary_calls == bare.stats.re_reads == 98
assert bare.answers[-1] == ""
assert guarded.stats.model_calls == 16 and guarded.stats.summary_calls == 2 and loop.call == 4
assert "What each file under agents/ does" in guarded.answers[-1]
assert round(guarded.stats.peak_context, -3) == 25_000
assert (Guarded(ThreeLayers()).min_gap, Guarded(ThreeLayers()).max_fraction) == (3, 0.5)

# %% [markdown]
# A naive trim to the last five messages cuts a `tool_use` from its result. Guarded, it is undone:

# %%
class KeepLastFive(Compactor):
    """A naive trim: forget all but the last five messages."""
    def before_call(self, run):
        if len(run.messages) <= 5:
            return []
        before = estimate_tokens(run.messages)
        del run.messages[:-5]
        run.emit(Event("keep_last_five", run.call, before, estimate_tokens(run.messages)))
        return ["keep_last_five"]


try:
    run_scenario(TWELVE_FILES, CompactionConfig(), WORK / "trim_bare", compactor=OneCallPerTurn(KeepLastFive()))
except anthropic.BadRequestError as error:
    refused = error.body["error"]["message"]
print("bare:   ", refused)
trimmed = run_scenario(TWELVE_FILES, CompactionConfig(), WORK / "trim_guarded",
                       compactor=OneCallPerTurn(Guarded(KeepLastFive())))
undone = [e for e in trimmed.events if e.kind == "guard_invalid"]
print("guarded:", len(undone), "trims undone, first:", undone[0].detail["rule"])

# %% [markdown]
# **Holds for:** *this design* (the guards); *this fake* (reading again what it cannot see).

# %% jupyter={"source_hidden": true}
assert "tool_result" in refused and len(undone) > 0
assert trimmed.answers[-1] == plain.answers[-1]

# %% [markdown]
# ## 10 · Your turn: the clearing knobs
#
# Clearing on the 12-file task: try `keep` = 0 (chapter 02's death spiral), a huge `clear_at_least`,
# and `exclude_reads`.

# %% tags=["nbval-ignore-output"]
knobs = panel(ClearingKnobs(WORK / "sliders"),
              trigger=IntSlider(value=10_000, min=2_000, max=26_000, step=2_000, description="trigger"),
              keep=IntSlider(value=3, min=0, max=6, description="keep"),
              clear_at_least=IntSlider(value=0, min=0, max=20_000, step=4_000, description="clear_at_least"),
              exclude_reads=Checkbox(value=False, description="exclude read_file"),
              clear_inputs=Checkbox(value=False, description="clear_tool_inputs"))

# %% [markdown]
# ## Summary
#
# - Of 8 facts, structured kept 7, usage 6, s06 5, the API's edits all: when a fact was said, and where it
#   lives, decide.
# - Clearing is cheapest without caching, dearer than none with it: it rewrites the cache.
# - Compaction runs on Sonnet 4.6, at its prices; its summary has no settable cap.
# - Guards turn a broken history into an event, and a loop into one stop.

# %% [markdown]
# ## Exercises
#
# ### 1. A longer tail
# Double s06's summary tail (`CompactionConfig(tail_chars=160_000)`). Which of the 8 facts does it keep?
# Write the set of names.
#
# *Hint:* s06 first summarised during request 7: does twice the tail reach back to request 2? Recall s06
# whole.

# %% tags=["answer"]
ex1_kept = None  # e.g. {"first file changed", "c01_config's tag"}

# %%
answer("ex1_kept", ex1_kept)

# %% [markdown]
# ### 2. Clear nothing
# Which one knob of `ServerToolClearing` makes section 3's task clear nothing at `trigger=10_000`? A
# one-entry dict.

# %% tags=["answer"]
ex2_knob = None  # e.g. {"keep": 3}: one knob name and its value

# %%
answer("ex2_knob", ex2_knob)

# %% [markdown]
# ### 3. The summary where Codex puts it
# Move the usage run's summary (its first message) to just before the first assistant message, as
# Codex does [2], in a copy of its history.
#
# Both of Codex's paths put it after the user's words. The local one keeps `20_000` tokens of them [2].
# The remote one (v2) keeps `64_000`: it appends a `compaction_trigger` item to a normal request, whose
# history a prompt cache could serve (not verified), and OpenAI's server returns an encrypted item [13].
#
# *Hint:* with `history = by_key["usage"].session.messages` and `k` the first assistant message's index,
# `history[1:k] + [history[0]] + history[k:]`.

# %% tags=["answer"]
ex3_history = None  # your reordered copy of by_key["usage"].session.messages

# %%
if answer("ex3_history", ex3_history):
    reordered = copy.copy(by_key["usage"].session)
    reordered.messages = ex3_history
    print(f"{sum(probe_amnesia(reordered).remembered.values())} of 8 facts now (usage kept 6).")

# %% [markdown]
# ### 4. A ninth fact
# `tools/t03_edit.py` was asked about once, at request 19: its tag (`v3-edit`) was only in a tool result
# and the agent's answer. Write `ninth_probe`, then predict which runs keep the fact.
#
# *Hint:* compare request 19 with each run's `summaries` (section 6).
#
# **Write it,** then run the check after it (reference: `harness/labs/solutions/ch08.py`).

# %% jupyter={"source_hidden": true}
assert [n for n, r in enumerate(WORK_REQUESTS, start=1) if "t03_edit" in r] == [19]

# %% tags=["stub"]
def ninth_probe():
    """A Probe of t03_edit's tag: asked with tag_from_memory, expecting the tag's value, and graded by
    said_in (work requests, counted from 1) and source."""
    # A Probe (section 4) whose question asks for the tag from memory and whose grading tells when and
    # where the fact was said.
    # Trap: the work requests count from 1.
    raise NotImplementedError("your code here")

# %%
ninth_probe = check(ninth_probe)

# %% tags=["answer"]
ex4_keep = None    # e.g. {"none", "s06"}

# %%
answer("ex4_keep", ex4_keep)

# %% [markdown]
# ### 5. Grade a reply
# Write the probe's grading rule (section 4); the cell after the check regrades section 5.

# %% tags=["stub"]
def answered_from_memory(reply, tools, expect):
    """Whether a probe's reply counts as remembered.

    ``reply``: the reply's text; ``tools``: the names of the tools it called; ``expect``: the probe's
    phrases, each a string or a tuple of alternatives. Remembered: no tool called, and every phrase
    (for a tuple, any one of its alternatives) in the reply, ignoring case."""
    # Remembered, as the docstring says: nothing looked up, and every phrase found.
    # Trap: a string is one phrase, a tuple its alternatives; ignoring case means on both sides.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: if tools: False; said = reply.lower(); for each phrase of expect, alternatives = (phrase,) if it is a
# str, else phrase; if no p.lower() of them is in said: False; else True.

# %%
answered_from_memory = check(answered_from_memory)

# %%
regraded = {key: sum(answered_from_memory(a.reply, a.tools, a.probe.expect) for a in run.amnesia.answers)
            for key, run in by_key.items()}
print("facts kept, graded by the function in use:", regraded)

# %% [markdown]
# ## Recap
#
# Answer each, then compare with `RECAP` in `harness/labs/solutions/ch08.py`.
#
# 1. Why does every strategy run under a pretend 60,000-token window, with matched triggers?
# 2. Why does s06's first summary lose the three early facts?
# 3. Its control, s06 whole, was sent them. Why did it lose them too?
# 4. Why is clearing cheapest without caching, yet dearer than no compaction with it?
# 5. What does `Guarded` check after every compaction, and what does it make of a compaction loop?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Prompt caching" — https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#    (automatic caching)
# 2. openai/codex at `0100b103`, `codex-rs/core/src/compact.rs` (`build_compacted_history`,
#    `COMPACT_USER_MESSAGE_MAX_TOKENS`) and `codex-rs/protocol/src/openai_models.rs`
#    (`auto_compact_token_limit`, 90%) — https://github.com/openai/codex
# 3. Anthropic, "Context editing" — https://platform.claude.com/docs/en/build-with-claude/context-editing
#    (`clear_tool_uses_20250919`, its defaults, `clear_at_least` and prompt caching)
# 4. anthropics/claude-code #31806 and dust-tt/dust PR #23767 — readings of Claude Code's published
#    bundle (its trigger and nine headings: unverified)
# 5. Anthropic, "Compaction" — https://platform.claude.com/docs/en/build-with-claude/compaction
#    (`compact_20260112`)
# 6. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview
#    (legacy model; USD 1 in, 5 out per million tokens)
# 7. Anthropic, "Pricing" — https://platform.claude.com/docs/en/about-claude/pricing (cache writes
#    1.25×, reads 0.1×)
# 8. anthropics/claude-code #5594 and #8931 — https://github.com/anthropics/claude-code/issues/5594
#    (a 400 during compaction: `tool_use` without `tool_result`)
# 9. anthropics/claude-code #13379 — https://github.com/anthropics/claude-code/issues/13379 (autocompact
#    that triggers a new compact, again and again)
# 10. anthropics/claude-code `CHANGELOG.md` at `006e3e0b`, version 2.1.89 —
#     https://github.com/anthropics/claude-code/blob/main/CHANGELOG.md (the autocompact thrash loop)
# 11. Anthropic, "Claude Sonnet 4.6" — https://platform.claude.com/docs/en/models/sonnet-4-6/overview
#     (legacy model; USD 3 in, 15 out per million tokens); the compaction page [5] lists it among the
#     models compaction runs on, and not Haiku 4.5
# 12. anthropics/anthropic-sdk-python 2.17.0, `src/anthropic/types/beta/beta_compact_20260112_edit_param.py`
#     (`BetaCompact20260112EditParam`: `type`, `trigger`, `pause_after_compaction`, `instructions`; no
#     field for the summary's size) — https://github.com/anthropics/anthropic-sdk-python
# 13. openai/codex at `009bd870`, `codex-rs/core/src/compact_remote_v2.rs`
#     (`RETAINED_MESSAGE_TOKEN_BUDGET = 64_000`;
#     `run_remote_compact_task_inner_impl` pushes `ResponseItem::CompactionTrigger` after the normal
# prompt input;
#     `build_v2_compacted_history` puts the server's `compaction` item last) and pull request #22809 —
#     https://github.com/openai/codex/pull/22809 (nothing there says the prompt cache is the reason)
