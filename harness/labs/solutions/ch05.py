"""Chapter 05's step: the agent loop as taught, its bookkeeping left to ``taught_loop``.

The cases: sessions that need nothing but the three layers, run by
``taught_loop(your loop)`` from scratch (a fresh workspace, a fresh fake),
with a session log: the twelve files with no compaction, with the three layers
at two settings, with an agent that calls ``compact``, with ``max_turns``
cutting the task short, and the first requests of the long session. What is
compared is everything a session leaves: answers, history, trace, events,
tool calls and log.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ...core.config import CompactionConfig
from ...core.loop import finish_round as my_finish_round, to_dicts
from ...core.messages import text
from ...session.records import read_log
from ...strategies.base import Compactor
from ...strategies.three_layers import ThreeLayers
from ..runs import run_scenario
from ..scenarios import LONG_SESSION, TWELVE_FILES
from ..scratch import scratch_folder
from ..taught_loop import taught_loop
from . import Step


def my_agent_loop(client, messages, *, system, tools, config, compactor, run):
    """Run one request to its end; return "compact", "end_turn" or "max_turns"."""
    for _ in range(config.max_turns):
        compactor.before_call(run)                                   # micro, auto
        response = client.messages.create(model=config.model, max_tokens=config.max_tokens, system=system,
                                          tools=tools.schemas, messages=messages)
        content = to_dicts(response.content) or [text("(no reply)")]  # the API refuses an empty message
        if my_finish_round(messages, content, tools, lambda focus: compactor.on_compact(run, focus)):
            return "compact"                                         # manual: the history is a summary now
        compactor.after_round(run, response.usage)
        if not any(block["type"] == "tool_use" for block in content):
            return "end_turn"
    return "max_turns"


DEFAULTS = CompactionConfig()
SESSIONS = [
    ("twelve files, no compaction", (TWELVE_FILES, None, DEFAULTS, Compactor, {})),
    ("twelve files, three layers", (TWELVE_FILES, None, DEFAULTS, ThreeLayers, {})),
    ("twelve files, THRESHOLD 10,000, KEEP_RECENT 1",
     (TWELVE_FILES, None, DEFAULTS.with_(threshold=10_000, keep_recent=1), ThreeLayers, {})),
    ("twelve files, all three layers",
     (TWELVE_FILES, None, DEFAULTS.with_(threshold=10_000), ThreeLayers, {"compact_policy": "after_task"})),
    ("twelve files, max_turns 5", (TWELVE_FILES, None, DEFAULTS.with_(max_turns=5), ThreeLayers, {})),
    ("4 requests, THRESHOLD 12,000",
     (LONG_SESSION, LONG_SESSION.requests[:4], DEFAULTS.with_(threshold=12_000), ThreeLayers, {})),
]


def observe_session(loop, args) -> dict[str, Any]:
    """Everything a session run by ``taught_loop(loop)`` leaves."""
    return session_left(taught_loop(loop), args)


def session_left(run_loop, args) -> dict[str, Any]:
    """Everything a session run by ``run_loop`` (run_agent's signature) leaves, from scratch in a folder of its own."""
    scenario, requests, config, strategy, fake_options = args
    with scratch_folder(Path("_work/05_three_layers")) as root:
        session = run_scenario(scenario, config, root / "check", requests=requests, compactor=strategy(), log=True,
                               loop=run_loop, **fake_options)
        return {"answers": session.answers, "history": session.messages,
                "trace": [dataclasses.asdict(t) for t in session.trace],
                "events": [dataclasses.asdict(e) for e in session.events],
                "tool_calls": session.tool_calls, "log": read_log(root / "check" / "session.jsonl").records}


def _sessions() -> list[tuple[str, tuple[Any, ...]]]:
    return SESSIONS


STEPS = [
    Step("my_agent_loop", "05", my_agent_loop, _sessions, observe_session, label="session",
         hint="Each turn: before_call, the call, the round (my_finish_round, whose compact runs on_compact); "
              "return 'compact' when it says so, else after_round, and 'end_turn' when no tool was asked for."),
]

RECAP = [
    "Micro and auto run before the call (they shape what the model is sent); manual runs after the model "
    "asked for it, once its round is appended; the history is then one summary, so the request is over.",
    "Micro rewrites results in place and auto replaces the history: the log must hold every committed "
    "message before either may touch it.",
    "The API refuses a tool_use without its tool_result right after it: the round, compact's result "
    "included, must be whole when the history is saved and replaced.",
    "In the summaries: a rule given once, early, was not in the tail the first summary was written from, "
    "and the agent later edited the files it had been told never to touch.",
    "Working: the newest KEEP_RECENT results; short-term: placeholders; long-term: the summary and the "
    "transcripts. The transcripts already hold placeholders; only the session log is the full record.",
]
