"""Chapter 09's step, exercise 5: price a run with and without prompt caching from its token counts; and the
values exercises 1 to 4 ask for (``ANSWERS``), each worked out here by runs of its own, out of sight:
the rewrite of section 2 under a shorter lookback, the hoarder under an unlimited one, a threshold that
summarises and keeps the newest fact (more than one is right: a value is judged by its own run), and the best
of the settings sections 3 to 7 run that reads no file twice.

The cases: the chapter's 12-file task of section 3 (the calls ``cost_of``
priced, with caching and without); the edges a hand-written version gets
wrong (no calls; an agent call one token under ``min_cacheable`` and one
exactly at it; a summary call that found a prefix, which is still uncached);
and 120 seeded random runs of agent and summary calls under five price lists
(the session prices of Haiku 4.5, Sonnet 5.5's with a 512-token minimum,
a zero ``min_cacheable``, other factors, a free cache read), a third of them
without caching. The dollars are compared
to ten decimals, so a sum taken in another order still passes; every number
is compared as a float, so an int count and a float one are the same.
"""
from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...core.config import CompactionConfig
from ...core.messages import Message, assistant, tool_result, tool_use, user
from ...core.micro import placeholder
from ...core.tools import Toolbox, Workspace
from ...fake import fake_client
from ...session.runner import SYSTEM_PROMPT
from ..cost import EXAMPLE_PRICES, SESSION_PRICES, Prices, PromptCache, cache_recorder, cost_of, request_segments
from ..runs import run_scenario
from ..scenarios import AGENT_FILES, READ_AGENTS, TWELVE_FILES, python_module
from ..scratch import scratch_folder
from ..tuning import (GOLDFISH, HOARDER, READ_FILE, THRESHOLD_SLIDER, TUNING_REQUESTS, UNCOMPRESSED, Lab, Setting,
                      recommend, settings_grid)
from . import Answer, Step

PRICE_LISTS = {"the session prices": SESSION_PRICES, "Sonnet 5.5's, min_cacheable 512": EXAMPLE_PRICES,
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

def _reads(n: int) -> list[Message]:
    """Section 2's request with n read_file rounds (the chapter's ``reads``)."""
    files = [(f"agents/{stem}.py", python_module(stem, purpose, i))
             for i, (stem, purpose) in enumerate(AGENT_FILES.items(), start=1)]
    messages = [user(READ_AGENTS)]
    for i, (path, content) in enumerate(files[:n], start=1):
        messages += [assistant([tool_use(f"toolu_{i:02d}", "read_file", {"path": path})]),
                     user([tool_result(f"toolu_{i:02d}", content)])]
    return messages


def _rewrite_read(keep_recent: int, prices: Prices) -> int:
    """Tokens read from the cache by the 12-file request with the result before the newest ``keep_recent``
    cleared, after 1..12 reads went through a fresh cache (the chapter's ``rewrite_after(...)[2]``)."""
    with tempfile.TemporaryDirectory() as folder:
        schemas = Toolbox(Workspace(Path(folder)), include_compact=True).schemas
    cache = PromptCache(prices.min_cacheable, prices.lookback_blocks)
    for n in range(1, 13):
        cache.send(request_segments(_reads(n), SYSTEM_PROMPT, schemas))
    cleared = [dict(m) for m in _reads(12)]
    result = 12 - keep_recent
    cleared[2 * result] = user([tool_result(f"toolu_{result:02d}", placeholder("read_file"))])
    return cache.send(request_segments(cleared, SYSTEM_PROMPT, schemas))[0]


def _first_whole_rewrite() -> int:
    """Exercise 1: the smallest KEEP_RECENT from which the call reads nothing, under an 8-block lookback."""
    short = replace(SESSION_PRICES, lookback_blocks=8)
    return min(k for k in range(1, 12) if _rewrite_read(k, short) == 0)


def _hoarder_still_dearer() -> bool:
    """Exercise 2: with an unlimited lookback, whether the hoarder costs more than no compaction."""
    with scratch_folder(Path("_work/09_answers")) as root:
        endless = Lab(root / "exercise2", prices=replace(SESSION_PRICES, lookback_blocks=1_000))
        return endless.run(HOARDER).dollars > endless.run(UNCOMPRESSED).dollars


@lru_cache(maxsize=None)
def _remembers(threshold: int) -> tuple[int, tuple[str, ...]]:
    """(summaries, facts forgotten) at KEEP_RECENT 3, read_file preserved, and this THRESHOLD."""
    with scratch_folder(Path("_work/09_answers")) as root:
        run = Lab(root / "exercise3", requests=TUNING_REQUESTS, prices=SESSION_PRICES).run(Setting(3, threshold))
    return run.stats.compactions.get("auto", 0), tuple(run.forgotten)


NEWEST_FACT = "c06_storage's tag"  # said in request 7, after the three early facts


def summarises_and_remembers(value: Any) -> str | None:
    """Exercise 3: None when at THRESHOLD ``value`` the lab's session summarises and keeps the newest fact."""
    if type(value) is not int:
        return f"the answer is a number of tokens (an int), yours is {type(value).__name__}"
    if value < 1:
        return "a threshold is a number of tokens above 0"
    summaries, forgotten = _remembers(value)
    if not summaries:
        return "no summary ran at that threshold"
    return "the agent forgot the tag of request 7 too" if NEWEST_FACT in forgotten else None


def _threshold_that_remembers() -> int:
    return next(t for t in THRESHOLD_SLIDER if summarises_and_remembers(t) is None)


CHAPTER_SETTINGS = (  # what sections 3 to 7 run in the chapter's lab, in order (exercise 4 picks among them)
    UNCOMPRESSED, Setting(), Setting(preserve_tools=frozenset()), Setting(preserve_tools=frozenset(), batch_tokens=10_000),
    Setting(preserve_tools=frozenset(), s06_count=True), Setting(preserve_tools=frozenset(), recall=True),
    *settings_grid((1, 3, 10), (20_000, 50_000, 120_000), READ_FILE),
    *settings_grid((1, 3, 10), (50_000,), frozenset()),
    *(Setting(k, 50_000, frozenset(), s06_count=True) for k in (1, 10)), GOLDFISH, HOARDER)


def _best_without_re_reads() -> Setting:
    """Exercise 4: of the settings sections 3 to 7 run, the best by ``recommend`` among those that read no file
    twice."""
    with scratch_folder(Path("_work/09_answers")) as root:
        outcomes = Lab(root / "exercise4", requests=TUNING_REQUESTS, prices=SESSION_PRICES).sweep(
            CHAPTER_SETTINGS, progress=False)
    return recommend([o for o in outcomes if o.stats.re_reads == 0])[0].setting


ANSWERS = (
    Answer("first_whole_rewrite", "09", _first_whole_rewrite,
           hints={"too low": "At that KEEP_RECENT the call still reads a stored prefix: how many blocks back "
                             "does an 8-block lookback reach?",
                  "too high": "A smaller KEEP_RECENT already puts the cleared block out of an 8-block lookback."},
           hint="Each round adds two blocks (the call, then its result): count the blocks after the cleared one."),
    Answer("hoarder_still_dearer", "09", _hoarder_still_dearer,
           hint="Run the two settings in a Lab whose prices look back 1,000 blocks and compare their .dollars."),
    Answer("threshold_that_remembers", "09", _threshold_that_remembers, accepts=summarises_and_remembers,
           hint="A threshold low enough for a summary to run, yet whose summaries still hold every fact: "
                "the slider's second line names what is forgotten."),
    Answer("best_without_re_reads", "09", _best_without_re_reads,
           hint="Filter the outcomes of the settings sections 3 to 7 ran on re_reads == 0, then rank them with "
                "recommend(...); answer with its Setting."),
)

RECAP = [  # the answers to the chapter's recap questions, in order
    "The cache holds a prefix only where an earlier request ended. Every stored end (requests 2 to 4) lies "
    "after the cleared block, and request 1 was too short to store at Haiku 4.5's 4,096-token minimum, so "
    "the fifth read nothing and wrote all of itself, at 1.25 times the input price instead of 0.1.",
    "With one tool call per round, KEEP_RECENT=10 puts the cleared block 20 blocks back. No stored prefix "
    "before it lies within the 20 blocks a request looks back, so the call after it writes the whole request.",
    "Every micro step rewrites the history a few results back, so nearly every call writes what it would "
    "have read, and a write costs 12.5 times a read: it writes more than no compaction does. Clearing in "
    "larger, rarer batches (BatchedMicro) keeps the prefix stable in between and, in this cache model, costs less.",
    "The exact output the agent saw, from the append-only log, with no tool run again. Not a smaller bill: a "
    "recall returns as many tokens as a fresh read, and the longer placeholders and the extra tool schema "
    "cost slightly more input.",
    "The API's page counts a run of tool_use blocks as one lookback position, and a run of tool_result "
    "blocks as another; PromptCache counts every block. Twelve parallel reads are 24 blocks for the model, "
    "past its lookback, so it writes the whole request; for the fake they are two positions, so it reads "
    "the previous call's prefix and writes only the new turn.",
]
