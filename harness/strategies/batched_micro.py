"""Micro-compaction in larger, rarer steps, so the prompt cache survives (chapter 09).

Every rewrite of an old message turns the cached prefix after it into a
cache write (chapter 09 prices this). ``BatchedMicro`` waits until a large
batch can be cleared at once, which keeps the prefix stable for many calls
in between.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.loop import RunContext
from ..core.messages import Message, check_shape
from ..core.micro import micro_compact
from .three_layers import ThreeLayers


def clearable_tokens(messages: list[Message], keep_recent: int, preserve_tools: frozenset[str],
                     min_chars: int) -> int:
    """About how many tokens (chars // 4) micro-compaction would clear now, without clearing.

    A dry run of ``micro_compact`` on copies of the blocks (the strings are shared, not copied).
    InvalidHistory if ``messages`` is malformed.
    """
    check_shape(messages)
    copies = [{**m, "content": [dict(b) for b in m["content"]]} if isinstance(m["content"], list) else m
              for m in messages]
    report = micro_compact(copies, keep_recent, preserve_tools, min_chars)
    return sum(c.chars_before for c in report.cleared) // 4


class BatchedMicro(ThreeLayers):
    """Micro-compaction in larger, rarer steps: rewrite history only once ``batch_tokens`` can go.

    Every rewrite of an old message turns the cached prefix after it into a
    cache write; waiting until a large batch can be cleared at once keeps
    the prefix stable for many calls in between.
    """
    name = "batched_micro"

    def __init__(self, batch_tokens: int = 10_000):
        self.batch_tokens = batch_tokens

    def before_call(self, run: RunContext) -> list[str]:
        config = run.config
        if config.micro and clearable_tokens(run.messages, config.keep_recent, config.preserve_tools,
                                             config.min_chars) < self.batch_tokens:
            return super().before_call(replace(run, config=config.with_(micro=False)))  # not yet
        return super().before_call(run)
