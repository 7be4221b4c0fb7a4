# %% [markdown]
# # 11 · Memory across sessions
#
# **Promise:** you will give the agent a folder of notes that outlives its context, write the check that
# keeps every note inside that folder, and measure what the notes buy: files read and tokens billed in a
# second conversation, facts kept across compactions, and a stale answer when a note is out of date.
#
# Every chapter so far fought for room inside one context. Compaction keeps the conversation going, but
# whatever the summary drops is gone, and a new conversation starts from nothing. The API's **memory
# tool** takes a different road: the model writes what it learns to files under `/memories`, and reads
# them back later, in the same conversation after a compaction or in a new one.
#
# ## What you will be able to do
#
# - say what the real memory tool is (`memory_20250818`: six commands, client-side), offer it in a request
#   the way the API expects, and read the 400 a malformed one gets;
# - write the path check of the memory handler, check it against the harness on hostile paths, and run
#   two sessions on it;
# - measure a second session with and without memory (files read, tokens billed) and compare with the
#   cookbook's figure;
# - measure graded retention across compactions with and without memory, with a control that isolates
#   the cause (memory offered, but no notice to save before compaction);
# - show a stale answer from memory and guard against it;
# - choose *when* to ask the agent to save, with a slider.

# %% [markdown]
# ## Setup
#
# Working files go to `_work/11_memory/`, inside a fresh folder under `_work/` for each run, removed when the
# kernel stops.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
from harness.labs.parallel import start_workers

start_workers()  # this chapter's sweeps run on every core: their workers start now, in the background

import anthropic
import matplotlib.pyplot as plt
from IPython.display import display
from ipywidgets import SelectionSlider

from harness import DEFAULT_MODEL, Workspace
from harness.core.tools import PathEscape
from harness.fake import fake_client
from harness.labs.amnesia import WORK_REQUESTS, probe_amnesia
from harness.labs.memory_lab import (GUARD_REQUEST, SECOND_SESSION, FlushPoint, first_session, flush_figure,
                                     flush_sweep, probe_memory, retention_map, second_session, sessions_figure)
from harness.labs.panel import panel
from harness.labs.scratch import own_scratch
from harness.labs.steps import check
from harness.labs.yours import compare
from harness.memory.store import MemoryStore, memory_path
from harness.memory.toolbox import MEMORY_TOOL
from harness.strategies.registry import PRETEND_WINDOW

WORK = own_scratch("11_memory")
print(f"the memory tool as a request offers it: {MEMORY_TOOL}; the pretend window: {PRETEND_WINDOW:,} tokens")

# %% [markdown]
# ## 1 · The real tool
#
# What the documentation says
# ([memory tool](https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool)): the tool is
# **client-side**. The model asks for one of six commands on paths under `/memories` (`view`, `create`,
# `str_replace`, `insert`, `delete`, `rename`) and *your* application runs them on storage you choose; the
# page asks you to confine every operation to `/memories`. With the tool offered, Claude checks its memory
# directory before it starts a task, and the API adds an instruction about memory to the system prompt.
# The page asks for the beta header `context-management-2025-06-27`.
#
# The command fields are the SDK's types (`BetaMemoryTool20250818ViewCommand` and its five siblings in
# `anthropic.types.beta`, anthropic 2.14.0): `path`, `view_range`, `file_text`, `old_str`, `new_str`,
# `insert_line`, `insert_text`, `old_path`, `new_path`. The result texts of `harness.memory.store` follow
# the SDK's own file-based helper (`anthropic/lib/tools/_beta_builtin_memory_tool.py`,
# `BetaLocalFilesystemMemoryTool`), with three choices of ours, named in the module's docstring (`create`
# overwrites, as the docs say and the helper does not; directory sizes are the sum of their files; the path
# must be `/memories` or start with `/memories/`).
#
# What the fake leaves out, so *unverified or simplified here*: it does not require the beta header, it
# does not count the tokens of the API's memory instruction, and that instruction's exact wording is not
# reproduced. A request names the tool by type, not by schema, and the offline server checks it with the
# fields of the SDK's `BetaMemoryTool20250818Param`:

# %%
client = fake_client()
ask = dict(model=DEFAULT_MODEL, max_tokens=200, messages=[{"role": "user", "content": "What is in memory?"}])
first_move = client.messages.create(tools=[MEMORY_TOOL], **ask).content[0]
print("offered:", first_move.type, first_move.name, first_move.input)
try:
    client.messages.create(tools=[{"type": "memory_20250818", "name": "notes"}], **ask)
except anthropic.BadRequestError as error:
    refusal = error.body["error"]["message"]
print("misnamed:", refusal)

# %%
assert (first_move.name, first_move.input) == ("memory", {"command": "view", "path": "/memories"})
assert refusal == "tools.0.memory_20250818.name: Input should be 'memory'"

# %% [markdown]
# The fake's first move is to look at `/memories`, as the docs say Claude does. It decides that from what it
# sees (the tool offered and no view of `/memories` in the request), never from knowing the experiment
# (*this fake*; the docs describe the same habit for Claude).
#
# ## 2 · Build: the path check
#
# The handler is plain file work once a path is known to be safe. The one piece that must be right is the
# check: every path the model names must end up inside the memory folder, and a hostile one must get an
# error *before* anything is touched. Write `my_memory_path(path)`: return the path relative to the memory
# folder (`""` for `/memories` itself), or raise `PathEscape` for
#
# 1. anything that is not a non-empty string, or holds a NUL byte;
# 2. a path that is neither `/memories` nor starts with `/memories/` (so `/etc/passwd`, `memories/a`,
#    `/memoriesX/a`);
# 3. a `..` part anywhere (`/memories/../x`, `/memories/a/../../b`).
#
# Drop `.` parts. Symlinks are not your job: the store then walks the relative path one folder at a
# time through open folder handles and refuses any symlink on the way, so a folder swapped for a link
# between your check and the write still cannot lead out; it writes a temporary file and renames it
# over the old one, as the SDK's helper does.
#
# **Write it.** Fill in the stub, run it, and run the cell after it, which checks yours against the
# reference on many paths and says *not written yet*, where yours differs, or that it passes. Until
# yours passes, the chapter runs the reference (stuck? it is in `harness/labs/solutions/ch11.py`).

# %% tags=["stub"]
def my_memory_path(path):
    """The path relative to the memory folder ("" for /memories itself), or PathEscape."""
    # rule 1: PathEscape unless path is a non-empty str without "\x00"
    # rule 2: PathEscape unless path is "/memories" or starts with "/memories/"
    # the parts after "/memories" (split on "/"); rule 3: PathEscape if one of them is ".."
    # return the other parts joined by "/", without the empty ones and the "." ones
    raise NotImplementedError("your code here")

# %%
my_memory_path = check(my_memory_path)

# %% [markdown]
# `compare` runs the function in use (yours once it passes) and the harness's `memory_path` on the chapter's
# paths and reports the first difference of each failing one; an exception counts by its type.

# %%
PATHS = ["/memories", "/memories/", "/memories/a.md", "/memories/notes/a.md", "/memories/./a.md",
         "/memories//a.md", "/memories/a/./b/c.md", "/memories/a..b.md", "/memories/..a", "/memories/../x",
         "/memories/a/../../x", "/memories/a/..", "../x", "/etc/passwd", "memories/a", "/memoriesX/a",
         "/memories/a\x00b", "", None, 7, "/tmp/memories/a", "/Memories/a", "//memories/a", "/memories/ a.md"]
path_check = compare("memory_path", my_memory_path, memory_path, [(repr(p), (p,)) for p in PATHS])
print(path_check)

# %%
assert path_check.ok and path_check.cases == len(PATHS) == 24

# %% [markdown]
# Your check inside the store: every command on a hostile path gets an error result the model can read,
# and the folder stays exactly as it was.

# %%
store = MemoryStore(WORK / "demo" / "memories", check=my_memory_path)
print(store.run({"command": "create", "path": "/memories/notes.md", "file_text": "first line\nsecond line\n"}).content)
print(store.run({"command": "insert", "path": "/memories/notes.md", "insert_line": 1, "insert_text": "between"}).content)
print(store.run({"command": "view", "path": "/memories/notes.md"}).content)
before = sorted(p.name for p in (WORK / "demo").rglob("*"))
hostile = [store.run({"command": c, "path": p, **extra})
           for c, extra in (("view", {}), ("delete", {}), ("create", {"file_text": "x"}))
           for p in ("/memories/../escape.md", "/etc/passwd", "/memories/a\x00")]
print(hostile[0].content)
print(sum(o.is_error for o in hostile), "of", len(hostile), "hostile commands refused")

# %%
assert all(o.is_error for o in hostile) and len(hostile) == 9
assert sorted(p.name for p in (WORK / "demo").rglob("*")) == before == ["memories", "notes.md"]

# %% [markdown]
# ## 3 · Two sessions on one workspace
#
# The first session is the long session's first 30 requests (chapter 08's scenario) under chapter 08's
# enforced window of 60,000 tokens, with the reference agent's three layers (auto-compaction at 50,000
# estimated tokens). With memory, two things are added, and only these: the memory tool is offered (your
# check guards it), and `FlushBeforeCompaction` appends one notice to the last user message once the
# context passes 80% of the trigger:
#
# > `[harness] The context will be compacted soon: save what you need to memory now.`
#
# A model cannot save before a compaction it cannot see coming; the notice makes it visible. The session
# ends with *"Save what you have learned to memory before this session ends."* Memory results are kept by the
# micro layer like `read_file` results (`preserve_tools`), in both variants.
#
# Claude Code's `PreCompact` hook ([hooks](https://code.claude.com/docs/en/hooks#precompact)) and Codex's
# (openai/codex PR #19905) run a command of the user's just before a compaction; neither is a turn in which
# the model itself decides what to save, which is what the notice asks for. That the API warns Claude
# before context editing clears tool results is said only in third-party write-ups we found: unverified.
#
# The second session is a **new conversation** on the same workspace (a copy of it, and of the memory
# folder) with seven requests that need what the first one learned: summarise `agents/` and `core/`
# again, two tags the first session set, the standing rule about `tools/`, an edit that rule forbids, and
# the first file changed.

# %%
first_with = first_session(WORK / "first_with", check=my_memory_path)
first_without = first_session(WORK / "first_without", memory=False)
second_with = second_session(first_with, WORK / "second_with", check=my_memory_path)
second_without = second_session(first_without, WORK / "second_without", memory=False)
for name, run in (("first, with memory", first_with), ("first, without", first_without),
                  ("second, with memory", second_with), ("second, without", second_without)):
    s = run.session.stats
    print(f"{name:<20} files read {run.reads:>3}  memory calls {run.memory_calls:>2}  model calls {s.model_calls:>3}"
          f"  billed {s.input_tokens_billed:>9,}  summaries {s.summary_calls}")
print("\nmemory after the first session:", {path: len(text) for path, text in first_with.memory_text().items()})

# %%
assert (first_with.reads, first_without.reads, second_with.reads, second_without.reads) == (53, 63, 1, 26)
assert (second_with.session.stats.input_tokens_billed, second_without.session.stats.input_tokens_billed) == \
    (41_796, 901_545)
assert (first_with.session.stats.input_tokens_billed, first_without.session.stats.input_tokens_billed) == \
    (2_509_922, 2_603_699)
assert sorted(first_with.memory_text()) == [f"/memories/{n}.md" for n in ("agents", "core", "plugins", "rules", "tools")]

# %% [markdown]
# What the second session answered, request by request, with memory and without:

# %%
for request, mine, other in zip(SECOND_SESSION, second_with.session.answers, second_without.session.answers):
    if request.startswith("Read every"):
        mine, other = mine.splitlines()[-1], other.splitlines()[-1]
    print(f"> {request}\n  with:    {mine}\n  without: {other}")
print("the one file read with memory:", [i["path"] for n, i in second_with.session.tool_calls if n == "read_file"])

# %%
answers_with, answers_without = second_with.session.answers, second_without.session.answers
assert answers_with[5].startswith("I will not change tools/t05_shell.py")
assert answers_without[5] == 'Changed VERSION_TAG in tools/t05_shell.py to "v5-unsafe".'
assert answers_with[6].endswith("agents/s03_todo_write.py.") and answers_without[6].endswith("tools/t05_shell.py.")

# %%
display(sessions_figure({"first (30 requests)": (first_with, first_without),
                         "second (7 requests)": (second_with, second_without)}))
plt.close("all")

# %% [markdown]
# In the second session memory cut the files read from **26 to 1** and the input billed from **901,545 to
# 41,796** tokens: the two folder summaries came from notes, not from 24 reads. The one file read is
# `core/c12_shutdown.py`: its note was still in the context, not yet saved, when the first session compacted. More important than the
# tokens: without memory the new conversation did not know the rule about `tools/`, **edited the vendored
# file** the user had forbidden, and named that edit as the first change. The first session costs a little
# less with memory too (53 reads instead of 63): after a compaction it answers a tag question from its
# notes instead of reading the file again.
#
# Which of this holds for *any model*: a new conversation can know only what its request holds, so without
# memory the rule is gone and the summaries must be re-read. How *much* is saved is *this fake*'s: it
# trusts its notes for purposes and tags completely, and a summary request asks for nothing a note cannot
# hold. The Anthropic cookbook `tool_use/context_engineering/context_engineering_tools.ipynb`
# (anthropics/claude-cookbooks) reports, for a research agent with real Claude, **4 reads instead of 8** in
# a second session with memory; we have not re-run it (it needs an API key) and could not re-check the
# figure in the stored sources, so take it as reported. Our 26 → 1 is a far larger cut because this fake
# never doubts a note; a real model re-reads more.

# %%
assert (26 - 1, round(901_545 / 41_796)) == (25, 22)
assert "Note: core/c12_shutdown.py" not in first_with.memory_text()["/memories/core.md"]
assert [i["path"] for n, i in second_with.session.tool_calls if n == "read_file"] == ["core/c12_shutdown.py"]

# %% [markdown]
# ## 4 · Retention across compactions, graded
#
# Now the whole long session (68 work requests, two or three compactions), and chapter 08's graded probe
# of eight facts on its final history. With memory the probe may *view* memory before it answers (the
# probe's question says "without opening any file"; a note is not a workspace file), but reading a
# workspace file or writing memory counts as not remembering (`probe_memory`).
#
# Three variants at matched settings (same window, trigger, requests and loop):
#
# - **without memory**: the reference agent as in chapter 08;
# - **memory + flush**: the tool offered, the notice at 80% of the trigger;
# - **memory, no notice** (the control): the tool offered, but nothing ever says a compaction is coming.

# %%
full_without = first_session(WORK / "full_without", WORK_REQUESTS, memory=False, save_at_end=False)
full_flush = first_session(WORK / "full_flush", WORK_REQUESTS, save_at_end=False, check=my_memory_path)
full_control = first_session(WORK / "full_control", WORK_REQUESTS, flush_at=None, save_at_end=False,
                             check=my_memory_path)
retention = {"without memory": probe_amnesia(full_without.session), "memory + flush": probe_memory(full_flush),
             "memory, no notice": probe_memory(full_control)}
for name, run in (("without memory", full_without), ("memory + flush", full_flush), ("memory, no notice", full_control)):
    s = run.session.stats
    print(f"{name:<18} kept {sum(retention[name].remembered.values())}/8  files read {run.reads:>3}  "
          f"memory calls {run.memory_calls:>2}  compactions {s.compactions.get('auto', 0)}  billed {s.input_tokens_billed:,}")
    print(f"{'':18} lost: {', '.join(retention[name].forgotten) or 'nothing'}")

# %%
kept = {name: sum(report.remembered.values()) for name, report in retention.items()}
assert kept == {"without memory": 4, "memory + flush": 8, "memory, no notice": 4}
assert retention["memory, no notice"].forgotten == retention["without memory"].forgotten
assert (full_without.reads, full_flush.reads, full_control.reads) == (94, 63, 94)
assert full_control.memory_calls == 1 + full_control.session.stats.compactions["auto"] == 4  # a view after each
assert [r.session.stats.input_tokens_billed for r in (full_without, full_flush, full_control)] == \
    [5_068_275, 4_255_399, 5_035_605]

# %%
display(retention_map(retention))
plt.close("all")

# %% [markdown]
# With the notice, memory kept **all 8** facts where the agent without memory kept **4**; it read 63 files
# instead of 94 and was billed 16% less. The control settles what caused it: with the tool offered
# but no notice, the agent kept the same 4 facts and lost the same 4, read as many files (94), and was billed
# within 1% of the agent without memory (it checks memory after each compaction and finds nothing). So the gain is the **save before the
# compaction**, not the tool's presence (*any model*: a model that is never told a compaction is coming has
# no reason to write then; whether a real model saves *unprompted* as it goes is not tested here, and the
# docs' instruction to keep memory up to date may make it do so).

# %%
assert (kept["memory + flush"], kept["without memory"], round(100 * (1 - 4_255_399 / 5_068_275))) == (8, 4, 16)
assert abs(5_035_605 / 5_068_275 - 1) < 0.01

# %% [markdown]
# ## 5 · When a note is out of date
#
# A note is a snapshot. Suppose a teammate changes `agents/s03_todo_write.py` between the two sessions. The
# second session asks for its tag; memory still says `v3-planning`.

# %%
def teammate_edits(run):
    workspace = Workspace(run.root / "workspace")
    workspace.edit_file("agents/s03_todo_write.py", 'VERSION_TAG = "v3-planning"', 'VERSION_TAG = "v3-replanned"')
    return run


question = "What is VERSION_TAG in agents/s03_todo_write.py?"
stale = second_session(teammate_edits(second_session(first_with, WORK / "edited", ())), WORK / "stale", (question,))
guarded = second_session(teammate_edits(second_session(first_with, WORK / "edited2", ())), WORK / "guarded",
                         (GUARD_REQUEST, question))
print("trusting memory:", stale.session.answers[-1], "| files read:", stale.reads)
print("with the guard: ", guarded.session.answers[-1], "| files read:", guarded.reads)

# %%
assert stale.session.answers[-1] == 'VERSION_TAG in agents/s03_todo_write.py is "v3-planning" (from memory).'
assert guarded.session.answers[-1] == 'VERSION_TAG in agents/s03_todo_write.py is "v3-replanned".'
assert (stale.reads, guarded.reads) == (0, 1)

# %% [markdown]
# Trusting the note gives the **stale** answer, with no sign that anything is wrong. The guard here is one
# standing instruction, *"From now on, check a file before you trust what memory says about it."*: the
# agent saves it with the other rules, so it holds in every later session too, and it reads the file (one
# read) before it states a value. That a note can go stale is true of *any model* and any memory; how the
# guard is obeyed is *this fake*'s (it applies the guard to tag values only, not to file purposes, which
# never change in these scenarios). Other guards the student can build: record with each note what it was
# read from and when, and check that first; or let the harness delete a note when the file it describes is
# written.
#
# ## 6 · Your turn: when to ask for the save
#
# The notice's timing is a knob. Too early, and what the session learns between the notice and the
# compaction is never saved; too late, and there is little room left to save in. The sweep below runs the
# whole long session once per fraction (about a second each) and probes it; the slider only looks the
# results up.

# %%
FRACTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
sweep = flush_sweep(WORK / "sweep", FRACTIONS)
baseline = FlushPoint(0.0, kept["without memory"], retention["without memory"].forgotten,
                          full_without.session.stats.input_tokens_billed, full_without.reads, 0)
for point in sweep:
    print(f"{point.at:.0%}: kept {point.kept}/8, billed {point.billed:,}, files read {point.reads}, "
          f"lost: {', '.join(point.forgotten) or 'nothing'}")

# %%
assert [p.kept for p in sweep] == [7, 8, 8, 8, 8, 8]
assert sweep[0].forgotten == ("first file changed",)
assert [p.billed for p in sweep] == [4_929_249, 4_783_898, 4_564_953, 4_296_812, 3_987_787, 4_078_964]
assert min(sweep, key=lambda p: p.billed).at == 0.9

# %% tags=["nbval-ignore-output"]
flush_slider = panel(
    flush_figure,
    at=SelectionSlider(options=[(f"{a:.0%}", a) for a in FRACTIONS], value=0.8,
                       description="flush notice at (of the trigger)"),
    points=sweep, baseline=baseline)

# %% [markdown]
# Why 50% loses a fact: when did the notices and the summaries come, and what did `rules.md` end up saying?

# %%
early = first_session(WORK / "early", WORK_REQUESTS, flush_at=0.5, save_at_end=False, check=my_memory_path)


def requests_where(session, happened):
    """The requests (1-based) during which an agent call matched ``happened``; a request ends on a call with no tool."""
    request, found = 1, []
    for t in session.trace:
        if t.kind == "agent" and happened(t):
            found.append(request)
        request += t.kind == "agent" and not t.tools
    return found


notices = requests_where(early.session, lambda t: "flush notice" in t.layers)
summaries = requests_where(early.session, lambda t: "auto" in t.layers)
print("notices during requests", notices, "| summaries before a call of requests", summaries)
print(early.memory_text()["/memories/rules.md"])

# %%
assert (notices, summaries) == ([2, 12, 39], [6, 28])
assert 'In core/c06_storage.py, change VERSION_TAG to "v6-append-only".' in early.memory_text()["/memories/rules.md"]

# %% [markdown]
# At 50% the first notice comes during request 2, *before* the first edit request (request 3); the agent
# saves what it knows then, and the compaction during request 6 takes request 3 away before any later
# notice. By the next notice (request 12) the oldest edit request still in view is request 7's, so memory
# now records `core/c06_storage.py` as the first change: a confident, wrong note. From 60% on every fact is
# kept; a later notice also costs less here, and 90% is the cheapest (why 95% is a little dearer we did not
# trace). All of that is *this fake*'s arithmetic on this session; the shape (a notice too early misses
# what follows it) holds for *any model* that saves only when told.
#
# ## Summary
#
# - The memory tool (`memory_20250818`) is client-side: six commands on `/memories`, run by your code; the
#   one piece that must be right is the path check. You wrote it; the one in use agreed with the harness
#   on 24 paths, and 9 hostile commands were refused without touching the folder.
# - A second conversation with memory read 1 file instead of 26 and was billed 41,796 input tokens instead
#   of 901,545; without memory it broke the user's standing rule and edited a vendored file (*any model*
#   forgets what its request does not hold; the size of the cut is *this fake*'s; the cookbook reports 4
#   reads instead of 8 with real Claude).
# - Across the long session's compactions memory kept 8 of 8 graded facts where the agent without it kept
#   4, at 16% fewer tokens billed; the control (memory offered, no notice) kept the same 4 as no memory: the
#   gain comes from saving *before* the compaction.
# - A note is a snapshot: after a teammate's edit the agent answered from memory with the stale tag; one
#   standing instruction to check files first fixed it, for one read.
# - The notice's timing matters: at 50% of the trigger the first notice came before the first edit, and memory
#   later named the wrong first file; from 60% on no fact was lost; 90% was cheapest.
#
# Next, chapter 12: better summaries (incremental, self-checked, prepared ahead of time).

# %%
assert (path_check.cases, len(hostile), second_with.reads, second_without.reads) == (24, 9, 1, 26)
assert (kept["memory + flush"], kept["without memory"], kept["memory, no notice"], sweep[0].kept) == (8, 4, 4, 7)

# %% [markdown]
# ## Exercises
#
# ### 1. Which notes did the second session use?
# The second session with memory viewed some memory files and not others. Predict the set of memory paths it
# viewed (for example `{"/memories", "/memories/agents.md"}`), then run the check.

# %%
viewed_paths = None  # a set of paths

# %%
if viewed_paths is None:
    print("Exercise 1: fill in viewed_paths, then run this cell.")
else:
    truth = {i["path"] for n, i in second_with.session.tool_calls if n == "memory" and i["command"] == "view"}
    assert viewed_paths == truth, f"not quite: missing {truth - viewed_paths}, extra {viewed_paths - truth}"
    print("Exercise 1: correct.")

# %% [markdown]
# ### 2. A path check that also hides dot-files
# The SDK's helper leaves hidden items (names starting with `.`) out of a listing. Write
# `no_hidden_memory_path`, your check plus one rule: refuse any part that starts with `.` (other than a lone
# `.`, which you drop). The check runs it on the paths `my_memory_path` is checked on.

# %% tags=["stub"]
def no_hidden_memory_path(path):
    """my_memory_path, and also PathEscape for any part that starts with "." (a lone "." is dropped)."""
    # your path check first; then look at the parts of what it returns
    raise NotImplementedError("your code here")

# %%
no_hidden_memory_path = check(no_hidden_memory_path)

# %% [markdown]
# ### 3. The cheapest safe notice
# Using `sweep`, which flush fractions keep all 8 facts? Of those, which is billed the fewest tokens? Fill in
# both (a set of fractions, and one fraction), then run the check.

# %%
all_kept, cheapest = None, None

# %%
if all_kept is None or cheapest is None:
    print("Exercise 3: fill in all_kept and cheapest, then run this cell.")
else:
    truth = {p.at for p in sweep if p.kept == 8}
    assert all_kept == truth, f"not quite: missing {truth - all_kept}, extra {all_kept - truth}"
    best = min((p for p in sweep if p.kept == 8), key=lambda p: p.billed).at
    assert cheapest == best, f"{cheapest} is not the cheapest of those; look at the billed column"
    print("Exercise 3: correct.")

# %% [markdown]
# ## Recap
#
# Answer each in a sentence or two before you look (the answers are `RECAP` in
# `harness/labs/solutions/ch11.py`).
#
# 1. Why must a hostile path be refused before anything is touched, and why is
#    `path.startswith("/memories")` not enough?
# 2. Why are symlinks not the path check's job, and what stops a folder swapped for a link?
# 3. What did the control (memory offered, no notice) show about where the gain comes from?
# 4. How can a note give a wrong answer with no sign of it, and what guarded against it here?
# 5. Why did a notice at 50% of the trigger lose a fact?
