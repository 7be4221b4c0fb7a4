"""import harness says once when the installed anthropic is not the release the stored outputs were made with."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from nbval.plugin import get_sanitize_patterns

from harness import PINNED_ANTHROPIC, sdk_notice
from test_environment import constraints

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_the_pinned_release_is_the_one_constraints_pins():
    assert PINNED_ANTHROPIC == constraints()["anthropic"]


def test_no_notice_when_the_installed_release_is_the_pinned_one():
    assert sdk_notice(PINNED_ANTHROPIC) is None


def test_the_notice_names_both_releases_in_plain_words():
    notice = sdk_notice("2.99.0", "2.17.0")
    assert notice.startswith("Note: this course's stored outputs were made with anthropic 2.17.0; you have 2.99.0.")
    assert "\n" not in notice and "make test-latest" in notice


def test_import_harness_prints_it_once_on_stdout():
    program = ("import anthropic; anthropic.__version__ = '2.99.0'\n"
               "import harness, harness.fake, harness.labs\nimport harness\nprint('after')")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    assert run.stdout == sdk_notice("2.99.0") + "\nafter\n" and run.stderr == ""


def test_nbval_removes_the_notice_and_nothing_else():
    patterns = get_sanitize_patterns((REPO_ROOT / "notebooks" / "sanitize.cfg").read_text())
    [(regex, replace)] = [(r, s) for r, s in patterns if "anthropic" in r]
    stored = "Workers: 2\n"
    fresh = sdk_notice("2.99.0") + "\n" + stored
    assert re.sub(regex, replace, fresh) == stored and re.sub(regex, replace, stored) == stored
