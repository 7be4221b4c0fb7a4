"""Chapter 10 has no step to write (it switches the course to real Claude): the values its exercises 2 and 3
ask for, each worked out on the fake as the chapter runs it, and the answers to its recap questions."""
from __future__ import annotations

from pathlib import Path

from ...core.config import CompactionConfig
from ...strategies.registry import COMPACTION_MODEL
from ...strategies.server_side import ServerCompaction, ServerToolClearing
from ..runs import run_scenario
from ..scenarios import LONG_SESSION, TWELVE_FILES
from ..scratch import scratch_folder
from . import Answer, Step

STEPS: list[Step] = []


def _ignored_messages() -> int:
    """Section 5's run: the index of the message that holds the compaction block, so the count before it."""
    with scratch_folder(Path("_work/10_answers")) as root:
        run = run_scenario(LONG_SESSION, CompactionConfig(model=COMPACTION_MODEL), root / "server_compaction",
                           compactor=ServerCompaction(trigger=50_000), requests=LONG_SESSION.requests[:12])
    return next(i for i, message in enumerate(run.messages) if isinstance(message["content"], list)
                and any(block["type"] == "compaction" for block in message["content"]))


def _cleared_with_inputs() -> int:
    """Section 4's offline clearing with ``clear_tool_inputs``: the input tokens cleared at the last call."""
    clearing = ServerToolClearing(trigger=5_000, keep=1, clear_tool_inputs=True)
    with scratch_folder(Path("_work/10_answers")) as root:
        run = run_scenario(TWELVE_FILES, CompactionConfig(), root / "ex3", compactor=clearing)
    return [e.detail for e in run.events if e.kind == clearing.name][-1]["cleared_input_tokens"]


ANSWERS = (
    Answer("ignored_messages", "10", _ignored_messages,
           hint="count the whole messages before the one whose content holds the compaction block."),
    Answer("cleared_with_inputs", "10", _cleared_with_inputs,
           hint="read cleared_input_tokens in the detail of the last clearing event of your run."),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "Both a key in ANTHROPIC_API_KEY and USE_REAL_MODEL=1, from the environment or the git-ignored .env; "
    "either alone, or USE_REAL_MODEL=0, gives the offline fake.",
    "clear_tool_uses_20250919 is micro-compaction (chapter 02): keep matches KEEP_RECENT, exclude_tools "
    "PRESERVE_RESULT_TOOLS. compact_20260112 is auto-compaction (chapter 03): trigger matches THRESHOLD, "
    "instructions (which replaces the whole default summary prompt) chapter 03's summary request.",
    "api_context.check_edit checks it against the SDK's TypedDict for its type and raises a ValueError "
    "naming the field, before anything is sent.",
    "The API drops every block before the compaction block and goes on from its summary: the block is the "
    "marker of where to cut. Dropped, the fake server summarised the whole history again (75,005 tokens) "
    "and billed 77,075 input tokens instead of 26,373.",
    "No: the server edits only what the model is sent; the client's history keeps every message, nothing "
    "removed.",
]
