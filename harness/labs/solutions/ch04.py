"""Chapter 04's steps: compact's handler, the tools of a round, the end of a round; exercises 1 to 3.

The cases: the chapter's inputs and replies (its sample reply, a blank focus, two
``compact`` calls in one reply, a reply without tools), what trips a hand-written
version (``compact`` among other calls, a focus then a blank one, a failing or
unknown tool, text after the calls), and every reply of ``random_histories(100,
seed=4)``, each ended from the history before it (the 420 rounds of the chapter's
comparison are among them). The tools run over the 12-file workspace, built once
in a temporary folder that lasts until the process exits.

Exercise 1 is a function that builds a history, judged by what refuses it: any rule about the message
that answers compact but the chapter's two (text before the result, or a second result for the same
call, which ``refusal`` finds itself until ``validate_messages`` refuses it); exercise 3's answer is
worked out from the slider's own runs (12 requests each, the reference loop).

A refused ``compact`` call's result is compared without its words: they are your handler's (step 1
checks only that it refuses), so they would differ from the reference's for no fault of the round.
"""
from __future__ import annotations

import atexit
import copy
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.manual import COMPACT_ACK, COMPACT_TOOL_NAME, compact_focus
from ...core.messages import (InvalidHistory, Message, assistant, text, tool_result, tool_use, user,
                              validate_messages)
from ...core.tools import Toolbox, ToolOutcome
from ..loop_lab import compact_tool_runs
from ..scenarios import READ_AGENTS, TWELVE_FILES
from ..scratch import scratch_folder
from ..yours import random_histories
from . import Answer, Step


def handle_compact(tool_input):
    """compact's handler: refuse an input its schema does not allow, else only acknowledge."""
    if not isinstance(tool_input, dict):
        return ToolOutcome("Error: compact expects an object of arguments", is_error=True)
    for key, value in tool_input.items():
        if key != "focus":
            return ToolOutcome(f"Error: compact got unexpected argument {key!r}", is_error=True)
        if not isinstance(value, str):
            return ToolOutcome("Error: compact's focus must be a string", is_error=True)
    return ToolOutcome(COMPACT_ACK)


def run_tools(content, tools):
    """Run every tool_use of a reply, in order: (result blocks, whether compact was called, its focus)."""
    results, called, focus = [], False, None
    for block in content:
        if block["type"] != "tool_use":
            continue
        if block["name"] == COMPACT_TOOL_NAME:
            outcome = handle_compact(block["input"])
            called, focus = True, compact_focus(block["input"])
        else:
            outcome = tools.run(block["name"], block["input"])
        results.append(tool_result(block["id"], outcome.content, outcome.is_error))
    return results, called, focus


def my_finish_round(messages, content, tools, compact):
    """End a round: append the reply and all its results, then compact if the model asked; True ends the loop."""
    messages.append(assistant(content))
    results, called, focus = run_tools(content, tools)
    if results:
        messages.append(user(results))
    if called:
        compact(focus)
    return called


def third_broken_history():
    """Exercise 1: a history in which compact's tool_result answers the right tool_use, and is still refused."""
    ask = user(READ_AGENTS)
    reply = assistant([tool_use("toolu_compact_01", "compact", {})])
    late = user([text("Here is the result."), tool_result("toolu_compact_01", COMPACT_ACK)])
    return [ask, reply, late]


COMPACT_ID = "toolu_compact_01"
CHAPTER_RULES = ("tool_result_answers_previous", "tool_use_answered")  # section 3's two broken histories


def _results_for(message: Any, tool_id: str) -> int:
    """How many tool_result blocks of a message answer ``tool_id``."""
    content = message.get("content") if isinstance(message, dict) else None
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
               and b.get("tool_use_id") == tool_id) if isinstance(content, list) else 0


def _after_the_call(history: list[Message]) -> Any:
    """The message right after the one that calls compact (None when there is none)."""
    for i, message in enumerate(history[:-1]):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("id") == COMPACT_ID for b in content):
            return history[i + 1]
    return None


def refusal(history: Any) -> tuple[str, str | None] | None:
    """(the rule that refuses a history, the tool id it names), or None when the API would take it.

    Two tool_result blocks for one tool_use are a 400 at the API ("each tool_use must have a single result.
    Found multiple `tool_result` blocks with id: ...", quoted in public issues). Until ``validate_messages``
    refuses them by that rule (``single_tool_result``, the name it will have there), they are found here
    under the same name, so the judgement is the same before and after."""
    try:
        validate_messages(history)
    except InvalidHistory as error:
        return error.rule, error.tool_id
    following = _after_the_call(history) if isinstance(history, list) else None
    return ("single_tool_result", COMPACT_ID) if following is not None and _results_for(following, COMPACT_ID) > 1 \
        else None


def why_refused(function, args):
    """What a history is judged by: compact's result is in the message right after its call; the API refuses
    the history; and for a rule about that message, not one of the chapter's two."""
    history = function(*args)
    refused = refusal(history)
    following = _after_the_call(history) if isinstance(history, list) else None
    third = refused is not None and refused[0] not in CHAPTER_RULES and refused[1] == COMPACT_ID
    return {"compact's result right after its call": following is not None and _results_for(following, COMPACT_ID) > 0,
            "refused": refused is not None, "for a third rule, about that message": third}


def two_compacts():
    """Exercise 2: (how many times finish_round compacts, with which focus) for a reply that calls compact
    with focus "the notes", then with focus "the rules"."""
    return (1, "the rules")


class StandInCompact:
    """A compaction for the checks: note what it was handed (valid? which focus? the history), then replace
    the history. It holds the case's own history, so a deep copy of a case's arguments stays wired."""

    def __init__(self, messages: list[Message]):
        self.messages = messages
        self.seen: list[dict[str, Any]] = []

    def __call__(self, focus: str | None) -> None:
        try:
            validate_messages(self.messages)
            valid = True
        except InvalidHistory:
            valid = False
        self.seen.append({"valid": valid, "focus": focus, "history": copy.deepcopy(self.messages)})
        self.messages[:] = [user("[Conversation compressed.]")]


@lru_cache(maxsize=1)
def twelve_file_toolbox() -> Toolbox:
    """The chapter's tools over the 12-file workspace, in a folder of its own until the process exits."""
    folder = Path(tempfile.mkdtemp(prefix="ch04-steps-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Toolbox(TWELVE_FILES.build(folder / "workspace"))


HANDLER_INPUTS = (  # the chapter's twelve, then what a hand-written check lets through
    {}, {"focus": "the notes"}, {"focus": ""}, {"focus": "  the rules  "}, {"focus": 3}, {"focus": None},
    {"focus": ["a", "b"]}, {"topic": "notes"}, {"focus": "x", "topic": "y"}, [], "focus", None,
    {"focus": "the notes on each file"}, {"focus": True}, {"focus": 0}, {"focus": {"text": "x"}},
    {"Focus": "x"}, {"focus ": "x"}, {"": ""}, {1: "x"}, {"topic": "x", "focus": "y"}, {"focus": "é 言\n"},
    3, 2.5, ("focus",), {"focus"}, "",
)


def _handler_cases() -> list[tuple[str, tuple[Any, ...]]]:
    return [(f"input {tool_input!r}", (tool_input,)) for tool_input in HANDLER_INPUTS]


def handler_outcome(function, args):
    """What a handler is judged by: whether it refuses, and the acknowledgement when it does not."""
    outcome = function(*args)
    return {"is_error": outcome.is_error, "content": None if outcome.is_error else outcome.content}


def _by_hand() -> list[tuple[str, list[Message], list[dict[str, Any]]]]:
    """(name, history before the reply, the reply's blocks): the chapter's own, then the awkward ones."""
    ask = [user(READ_AGENTS)]
    read = tool_use("toolu_read_01", "read_file", {"path": "agents/s01_agent_loop.py"})
    return [
        ("a focus", ask, [text("One more file, then I tidy up."), read,
                          tool_use("toolu_compact_02", "compact", {"focus": " the notes on each file "})]),
        ("a blank focus", ask, [tool_use("t1", "compact", {"focus": "   "})]),
        ("two compact calls", ask, [tool_use("t1", "compact", {"focus": "the notes"}),
                                    tool_use("t2", "compact", {"focus": "the rules"})]),
        ("no tool", ask, [text("Done.")]),
        ("compact between two reads", ask, [read, tool_use("t2", "compact", {}),
                                            tool_use("t3", "read_file", {"path": "agents/s02_tool_use.py"})]),
        ("a focus, then a blank one", ask, [tool_use("t1", "compact", {"focus": "the notes"}),
                                            tool_use("t2", "compact", {})]),
        ("a file that is not there, then compact", ask, [tool_use("t1", "read_file", {"path": "agents/nope.py"}),
                                                          tool_use("t2", "compact", {})]),
        ("an unknown tool", ask, [tool_use("t1", "grep_all", {"pattern": "TODO"})]),
        ("text after the calls", ask, [tool_use("t1", "list_files", {"path": "agents"}), text("Listing first.")]),
        ("compact with focus 3 (refused)", ask, [tool_use("t1", "compact", {"focus": 3})]),
    ]


ROUND_TRAPS = {"a focus": "focus", "two compact calls": "two", "no tool": "no tool",
               "compact with focus 3 (refused)": "refused", "a focus, then a blank one": "two"}


@lru_cache(maxsize=1)
def _rounds() -> tuple[tuple[str, list[Message], list[dict[str, Any]]], ...]:
    """Every reply of the cases: the ones by hand, then every assistant reply of 100 random histories."""
    rounds = _by_hand()
    for n, history in enumerate(random_histories(100, seed=4)):
        for i, message in enumerate(history):
            if message["role"] == "assistant":
                content = message["content"]
                rounds.append((f"history {n}, reply {i}", history[:i],
                               [text(content)] if isinstance(content, str) else content))
    return tuple(rounds)


@lru_cache(maxsize=1)
def _tools_cases() -> list[tuple[Any, ...]]:
    return [(name, (content, twelve_file_toolbox()), ROUND_TRAPS.get(name)) for name, _, content in _rounds()]


@lru_cache(maxsize=1)
def _round_cases() -> list[tuple[Any, ...]]:
    cases: list[tuple[Any, ...]] = []
    for name, before, content in _rounds():
        messages = copy.deepcopy(before)
        cases.append((name, (messages, content, twelve_file_toolbox(), StandInCompact(messages)),
                      ROUND_TRAPS.get(name)))
    return cases


REFUSED = "<a refusal, in your handler's words>"


def _refusals_masked(blocks: Any, compact_ids: set[str]) -> Any:
    """Result blocks with the text of each refused compact call replaced: a refusal's words are the handler's."""
    if not isinstance(blocks, list):
        return blocks
    return [{**b, "content": REFUSED} if isinstance(b, dict) and b.get("tool_use_id") in compact_ids
            and b.get("is_error") else b for b in blocks]


def _compact_ids(content: list[dict[str, Any]]) -> set[str]:
    return {b["id"] for b in content if b.get("type") == "tool_use" and b.get("name") == COMPACT_TOOL_NAME}


def tools_run(function, args):
    """What a run of a reply's tools is judged by: the results (a refusal's words masked), whether compact was
    called, its focus."""
    results, called, focus = function(*args)
    return {"results": _refusals_masked(results, _compact_ids(args[0])), "compact called": called, "focus": focus}


def round_after(function, args):
    """What an end of round is judged by: whether the loop ends, what each compaction was handed, the history
    (a refusal's words masked)."""
    messages, content, _, compact = args
    ended = function(*args)
    ids = _compact_ids(content)

    def masked(history: Any) -> Any:
        return [{**m, "content": _refusals_masked(m.get("content"), ids)} if isinstance(m, dict) else m
                for m in history] if isinstance(history, list) else history

    return {"ended": ended, "compactions": [{**seen, "history": masked(seen["history"])} for seen in compact.seen],
            "history": masked(messages)}


def as_tuple(function, args):
    """What a prediction is judged by: the pair it returns, as a tuple (a list will do)."""
    return tuple(function(*args))


TWO = ("Two compact calls in one reply: your focus, or your count of compactions, differs from finish_round's; "
       "read what its loop does with each compact call.")
STEPS = [
    Step("handle_compact", "04", handle_compact, _handler_cases, handler_outcome, label="outcome",
         hint="Refuse (is_error=True) what compact's schema does not allow; acknowledge the rest with COMPACT_ACK "
              "and nothing more.",
         flags={"is_error": "What the schema allows: an object whose only key may be \"focus\", a string; look at "
                            "the case's input and at the type of each value.",
                "content": "Acknowledge only: the content is COMPACT_ACK, as it is."}),
    Step("run_tools", "04", run_tools, _tools_cases, tools_run,
         hint="One tool_result per tool_use, in the reply's order (text blocks have none); compact's outcome "
              "from handle_compact, every other tool's from tools.run.",
         traps={"refused": "A refused compact call still counts as called: the model called it; its result "
                           "says what was wrong with the input.",
                "focus": "The focus as compact_focus gives it: stripped, None when blank.",
                "two": TWO}),
    Step("my_finish_round", "04", my_finish_round, _round_cases, round_after, label="round",
         hint="The reply, then one user message with every result, and only then compact(focus) if the model asked; "
              "return whether it asked.",
         flags={"valid": "The order of two steps: the compaction was handed a history whose last tool_use has no "
                         "result yet; append every result first, then compact."},
         traps={"no tool": "A reply without a tool call: no results, so no user message at all (an empty one is "
                           "refused by the API).",
                "two": TWO,
                "refused": "A refused compact call still counts as called (see run_tools)."},
         twins=("harness.core.loop:finish_round",)),
    Step("third_broken_history", "04", third_broken_history, lambda: [("your history", ())], why_refused,
         label="history",
         hint="A user message that answers compact's call and is still refused.",
         flags={"right after its call": "Compact's tool_result must sit in the message right after the message "
                                        "with its tool_use (else it is the chapter's second broken history).",
                "refused": "Accepted: the API would take this history; break a rule about the message that "
                           "answers compact.",
                "third rule": "Refused, but by one of the chapter's two rules, or a rule about something else: "
                              "break a rule about what the message that answers compact holds."}),
    Step("two_compacts", "04", two_compacts, lambda: [("a reply that calls compact twice", ())], as_tuple,
         hint="Read finish_round in harness/core/loop.py: where is compact called, and what does each compact "
              "call of the loop over the tool calls do to focus?"),
]

SLIDER_LIMITS = range(0, 60_001, 5_000)  # the slider's limits


def _largest_limit_with_two() -> int:
    """Exercise 3: the largest slider limit at which the agent compacts at least twice in 12 requests."""
    with scratch_folder(Path("_work/04")) as root:
        runs = compact_tool_runs(SLIDER_LIMITS, 12, root / "answer")
    return max(limit for limit, run in runs.items() if run.stats.compactions.get("manual", 0) >= 2)


ANSWERS = (
    Answer("largest_limit_with_two", "04", truth=_largest_limit_with_two,
           hint="count the manual compactions of compact_runs[limit].first(12).stats for each limit; the "
                "largest limit that still gives two or more."),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "It gets only the tool's input, never the history the loop owns; and it runs in the middle of a round, "
    "when other calls of the same reply may not have run and none of their results is in the history.",
    "HTTP 400, unexpected tool_use_id in tool_result blocks: the results appended after the summary answer "
    "tool_use blocks the history no longer has.",
    "So the history is valid before anything can fail: if the summary call fails, the history is kept as it "
    "was, and without compact's result it would end in an unanswered tool_use, and the next request would "
    "be refused. A compaction that keeps the newest messages would keep that tool_use too.",
    "The agent called compact because it judged a piece of work finished, so control goes back to the user. "
    "The summary replaced the last reply, so the loop returns it in RunResult.reply (the transcript has it too).",
    "This fake compacts only at the end of a task, once a request reaches 80% of the stated limit. Before "
    "request 6 it stayed below that; request 6 read the twelve files of core/ in one turn and took it to 49,134 "
    "before the task was done. In this loop a compaction mid-task would end the task. So the agent's judgement "
    "tidies at natural breaks; only auto-compaction's threshold, checked before every call, guards a long task "
    "(this design), and only between turns.",
]
