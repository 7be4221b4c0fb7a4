"""Chapter 09's typical wrong answers and values: each must fail its check with a line that points at the mistake;
a correct version in another style; a right value of an exercise with several."""
from __future__ import annotations


def price_caching_only_above_the_minimum(calls, prices, caching=True):
    total = {"cache_read": 0, "cache_write": 0, "uncached": 0, "output": 0}
    for kind, tokens, found, output in calls:
        if caching and kind == "agent" and tokens > prices.min_cacheable:
            total["cache_read"] += found
            total["cache_write"] += tokens - found
        else:
            total["uncached"] += tokens
        total["output"] += output
    total["dollars"] = (prices.input * (total["uncached"] + total["cache_write"] * prices.cache_write_factor
                                        + total["cache_read"] * prices.cache_read_factor)
                        + prices.output * total["output"]) / 1e6
    return total


def price_calls_in_one_pass(calls, prices, caching=True):
    per_token = prices.input / 1e6
    cached = [caching and kind == "agent" and tokens >= prices.min_cacheable for kind, tokens, _, _ in calls]
    read = sum(found for (_, _, found, _), c in zip(calls, cached) if c)
    written = sum(tokens - found for (_, tokens, found, _), c in zip(calls, cached) if c)
    plain = sum(tokens for (_, tokens, _, _), c in zip(calls, cached) if not c)
    output = sum(call[3] for call in calls)
    dollars = per_token * (plain + written * prices.cache_write_factor + read * prices.cache_read_factor)
    return dict(cache_read=read, cache_write=written, uncached=plain, output=output,
                dollars=dollars + output * prices.output / 1e6)


WRONG = {  # step -> [(a typical wrong version, what the check's line must say)]
    "price_calls": [(price_caching_only_above_the_minimum,
                     "an agent call of exactly 4,096 tokens: at result.cache_write, yours gave 0.0")],
}

RIGHT = {"price_calls": [price_calls_in_one_pass]}

WRONG_VALUES = {  # answer -> [(a typical wrong value, what the line must say)]
    "first_whole_rewrite": [(10, "too high")],           # the 20-block lookback's cliff
    "hoarder_still_dearer": [(True, "yours is not the answer")],
    "threshold_that_remembers": [(120_000, "no summary ran"), (20_000, "forgot")],
    "best_without_re_reads": [((1, 50_000, frozenset(), True, True, False, 0, False), "the first item that is off")],
}

RIGHT_VALUES = {"threshold_that_remembers": [50_000]}
