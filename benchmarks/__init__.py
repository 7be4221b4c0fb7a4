"""Benchmarks for the course harness: ``python -m benchmarks`` (``make bench``).

Each module measures one thing and prints one table; everything in a table is
measured in the same run, so its rows can be compared as ratios. Token
figures are deterministic; times are medians of ``time.perf_counter``
repeats and vary with the machine and its load.
"""
