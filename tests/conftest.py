"""Shared pytest fixtures and constants for the whole test suite."""

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

# Something that looks like a real Anthropic API key. Placeholders such as
# "sk-ant-..." do not match; anything with 8+ key characters after the prefix does.
KEY_RE = re.compile(r"sk-ant-[A-Za-z0-9_-]{8,}")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def key_re() -> re.Pattern:
    """The key-like-string regex, for any test that scans text for leaked keys."""
    return KEY_RE
