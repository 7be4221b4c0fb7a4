"""Chapter 10 has no step to write (it switches the course to real Claude): only the answers to its recap
questions."""
from __future__ import annotations

from . import Step

STEPS: list[Step] = []

RECAP = [  # the answers to the chapter's recap questions, in order
    "Both a key in ANTHROPIC_API_KEY and USE_REAL_MODEL=1, from the environment or the git-ignored .env; "
    "either alone, or USE_REAL_MODEL=0, gives the offline fake.",
    "clear_tool_uses_20250919 is micro-compaction (chapter 02): keep matches KEEP_RECENT, exclude_tools "
    "PRESERVE_RESULT_TOOLS. compact_20260112 is auto-compaction (chapter 03): trigger matches THRESHOLD, "
    "instructions the compact tool's focus.",
    "api_context.check_edit checks it against the SDK's TypedDict for its type and raises a ValueError "
    "naming the field, before anything is sent.",
    "The API drops every block before the compaction block and goes on from its summary: the block is the "
    "marker of where to cut. Dropped, the fake server summarised the whole history again (75,005 tokens) "
    "and billed 77,075 input tokens instead of 26,373.",
    "No: the server edits only what the model is sent; the client's history keeps every message, nothing "
    "removed.",
]
