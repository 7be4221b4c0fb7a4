"""Chapter 09's step, exercise 5: price a run with and without prompt caching from its token counts.

The cases: the chapter's 12-file task of section 3 (the calls ``cost_of``
priced, with caching and without); the edges a hand-written version gets
wrong (no calls; an agent call one token under ``min_cacheable`` and one
exactly at it; a summary call that found a prefix, which is still uncached);
and 120 seeded random runs of agent and summary calls under five price lists
(the session prices of Haiku 4.5, Sonnet 4.5's with a 1,024-token minimum,
a zero ``min_cacheable``, other factors, a free cache read), a third of them
without caching. The dollars are compared
to ten decimals, so a sum taken in another order still passes; every number
is compared as a float, so an int count and a float one are the same.
"""
from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.config import CompactionConfig
from ...fake import fake_client
from ..cost import EXAMPLE_PRICES, SESSION_PRICES, Prices, cache_recorder, cost_of
from ..runs import run_scenario
from ..scenarios import TWELVE_FILES
from ..scratch import scratch_folder
from . import Step

PRICE_LISTS = {"the session prices": SESSION_PRICES, "Sonnet 4.5's, min_cacheable 1,024": EXAMPLE_PRICES,
               "min_cacheable 0": Prices(min_cacheable=0),
               "other factors": Prices(input=1.0, output=5.0, cache_write_factor=2.0, cache_read_factor=0.5),
               "a free cache read": Prices(input=0.8, output=4.0, cache_read_factor=0.0)}


def price_calls(calls, prices, caching=True):
    """The run's tokens split three ways, its output tokens, and its price in dollars, summed over the calls."""
    total = {"cache_read": 0, "cache_write": 0, "uncached": 0, "output": 0}
    for kind, tokens, found, output in calls:
        if caching and kind == "agent" and tokens >= prices.min_cacheable:
            total["cache_read"] += found
            total["cache_write"] += tokens - found
        else:
            total["uncached"] += tokens
        total["output"] += output
    per_token = prices.input / 1e6
    total["dollars"] = (total["uncached"] * per_token
                        + total["cache_write"] * per_token * prices.cache_write_factor
                        + total["cache_read"] * per_token * prices.cache_read_factor
                        + total["output"] * prices.output / 1e6)
    return total


@lru_cache(maxsize=1)
def twelve_file_calls() -> tuple[tuple[str, int, int, int], ...]:
    """Section 3's 12-file task, no compaction: each call as (kind, input, found in the cache, output)."""
    recorder = cache_recorder(fake_client())
    with scratch_folder(Path("_work/09_price_calls")) as root:
        run = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False), root / "twelve", client=recorder)
    return tuple((c.kind, c.input, c.cache_read, c.output) for c in cost_of(run.trace, recorder.records).calls)


def _random_run(rng: random.Random, prices: Prices) -> list[tuple[str, int, int, int]]:
    calls = []
    for _ in range(rng.randint(1, 30)):
        kind = "summary" if rng.random() < 0.15 else "agent"
        tokens = rng.choice((rng.randint(0, 3 * max(prices.min_cacheable, 1)), rng.randint(0, 60_000),
                             prices.min_cacheable))
        cached_at_all = tokens >= max(prices.min_cacheable, 1) and rng.random() < 0.7
        found = rng.randint(max(prices.min_cacheable, 1), tokens) if cached_at_all else 0
        calls.append((kind, tokens, found, rng.randint(0, 3_000)))
    return calls


@lru_cache(maxsize=1)
def _cases() -> list[tuple[str, tuple[Any, ...]]]:
    twelve = list(twelve_file_calls())
    least = SESSION_PRICES.min_cacheable
    cases = [("the 12-file task, with caching", (twelve, SESSION_PRICES, True)),
             ("the 12-file task, without caching", (twelve, SESSION_PRICES, False)),
             ("no calls", ([], SESSION_PRICES, True)),
             (f"an agent call of {least - 1:,} tokens", ([("agent", least - 1, 0, 10)], SESSION_PRICES, True)),
             (f"an agent call of exactly {least:,} tokens", ([("agent", least, 0, 10)], SESSION_PRICES, True)),
             ("a summary call that found 30,000 tokens in the cache",
              ([("agent", 30_000, 0, 50), ("summary", 31_000, 30_000, 2_000)], SESSION_PRICES, True)),
             ("a summary call, without caching", ([("summary", 31_000, 30_000, 2_000)], SESSION_PRICES, False))]
    rng = random.Random(9)
    for i in range(120):
        label, prices = list(PRICE_LISTS.items())[i % len(PRICE_LISTS)]
        caching = i % 3 != 2
        cases.append((f"random run {i}, {label}, {'with' if caching else 'without'} caching",
                      (_random_run(rng, prices), prices, caching)))
    return cases


def rounded(function, args):
    """What a pricing is judged by: every number it returns as a float, to ten decimals."""
    result = function(*args)
    if not isinstance(result, dict):
        return result
    return {key: round(float(value), 10) if isinstance(value, int | float) and not isinstance(value, bool) else value
            for key, value in result.items()}


STEPS = [
    Step("price_calls", "09", price_calls, _cases, rounded,
         hint="With caching, only an agent call of at least min_cacheable tokens is cached: it reads what was "
              "found and writes the rest. Every other call is uncached. The prices are per million tokens, the "
              "factors times the input price."),
]

RECAP = [  # the answers to the chapter's recap questions, in order
    "The cache holds a prefix only where an earlier request ended. Every stored end (requests 2 to 4) lies "
    "after the cleared block, and request 1 was too short to store at Haiku 4.5's 4,096-token minimum, so "
    "the fifth read nothing and wrote all of itself, at 1.25 times the input price instead of 0.1.",
    "With one tool call per round, KEEP_RECENT=10 puts the cleared block 20 blocks back. No stored prefix "
    "before it lies within the 20 blocks a request looks back, so the call after it writes the whole request.",
    "Every micro step rewrites the history a few results back, so nearly every call writes what it would "
    "have read, and a write costs 12.5 times a read. Clearing in larger, rarer batches (BatchedMicro) keeps "
    "the prefix stable in between.",
    "The exact output the agent saw, from the append-only log, with no tool run again. Not a smaller bill: a "
    "recall returns as many tokens as a fresh read, and the longer placeholders and the extra tool schema "
    "cost slightly more input.",
    "Its context stays so small that most of its calls are under Haiku 4.5's 4,096-token minimum and go "
    "uncached; the rest are rewritten on almost every call, so they pay writes at 1.25 times instead of "
    "reads. With a 1,024-token minimum the same runs are cheaper with caching than without.",
]
