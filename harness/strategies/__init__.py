"""Compaction strategies, one file each, behind one base class (chapters 05-10).

base (``Compactor``: the three hooks, doing nothing) · three_layers (the
reference agent: micro, auto, manual) · usage_triggered (the usage-triggered design and Codex:
replace on reported usage) · structured_summary (Claude Code: nine sections)
· server_side (the API's own clearing and compaction, asked for on every
call: chapters 08 and 10) · controls (one thing changed, chapter 08) ·
recall (reversible placeholders and a ``recall`` tool) ·
batched_micro (cache-aware micro) · incremental_summary, verified_summary,
prepared_summary (chapter 12: merge into the previous summary, check the
summary, prepare it ahead of time) · guards (wrap any strategy: check every
compaction, stop loops) · registry (the strategies chapter 08 compares).

How to add a strategy:

1. Make a file here with one class that extends ``base.Compactor`` and
   overrides the hooks it needs: ``before_call(run)`` (rewrite
   ``run.messages`` before a call; return the names of what fired),
   ``after_round(run, usage)`` (act once a round's tool results are in) and
   ``on_compact(run, focus)`` (the model called ``compact``). ``run`` is a
   ``harness.core.loop.RunContext``: the history, the config, the client,
   the log, and helpers to emit events and record summary calls.
2. Leave a valid history behind: every ``tool_use`` answered by its
   ``tool_result``. ``guards.Guarded`` checks that for you while you work.
3. Add an entry to ``registry.all_strategies``: what it is modelled on,
   when it fires and what the simulation leaves out. The test
   ``tests/test_registry.py`` then runs it on the long session and checks
   every request it sent.
"""
