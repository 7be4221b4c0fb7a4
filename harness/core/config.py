"""One validated place for every compaction knob (chapter 03).

The defaults are the reference agent's (learn-claude-code s06): keep the
newest 3 tool results, never clear ``read_file`` output, only clear results
longer than 100 characters, summarise when the estimate passes 50,000 tokens,
and send the summariser the last 80,000 characters of the history.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

# Legacy on its model page (Haiku 5.5 is current) but not deprecated in the SDK (_data/deprecated_models.py);
# cheap, with a 200k window. Any model id works.
DEFAULT_MODEL = "claude-haiku-4-5"


def check_count(name: str, value: object, minimum: int = 0) -> int:
    """``value`` if it is an int >= minimum (bools refused), else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class CompactionConfig:
    keep_recent: int = 3
    threshold: int = 50_000
    preserve_tools: frozenset[str] = frozenset({"read_file"})
    min_chars: int = 100
    tail_chars: int = 80_000
    transcript_dir: Path = field(default_factory=lambda: Path(".transcripts"))
    micro: bool = True
    auto: bool = True
    counter: Literal["estimate", "tiktoken"] = "estimate"
    model: str = DEFAULT_MODEL
    max_tokens: int = 1024
    summary_max_tokens: int = 2000
    max_turns: int = 100

    def __post_init__(self) -> None:
        check_count("keep_recent", self.keep_recent)
        check_count("threshold", self.threshold, 1)
        check_count("min_chars", self.min_chars)
        check_count("tail_chars", self.tail_chars, 1)
        check_count("max_tokens", self.max_tokens, 1)
        check_count("summary_max_tokens", self.summary_max_tokens, 1)
        check_count("max_turns", self.max_turns, 1)
        if isinstance(self.preserve_tools, str) or not all(isinstance(t, str) for t in self.preserve_tools):
            raise ValueError("preserve_tools must be a collection of tool names")
        object.__setattr__(self, "preserve_tools", frozenset(self.preserve_tools))
        object.__setattr__(self, "transcript_dir", Path(self.transcript_dir))
        if self.counter not in ("estimate", "tiktoken"):
            raise ValueError(f"counter must be 'estimate' or 'tiktoken', got {self.counter!r}")

    def with_(self, **changes: object) -> "CompactionConfig":
        """A copy with some knobs changed (validated again)."""
        return replace(self, **changes)
