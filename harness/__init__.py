"""harness: context compaction for an LLM agent, built chapter by chapter.

Each module is introduced by one chapter of the course (its docstring says
which); notebooks import from here, never the other way round.
"""
from .auto import (COMPRESSED_HEADER, SUMMARY_PROMPT, AutoReport, SummaryFailed, auto_compact,
                   build_summary_request, summarise)
from .config import DEFAULT_MODEL, CompactionConfig
from .fake import FakeModel, fake_client
from .compactor import CallTrace, Compactor, Event, RunContext, ThreeLayers
from .loop import RunResult, run_agent
from .manual import COMPACT_ACK, COMPACT_TOOL, COMPACT_TOOL_NAME
from .messages import (InvalidHistory, assistant, iter_tool_results, iter_tool_uses, text,
                       text_of, tool_names_by_id, tool_result, tool_use, user, validate_messages)
from .micro import PLACEHOLDER, MicroReport, micro_compact
from .scenarios import LONG_SESSION, READ_AGENTS, TWELVE_FILES, Scenario
from .session import SYSTEM_PROMPT, Session, SessionStats, run_scenario
from .session_log import SessionLog
from .tokens import count_tokens, estimate_tokens, exact_tokens
from .tools import PathEscape, ToolError, Toolbox, ToolOutcome, Workspace
from .transcripts import read_transcript, write_transcript

__all__ = [name for name in dir() if not name.startswith("_")]
