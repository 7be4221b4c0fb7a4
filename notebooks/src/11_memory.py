# %% [markdown]
# # 11 · Memory across sessions
#
# **The promise:** you give the agent a folder of notes that outlives its context, keep every note inside
# it, and measure what the notes buy.
#
# By the end of this chapter you will be able to:
#
# - offer the memory tool (`memory_20250818`) and write its path check;
# - measure what memory saves in a second session, and what it keeps through compaction;
# - spot a stale note, and judge when to ask for a save.
#
# **Reading time:** about 25 minutes (stubs included).
#
# A summary drops things, and a new conversation starts from nothing. With the API's **memory tool** the
# model writes what it learns to files under `/memories`, and reads them later [1].

# %% [markdown]
# ## Setup
#
# Working files go to `_work/11_memory/`, fresh each run.

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
from harness.fake.memory import API_MEMORY_INSTRUCTIONS
from harness.labs.amnesia import WORK_REQUESTS, probe_amnesia
from harness.labs.memory_lab import (GUARD_REQUEST, MEMORY_CONFIG, SECOND_SESSION, FlushPoint, first_session, flush_figure,
                                     flush_sweep, probe_memory, retention_map, second_session, sessions_figure)
from harness.labs.panel import panel
from harness.labs.scratch import own_scratch
from harness.labs.steps import answer, check
from harness.labs.yours import compare
from harness.memory.store import MemoryStore
from harness.memory.toolbox import MEMORY_TOOL
from harness.strategies.registry import PRETEND_WINDOW

WORK = own_scratch("11_memory")
print(f"the memory tool as a request offers it: {MEMORY_TOOL}; the pretend window: {PRETEND_WINDOW:,} tokens")
print("what the fake reads after the system prompt when memory is offered:", API_MEMORY_INSTRUCTIONS)

# %% [markdown]
# ## 1 · The real tool
#
# The memory tool is **client-side**: the model asks for one of six commands (`view`, `create`,
# `str_replace`, `insert`, `delete`, `rename`), and *your* code runs it inside `/memories` [1].
#
# Offering the tool also adds instructions to the system prompt [1]: view memory first, record progress
# as you go, assume the context may be reset. The fake reads their gist.
#
# The tool is generally available [1], with no beta prefix in the SDK [2]. Our store's result texts follow
# the SDK's helper [3].

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

# %% [markdown]
# The fake first views `/memories`, since nothing in the request shows it has looked; the docs say Claude
# does the same [1]. A misnamed tool is refused.

# %% jupyter={"source_hidden": true}
assert (first_move.name, first_move.input) == ("memory", {"command": "view", "path": "/memories"})
assert refusal == "tools.0.memory_20250818.name: Input should be 'memory'"

# %% [markdown]
# **Holds for:** *this fake* (the first view).
#
# ## 2 · Build: the path check
#
# The model picks every path, so a hostile one must be refused *before* anything is touched. Write
# `my_memory_path(path)`: return the path relative to the memory folder (`""` for `/memories`), or raise
# `PathEscape` for
#
# 1. anything that is not a non-empty string, or holds a NUL byte;
# 2. a path that is neither `/memories` nor starts with `/memories/` (`/etc/passwd`, `memories/a`, `/memoriesX/a`);
# 3. a `..` part anywhere (`/memories/../x`, `/memories/a/../../b`).
#
# Drop `.` parts. Symlinks are not your job (a string cannot see the disk): the store walks the path
# through open folder handles and refuses any symlink.
#
# **Write it**, then run the check; until yours passes, the chapter runs the reference.

# %% tags=["stub"]
def my_memory_path(path):
    """The path relative to the memory folder ("" for /memories itself), or PathEscape."""
    # The three rules above, each raising PathEscape, then the path below /memories, tidied.
    # Trap: "/memoriesX/a" starts with "/memories"; "a..b.md" holds ".." but is a name.
    raise NotImplementedError("your code here")

# %% jupyter={"source_hidden": true} tags=["hint"]
# Hint: refuse a non-str, "" and a NUL; accept only path == "/memories" or path.startswith("/memories/");
# parts = path.split("/")[2:]; refuse ".." in parts; return "/".join of the parts that are not "" or ".".

# %%
my_memory_path = check(my_memory_path)

# %% [markdown]
# `compare` runs yours and the harness's `memory_path` on 24 paths (exceptions compared by type).

# %%
PATHS = ["/memories", "/memories/", "/memories/a.md", "/memories/notes/a.md", "/memories/./a.md",
         "/memories//a.md", "/memories/a/./b/c.md", "/memories/a..b.md", "/memories/..a", "/memories/../x",
         "/memories/a/../../x", "/memories/a/..", "../x", "/etc/passwd", "memories/a", "/memoriesX/a",
         "/memories/a\x00b", "", None, 7, "/tmp/memories/a", "/Memories/a", "//memories/a", "/memories/ a.md"]
from harness.memory.store import memory_path  # the harness's own check, now that yours is checked

path_check = compare("memory_path", my_memory_path, memory_path, [(repr(p), (p,)) for p in PATHS])
print(path_check)

# %% jupyter={"source_hidden": true}
assert path_check.ok and path_check.cases == len(PATHS) == 24

# %% [markdown]
# In the store, all 9 hostile commands below get an error, and the folder stays as it was.

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

# %% jupyter={"source_hidden": true}
assert all(o.is_error for o in hostile) and len(hostile) == 9
assert sorted(p.name for p in (WORK / "demo").rglob("*")) == before == ["memories", "notes.md"]

# %% [markdown]
# ## 3 · Two sessions on one workspace
#
# Memory pays off in the next conversation, which reads the notes instead of the files. The first session
# is the long session's first 30 requests, under chapter 08's 60,000-token window.
#
# With memory, a layer (`FlushBeforeCompaction`) adds one notice once the context passes 80% of the
# compaction trigger:
#
# > `[harness] The context will be compacted soon: save what you need to memory now.`
#
# The API warns Claude similarly before context editing [1]; Claude Code's `PreCompact` hook [4] and
# Codex's [5] run a user's command. The session ends with *"Save what you have learned to memory
# before this session ends."*
#
# **What the fake saves** follows one rule: all it knows about each file it has seen (purpose, plan,
# `VERSION_TAG`), and the user's standing instructions; no log of the requests.
#
# The second session is a **new conversation** on a copy of the workspace and memory, priced as Claude
# Haiku 4.5 (a legacy model [6]).

# %%
first_with = first_session(WORK / "first_with", check=my_memory_path)
first_without = first_session(WORK / "first_without", memory=False)
second_with = second_session(first_with, WORK / "second_with", check=my_memory_path)
second_without = second_session(first_without, WORK / "second_without", memory=False)
print(f"{'session':<20} {'reads':>5} {'memory':>6} {'billed':>10} {'cached $':>9} {'uncached $':>10}")
for name, run in (("first, with memory", first_with), ("first, without", first_without),
                  ("second, with memory", second_with), ("second, without", second_without)):
    print(f"{name:<20} {run.reads:>5} {run.memory_calls:>6} {run.session.stats.input_tokens_billed:>10,}"
          f" {run.dollars():>9.3f} {run.dollars(caching=False):>10.3f}")
print("\nmemory after the first session:", {path: len(text) for path, text in first_with.memory_text().items()})


def requests_where(session, happened):
    """The requests (1-based) during which an agent call matched ``happened``; a request ends on a call with no tool."""
    request, found = 1, []
    for t in session.trace:
        if t.kind == "agent" and happened(t):
            found.append(request)
        request += t.kind == "agent" and not t.tools
    return found


def is_notice(t):
    return "flush notice" in t.layers


calls = [t for t in first_with.session.trace if t.kind == "agent"]
jump = next(before for before, after in zip(calls, calls[1:]) if "auto" in after.layers)  # the call before a compaction
print(f"the call before the first compaction: {jump.input_tokens:,} tokens in, asked for {len(jump.tools)} reads;",
      "compactions in requests", requests_where(first_with.session, lambda t: "auto" in t.layers),
      "| notices:", requests_where(first_with.session, is_notice))

# %% [markdown]
# The folded cell checks these figures.

# %% jupyter={"source_hidden": true}
assert (PRETEND_WINDOW, len(WORK_REQUESTS), len(SECOND_SESSION)) == (60_000, 68, 7)
assert first_session.__kwdefaults__["flush_at"] == 0.8 and "haiku-4-5" in DEFAULT_MODEL
assert first_session.__defaults__ == (WORK_REQUESTS[:30],)
assert (first_with.reads, first_without.reads, second_with.reads, second_without.reads) == (54, 61, 12, 26)
assert (second_with.session.stats.input_tokens_billed, second_without.session.stats.input_tokens_billed) == \
    (219_536, 352_577)
assert (round(second_with.dollars(), 2), round(second_without.dollars(), 2)) == (0.07, 0.16)
assert (round(second_with.dollars(caching=False), 2), round(second_without.dollars(caching=False), 2)) == (0.23, 0.36)
assert (round(first_with.dollars(), 2), round(first_without.dollars(), 2)) == (0.41, 0.42)
assert jump.input_tokens == 27_191 < 0.8 * MEMORY_CONFIG.threshold and MEMORY_CONFIG.threshold == 50_000
assert jump.tools == ("read_file",) * 12 and requests_where(first_with.session, lambda t: "auto" in t.layers) == [6, 28]
assert requests_where(first_with.session, is_notice) == [] and "Note: core/" not in first_with.memory_text()["/memories/core.md"]
assert [i["path"] for n, i in second_with.session.tool_calls if n == "read_file"] == \
    [f"core/{p.name}" for p in sorted((second_with.root / "workspace" / "core").glob("*.py"))]
assert sorted(first_with.memory_text()) == [f"/memories/{n}.md" for n in ("agents", "core", "plugins", "rules", "tools")]

# %% [markdown]
# The second session's answers; watch the change to the vendored `tools/t05_shell.py`:

# %%
for request, mine, other in zip(SECOND_SESSION, second_with.session.answers, second_without.session.answers):
    if request.startswith("Read every"):
        mine, other = mine.splitlines()[-1], other.splitlines()[-1]
    print(f"> {request}\n  with:    {mine}\n  without: {other}")

# %% [markdown]
# With memory the agent refuses: the user's rule is in its notes.

# %% jupyter={"source_hidden": true}
answers_with, answers_without = second_with.session.answers, second_without.session.answers
assert answers_with[5].startswith("I will not change tools/t05_shell.py")
assert answers_without[5] == 'Changed VERSION_TAG in tools/t05_shell.py to "v5-unsafe".'
assert answers_with[6].endswith("tools/t05_shell.py.") and answers_without[6].endswith("tools/t05_shell.py.")

# %%
display(sessions_figure({"first (30 requests)": (first_with, first_without),
                         "second (7 requests)": (second_with, second_without)}))
plt.close("all")

# %% [markdown]
# Memory more than halves the second session's reading: **12 files instead of 26**.
#
# Without memory the new conversation **edits the vendored file**: nothing in its request carries the
# user's rule. Neither names the true first change: memory keeps no log of requests.
#
# The size of the cut is the fake's, which trusts its notes completely; the Anthropic cookbook reports
# real Claude reading about half as many files [7].
#
# **The fake reads a listing in one turn** of parallel calls. In the first session's request 6, one took
# the context from 27,191 tokens past the 50,000 trigger, before any notice.
#
# **Holds for:** *any model* (the edit without memory); *this fake* (the size of the cut, the parallel reads).
#
# ## 4 · Retention across compactions, graded
#
# Inside one long session, a fact the summary drops can live on in a note. Run all 68 requests, then
# chapter 08's probe of eight facts, which may *view* memory; opening a file counts as forgetting:
#
# - **without memory**, as in chapter 08;
# - **memory + notice** at 80% of the trigger;
# - **memory, no notice**: the API's memory instructions only;
# - **memory, no notice, no instructions**: a control the real API does not allow.

# %%
full_without = first_session(WORK / "full_without", WORK_REQUESTS, memory=False, save_at_end=False)
full_flush = first_session(WORK / "full_flush", WORK_REQUESTS, save_at_end=False, check=my_memory_path)
full_control = first_session(WORK / "full_control", WORK_REQUESTS, flush_at=None, save_at_end=False,
                             check=my_memory_path)
full_bare = first_session(WORK / "full_bare", WORK_REQUESTS, flush_at=None, save_at_end=False,
                          check=my_memory_path, instructions=False)
variants = {"without memory": full_without, "memory + notice": full_flush, "memory, no notice": full_control,
            "no notice, no instructions": full_bare}
retention = {name: probe_amnesia(run.session) if name == "without memory" else probe_memory(run)
             for name, run in variants.items()}
print(f"{'variant':<27} {'kept':>4} {'reads':>5} {'memory':>6} {'cached $':>9} {'uncached $':>10}  lost")
for name, run in variants.items():
    print(f"{name:<27} {sum(retention[name].remembered.values()):>2}/8 {run.reads:>5} {run.memory_calls:>6}"
          f" {run.dollars():>9.3f} {run.dollars(caching=False):>10.3f}  {', '.join(retention[name].forgotten)}")

# %% [markdown]
# The folded cell checks the table.

# %% jupyter={"source_hidden": true}
kept = {name: sum(report.remembered.values()) for name, report in retention.items()}
assert all(len(report.answers) == 8 for report in retention.values())
assert kept == {"without memory": 4, "memory + notice": 7, "memory, no notice": 7, "no notice, no instructions": 4}
assert retention["memory + notice"].forgotten == retention["memory, no notice"].forgotten == ("first file changed",)
assert retention["no notice, no instructions"].forgotten == retention["without memory"].forgotten
assert (full_without.reads, full_flush.reads, full_control.reads, full_bare.reads) == (94, 70, 70, 94)
assert [round(run.dollars(), 2) for run in variants.values()] == [0.73, 0.68, 0.68, 0.74]
assert [round(run.dollars(caching=False), 2) for run in variants.values()] == [3.61, 3.48, 3.48, 3.62]
assert (round(100 * (1 - full_flush.dollars() / full_without.dollars())),
        round(100 * (1 - full_flush.dollars(caching=False) / full_without.dollars(caching=False)))) == (7, 4)
assert requests_where(full_flush.session, is_notice) == [63]
assert all(i["command"] == "view" for n, i in full_bare.session.tool_calls if n == "memory")

# %% [markdown]
# Each column is a variant, each row a fact; green is kept.

# %%
display(retention_map(retention))
plt.close("all")

# %% [markdown]
# Memory keeps **7 of 8** facts, where no memory keeps **4**. It loses the first file changed, which the
# fake's rule does not save.
#
# The notice does not buy the gain: with the instructions alone the fake saves after every task that used
# a tool, and keeps the same 7. The notice came only once, in request 63.
#
# Saving at all is what counts: the control without instructions never writes, and keeps what no memory
# keeps. Whether Claude saves as asked is untested.
#
# Fewer reads cost less: with the notice, 7% less than no memory with caching, 4% less without.
#
# **Holds for:** *this fake* (what it saves and when, the costs); *this design* (the control).
#
# ## 5 · When a note is out of date
#
# A note is a snapshot, and can go stale. Suppose a teammate changes `agents/s03_todo_write.py` between
# the two sessions, while memory still says `v3-planning`:

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

# %% [markdown]
# Trusting the note gives the **stale** answer, with no sign of it. The guard is one standing
# instruction, *"From now on, check a file before you trust what memory says about it."* Saved
# with the rules, it costs one read.

# %% jupyter={"source_hidden": true}
assert stale.session.answers[-1] == 'VERSION_TAG in agents/s03_todo_write.py is "v3-planning" (from memory).'
assert guarded.session.answers[-1] == 'VERSION_TAG in agents/s03_todo_write.py is "v3-replanned".'
assert (stale.reads, guarded.reads) == (0, 1)

# %% [markdown]
# Another guard: delete a note when its file is written.
#
# **Holds for:** *any model* that answers from a note unchecked (the stale answer); *this fake* (how it
# obeys the guard).
#
# ## 6 · Your turn: when to give the notice
#
# Does an earlier notice keep more? The sweep runs and probes the long session once for each notice
# fraction; the slider looks them up.

# %%
FRACTIONS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
sweep = flush_sweep(WORK / "sweep", FRACTIONS)
baseline = FlushPoint(0.0, kept["without memory"], retention["without memory"].forgotten,
                      full_without.session.stats.input_tokens_billed, full_without.reads, 0, full_without.dollars())
for point in sweep:
    print(f"{point.at:.0%}: kept {point.kept}/8, billed {point.billed:,}, ${point.dollars:.3f} cached, "
          f"files read {point.reads}, memory calls {point.memory_calls}")

# %% jupyter={"source_hidden": true}
assert [p.kept for p in sweep] == [7] * 6
assert [p.memory_calls for p in sweep] == [39, 39, 37, 37, 37, 37]
assert [round(p.dollars, 3) for p in sweep] == [0.672, 0.676, 0.725, 0.683, 0.683, 0.683]

# %% tags=["nbval-ignore-output"]
flush_slider = panel(
    flush_figure,
    at=SelectionSlider(options=[(f"{a:.0%}", a) for a in FRACTIONS], value=0.8,
                       description="flush notice at (of the trigger)"),
    points=sweep, baseline=baseline)

# %% [markdown]
# The slider's headline stays at **7 of 8** at every fraction: the API's instructions already make the fake
# save after every task, so any notice finds memory up to date.

# %% jupyter={"source_hidden": true}
assert all(p.kept == kept["memory, no notice"] and p.forgotten == retention["memory, no notice"].forgotten
           for p in sweep)

# %% [markdown]
# When do the notices come at 50% and at 90%?

# %%
early = first_session(WORK / "early", WORK_REQUESTS, flush_at=0.5, save_at_end=False, check=my_memory_path)
late = first_session(WORK / "late", WORK_REQUESTS, flush_at=0.9, save_at_end=False, check=my_memory_path)
for label, run in (("50%", early), ("90%", late)):
    print(f"notice at {label}: notices during requests {requests_where(run.session, is_notice)},",
          f"compactions in requests {requests_where(run.session, lambda t: 'auto' in t.layers)},",
          f"memory calls {run.memory_calls}")

# %% [markdown]
# At 90% no notice comes: each time, one turn of reads carries the context from below 90% straight past
# the trigger.
#
# An early notice comes often: three times at 50%, for 39 memory calls where late ones make 37.

# %% jupyter={"source_hidden": true}
notices = requests_where(early.session, is_notice)
summaries = requests_where(early.session, lambda t: "auto" in t.layers)
assert (notices, summaries, early.memory_calls, sweep[-1].memory_calls) == ([2, 12, 52], [6, 28], 39, 37)
assert sweep[2].at == 0.7 and {p.memory_calls for p in sweep[2:]} == {37}
assert requests_where(late.session, is_notice) == [] and requests_where(late.session, lambda t: "auto" in t.layers) == [6, 28]

# %% [markdown]
# **Holds for:** *this fake* (it saves after every task, and reads a listing in one turn).
#
# ## Summary
#
# - Memory is client-side: your code runs six commands, so the path check must be right.
# - With memory a second conversation read 12 files, not 26, and kept the user's rule.
# - Memory kept 7 of 8 facts through compactions, where none kept 4; the instructions alone did as well.
# - A note can go stale silently; an instruction to check the file first guards against it.
# - The notice fraction changed nothing kept: the fake saves after every task.

# %% jupyter={"source_hidden": true}
assert (path_check.cases, len(hostile), second_with.reads, second_without.reads) == (24, 9, 12, 26)
assert (kept["memory + notice"], kept["without memory"], kept["memory, no notice"]) == (7, 4, 7)

# %% [markdown]
# ## Exercises
#
# ### 1. Which notes did the second session use?
# Predict the set of memory paths the second session with memory viewed (for example
# `{"/memories", "/memories/agents.md"}`).

# %% tags=["answer"]
viewed_paths = None  # a set of paths

# %%
answer("viewed_paths", viewed_paths)

# %% [markdown]
# ### 2. A path check that also hides dot-files
# The SDK's helper leaves hidden items (names starting with `.`) out of a listing. Write
# `no_hidden_memory_path`: your check plus one rule, refuse any part that starts with `.` (a lone `.` is
# dropped).

# %% tags=["stub"]
def no_hidden_memory_path(path):
    """my_memory_path, and also PathEscape for any part that starts with "." (a lone "." is dropped)."""
    # your path check first; then look at the parts of what it returns
    raise NotImplementedError("your code here")

# %%
no_hidden_memory_path = check(no_hidden_memory_path)

# %% [markdown]
# ### 3. The cheapest notice that keeps the most
# Using `sweep`: which fractions keep as many facts as the best one? Of those, which costs the least with
# caching?

# %% tags=["answer"]
all_kept = None  # a set of fractions
cheapest = None  # one fraction

# %%
answer("all_kept", all_kept)
answer("cheapest", cheapest)

# %% [markdown]
# ## Recap
#
# Answer each before you look (`RECAP` in `harness/labs/solutions/ch11.py`).
#
# 1. Why must a hostile path be refused before anything is touched, and why is
#    `path.startswith("/memories")` not enough?
# 2. Why are symlinks not the path check's job, and what stops a folder swapped for a link?
# 3. What did the two controls (no notice; neither notice nor instructions) show about the gain?
# 4. How can a note give a wrong answer with no sign of it, and what guarded against it here?
# 5. Why did memory still lose the first file changed?

# %% [markdown]
# ## Sources
#
# 1. Anthropic, "Memory tool" — https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool
#    (client-side, six commands, `/memories` confinement, the instructions the API adds, the warning
#    before context editing clears, checks memory first, generally available)
# 2. anthropic-sdk-python 2.14.0, `anthropic/types/memory_tool_20250818_param.py` (non-beta `MemoryTool20250818Param`)
# 3. anthropic-sdk-python 2.14.0, `anthropic/lib/tools/_beta_builtin_memory_tool.py` (the file-based helper's result texts)
# 4. Anthropic, "Hooks reference" — https://code.claude.com/docs/en/hooks#precompact (`PreCompact` runs a command)
# 5. openai/codex, PR #19905 — https://github.com/openai/codex/pull/19905 (a pre-compaction hook)
# 6. Anthropic, "Claude Haiku 4.5" — https://platform.claude.com/docs/en/models/haiku-4-5/overview (legacy; prices)
# 7. anthropics/claude-cookbooks, `tool_use/context_engineering/context_engineering_tools.ipynb` (4 reads
#    instead of 8 with memory, as reported; not re-run)
