"""A throwaway folder to run scenarios in, under a relative root.

The summary message auto_compact writes names its transcript path, so that
path is part of every later request and of its token count. Running under
the relative root ``run`` keeps machine paths out of histories and makes
token figures the same on every machine and every run.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from harness.labs.scratch import scratch_folder


def scratch_root() -> AbstractContextManager[Path]:
    """Enter a new temporary folder as the working directory and yield ``Path("run")``."""
    return scratch_folder(Path("run"))
