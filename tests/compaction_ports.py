"""Ports, in our own words, of four real systems' compaction loops and prompts, to drive the fake the way
those systems would (tests/test_compaction_ports.py). Each keeps the system's loop shape (when it compacts,
what it sends the summariser, what replaces the history, how the work resumes), its tools' names and
parameters, and the gist and layout of its prompts; the wording is ours. Nothing of the course's harness runs
the loop: only its workspace executes the tools.

- ``ClaudeCodePort``: Claude Code's auto-compaction (a closed-source product; its prompts as a third party
  extracted them from the binary, Yeyito777/Agent ``playground/claude-code-compact-prompt.md`` at ab2a333aa8ad,
  unverified against Anthropic's own text; the tools as its documentation names them,
  https://docs.claude.com/en/docs/claude-code/settings#tools-available-to-claude). Past a token threshold,
  before a call: the whole conversation plus one user message with the nine-section prompt (tools still
  sent, told not to use them); the reply's ``<summary>`` block, its tags made a ``Summary:`` header, goes
  into one user message that says the session continues, where the transcript is, and to carry on with
  the last task.
- ``CodexPort``: openai/codex ``codex-rs/core/src/compact.rs`` at 0100b103625752f6a10c21b79a8c423761dc4c6a
  and ``codex-rs/core/templates/compact/{prompt,summary_prefix}.md`` at 928a707f6a5ed63d89f1575f794aa7135be2f5c9.
  Past its limit: the history plus the checkpoint prompt as a user message (on a context overflow the oldest
  item is dropped and the request sent again); the new history is the user's own messages (the newest,
  within 20,000 tokens) then one user message: the hand-off prefix and the summary. Its tools: ``shell``
  (an argv array) and ``apply_patch`` (a patch in its ``*** Begin Patch`` format).
- ``GeminiPort``: google-gemini/gemini-cli ``packages/core/src/services/chatCompressionService.ts`` at
  02b2885cb824fecd2f9ed666aa6c7e397fc26384 and ``packages/core/src/core/prompts.ts`` (``getCompressionPrompt``)
  at ceacc9952805cbfe06087e156c91eeec5866a6b6. Past half the limit: the oldest 70% of the history (cut only
  before a user turn that carries no tool results) goes to the summariser with the compression prompt as
  the system prompt and a request for a ``<state_snapshot>``; a second call asks it to check that snapshot
  and write it again, improved; the new history is the snapshot, a short acknowledgement from the model,
  then the newest 30% as it was (kept only if it is smaller than before).
- ``LangChainPort``: langchain-ai/langchain ``libs/langchain_v1/langchain/agents/middleware/summarization.py``
  at d13823043d84754f9136137ab71ef5569d792102 (``SummarizationMiddleware``). Before each model call, past
  ``max_tokens_before_summary`` (approximate tokens, characters / 4): everything but the newest 20 messages
  (the cut moved so that no tool result loses its call) is summarised, its messages written as LangChain's
  message reprs inside ``<messages>`` in a prompt of XML-style sections, and replaced by one human message
  that hands the summary over. The middleware trims what it summarises to its last 4,000 tokens; the port
  makes that limit a parameter.

Every port can send ``tool_choice.disable_parallel_tool_use`` (``parallel=False``).
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic

from harness.core.tools import ToolError, Workspace

MODEL = "claude-haiku-4-5"


def _schema(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {**required, **(optional or {})}
    return {"type": "object", "properties": properties, "required": list(required)}


STRING, INTEGER, BOOLEAN = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}


@dataclass
class Compaction:
    """One compaction: the history it replaced, what the summariser was shown of it (before the prompt), the
    summary, the request being worked on, and the first reply after it (``resumed``)."""
    before: list[dict[str, Any]]
    shown: list[dict[str, Any]]
    summary: str
    request: str = ""
    resumed: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Port:
    """What every port shares: a workspace, a client, the history as plain dicts, and a loop that calls the
    model and runs its tools until it ends its turn. A port says when and how it compacts."""
    client: Any
    workspace: Workspace
    transcripts: Path
    limit: int
    parallel: bool = True
    messages: list[dict[str, Any]] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    request: str = ""      # the request being worked on
    reported: int = 0      # the last reply's input + output tokens, as the API reported them
    since: int = 0         # messages appended after that reply
    system: str = "You are a coding agent in a small repository. Use the tools to do what the user asks."
    tools: list[dict[str, Any]] = field(default_factory=list)

    def choice(self) -> dict[str, Any]:
        return {} if self.parallel else {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}

    def estimate(self) -> int:
        """The reported usage of the last reply and a characters / 4 estimate of what came after it."""
        return self.reported + len(json.dumps(self.messages[self.since:])) // 4

    def create(self, **request: Any) -> Any:
        return self.client.messages.create(model=MODEL, **request)

    def ask(self, request: str, max_calls: int = 60) -> str:
        self.messages.append({"role": "user", "content": request})
        self.request = request
        for _ in range(max_calls):
            done = len(self.compactions)
            self.before_call()
            reply = self.create(max_tokens=8_000, system=self.system, tools=self.tools, messages=self.messages,
                                **self.choice())
            content = [b.model_dump(include={"type", "text", "id", "name", "input"}) for b in reply.content]
            if len(self.compactions) > done:
                self.compactions[-1].resumed = content
            self.messages.append({"role": "assistant", "content": content})
            self.reported, self.since = reply.usage.input_tokens + reply.usage.output_tokens, len(self.messages)
            uses = [b for b in content if b["type"] == "tool_use"]
            if not uses:
                answer = "\n".join(b["text"] for b in content if b["type"] == "text")
                self.answers.append(answer)
                return answer
            self.messages.append({"role": "user", "content": [self.result(b) for b in uses]})
        raise AssertionError(f"no end of turn after {max_calls} calls: {request}")

    def result(self, block: dict[str, Any]) -> dict[str, Any]:
        try:
            content = self.run(block["name"], block["input"])
            return {"type": "tool_result", "tool_use_id": block["id"], "content": content}
        except (ToolError, OSError, ValueError, KeyError, TypeError) as error:
            return {"type": "tool_result", "tool_use_id": block["id"], "content": f"Error: {error}", "is_error": True}

    def run(self, name: str, tool_input: dict[str, Any]) -> str:
        raise NotImplementedError

    def before_call(self) -> None:
        if self.estimate() >= self.limit:
            self.compact()

    def compact(self) -> None:
        raise NotImplementedError

    def transcript(self) -> Path:
        self.transcripts.mkdir(parents=True, exist_ok=True)
        path = self.transcripts / f"{type(self).__name__}_{len(self.compactions) + 1:03d}.jsonl"
        path.write_text("".join(json.dumps(m) + "\n" for m in self.messages))
        return path

    def summarise(self, request: dict[str, Any]) -> str:
        reply = self.create(**request)
        return "".join(b.text for b in reply.content if b.type == "text")


def numbered(text: str) -> str:
    """A file's text the way ``cat -n`` shows it: each line after its number and a tab."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.split("\n"), start=1))


# --- Claude Code -------------------------------------------------------------------------------------------

CLAUDE_CODE_TOOLS = [
    {"name": "Read", "description": "Read a file from the local filesystem; lines come back numbered, as cat -n "
     "shows them. Read the whole file unless it is too long.",
     "input_schema": _schema({"file_path": STRING}, {"offset": INTEGER, "limit": INTEGER})},
    {"name": "Write", "description": "Write a file, replacing what it held.",
     "input_schema": _schema({"file_path": STRING, "content": STRING})},
    {"name": "Edit", "description": "Replace an exact string in a file with another.",
     "input_schema": _schema({"file_path": STRING, "old_string": STRING, "new_string": STRING},
                             {"replace_all": BOOLEAN})},
    {"name": "Bash", "description": "Run a bash command in a persistent shell.",
     "input_schema": _schema({"command": STRING}, {"description": STRING, "timeout": INTEGER})},
    {"name": "Glob", "description": "Find files by a glob pattern such as **/*.py.",
     "input_schema": _schema({"pattern": STRING}, {"path": STRING})},
    {"name": "Grep", "description": "Search file contents with a regular expression (ripgrep).",
     "input_schema": _schema({"pattern": STRING}, {
         "path": STRING, "glob": STRING, "-n": BOOLEAN,
         "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]}})},
]
CLAUDE_CODE_PROMPT = (
    "Write a detailed summary of our conversation so far, paying close attention to what the user asked for "
    "and what you did in reply. It has to carry the technical detail (files, code, decisions) needed to go on "
    "with the work without the conversation.\n"
    "Think it through first inside <analysis> tags, then give the summary inside <summary> tags, with these "
    "sections:\n"
    "1. Primary Request and Intent: every explicit request of the user, in detail\n"
    "2. Key Technical Concepts: the technologies and ideas the work involved\n"
    "3. Files and Code Sections: each file read, changed or created, and why it matters\n"
    "4. Errors and fixes: each error met and how it was fixed\n"
    "5. Problem Solving: what was solved, and what is still being worked out\n"
    "6. All user messages: every user message that is not a tool result\n"
    "7. Pending Tasks: the tasks the user asked for that are not done\n"
    "8. Current Work: precisely what was being done just before this request\n"
    "9. Optional Next Step: the next step, in line with the user's latest request, quoting it\n"
    "Use no tools. Reply with the <summary>...</summary> block only.")
CLAUDE_CODE_CONTINUE = (
    "This conversation carries on from an earlier one that ran out of room in the context window; the "
    "summary below stands for that earlier part.\n\n{summary}\n\n"
    "The complete transcript is saved at {path} if an exact detail is needed.\n"
    "Go on from where we stopped without asking the user anything further: continue the last task you were "
    "given.")


@dataclass
class ClaudeCodePort(Port):
    tools: list[dict[str, Any]] = field(default_factory=lambda: CLAUDE_CODE_TOOLS)

    def run(self, name: str, tool_input: dict[str, Any]) -> str:
        ws = self.workspace
        if name == "Read":
            text = ws.read_file(tool_input["file_path"], tool_input.get("limit"))
            return numbered(text)
        if name == "Write":
            return ws.write_file(tool_input["file_path"], tool_input["content"])
        if name == "Edit":
            return ws.edit_file(tool_input["file_path"], tool_input["old_string"], tool_input["new_string"])
        if name == "Bash":
            return ws.bash(tool_input["command"])
        if name == "Glob":
            folder = tool_input.get("path")
            return ws.bash(f"ls {shlex.quote(folder) + '/' if folder else ''}{tool_input['pattern']}")
        if name == "Grep":
            where = f"{tool_input.get('path', '.')}/{tool_input.get('glob', '*')}"
            return ws.bash(f"grep -n {shlex.quote(tool_input['pattern'])} {where}")
        raise ToolError(f"unknown tool {name}")

    def compact(self) -> None:
        path = self.transcript()
        sent = [*self.messages, {"role": "user", "content": CLAUDE_CODE_PROMPT}]
        summary = self.summarise({"max_tokens": 8_000, "system": self.system, "tools": self.tools, "messages": sent})
        shown = summary.replace("<summary>", "Summary:").replace("</summary>", "").strip()
        self.compactions.append(Compaction(list(self.messages), list(self.messages), summary, self.request))
        self.messages[:] = [{"role": "user", "content": CLAUDE_CODE_CONTINUE.format(summary=shown, path=path)}]
        self.reported, self.since = 0, 0


# --- Codex -------------------------------------------------------------------------------------------------

CODEX_TOOLS = [
    {"name": "shell", "description": "Runs a shell command and returns its output. The command is an argv "
     "array, for example [\"bash\", \"-lc\", \"ls\"].",
     "input_schema": _schema({"command": {"type": "array", "items": STRING}},
                             {"workdir": STRING, "timeout_ms": INTEGER})},
    {"name": "apply_patch", "description": "Edit files with a patch in this format:\n*** Begin Patch\n"
     "*** Update File: path\n@@\n-old line\n+new line\n*** End Patch",
     "input_schema": _schema({"input": STRING})},
]
CODEX_PROMPT = (
    "You are making a CONTEXT CHECKPOINT. Write a handoff summary so that another model can carry on with the "
    "one task still in progress (the latest user request that is not finished).\n\n"
    "Rules:\n- Only the active task matters; earlier finished tasks get one short line.\n"
    "- Do not suggest checking work again unless the user asked for it.\n\n"
    "Use this format:\n- Active task:\n- Progress so far:\n- Next steps (active task only):\n"
    "- Key context / constraints / preferences (still relevant only):\n- Completed tasks (optional, brief):\n\n"
    "Keep it short and structured, so that the next model can go on without backtracking.")
CODEX_PREFIX = (
    "You are picking up a task that was in progress when the context was compacted. Another model wrote the "
    "handoff summary below; take it as the record of what is already done, and go on from its next steps for "
    "the active task, without reopening finished work. The tools that model used are still yours. The summary:")
USER_MESSAGES_TOKENS = 20_000


@dataclass
class CodexPort(Port):
    tools: list[dict[str, Any]] = field(default_factory=lambda: CODEX_TOOLS)
    trimmed: int = 0  # items dropped because the compaction request overflowed

    def run(self, name: str, tool_input: dict[str, Any]) -> str:
        if name == "shell":
            argv = tool_input["command"]
            return self.workspace.bash(argv[2] if argv[:2] == ["bash", "-lc"] else shlex.join(argv))
        if name == "apply_patch":
            return apply_codex_patch(self.workspace, tool_input["input"])
        raise ToolError(f"unknown tool {name}")

    def compact(self) -> None:
        history = list(self.messages)
        while True:
            sent = [*history, {"role": "user", "content": CODEX_PROMPT}]
            try:
                summary = self.summarise({"max_tokens": 8_000, "system": self.system, "tools": self.tools,
                                          "messages": sent})
                break
            except anthropic.BadRequestError as error:
                if "too long" not in str(error) or len(history) <= 1:
                    raise
                history = history[1:]  # the oldest item goes, and the request is sent again
                while history and history[0]["role"] != "user" or _results_only(history[0]):
                    history = history[1:]
                self.trimmed += 1
        self.compactions.append(Compaction(list(self.messages), history, summary, self.request))
        own = [m["content"] for m in self.messages if m["role"] == "user" and isinstance(m["content"], str)
               and not m["content"].startswith(CODEX_PREFIX)]
        kept, room = [], USER_MESSAGES_TOKENS
        for said in reversed(own):
            if len(said) // 4 > room:
                break
            kept.insert(0, said)
            room -= len(said) // 4
        self.messages[:] = [{"role": "user", "content": said} for said in kept] + [
            {"role": "user", "content": f"{CODEX_PREFIX}\n{summary}"}]
        self.reported, self.since = 0, 0


def _results_only(message: dict[str, Any]) -> bool:
    content = message["content"]
    return isinstance(content, list) and all(b.get("type") == "tool_result" for b in content)


def apply_codex_patch(workspace: Workspace, patch: str) -> str:
    """A one-file ``*** Update File`` patch of ``-``/``+`` line pairs, applied in place."""
    lines = patch.strip().split("\n")
    if lines[:1] != ["*** Begin Patch"] or lines[-1:] != ["*** End Patch"] or not lines[1].startswith(
            "*** Update File: "):
        raise ToolError("not a patch in the *** Begin Patch format")
    path = lines[1].removeprefix("*** Update File: ")
    olds = [line[1:] for line in lines if line.startswith("-")]
    news = [line[1:] for line in lines if line.startswith("+")]
    for old, new in zip(olds, news):
        workspace.edit_file(path, old, new)
    return f"Success. Updated the following files:\nM {path}"


# --- Gemini CLI --------------------------------------------------------------------------------------------

GEMINI_TOOLS = [
    {"name": "read_file", "description": "Reads and returns the content of a file.",
     "input_schema": _schema({"absolute_path": STRING}, {"offset": INTEGER, "limit": INTEGER})},
    {"name": "write_file", "description": "Writes content to a file.",
     "input_schema": _schema({"file_path": STRING, "content": STRING})},
    {"name": "replace", "description": "Replaces text within a file: old_string becomes new_string.",
     "input_schema": _schema({"file_path": STRING, "old_string": STRING, "new_string": STRING})},
    {"name": "list_directory", "description": "Lists the names of the files and subdirectories of a directory.",
     "input_schema": _schema({"path": STRING})},
    {"name": "search_file_content", "description": "Searches for a regular expression in the contents of files.",
     "input_schema": _schema({"pattern": STRING}, {"path": STRING, "include": STRING})},
    {"name": "run_shell_command", "description": "Executes a shell command with bash -c.",
     "input_schema": _schema({"command": STRING}, {"description": STRING})},
]
GEMINI_SYSTEM = (
    "You are the part of the agent that condenses its internal chat history into a fixed structure.\n\n"
    "When the history grows too long you are called to distil all of it into a dense XML snapshot. The agent "
    "will resume from this snapshot alone, so keep every key detail, plan, error and instruction of the user.\n\n"
    "First think the whole history through in a private <scratchpad>. Then write the final <state_snapshot> "
    "XML object, with no filler.\n\nThe structure must be:\n\n"
    "<state_snapshot>\n"
    "    <overall_goal>\n        <!-- one sentence: the user's high-level goal -->\n    </overall_goal>\n"
    "    <key_knowledge>\n        <!-- facts, conventions and constraints to remember, as bullets -->\n"
    "    </key_knowledge>\n"
    "    <file_system_state>\n        <!-- files created, read, changed or deleted, and what was learned -->\n"
    "    </file_system_state>\n"
    "    <recent_actions>\n        <!-- the last significant actions and what came of them -->\n"
    "    </recent_actions>\n"
    "    <current_plan>\n        <!-- the plan step by step, each step marked done, in progress or to do -->\n"
    "    </current_plan>\n"
    "</state_snapshot>")
GEMINI_NEW = "Write a new <state_snapshot> from the history given. Reason in your scratchpad first."
GEMINI_UPDATE = ("The history holds a <state_snapshot> from before: carry into the new one everything of it that "
                 "still holds, updated with what happened since, and lose no constraint or key fact. Reason in your "
                 "scratchpad first.")
GEMINI_CHECK = ("Check the <state_snapshot> you just wrote, critically: did it leave out a technical detail, a "
                "file path, a tool result or a constraint of the user from the history? If so, write a FINAL, "
                "improved <state_snapshot>; if not, write the same <state_snapshot> again.")
GEMINI_ACK = "Understood, thank you for the context."
KEEP_FRACTION = 0.3


@dataclass
class GeminiPort(Port):
    tools: list[dict[str, Any]] = field(default_factory=lambda: GEMINI_TOOLS)
    inflated: int = 0  # compressions dropped because the new history was not smaller

    def run(self, name: str, tool_input: dict[str, Any]) -> str:
        ws = self.workspace
        if name == "read_file":
            return ws.read_file(tool_input["absolute_path"], tool_input.get("limit"))
        if name == "write_file":
            ws.write_file(tool_input["file_path"], tool_input["content"])
            return f"Successfully overwrote file: {tool_input['file_path']}."
        if name == "replace":
            ws.edit_file(tool_input["file_path"], tool_input["old_string"], tool_input["new_string"])
            return f"Successfully modified file: {tool_input['file_path']} (1 replacements)."
        if name == "list_directory":
            return "\n".join(line.rsplit("/", 1)[-1] for line in ws.list_files(tool_input["path"]).splitlines())
        if name == "search_file_content":
            where = f"{tool_input.get('path', '.')}/{tool_input.get('include', '*')}"
            return ws.bash(f"grep -n {shlex.quote(tool_input['pattern'])} {where}")
        if name == "run_shell_command":
            return ws.bash(tool_input["command"])
        raise ToolError(f"unknown tool {name}")

    def before_call(self) -> None:
        if self.estimate() >= 0.5 * self.limit:
            self.compact()

    def split(self) -> int:
        """Where the kept part starts: the first user turn without tool results past 70% of the characters;
        else the last such turn (everything, when the history ends on an answer)."""
        sizes = [len(json.dumps(m)) for m in self.messages]
        target, total, last = (1 - KEEP_FRACTION) * sum(sizes), 0, 0
        for i, message in enumerate(self.messages):
            if message["role"] == "user" and not _results_only(message) and not _tool_results(message):
                if total >= target:
                    return i
                last = i
            total += sizes[i]
        final = self.messages[-1]
        if final["role"] == "assistant" and not any(b.get("type") == "tool_use" for b in final["content"]):
            return len(self.messages)
        return last

    def compact(self) -> None:
        at = self.split()
        old, kept = self.messages[:at], self.messages[at:]
        if not old:
            return
        snapshot_before = any("<state_snapshot>" in json.dumps(m) for m in old)
        sent = [*old, {"role": "user", "content": GEMINI_UPDATE if snapshot_before else GEMINI_NEW}]
        draft = self.summarise({"max_tokens": 8_000, "system": GEMINI_SYSTEM, "messages": sent})
        checked = [*old, {"role": "assistant", "content": draft}, {"role": "user", "content": GEMINI_CHECK}]
        final = self.summarise({"max_tokens": 8_000, "system": GEMINI_SYSTEM, "messages": checked}).strip() or draft
        new = [{"role": "user", "content": final}, {"role": "assistant", "content": GEMINI_ACK}, *kept]
        if len(json.dumps(new)) >= len(json.dumps(self.messages)):
            self.inflated += 1
            return
        self.compactions.append(Compaction(list(self.messages), old, final, self.request))
        self.messages[:] = new
        self.reported, self.since = 0, 0


def _tool_results(message: dict[str, Any]) -> bool:
    content = message["content"]
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


# --- LangChain's summarization middleware ------------------------------------------------------------------

LANGCHAIN_TOOLS = [  # the file toolkit's tools and the shell tool, as langchain_community names them
    {"name": "read_file", "description": "Read file from disk",
     "input_schema": _schema({"file_path": STRING})},
    {"name": "write_file", "description": "Write file to disk",
     "input_schema": _schema({"file_path": STRING, "text": STRING}, {"append": BOOLEAN})},
    {"name": "list_directory", "description": "List files and directories in a specified folder",
     "input_schema": _schema({}, {"dir_path": STRING})},
    {"name": "terminal", "description": "Run shell commands on this Linux machine.",
     "input_schema": _schema({"commands": {"type": "array", "items": STRING}})},
]
LANGCHAIN_PROMPT = (
    "<role>\nContext extraction assistant\n</role>\n\n"
    "<primary_objective>\nYour one goal here is to extract the most relevant, highest-quality context from the "
    "conversation history below.\n</primary_objective>\n\n"
    "<objective_information>\nYou are close to the number of input tokens you can take, so the context you "
    "extract will take the place of the conversation history below. Keep only what matters most to the overall "
    "goal.\n</objective_information>\n\n"
    "<instructions>\nThe history below will be replaced by what you extract now: record every important piece "
    "of context, so that no action already done has to be done again.\n</instructions>\n\n"
    "Read the whole conversation history with care, then reply with the extracted context only, nothing "
    "before or after it.\n\n"
    "<messages>\nMessages to summarize:\n{messages}\n</messages>")
LANGCHAIN_HANDOVER = "Below is a summary of the conversation up to now:\n\n{summary}"
MESSAGES_TO_KEEP = 20


@dataclass
class LangChainPort(Port):
    tools: list[dict[str, Any]] = field(default_factory=lambda: LANGCHAIN_TOOLS)
    trim_tokens: int | None = 4_000  # what is summarised is cut to its newest messages within this (None: all)

    def run(self, name: str, tool_input: dict[str, Any]) -> str:
        ws = self.workspace
        if name == "read_file":
            return ws.read_file(tool_input["file_path"])
        if name == "write_file":
            ws.write_file(tool_input["file_path"], tool_input["text"])
            return f"File written successfully to {tool_input['file_path']}."
        if name == "list_directory":
            return "\n".join(line.rsplit("/", 1)[-1]
                             for line in ws.list_files(tool_input.get("dir_path", ".")).splitlines())
        if name == "terminal":
            return "\n".join(ws.bash(command) for command in tool_input["commands"])
        raise ToolError(f"unknown tool {name}")

    def estimate(self) -> int:
        return len(json.dumps(self.messages)) // 4

    def cutoff(self) -> int:
        """Everything before the newest ``MESSAGES_TO_KEEP`` messages, moved back so that the kept part does
        not start with tool results (their calls would be gone)."""
        at = len(self.messages) - MESSAGES_TO_KEEP
        while at > 0 and _tool_results(self.messages[at]):
            at -= 1
        return max(at, 0)

    def compact(self) -> None:
        at = self.cutoff()
        if at <= 0:
            return
        old = self.messages[:at]
        if self.trim_tokens is not None:
            old = _newest_within(old, self.trim_tokens)
        prompt = LANGCHAIN_PROMPT.replace("{messages}", langchain_reprs(old) if old else "[]")
        sent = [{"role": "user", "content": prompt}]
        summary = self.summarise({"max_tokens": 8_000, "messages": sent}).strip()
        self.compactions.append(Compaction(list(self.messages), old, summary, self.request))
        self.messages[:] = [{"role": "user", "content": LANGCHAIN_HANDOVER.format(summary=summary)},
                            *self.messages[at:]]


def _newest_within(messages: list[dict[str, Any]], tokens: int) -> list[dict[str, Any]]:
    """The newest messages within ``tokens`` (characters / 4), starting on a human message."""
    kept, room = [], tokens
    for message in reversed(messages):
        size = len(json.dumps(message)) // 4
        if size > room:
            break
        kept.insert(0, message)
        room -= size
    while kept and (kept[0]["role"] != "user" or _tool_results(kept[0])):
        kept.pop(0)
    return kept


def langchain_reprs(messages: list[dict[str, Any]]) -> str:
    """The messages as ``str()`` of LangChain's message objects writes them."""
    out = []
    for message in messages:
        content = message["content"]
        if message["role"] == "user" and isinstance(content, str):
            out.append(f"HumanMessage(content={content!r}, additional_kwargs={{}}, response_metadata={{}})")
        elif message["role"] == "user":
            texts = [b["text"] for b in content if b.get("type") == "text"]
            for block in content:
                if block.get("type") == "tool_result":
                    status = ", status='error'" if block.get("is_error") else ""
                    out.append(f"ToolMessage(content={block['content']!r}, tool_call_id={block['tool_use_id']!r}"
                               f"{status})")
            out += [f"HumanMessage(content={t!r}, additional_kwargs={{}}, response_metadata={{}})" for t in texts]
        else:
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            text = "\n".join(b["text"] for b in blocks if b.get("type") == "text")
            calls = [{"name": b["name"], "args": b["input"], "id": b["id"], "type": "tool_call"}
                     for b in blocks if b.get("type") == "tool_use"]
            out.append(f"AIMessage(content={text!r}, additional_kwargs={{}}, response_metadata={{}}, "
                       f"tool_calls={calls!r})")
    return "[" + ", ".join(out) + "]"
