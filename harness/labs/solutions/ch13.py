"""Chapter 13's steps: the end of a round that offloads big results (section 2) and re-injection (section 4).

An end of round is judged by what it appended, each message *as it was when
appended* (a list that watches the history keeps a copy of every message put
into it), by the history at the end, by what each compaction was handed, and
by the files saved. So a round that appends a result whole and replaces it
afterwards differs where the result was appended, though its final history
is the same. Each case starts from the same workspace: the long session's
files and one saved result, ``.tool_results/001_read_file.txt``.

The cases: the replies written by hand (a big read, one at exactly the
limit, one with more characters than the limit but fewer tokens, an error,
a read-back of a saved result, ``compact`` with a tiny limit and a big read
before ``compact``), then every reply of 20 random histories at limits 1 and
1,000. Re-injection's: what a history holds to restore, by hand (a deleted
file, a path outside the workspace, a first file too big for the budget,
more files than ``max_files``, nothing that fits), then 60 random picks of
the session's files and instructions at four budgets.

``ANSWERS``: the values the exercises ask for, each worked out by running the
long session again in a temporary folder.
"""
from __future__ import annotations

import atexit
import copy
import random
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.manual import COMPACT_TOOL_NAME, compact_focus
from ...core.messages import Message, assistant, text, tool_result, tool_use, user
from ...core.tokens import text_tokens
from ...core.tools import PathEscape, Toolbox, Workspace
from ...production.offload import OFFLOAD_FOLDER, offload_placeholder, reads_saved, save_output
from ...production.reinject import Restorable, file_entry, instruction_entry, RESTORED_HEADER
from ..scenarios import LONG_SESSION
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step
from .ch04 import StandInCompact

SEEDED = f"{OFFLOAD_FOLDER}/001_read_file.txt"   # a result saved before every case
BIG = "core/c01_config.py"                       # a file whose read is over 1,000 tokens
RULE = "From now on, never edit anything under tools/; it is vendored code."


def my_finish_offloading(messages, content, tools, compact, limit):
    """Chapter 04's end of round, each result over ``limit`` tokens saved to a file before it goes in."""
    messages.append(assistant(content))
    results, called, focus = [], False, None
    for block in content:
        if block["type"] != "tool_use":
            continue
        outcome = tools.run(block["name"], block["input"])
        output = outcome.content
        if (not outcome.is_error and block["name"] != COMPACT_TOOL_NAME
                and not reads_saved(block["name"], block["input"]) and text_tokens(output) > limit):
            saved = save_output(tools.workspace, block["name"], output)
            output = offload_placeholder(saved, output)
        results.append(tool_result(block["id"], output, outcome.is_error))
        if block["name"] == COMPACT_TOOL_NAME:
            called, focus = True, compact_focus(block["input"])
    if results:
        messages.append(user(results))
    if called:
        compact(focus)
    return called


def my_reinjection(restore, workspace, budget, max_files):
    """The text to put back after a summary: instructions, then files newest first, within the budget."""
    entries, left, files = [], budget, 0
    for instruction in restore.instructions:
        entry = instruction_entry(instruction)
        if text_tokens(entry) <= left:
            entries.append(entry)
            left -= text_tokens(entry)
    for path in restore.recent_files:
        if files == max_files:
            break
        try:
            content = workspace.read_file(path)
        except (OSError, UnicodeError, PathEscape):
            continue
        entry = file_entry(path, content)
        if text_tokens(entry) <= left:
            entries.append(entry)
            left -= text_tokens(entry)
            files += 1
    if not entries:
        return None
    return "\n\n".join([RESTORED_HEADER] + entries)


# --- the cases ----------------------------------------------------------------------

@lru_cache(maxsize=1)
def case_workspace() -> Workspace:
    """The long session's files and one saved result, in a folder of its own until the process exits."""
    folder = Path(tempfile.mkdtemp(prefix="ch13-steps-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    workspace = LONG_SESSION.build(folder / "workspace")
    _reset(workspace)
    return workspace


def _reset(workspace: Workspace) -> None:
    """The offload folder as every case starts: one saved result, a long one."""
    shutil.rmtree(workspace.resolve(OFFLOAD_FOLDER), ignore_errors=True)
    workspace.resolve(OFFLOAD_FOLDER).mkdir()
    workspace.resolve(SEEDED).write_text(workspace.read_file(BIG), encoding="utf-8")


class WatchedHistory(list):
    """A history that keeps a copy of every message put into it, as it was then."""

    def __init__(self, messages: list[Message]) -> None:
        super().__init__(messages)
        self.put: list[Any] = []

    def append(self, message: Any) -> None:
        self.put.append(copy.deepcopy(message))
        super().append(message)

    def extend(self, messages: Any) -> None:
        messages = list(messages)
        self.put.extend(copy.deepcopy(messages))
        super().extend(messages)

    def __iadd__(self, messages: Any) -> "WatchedHistory":
        self.extend(messages)
        return self

    def insert(self, index: Any, message: Any) -> None:
        self.put.append(copy.deepcopy(message))
        super().insert(index, message)

    def __setitem__(self, index: Any, value: Any) -> None:
        self.put.append(copy.deepcopy(value))
        super().__setitem__(index, value)


def round_offloaded(function, args):
    """What an offloading end of round is judged by: whether the loop ends, the history at the end, what each
    compaction was handed, the saved files, and every message as it was when put in (last: a difference only
    there is a result replaced after it went in)."""
    messages, content, tools, _, limit = args
    _reset(tools.workspace)
    watched = WatchedHistory(messages)
    compact = StandInCompact(watched)
    ended = function(watched, content, tools, compact, limit)
    folder = tools.workspace.resolve(OFFLOAD_FOLDER)
    saved = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())} if folder.is_dir() else {}
    return {"ended": ended, "history": list(watched),
            "compactions": [{"focus": s["focus"], "history": s["history"]} for s in compact.seen],
            "saved files": saved, "put in, as it was then": watched.put}


def _limit_of(workspace: Workspace, path: str) -> int:
    return text_tokens(Toolbox(workspace).run("read_file", {"path": path}).content)


def _rounds_by_hand() -> list[tuple[Any, ...]]:
    ws = case_workspace()
    ask = [user("Read core/c01_config.py and tell me its VERSION_TAG.")]
    read = tool_use("t1", "read_file", {"path": BIG})
    exactly = _limit_of(ws, BIG)
    assert len(ws.read_file(BIG)) > exactly + 1  # more characters than tokens: the chars trap is a real one
    return [
        ("a big read", ask, [read], 1_000, None),
        ("two big reads and a listing", ask, [read, tool_use("t2", "list_files", {"path": "agents"}),
                                              tool_use("t3", "read_file", {"path": "core/c02_messages.py"})], 1_000,
         "numbering"),
        ("more characters than the limit, fewer tokens", ask, [read], exactly + 1, "chars"),
        ("a read of exactly the limit", ask, [read], exactly, "inclusive"),
        ("an error over the limit", ask, [tool_use("t1", "read_file", {"path": "core/gone.py"})], 3, "error"),
        ("a read of a saved result", ask, [tool_use("t1", "read_file", {"path": SEEDED})], 10, "read back"),
        ("compact with a limit of 1", ask, [tool_use("t1", "compact", {"focus": "the tags"})], 1, "compact"),
        ("a big read, then compact", ask, [text("One more, then I compact."), read,
                                           tool_use("t2", "compact", {})], 1_000, "after"),
        ("no tool", ask, [text("Done.")], 1_000, None),
        ("a command over the limit", ask, [tool_use("t1", "bash", {"command": "cat core/c01_config.py"})], 1_000,
         None),
    ]


@lru_cache(maxsize=1)
def _offload_cases() -> list[tuple[Any, ...]]:
    ws = case_workspace()
    cases = [(name, (copy.deepcopy(before), content, Toolbox(ws), None, limit), trap)
             for name, before, content, limit, trap in _rounds_by_hand()]
    for n, history in enumerate(random_histories(20, seed=13)):
        for i, message in enumerate(history):
            if message["role"] == "assistant" and isinstance(message["content"], list):
                for limit in (1, 1_000):
                    cases.append((f"history {n}, reply {i}, limit {limit}",
                                  (copy.deepcopy(history[:i]), message["content"], Toolbox(ws), None, limit)))
    return cases


def _reinjections_by_hand() -> list[tuple[Any, ...]]:
    ws = case_workspace()
    files = ("agents/s01_agent_loop.py", "core/c01_config.py", "tools/t01_read.py", "plugins/p01_lint.py",
             "agents/s02_tool_use.py", "core/c02_messages.py", "tools/t03_edit.py")
    first = text_tokens(file_entry(files[0], ws.read_file(files[0])))
    return [
        ("a rule and three files", Restorable((RULE,), files[:3]), 8_000, 5, "order"),
        ("two rules, oldest first", Restorable((RULE, "Always run the tests."), files[:1]), 8_000, 5, "order"),
        ("a deleted file first", Restorable((), ("agents/gone.py", *files[:2])), 8_000, 5, "deleted"),
        ("a path outside the workspace", Restorable((), ("../outside.py", files[0])), 8_000, 5, "deleted"),
        ("room for one file", Restorable((RULE,), files[:3]), first + 60, 5, "budget"),
        ("a first file too big, a second that fits",
         Restorable((), ("core/c01_config.py", "agents/s01_agent_loop.py")), first + 5, 5, "skip"),
        ("seven files, at most five", Restorable((), files), 100_000, 5, "max files"),
        ("a deleted file among the first five", Restorable((), (files[0], "agents/gone.py", *files[1:])), 100_000,
         5, "max files"),
        ("a budget too small for anything", Restorable((RULE,), files[:2]), 3, 5, "none"),
        ("nothing to restore", Restorable((), ()), 8_000, 5, "none"),
        ("max_files 0", Restorable((RULE,), files[:2]), 8_000, 0, None),
    ]


@lru_cache(maxsize=1)
def _reinjection_cases() -> list[tuple[Any, ...]]:
    ws = case_workspace()
    cases = [(name, (restore, ws, budget, max_files), trap) for name, restore, budget, max_files, trap in
             _reinjections_by_hand()]
    rng = random.Random(13)
    paths = sorted(str(p.relative_to(ws.root)) for p in ws.root.rglob("*.py"))
    rules = (RULE, "Always answer in one sentence.", "Never run the test suite without asking.")
    for n in range(60):
        picked = tuple(rng.sample(paths + ["agents/gone.py"], rng.randint(0, 8)))
        restore = Restorable(tuple(rng.sample(rules, rng.randint(0, 3))), picked)
        budget, max_files = rng.choice((40, 2_000, 8_000, 20_000)), rng.randint(0, 6)
        cases.append((f"pick {n}: {len(restore.instructions)} rules, {len(picked)} files, budget {budget:,}, "
                      f"max_files {max_files}", (restore, ws, budget, max_files)))
    return cases


AFTER = ("A result went into the history whole and was replaced afterwards: offload as the result is written, "
         "before the results message is appended (a compaction or a log could see it in between).")
STEPS = [
    Step("my_finish_offloading", "13", my_finish_offloading, _offload_cases, round_offloaded, label="round",
         hint="Chapter 04's end of round; for each result that is not an error, not compact's and not a read of a "
              "saved result, over limit tokens (text_tokens): save_output, then offload_placeholder in its place.",
         flags={"put in, as it was then": AFTER,
                "saved files": "Which results were saved, or what was saved: the whole output, one file per big "
                               "result, with save_output."},
         traps={"inclusive": "A result of exactly limit tokens stays in: only a result over the limit is saved.",
                "chars": "The limit is in tokens (text_tokens), not characters: this output has more characters "
                         "than the limit and fewer tokens.",
                "error": "An error is never saved: the model must read it, and it is short.",
                "read back": "A read of a file under .tool_results is never saved again (reads_saved): the agent "
                             "could never see it.",
                "compact": "compact's acknowledgement is never saved.",
                "after": AFTER,
                "numbering": "Every big result gets a file of its own: save_output picks the next free number."},
         twins=("harness.core.loop:finish_round",)),
    Step("my_reinjection", "13", my_reinjection, _reinjection_cases, label="text",
         hint="The header, then the instructions oldest first, then the files newest first as they are on disk now, "
              "each entry counted with text_tokens against what is left of the budget; None when nothing fits.",
         traps={"order": "Instructions first, in the order the user gave them; then files, newest first.",
                "deleted": "A file that is gone (or outside the workspace) is left out: catch the error of "
                           "workspace.read_file and go on.",
                "budget": "Count every entry against what is left of the budget, and stop adding what does not fit.",
                "skip": "An entry that does not fit is skipped, and the next one tried: a smaller file may fit.",
                "max files": "At most max_files files, counting only the files put back.",
                "none": "Nothing fits, or nothing to restore: return None, not a header alone."},
         twins=("harness.production.reinject:reinjection",)),
]


# --- the exercises -----------------------------------------------------------------------

def _largest_limit_that_helps() -> int:
    """Exercise 1: the largest limit of the slider at which offloading alone compacts less than the three layers."""
    from ..production_lab import LIMITS, run_row
    with scratch_folder(Path("_work/13_production_agents")) as root:
        plain = run_row(0, root / "ex1_plain").compactions
        return max(limit for limit in LIMITS if run_row(1, root / f"ex1_{limit}", limit).compactions < plain)


def _rule_kept_at_small_budget() -> bool:
    """Exercise 2: whether the last edit under tools/ is refused with a re-injection budget of 10 tokens."""
    from ..production_lab import run_row
    with scratch_folder(Path("_work/13_production_agents")) as root:
        return run_row(3, root / "ex2", budget=10).keeps_the_rule


def _children_over_budget() -> int:
    """Exercise 3: how many sub-agents stop over a child budget of 10,000 tokens."""
    from ..production_lab import run_row
    with scratch_folder(Path("_work/13_production_agents")) as root:
        return sum(stop == "over_budget" for stop in run_row(2, root / "ex3", child_budget=10_000).child_stops)


def _offloaded_compactions_at_50_000() -> int:
    """Exercise 4: how many times offloading alone compacts at chapter 05's threshold."""
    from ..production_lab import run_row
    with scratch_folder(Path("_work/13_production_agents")) as root:
        return run_row(1, root / "ex4", threshold=50_000).compactions


ANSWERS = [
    Answer("ex1_limit", "13", _largest_limit_that_helps,
           hint="how many tokens is one file's read? A limit above it saves nothing; the slider shows each limit"),
    Answer("ex2_kept", "13", _rule_kept_at_small_budget,
           hint="how many tokens is the rule's entry, label included, against a budget of 10?"),
    Answer("ex3_over", "13", _children_over_budget,
           hint="a child reads a whole folder: how many tokens is a folder of twelve files?"),
    Answer("ex4_compactions", "13", _offloaded_compactions_at_50_000,
           hint="an offloaded read adds a preview of a few hundred tokens where a whole file adds about 2,000: how "
                "far can the context climb in 71 requests?"),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "Micro-compaction replaces a result after it has been sent at least once, so every call until then paid "
    "for it; an offloaded result is saved as it is written, and only its path and preview are ever sent.",
    "It is in the history whole for a moment: whatever looks at the history before the replacement (a "
    "compaction called in the same round, a session log) sees, stores or sends the whole result.",
    "Its calls: each child reads its files in a context of its own, with nothing cached, and writes a report; "
    "here the four children cost more than the parent saved. It pays when the parent's context is the scarce "
    "thing and the report is all the parent needs.",
    "Only what the summariser chose to keep survives a summary; the standing instruction is put back "
    "verbatim, so a model that sees only the new history still has it. It costs the restored tokens in every "
    "call until the next compaction.",
    "The summary request starts with what the last agent call sent (same system, tools and messages), so "
    "the cache serves the history at the read price; chapter 03's request quotes the history in a new "
    "message, which nothing cached matches.",
]
