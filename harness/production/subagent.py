"""A sub-agent tool: a self-contained task run in a fresh context, and only its report kept (chapter 13).

A folder read of twelve files puts about 24,000 tokens into the context, and
the parent needs only twelve lines of it. Given the ``task`` tool, the parent
hands the whole request to a child: a new conversation that starts with the
task alone, the same file tools (no ``compact``, no ``task``: a child does
not delegate), its own system prompt and its own budget. The child's final
reply comes back as one tool result; its whole conversation is written to
a transcript on disk, like a compaction's.

Its budget: ``max_turns`` model calls, and ``budget`` tokens of context (the
loop's counter) before any call. A child over its budget stops there and the
parent gets an error result that says so, with its last words; a child
whose call fails (the API refuses it, say) is an error result too. Either
way the transcript is written and the parent's history stays valid.

What it costs: the child's calls (its reads are not cheaper, only kept out
of the parent), and whatever the report leaves out: a later question about
a file the child read needs a read of its own.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.config import CompactionConfig
from ..core.error_text import error_text
from ..core.loop import RunContext, RunResult, run_agent
from ..core.messages import Message, user
from ..core.tokens import count_tokens
from ..core.tools import Toolbox, ToolOutcome
from ..core.transcripts import write_transcript
from ..strategies.base import Compactor

SUBAGENT_TOOL_NAME = "task"
SUBAGENT_TOOL = {
    "name": SUBAGENT_TOOL_NAME,
    "description": ("Hand a self-contained task to a sub-agent: a fresh agent with its own context and the same "
                    "file tools, which does the task and reports back. Only its final report comes back to you. "
                    "Use it for work that needs many reads, such as reading every file of a folder."),
    "input_schema": {"type": "object", "properties": {"prompt": {
        "type": "string", "description": "The whole task, self-contained: the sub-agent sees nothing else."}},
        "required": ["prompt"]},
}
CHILD_SYSTEM = ("You are a sub-agent. Do the task you are given with the tools, then reply with a short report of "
                "what you found: only that report reaches the agent that asked.")
CHILD_BUDGET = 40_000   # tokens of context a child may reach
CHILD_TURNS = 10        # model calls a child may make


class OverBudget(Exception):
    """A child's context passed its budget before a call."""


class ChildBudget(Compactor):
    """No compaction: a child that outgrows its budget is stopped, not compacted."""
    name = "child_budget"

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def before_call(self, run: RunContext) -> list[str]:
        size = count_tokens(run.messages, system=run.system, tools=run.schemas)
        if size > self.budget:
            raise OverBudget(f"{size:,} tokens of context, over its budget of {self.budget:,}")
        return []


@dataclass(frozen=True)
class ChildRun:
    """One delegated task: what was asked, how it ended and where its conversation is."""
    prompt: str
    stop: str               # the loop's stop reason, "over_budget" or "failed"
    report: str             # its last reply ("" if none)
    calls: int              # its model calls
    transcript: Path
    result: RunResult
    error: str | None = None


class SubagentToolbox:
    """``inner``'s tools and the ``task`` tool, whose calls run a child agent on ``client`` (the module's rule).
    ``runs`` lists every child, in order."""

    def __init__(self, inner: Toolbox, client: Any, config: CompactionConfig, *, budget: int = CHILD_BUDGET,
                 max_turns: int = CHILD_TURNS, system: str = CHILD_SYSTEM) -> None:
        self.inner, self.client, self.system = inner, client, system
        self.config = config.with_(max_turns=max_turns)
        self.budget = budget
        self.workspace = inner.workspace
        self.child_tools = Toolbox(inner.workspace, include_compact=False)
        self.runs: list[ChildRun] = []

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [*self.inner.schemas, {**SUBAGENT_TOOL, "input_schema": dict(SUBAGENT_TOOL["input_schema"])}]

    @property
    def names(self) -> list[str]:
        return [schema["name"] for schema in self.schemas]

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        if name != SUBAGENT_TOOL_NAME:
            return self.inner.run(name, tool_input)
        prompt = tool_input.get("prompt") if isinstance(tool_input, dict) else None
        if not isinstance(prompt, str) or not prompt.strip() or set(tool_input) != {"prompt"}:
            return ToolOutcome("Error: task expects exactly one argument, prompt, a non-empty string", is_error=True)
        return self.delegate(prompt)

    def delegate(self, prompt: str) -> ToolOutcome:
        """Run one child on ``prompt`` in a fresh history; its report (or what stopped it) as one tool result."""
        messages: list[Message] = [user(prompt)]
        result = RunResult(stop="max_turns")
        error = None
        try:
            run_agent(self.client, messages, system=self.system, tools=self.child_tools, config=self.config,
                      compactor=ChildBudget(self.budget), result=result)
            stop = result.stop
        except OverBudget as over:
            stop, error = "over_budget", str(over)
        except Exception as failure:  # the child's call failed: the parent hears of it, its history intact
            stop, error = "failed", error_text(failure)
        transcript = write_transcript(messages, self.config.transcript_dir / "subagents")
        calls = sum(1 for t in result.trace if t.kind == "agent")
        child = ChildRun(prompt, stop, result.reply, calls, transcript, result, error)
        self.runs.append(child)
        return outcome_of(child)


def outcome_of(child: ChildRun) -> ToolOutcome:
    """The tool result the parent sees: the report, or an error that says what stopped the child."""
    where = f"{child.calls} calls; transcript: {child.transcript.name}"
    if child.stop in ("end_turn", "stop_sequence"):
        return ToolOutcome(f"[Sub-agent report ({where})]\n{child.report}")
    why = {"over_budget": f"stopped over its budget: {child.error}", "failed": f"failed: {child.error}",
           "max_turns": "stopped at its turn limit"}.get(child.stop, f"stopped: {child.stop}")
    said = child.report or "(nothing)"
    return ToolOutcome(f"Error: the sub-agent {why} ({where}). Its last words: {said}", is_error=True)
