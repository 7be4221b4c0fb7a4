"""One place that decides which Claude the notebooks talk to (chapter 10).

``default_client()`` returns the offline fake unless both an API key and the
opt-in ``USE_REAL_MODEL=1`` are present, in the environment or in a
git-ignored ``.env`` file. The key is passed straight to the SDK: it is never
printed, logged or stored by the harness.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anthropic

from .fake import fake_client

KEY_VARIABLE = "ANTHROPIC_API_KEY"
OPT_IN_VARIABLE = "USE_REAL_MODEL"


def read_dotenv(path: str | Path = ".env") -> dict[str, str]:
    """``NAME=value`` lines of a .env file (comments, blanks and quotes handled); {} if absent."""
    path = Path(path)
    if not path.is_file():
        return {}
    settings = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, value = line.removeprefix("export ").split("=", 1)
        settings[name.strip()] = value.strip().strip("'\"")
    return settings


def real_model_settings(environ: dict[str, str] | None = None,
                        dotenv: str | Path | None = None) -> tuple[str | None, bool]:
    """(key or None, opted in?) from the environment, falling back to the .env file."""
    environ = dict(os.environ) if environ is None else environ
    file_settings = read_dotenv(dotenv) if dotenv is not None else read_dotenv(_find_dotenv())
    key = environ.get(KEY_VARIABLE) or file_settings.get(KEY_VARIABLE) or None
    opted_in = (environ.get(OPT_IN_VARIABLE) or file_settings.get(OPT_IN_VARIABLE, "")) == "1"
    return key, opted_in


def uses_real_model(environ: dict[str, str] | None = None, dotenv: str | Path | None = None) -> bool:
    key, opted_in = real_model_settings(environ, dotenv)
    return bool(key) and opted_in


def default_client(environ: dict[str, str] | None = None, dotenv: str | Path | None = None,
                   **fake_options: Any) -> anthropic.Anthropic:
    """Real Claude when a key and USE_REAL_MODEL=1 are both present; the offline fake otherwise."""
    key, opted_in = real_model_settings(environ, dotenv)
    if key and opted_in:
        return anthropic.Anthropic(api_key=key)
    return fake_client(**fake_options)


def _find_dotenv() -> Path:
    """``.env`` in the working folder, else in its parent (notebooks run in notebooks/)."""
    here = Path.cwd() / ".env"
    return here if here.is_file() else Path.cwd().parent / ".env"
