"""The session: what survives a crash and a restart (chapters 05-06, the usage-triggered design's pieces).

log (the append-only session log) · resume (rebuild the live history by
replaying the log) · replacement (usage-triggered replacement as pure
functions) · retry (backoff for transient failures, and a circuit breaker)
· runner (``Session``: many requests through one loop, with its numbers).
Imports only ``harness.core``.
"""
