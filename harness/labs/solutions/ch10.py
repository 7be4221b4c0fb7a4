"""Chapter 10 has no step to write (it switches the course to real Claude): the values its exercises ask for
(1: an edit, judged by the SDK's type and its two knobs, since several dicts are right; 2 and 3: worked out on
the fake as the chapter runs it; 4: Claude's own count, live only), and the answers to its recap questions."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ...api_context import check_edit, clear_tool_uses
from ...clients import default_client
from ...core.config import DEFAULT_MODEL, CompactionConfig
from ...core.messages import assistant, tool_result, tool_use, user
from ...core.tokens import exact_tokens
from ...core.tools import Toolbox
from ...fake import fake_client
from ...session.runner import SYSTEM_PROMPT
from ...strategies.registry import COMPACTION_MODEL
from ...strategies.server_side import ServerCompaction, ServerToolClearing
from ..recording import RecordingClient
from ..runs import run_scenario
from ..scenarios import LONG_SESSION, TWELVE_FILES
from ..scratch import scratch_folder
from . import Answer, Step

STEPS: list[Step] = []


def _dropped_messages() -> int:
    """Section 6's run: the messages of the request that was compacted, all dropped once the block came back."""
    compaction = ServerCompaction(trigger=50_000)
    recorder = RecordingClient(fake_client(), lambda request: len(request["messages"]))
    with scratch_folder(Path("_work/10_answers")) as root:
        run = run_scenario(LONG_SESSION, CompactionConfig(model=COMPACTION_MODEL), root / "server_compaction",
                           client=recorder, compactor=compaction, requests=LONG_SESSION.requests[:12])
    call = next(e.call for e in run.events if e.kind == compaction.name)
    return recorder.records[call - 1]


def _cleared_with_inputs() -> int:
    """Section 5's offline clearing with ``clear_tool_inputs``: the input tokens cleared at the last call."""
    clearing = ServerToolClearing(trigger=5_000, keep=1, clear_tool_inputs=True)
    with scratch_folder(Path("_work/10_answers")) as root:
        run = run_scenario(TWELVE_FILES, CompactionConfig(), root / "ex3", compactor=clearing)
    return [e.detail for e in run.events if e.kind == clearing.name][-1]["cleared_input_tokens"]


def keeps_bash_and_reads(value: Any) -> str | None:
    """Exercise 1: None when ``value`` is a clearing edit the SDK's type takes, keeping the 5 newest tool uses
    and never clearing bash or read_file; else how it is off."""
    if type(value) is not dict:
        return f"the answer is a dict (an edit), yours is {type(value).__name__}"
    try:
        check_edit(value)
    except ValueError as error:
        return f"the SDK's type refuses it ({str(error).splitlines()[0]})"
    if value["type"] != "clear_tool_uses_20250919":
        return "it is not the tool-result clearing edit"
    if value.get("keep") != {"type": "tool_uses", "value": 5}:
        return "its keep does not keep the 5 newest tool uses"
    if sorted(value.get("exclude_tools") or ()) != ["bash", "read_file"]:
        return "its exclude_tools is not those two tools"
    return None


def _claude_count() -> int:
    """Exercise 4: Claude's count of section 2's request (real Claude only)."""
    with tempfile.TemporaryDirectory() as folder:
        workspace = TWELVE_FILES.build(Path(folder) / "workspace")
        history = [user("Read agents/s01_agent_loop.py and tell me what it does."),
                   assistant([tool_use("toolu_01", "read_file", {"path": "agents/s01_agent_loop.py"})]),
                   user([tool_result("toolu_01", workspace.read_file("agents/s01_agent_loop.py"))])]
        return exact_tokens(default_client(), history, model=os.environ.get("CLAUDE_MODEL", DEFAULT_MODEL),
                            system=SYSTEM_PROMPT, tools=Toolbox(workspace).schemas)


ANSWERS = (
    Answer("my_edit", "10", lambda: clear_tool_uses(keep=5, exclude_tools=["bash", "read_file"]),
           accepts=keeps_bash_and_reads,
           hint="Section 4 prints the shape of a clearing edit: keep counts tool uses, exclude_tools names tools."),
    Answer("claude_count", "10", _claude_count, live=True,
           hint="Call the counting endpoint with the system prompt and the tool schemas too, not the messages alone."),
    Answer("dropped_messages", "10", _dropped_messages,
           hint="count the messages of the request at the compaction's call, not those the loop kept."),
    Answer("cleared_with_inputs", "10", _cleared_with_inputs,
           hint="read cleared_input_tokens in the detail of the last clearing event of your run."),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "Both a key in ANTHROPIC_API_KEY and USE_REAL_MODEL=1, from the environment or the git-ignored .env; "
    "either alone, or USE_REAL_MODEL=0, gives the offline fake.",
    "clear_tool_uses_20250919 is micro-compaction (chapter 02: keep matches KEEP_RECENT, exclude_tools "
    "PRESERVE_RESULT_TOOLS), and clear_thinking_20251015 the same for thinking blocks; compact_20260112 is "
    "auto-compaction (chapter 03: trigger matches THRESHOLD); on-demand compaction={'type': 'summarize'} is the "
    "manual layer (chapter 04), the application deciding when.",
    "First in messages, in place of the messages it summarises, the only block with content, exactly as it came. "
    "After a threshold compaction the docs say to append the reply as usual, the API dropping what came before "
    "the block; the fake, following the SDK's compaction_block_misplaced, refuses a block in the middle, so the "
    "loop sends it first, which both accept. Edited, its signature no longer verifies "
    "(compaction_content_mismatch, or _signature_invalid, _tool_changes_mismatch for the other fields); dropped, "
    "the server summarised the whole history again (74,788 tokens on the fake) instead of reading 26,403.",
    "The on-demand request: the whole history with compaction={'type': 'summarize'} and no context_management, "
    "once the turn is done. The response holds the compaction block alone, stop_reason 'compaction'; the "
    "runner yields it and goes on with the block first, instead of the old messages.",
    "No: the server edits only what the model is sent; the client's history keeps every message, nothing "
    "removed.",
]
