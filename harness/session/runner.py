"""A working session: many requests through one loop, with the numbers that matter (chapter 05).

``Session.ask`` appends a user request and runs the loop until the agent
answers. The session keeps every call's trace and event, so a notebook can
plot growth curves and count what compaction cost: model calls, re-reads
(a file read again though it had not changed since the agent last read it:
its content was compacted away, or never in view), reads after an edit
(the file changed since, so reading it again is not forgetting), input
tokens billed across all calls, and the peak context. ``loop`` is the loop
each request runs (chapter 05 lets the student's own ``run_agent`` drive it).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.config import CompactionConfig
from ..core.loop import CallTrace, Compaction, Event, RunResult, run_agent
from ..core.messages import Message, user
from ..core.tools import Toolbox
from .log import SessionLog

SYSTEM_PROMPT = (
    "You are a careful coding agent working in a small repository. Use the tools to look at "
    "files before you answer questions about them or change them. Keep answers short."
)


@dataclass
class SessionStats:
    model_calls: int          # agent calls (summary calls not included)
    summary_calls: int
    re_reads: int             # read_file calls for a path read before and not changed since
    reads_after_edit: int     # read_file calls for a path edited or written since it was last read
    input_tokens_billed: int  # reported input tokens of every call, summaries included
    peak_context: int         # largest reported input of one agent call
    compactions: dict[str, int]


@dataclass
class Session:
    client: Any
    toolbox: Toolbox
    config: CompactionConfig
    compactor: Compaction
    system: str = SYSTEM_PROMPT
    log: SessionLog | None = None
    on_event: Callable[[Event], None] | None = None
    messages: list[Message] = field(default_factory=list)
    trace: list[CallTrace] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    loop: Callable[..., RunResult] = run_agent
    ends: list[tuple[int, int, int]] = field(default_factory=list)  # (trace, events, tool calls) after each request

    def ask(self, request: str) -> RunResult:
        """Send one user request and run the loop until the agent stops. If a call fails (the API
        refuses a request, say), the error propagates; the calls made before it stay in the session."""
        self.messages.append(user(request))
        agent_calls = sum(1 for t in self.trace if t.kind == "agent")
        result = RunResult(stop="max_turns")
        try:
            self.loop(self.client, self.messages, system=self.system, tools=self.toolbox,
                      config=self.config, on_event=self.on_event, log=self.log,
                      first_call=agent_calls + 1, compactor=self.compactor, result=result)
        finally:
            self.trace += result.trace
            self.events += result.events
            self.tool_calls += result.tool_calls
        self.answers.append(result.reply if result.stop != "max_turns" else "")
        self.ends.append((len(self.trace), len(self.events), len(self.tool_calls)))
        return result

    @property
    def stats(self) -> SessionStats:
        return session_stats(self.trace, self.events, self.tool_calls)

    def first(self, requests: int) -> SessionPart:
        """The session as it stood after its first ``requests`` requests. Nothing a loop does looks
        ahead, so this is what a session of only those requests would have done (chapter 05's slider)."""
        if isinstance(requests, bool) or not isinstance(requests, int) or not 1 <= requests <= len(self.ends):
            raise ValueError(f"requests must be an integer between 1 and {len(self.ends)}, got {requests!r}")
        trace, events, tool_calls = self.ends[requests - 1]
        return SessionPart(self.trace[:trace], self.events[:events], self.tool_calls[:tool_calls],
                           self.answers[:requests])


@dataclass(frozen=True)
class SessionPart:
    """The first requests of a finished session: what they did and their numbers (chapter 05)."""
    trace: list[CallTrace]
    events: list[Event]
    tool_calls: list[tuple[str, dict[str, Any]]]
    answers: list[str]

    @property
    def stats(self) -> SessionStats:
        return session_stats(self.trace, self.events, self.tool_calls)


def session_stats(trace: list[CallTrace], events: list[Event],
                  tool_calls: list[tuple[str, dict[str, Any]]]) -> SessionStats:
    """The numbers of a session (or of its first requests) from its trace, events and tool calls."""
    agent = [t for t in trace if t.kind == "agent"]
    re_reads, after_edit = count_re_reads(tool_calls)
    return SessionStats(
        model_calls=len(agent),
        summary_calls=len(trace) - len(agent),
        re_reads=re_reads,
        reads_after_edit=after_edit,
        input_tokens_billed=sum(t.input_tokens for t in trace),
        peak_context=max((t.input_tokens for t in agent), default=0),
        compactions=dict(sorted(Counter(e.kind for e in events).items())),
    )


CHANGING_TOOLS = frozenset({"edit_file", "write_file"})


def count_re_reads(tool_calls: list[tuple[str, dict[str, Any]]]) -> tuple[int, int]:
    """(re-reads, reads after an edit) in a session's tool calls, in order. A read of a path the agent
    read before is a re-read, unless an edit or write of that path came after its last read."""
    read: set[Any] = set()
    changed: set[Any] = set()
    re_reads = after_edit = 0
    for name, tool_input in tool_calls:
        path = tool_input.get("path")
        if name in CHANGING_TOOLS and path in read:
            changed.add(path)
        elif name == "read_file":
            if path in changed:
                after_edit += 1
                changed.discard(path)
            elif path in read:
                re_reads += 1
            read.add(path)
    return re_reads, after_edit
