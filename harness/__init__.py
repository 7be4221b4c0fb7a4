"""harness: context compaction for an LLM agent, built chapter by chapter.

``import harness`` gives the core the student builds in chapters 01-05
(``harness.core``): the message format and its rules, token counting, the
three layers (micro, auto, manual), transcripts, the workspace tools and the
loop. It is light: no plotting, widgets or fake model come with it.

The other rooms are imported by name when a chapter needs them:

- ``harness.strategies``: compaction strategies behind one base class (chapters 05-10);
- ``harness.session``: the append-only log, resume and replay, replacement, retries (chapters 05-07);
- ``harness.labs``: figures, slider callbacks and experiments for the notebooks;
- ``harness.fake``: the offline fake of Claude behind the real SDK;
- ``harness.clients`` and ``harness.api_context``: real Claude, and the API's own context management (chapter 10).
"""
from .core.auto import (COMPRESSED_HEADER, SUMMARY_PREFIX, SUMMARY_PROMPT, AutoReport, SummaryFailed,
                        auto_compact, build_summary_request, compressed_message, is_summary, request_summary,
                        summarise)
from .core.config import DEFAULT_MODEL, CompactionConfig
from .core.error_text import error_text
from .core.loop import CallTrace, Event, RunContext, RunResult, finish_round, messages_api, run_agent, to_dicts
from .core.manual import COMPACT_ACK, COMPACT_TOOL, COMPACT_TOOL_NAME, compact_focus
from .core.messages import (InvalidHistory, assistant, iter_tool_results, iter_tool_uses, result_text, text,
                            text_of, tool_names_by_id, tool_result, tool_use, user, validate_messages)
from .core.micro import PLACEHOLDER, MicroReport, is_placeholder, micro_compact, placeholder, s06_micro_compact
from .core.models import (MODEL_MAX_OUTPUT, MODEL_WINDOWS, context_window, max_output, resolve_threshold,
                          threshold_below_window)
from .core.tokens import count_tokens, estimate_tokens, exact_tokens
from .core.tools import PathEscape, Toolbox, ToolError, ToolOutcome, Workspace
from .core.sdk_version import PINNED_ANTHROPIC, print_sdk_notice_once, sdk_notice
from .core.transcripts import read_transcript, write_transcript

__all__ = [name for name in dir() if not name.startswith("_")]

print_sdk_notice_once()  # a module runs once per process: the notice, if any, is said once
