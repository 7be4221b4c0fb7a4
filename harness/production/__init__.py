"""What production agents do now, beside the three layers (chapter 13).

offload (a big tool result goes to a file when it is written, and the context gets
its path and a preview; ``read_file`` reads it back in parts) · reinject (after a
summary replaces the history, the user's standing instructions and the files read
last come back, within a token budget, in a stated order) · cached_summary (the
summary request is the last call's prompt plus one instruction, so the prompt
cache serves the history).
"""
