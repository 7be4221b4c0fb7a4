"""A port, in our own words, of the s06 lesson's agent loop (shareAI-lab/learn-claude-code,
``agents/s06_context_compact.py``), to try the fake the way a student's own harness would.

Its shape, not its code: a system prompt that states a token limit and invites the ``compact`` tool;
its own micro-compaction (old non-read results replaced by a short stand-in); auto-compaction past the
limit that saves a transcript, dumps the history with ``json.dumps(messages, default=str)`` (so the
assistant's turns, kept as the SDK's response blocks, arrive as reprs such as ``TextBlock(...)``), asks
for a summary with its own prompt, and replaces the history; its own tools (read_file, write_file,
edit_file, bash) over the course workspace. Nothing of the course's harness is used.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.tools import ToolError, Workspace

MODEL = "claude-haiku-4-5"
KEEP_RESULTS = 3          # micro-compaction leaves the last few tool results as they are
DUMP_CHARS = 80_000       # the summary request holds the tail of the dump
SUMMARY_ASK = ("Please summarize this conversation so the work can go on from it: what got done, where "
               "things stand now, and what was decided. Short, but keep the details that matter.")


def _schema(**fields: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": kind} for name, kind in fields.items()},
            "required": list(fields)}


TOOLS = [
    {"name": "bash", "description": "Run a shell command in the workspace.", "input_schema": _schema(command="string")},
    {"name": "read_file", "description": "Return a file's text.", "input_schema": _schema(path="string")},
    {"name": "write_file", "description": "Replace a file's text.",
     "input_schema": _schema(path="string", content="string")},
    {"name": "edit_file", "description": "Replace one exact piece of a file's text.",
     "input_schema": _schema(path="string", old_text="string", new_text="string")},
    {"name": "compact", "description": "Compress the conversation now.",
     "input_schema": {"type": "object", "properties": {"focus": {"type": "string"}}}},
]


def system_prompt(limit: int) -> str:
    return (f"You are a coding agent in a small repository. Use the tools to do what you are asked. "
            f"This conversation may hold at most {limit} tokens; when it gets long or tool results repeat, "
            f"call the compact tool to compress the history and keep what matters.")


@dataclass
class S06Port:
    client: Any
    workspace: Workspace
    transcripts: Path
    limit: int = 50_000
    parallel: bool = True     # False: the request sets tool_choice.disable_parallel_tool_use (one call per turn)
    messages: list[Any] = field(default_factory=list)
    summaries: list[tuple[str, str]] = field(default_factory=list)  # (the dump it was given, the summary)

    def estimate(self) -> int:
        return len(json.dumps(self.messages, default=str)) // 4

    def micro(self) -> None:
        """Old tool results (all but the last few) over 100 characters become a stand-in, except reads."""
        names = {b.id: b.name for m in self.messages if m["role"] == "assistant" and isinstance(m["content"], list)
                 for b in m["content"] if getattr(b, "type", None) == "tool_use"}
        results = [b for m in self.messages if m["role"] == "user" and isinstance(m["content"], list)
                   for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
        for result in results[:-KEEP_RESULTS]:
            name = names.get(result["tool_use_id"], "a tool")
            if name != "read_file" and len(result["content"]) > 100:
                result["content"] = f"[Earlier output of {name} removed]"

    def compact(self, focus: str = "") -> None:
        """Transcript, then a summary of the dump's tail, then one message in place of the history."""
        self.transcripts.mkdir(parents=True, exist_ok=True)
        path = self.transcripts / f"s06_{len(self.summaries) + 1:03d}.jsonl"
        path.write_text("".join(json.dumps(m, default=str) + "\n" for m in self.messages))
        dump = json.dumps(self.messages, default=str)[-DUMP_CHARS:]
        ask = SUMMARY_ASK + (f" Be sure to keep: {focus}." if focus else "")
        reply = self.client.messages.create(model=MODEL, max_tokens=2_000,
                                            messages=[{"role": "user", "content": f"{ask}\n\n{dump}"}])
        summary = next((b.text for b in reply.content if b.type == "text"), "") or "(no summary)"
        self.summaries.append((dump, summary))
        header = f"[Compressed history; full transcript in {path}]"
        self.messages[:] = [{"role": "user", "content": f"{header}\n\n{summary}"}]

    def run_tool(self, block: Any) -> str:
        try:
            return getattr(self.workspace, block.name)(**block.input)
        except (ToolError, OSError, TypeError, ValueError) as error:
            return f"Error: {error}"

    def ask(self, request: str, max_calls: int = 40) -> None:
        """One user request, run until the model ends its turn (or asks to compact)."""
        self.messages.append({"role": "user", "content": request})
        for _ in range(max_calls):
            self.micro()
            if self.estimate() > self.limit:
                self.compact()
            choice = {} if self.parallel else {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}
            reply = self.client.messages.create(model=MODEL, max_tokens=8_000, system=system_prompt(self.limit),
                                                tools=TOOLS, messages=self.messages, **choice)
            self.messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason != "tool_use":
                return
            uses = [b for b in reply.content if b.type == "tool_use"]
            focus = next((b.input.get("focus", "") for b in uses if b.name == "compact"), None)
            self.messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id,
                 "content": "Compressing..." if b.name == "compact" else self.run_tool(b)} for b in uses]})
            if focus is not None:
                self.compact(focus)
                return
        raise AssertionError(f"no end of turn after {max_calls} calls: {request}")
