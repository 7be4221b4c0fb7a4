"""Chapter 09's typical wrong answer: it must fail its check with a line that points at the mistake."""
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


WRONG = {  # step -> (a typical wrong version, what the check's line must name)
    "price_calls": (price_caching_only_above_the_minimum,
                    "an agent call of exactly 4,096 tokens: at result.cache_write, yours gave 0.0"),
}
