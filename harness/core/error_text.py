"""How the course prints an error from the API, in one form of its own (chapter 03).

The SDK's own text for an API error has changed between releases (2.14 printed
``Error code: 500 - {...}``, 2.17 prints ``500 ... (path: ..., type: ...)``), and a
stored notebook output that quotes it would move with every release. The course
prints what the API sent instead, from the fields every release keeps:
``HTTP 500 api_error: the fake summariser failed on purpose``, with the
``error.details.error_code`` in brackets when the API sends one. An error without
an HTTP status (a connection that failed, a timeout, a bug) is its class name and
message.
"""
from __future__ import annotations

from typing import Any


def error_text(error: BaseException) -> str:
    """One line for ``error``: ``HTTP <status> <error.type>: <error.message>`` for an API error (``[code]``
    after the type when ``error.details.error_code`` is sent), else ``<class name>: <message>``."""
    status = getattr(error, "status_code", None)
    if not isinstance(status, int) or isinstance(status, bool):
        return f"{type(error).__name__}: {_one_line(getattr(error, 'message', None) or str(error))}"
    body: Any = getattr(error, "body", None)
    sent = body.get("error") if isinstance(body, dict) else None
    if not isinstance(sent, dict):
        return f"HTTP {status}: {_one_line(str(body) if body else getattr(error, 'message', '') or '(no body)')}"
    kind, message = sent.get("type") or "error", sent.get("message") or "(no message)"
    details = sent.get("details")
    code = details.get("error_code") if isinstance(details, dict) else None
    return f"HTTP {status} {kind}{f' [{code}]' if code else ''}: {_one_line(str(message))}"


def _one_line(text: str) -> str:
    return " ".join(text.split())
