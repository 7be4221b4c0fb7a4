"""Chapter 05's steps: the layers before a call and the agent loop as taught, the bookkeeping left to
``taught_loop``; exercise 2's share of working memory and exercise 4's late loop; the values its exercises
ask for.

The cases: sessions that need nothing but the three layers, run from scratch (a fresh workspace, a fresh
fake) with a session log: first one with auto off and one with micro off, at a threshold each would pass
(a layer not gated by its knob fires there); then the twelve files with no compaction, with the three
layers at two settings, with an agent that calls ``compact``, with ``max_turns`` cutting the task short,
and the first requests of the long session (once with nothing preserved, where auto must measure what
micro left). ``my_layers`` runs in ``run_agent`` (as a strategy's ``before_call``), ``my_agent_loop`` and
``late_agent_loop`` in ``taught_loop`` (whose ``run.client`` is the traced client too). What is compared
is everything a session leaves: answers, history, trace, events, tool calls and log. ``working_share`` is
checked on pictures by hand, one with transcripts on disk.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

from ...core.config import CompactionConfig
from ...core.loop import run_agent, to_dicts
from ...core.messages import text
from ...session.records import read_log
from ...strategies.three_layers import ThreeLayers
from ..loop_lab import MEMORY_NAMES, MemoryPart, context_tokens, three_layer_run
from ..micro_lab import micro_layer
from ..runs import run_scenario
from ..scenarios import LONG_SESSION, TWELVE_FILES
from ..scratch import scratch_folder
from ..taught_loop import taught_loop
from . import Answer, Step
from .ch02 import micro_compact_seen_only
from .ch03 import my_auto_compact
from .ch04 import my_finish_round


def my_layers(run):
    """Layers 1 and 2, before a call: micro every turn, auto past THRESHOLD; the names of those that fired."""
    config, fired = run.config, []
    if config.micro and run.micro(micro_layer(micro_compact_seen_only)):  # layer 1: read results to placeholders
        fired.append("micro")
    if config.auto and run.context_size() > config.threshold:          # layer 2: past THRESHOLD only
        run.summarise_and_replace("auto", compact=my_auto_compact)     # transcript, summary, replacement
        fired.append("auto")
    return fired


def my_agent_loop(client, messages, *, system, tools, config, run):
    """Run one request to its end; return "compact", "end_turn" or "max_turns"."""
    def manual(focus):                                                 # layer 3, after the model asked for it
        run.summarise_and_replace("manual", focus, compact=my_auto_compact)

    for _ in range(config.max_turns):
        my_layers(run)                                                 # micro, auto: before the call
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        content = to_dicts(response.content) or [text("(no reply)")]  # the API refuses an empty message
        if my_finish_round(messages, content, tools, manual):         # every result appended, then compact
            return "compact"                                           # the history is one summary now
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"
    return "max_turns"


def late_agent_loop(client, messages, *, system, tools, config, run):
    """Exercise 4: my_agent_loop with the layers run just after the call instead of before it."""
    def manual(focus):
        run.summarise_and_replace("manual", focus, compact=my_auto_compact)

    for _ in range(config.max_turns):
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        my_layers(run)                                                 # late: the request has gone out
        content = to_dicts(response.content) or [text("(no reply)")]
        if my_finish_round(messages, content, tools, manual):
            return "compact"
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"
    return "max_turns"


def working_share(picture):
    """Exercise 2: the fraction of a picture's context tokens that is working memory."""
    return picture[MEMORY_NAMES.index("working")].tokens / context_tokens(picture)


DEFAULTS = CompactionConfig()
AIMED = [  # sessions made to catch one mistake each (the last field), checked first
    ("twelve files, micro on, auto off, THRESHOLD 10,000",
     (TWELVE_FILES, None, DEFAULTS.with_(auto=False, threshold=10_000), {}), "auto off"),
    ("twelve files, micro off, auto on, THRESHOLD 10,000",
     (TWELVE_FILES, None, DEFAULTS.with_(micro=False, threshold=10_000), {}), "micro off"),
    ("twelve files, three layers, nothing preserved",  # the twelve reads arrive in one message, not read yet
     (TWELVE_FILES, None, DEFAULTS.with_(preserve_tools=frozenset()), {}), "unread"),
]
SESSIONS = [
    ("twelve files, no compaction", (TWELVE_FILES, None, DEFAULTS.with_(micro=False, auto=False), {})),
    ("twelve files, three layers", (TWELVE_FILES, None, DEFAULTS, {})),
    ("twelve files, THRESHOLD 10,000, KEEP_RECENT 1",
     (TWELVE_FILES, None, DEFAULTS.with_(threshold=10_000, keep_recent=1), {})),
    ("twelve files, all three layers", (TWELVE_FILES, None, DEFAULTS.with_(threshold=10_000),
                                        {"compact_policy": "after_task"})),
    ("twelve files, max_turns 2", (TWELVE_FILES, None, DEFAULTS.with_(max_turns=2), {})),  # the task takes 3
    ("4 requests, THRESHOLD 12,000", (LONG_SESSION, LONG_SESSION.requests[:4], DEFAULTS.with_(threshold=12_000), {})),
    ("4 requests, THRESHOLD 8,000, no tool preserved",  # auto measures what micro left
     (LONG_SESSION, LONG_SESSION.requests[:4], DEFAULTS.with_(threshold=8_000, preserve_tools=frozenset()), {})),
]


class _Layers(ThreeLayers):
    """The three layers with ``before_call`` done by a function of yours (``my_layers``'s check)."""

    def __init__(self, before: Callable[..., list[str]]):
        super().__init__(summarise=my_auto_compact)
        self.before = before

    def before_call(self, run):
        return self.before(run)


def observe_layers(layers, args) -> dict[str, Any]:
    """Everything a session leaves when ``run_agent``'s strategy runs ``layers`` before each call."""
    return session_left(run_agent, args, _Layers(layers))


def observe_session(loop, args) -> dict[str, Any]:
    """Everything a session run by ``taught_loop(loop)`` leaves."""
    return session_left(taught_loop(loop), args)


def session_left(run_loop, args, compactor=None) -> dict[str, Any]:
    """Everything a session run by ``run_loop`` (run_agent's signature) leaves, from scratch in a folder of its own."""
    scenario, requests, config, fake_options = args
    with scratch_folder(Path("_work/05_three_layers")) as root:
        session = run_scenario(scenario, config, root / "check", requests=requests, compactor=compactor or ThreeLayers(),
                               log=True, loop=run_loop, **fake_options)
        return {"answers": session.answers, "history": session.messages,
                "trace": [dataclasses.asdict(t) for t in session.trace],
                "events": [dataclasses.asdict(e) for e in session.events],
                "tool_calls": session.tool_calls, "log": read_log(root / "check" / "session.jsonl").records}


SESSION_TRAPS = {"twelve files, all three layers": "manual", "twelve files, max_turns 2": "max_turns",
                 "4 requests, THRESHOLD 8,000, no tool preserved": "order"}


def _sessions() -> list[tuple[Any, ...]]:
    return [*AIMED, *((name, args, SESSION_TRAPS.get(name)) for name, args in SESSIONS)]


def _late_sessions() -> list[tuple[Any, ...]]:
    return [(name, args, SESSION_TRAPS.get(name)) for name, args in SESSIONS[1:4]]


def _pictures() -> list[tuple[Any, ...]]:
    """Pictures of a context, by hand (MEMORY_NAMES order; the last part lives on disk)."""
    def picture(tokens: tuple[int, ...], items: tuple[int, ...]) -> list[MemoryPart]:
        return [MemoryPart(name, "disk" if name == MEMORY_NAMES[-1] else "context", n, t)
                for name, n, t in zip(MEMORY_NAMES, items, tokens)]
    return [("three results of 7,000 tokens, one item each", (picture((7_000, 0, 0, 0, 300, 700, 0),
                                                                      (3, 0, 0, 0, 2, 5, 0)),), "items"),
            ("transcripts on disk of 90,000 tokens", (picture((3_000, 500, 40, 800, 600, 1_100, 90_000),
                                                              (3, 1, 4, 1, 6, 15, 2)),), "disk"),
            ("no working memory", (picture((0, 0, 10, 0, 200, 300, 0), (0, 0, 1, 0, 1, 2, 0)),), None),
            ("a context of working memory only", (picture((1_234, 0, 0, 0, 0, 0, 5_000), (2, 0, 0, 0, 0, 0, 1)),),
             "disk")]


SESSION_HINTS = {
    "manual": "A manual compaction ends the loop: when the round says compact was called, return \"compact\" at "
              "once (the history is one summary now).",
    "max_turns": "At most config.max_turns calls, then \"max_turns\" (see the case's max_turns).",
    "order": "The order of two steps: micro first, then the size of what micro left against THRESHOLD.",
    "unread": "Results cleared before the model read them (see the re-reads in the trace): the micro layer must "
              "spare the results of the last message, as chapter 02's micro_compact_seen_only does; "
              "my_micro_compact counts results only.",
}
STEPS = [
    Step("my_layers", "05", my_layers, _sessions, observe_layers, label="session",
         hint="Micro first, then the size of what is left against THRESHOLD; each only if its knob is on; "
              "return the names of the layers that fired, in order.",
         traps={"auto off": "A setting ignored: config.auto is off in this session (see its settings), so auto "
                            "must never run, whatever the size.",
                "micro off": "A setting ignored: config.micro is off in this session (see its settings), so micro "
                             "must never run.",
                **SESSION_HINTS},
         twins=("harness.strategies.three_layers:ThreeLayers",)),
    Step("my_agent_loop", "05", my_agent_loop, _sessions, observe_session, label="session",
         hint="Each turn: the layers, the call, the round (whose compact runs the manual summary), then the "
              "exits; compare the case's trace with what your loop sent.",
         traps=SESSION_HINTS, twins=("harness.core.loop:run_agent",)),
    Step("late_agent_loop", "05", late_agent_loop, _late_sessions, observe_session, label="session",
         hint="Your my_agent_loop with one line moved: the layers run right after the model call, before the "
              "round; nothing else changes."),
    Step("working_share", "05", working_share, _pictures, tolerance=1e-9,
         hint="The tokens of the working part over the tokens of everything in the context.",
         traps={"disk": "Only what is in the context counts: the transcripts live on disk (where == \"disk\"), "
                        "and context_tokens leaves them out.",
                "items": "Tokens, not items: the share is of the tokens the context holds."}),
]


def _long_run(threshold: int):
    """The long session with the three layers at ``threshold``, run in a folder of its own that is removed
    afterwards (the run is cached by its path, so it is made once)."""
    with scratch_folder(Path("_work/05_three_layers/answers")) as root:
        return three_layer_run(DEFAULTS.keep_recent, threshold, len(LONG_SESSION.requests), root)


def _compressed():
    return _long_run(DEFAULTS.threshold)


def _user_lines_per_summary() -> list[int]:
    return [e.detail["summary"].count("\n- User: ") for e in _compressed().events if e.kind in ("auto", "manual")]


def _largest_working_share() -> float:
    return max(p[MEMORY_NAMES.index("working")].tokens / context_tokens(p) for p in _compressed().client.records)


def _rule_kept(threshold: int) -> bool:
    return _long_run(threshold).answers[-1].startswith("I will not")


def _thresholds_keeping_rule() -> frozenset[int]:
    return frozenset(t for t in range(10_000, 120_001, 10_000) if _rule_kept(t))


ANSWERS = (
    Answer("user_lines_per_summary", "05", truth=_user_lines_per_summary,
           hint="take the auto and manual events in order and count the lines that start with '- User: '"),
    Answer("largest_working_share", "05", truth=_largest_working_share, tolerance=0.005,
           hint="working tokens over context_tokens(picture), for every request of the run; the largest"),
    Answer("thresholds_keeping_rule", "05", truth=_thresholds_keeping_rule,
           hint="run three_layer_run at each threshold and read its last answer"),
)

RECAP = [
    "Micro and auto run before the call (they shape what the model is sent); manual runs after the model "
    "asked for it, once its round is appended; the history is then one summary, so the request is over.",
    "Micro rewrites results in place and auto replaces the history: the log must hold every committed "
    "message before either may touch it. A manual compaction comes after the round, so the log is synced "
    "again first: the whole round, compact's call and result included, is on record before the summary "
    "replaces the history.",
    "The API refuses a tool_use without its tool_result right after it: the round, compact's result "
    "included, must be whole when the history is saved and replaced.",
    "In the summaries: a rule given once, early, was not in the tail the first summary was written from, "
    "and the agent later edited the files it had been told never to touch.",
    "Working: the newest KEEP_RECENT results; short-term: placeholders; long-term: the summary and the "
    "transcripts. The transcripts already hold placeholders; only the session log is the full record.",
]
