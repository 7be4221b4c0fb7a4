"""Which anthropic release the course's stored outputs were made with, and a notice when another is installed
(chapter 00).

The chapters' stored outputs come from the release ``constraints.txt`` pins (``tests/test_environment.py``
keeps ``PINNED_ANTHROPIC`` equal to it). Another release can print an error, a model list or a usage field
differently, so ``import harness`` says once, in plain words, when the installed one differs: then a cell whose
output differs from the stored one may differ because of the SDK, not because of the student's code.
nbval removes the line (``notebooks/sanitize.cfg``), so ``make test-latest`` compares the rest.
"""
from __future__ import annotations

import multiprocessing

import anthropic

PINNED_ANTHROPIC = "2.17.0"
NOTICE_START = "Note: this course's stored outputs were made with anthropic"


def sdk_notice(installed: str = anthropic.__version__, pinned: str = PINNED_ANTHROPIC) -> str | None:
    """The notice for an installed anthropic release other than the pinned one, or None when they agree."""
    if installed == pinned:
        return None
    return (f"{NOTICE_START} {pinned}; you have {installed}. Most cells print the same; where one differs, "
            "the SDK may be why (make test-latest compares the whole course on the newest releases).")


def print_sdk_notice_once() -> None:
    """Print ``sdk_notice()`` on stdout, in the main process only (a worker process imports harness again)."""
    notice = sdk_notice()
    if notice and multiprocessing.parent_process() is None:
        print(notice)
