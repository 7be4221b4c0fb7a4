"""The context window: input over it is a 400, input plus ``max_tokens`` over it a stop (chapter 00).

Input alone over the window (``request_tokens``, the fake's count, or ``FakeModel(window=N)``'s
pretend window) is the API's 400 ``prompt is too long: N tokens > M maximum`` (quoted in public bug
reports, e.g. anthropics/claude-code#12186). Input plus ``max_tokens`` over it is no error on the
models the fake serves: "This stop reason is available by default in Sonnet 4.5 and newer models"
(https://platform.claude.com/docs/en/api/handling-stop-reasons, ``model_context_window_exceeded``),
and every model of ``core.models`` is one. The reply may then use what the window has left; cut
there, it stops with ``stop_reason`` ``"model_context_window_exceeded"``, and cut by ``max_tokens``
first, with ``"max_tokens"``. The older 400 for it, ``input length and `max_tokens` exceed context
limit: ...``, belongs to earlier models and is no longer sent.
"""
from __future__ import annotations

from typing import Any

from ..core.models import context_window
from .rejection import RequestRejected

WINDOW_STOP = "model_context_window_exceeded"


def output_room(body: dict[str, Any], used: int, window: int | None = None) -> int:
    """The output tokens a request of ``used`` input tokens may have: ``max_tokens``, or what the model's
    window (or ``window``) leaves if that is less. RequestRejected if the input alone is over the window."""
    window = window or context_window(body["model"])
    if used > window:
        raise RequestRejected(400, "invalid_request_error", f"prompt is too long: {used} tokens > {window} maximum")
    return min(body["max_tokens"], window - used)
