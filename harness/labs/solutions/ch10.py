"""Chapter 10 has no step to write (it switches the course to real Claude): the values its exercises 2 and 3
ask for, each worked out on the fake as the chapter runs it, and the answers to its recap questions."""
from __future__ import annotations

from pathlib import Path

from ...core.config import CompactionConfig
from ...fake import fake_client
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


ANSWERS = (
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
    "Edited, its signature no longer verifies (compaction_content_mismatch, or _signature_invalid, "
    "_tool_changes_mismatch for the other fields); in the middle of the whole history it is "
    "compaction_block_misplaced; dropped, the server summarised the whole history again (75,005 tokens on the "
    "fake) and billed 77,075 input tokens instead of 26,373.",
    "The on-demand request: the whole history with compaction={'type': 'summarize'} and no context_management, "
    "once the turn is done. The response holds the compaction block alone, stop_reason 'compaction'; the "
    "runner yields it and goes on with the block first in place of the history.",
    "No: the server edits only what the model is sent; the client's history keeps every message, nothing "
    "removed.",
]
