"""Layer 1, micro-compaction: old tool results become short placeholders (chapter 02).

Four steps, as in the reference agent: find every tool_result block, learn
which tool produced each one, choose the ones to clear (all but the newest
``keep_recent``; string content longer than ``min_chars``; not from a
preserved tool), and overwrite their content in place. The tool_use blocks
stay, so the agent still knows what it did.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .config import check_count
from .messages import Message, iter_tool_results, tool_names_by_id
from .tokens import estimate_tokens

PLACEHOLDER = "[Previous: used {tool_name}]"


@dataclass
class Cleared:
    message_index: int
    block_index: int
    tool_use_id: str
    tool_name: str
    chars_before: int


@dataclass
class MicroReport:
    cleared: list[Cleared] = field(default_factory=list)
    tokens_before: int = 0
    tokens_after: int = 0

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def fired(self) -> bool:
        return bool(self.cleared)


def placeholder(tool_name: str) -> str:
    return PLACEHOLDER.format(tool_name=tool_name)


def is_placeholder(content: object) -> bool:
    return isinstance(content, str) and content.startswith("[Previous: used ") and content.endswith("]")


def micro_compact(
    messages: list[Message],
    keep_recent: int = 3,
    preserve_tools: frozenset[str] = frozenset({"read_file"}),
    min_chars: int = 100,
) -> MicroReport:
    """Replace old, long, non-preserved tool_result contents by placeholders, in place."""
    check_count("keep_recent", keep_recent)
    check_count("min_chars", min_chars)
    report = MicroReport(tokens_before=estimate_tokens(messages))
    results = list(iter_tool_results(messages))                        # step 1
    names = tool_names_by_id(messages)                                  # step 2
    older = results[: max(0, len(results) - keep_recent)]  # never a negative slice end
    for i, j, block in older:                                           # step 3
        content = block.get("content")
        name = names.get(block["tool_use_id"], "unknown")
        if (not isinstance(content, str) or len(content) <= min_chars or name in preserve_tools
                or content == placeholder(name)):  # already cleared: nothing to do
            continue
        block["content"] = placeholder(name)                            # step 4
        report.cleared.append(Cleared(i, j, block["tool_use_id"], name, len(content)))
    report.tokens_after = estimate_tokens(messages) if report.cleared else report.tokens_before
    return report
