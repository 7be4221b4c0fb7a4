"""The core the student builds in chapters 01-05, readable on its own.

messages (the format and the API's rules) · tokens (counting) · config (the
knobs) · micro (layer 1) · transcripts and auto (layer 2) · manual (layer 3,
the ``compact`` tool) · tools (the agent's workspace) · loop (the agent loop
and the hooks a strategy plugs into) · models (context windows) · errors (exceptions
that cross a process as themselves).
Nothing here imports the other rooms of ``harness``.
"""
