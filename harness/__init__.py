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
from .clients import default_client, read_dotenv, uses_real_model
from .recording import RecordingClient
from .growth import (CATEGORIES, GrowthSeries, composition, composition_recorder, estimate_and_count,
                     growth_series, mix_text)
from .plots import (composition_figure, estimate_ratio_figure, growth_figure, session_growth_figure,
                    token_mix_figure)
from .replacement import (DEFAULT_BUDGET_CHARS, DEFAULT_THRESHOLD, SUMMARY_HEADER, Decision, ReplacementPlan,
                          decide_compaction, describe_replacement, plan_replacement, replace_history,
                          reported_total, summary_message)
from .retry import CircuitBreaker, RetriesExhausted, RetryPolicy, call_with_retry
from .model_windows import MODEL_WINDOWS, context_window, resolve_threshold
from .usage_triggered import HANDOFF_PROMPT, UsageTriggered, build_handoff_request
from .resume import CorruptLog, Resumed, TornLine, read_log, replay, resume, resume_naive
from .inspector import compaction_cards, compaction_inspector
from .cost import (EXAMPLE_PRICES, BatchedMicro, CallCost, CostReport, Prices, break_even_calls, cache_recorder,
                   cache_split, common_prefix, cost_of, request_segments)
from .recall import (RECALL_TOOL, RECALL_TOOL_NAME, Archive, RecallToolbox, ReversibleLayers, recalls,
                     reversible_micro_compact, reversible_placeholder, run_with_recall)
from .tuning import (GOLDFISH, HOARDER, KEEP_SLIDER, LAB_METRICS, LAB_REQUESTS, PRESERVE_CHOICES, THRESHOLD_SLIDER,
                     UNCOMPRESSED, Lab, Outcome, Setting, cost_split_figure, curves_figure, heatmaps_figure, lab_panel,
                     outcome_line, outcome_table, recommend, settings_grid)
from .structured_summary import SECTIONS, STRUCTURED_PROMPT, StructuredSummary, structured_compact
from .tool_clearing import ClearToolUses
from .amnesia import PROBES, WORK_REQUESTS, AmnesiaReport, Probe, ProbeAnswer, probe_amnesia
from .guards import Guarded, check_next_request, copy_history
from .strategies import (PRETEND_WINDOW, Strategy, StrategyRun, all_strategies, clearing_figure, run_strategies,
                         run_strategy, strategy_table)
from .loop_lab import (MEMORY_NAMES, LayerMarker, MemoryPart, agent_limit, compact_tool_lab, memory_recorder,
                       context_tokens, layer_markers, layers_figure, manual_only_run, memory_figure, memory_of,
                       memory_picture, memory_table, run_line, three_layer_run, three_layers_lab, uncompressed_run)
from .micro_lab import MicroLab, explore_micro, measure_micro, micro_figure, outline
from .auto_lab import (ThresholdRun, explore_threshold, logged_results, placeholder_results, run_with_threshold,
                       sawtooth_figure, threshold_run)

__all__ = [name for name in dir() if not name.startswith("_")]
