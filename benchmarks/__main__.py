"""Run every benchmark and print one table each; exit 1 if the 12-file run misses its budget.

The cost of a call against its floor prints PASS or FAIL but does not set the exit status: the
target is a goal for the fake and the loop, and the table shows how far off it is."""
from __future__ import annotations

import os
import platform
import sys

from . import (call_cost, long_session, memory, micro_scaling, micro_twelve, reading, recount, strategies, summaries,
               twelve_run)


def main() -> int:
    print(f"make bench: Python {platform.python_version()}, {os.cpu_count()} cores,"
          f" load average {os.getloadavg()[0]:.1f}. Times are medians of perf_counter repeats.\n")
    print(micro_twelve.render(micro_twelve.measure()), end="\n\n", flush=True)
    print(micro_scaling.render(micro_scaling.measure()), end="\n\n", flush=True)
    print(long_session.render(long_session.measure()), end="\n\n", flush=True)
    print(call_cost.render(call_cost.measure()), end="\n\n", flush=True)
    print(recount.render(recount.measure()), end="\n\n", flush=True)
    print(strategies.render(strategies.measure()), end="\n\n", flush=True)
    print(memory.render(memory.measure()), end="\n\n", flush=True)
    print(summaries.render(summaries.measure()), end="\n\n", flush=True)
    print(reading.render(reading.measure()), end="\n\n", flush=True)
    run = twelve_run.measure()
    print(twelve_run.render(run), flush=True)
    if not run.meets_budget:
        print(f"\nFAIL: the 12-file run takes {run.median['estimate'] * 1000:.1f} ms,"
              f" over the {run.budget_ms:.0f} ms budget.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
