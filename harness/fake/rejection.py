"""How the fake server refuses a request: an HTTP error as the API sends it (chapter 00).

``RequestRejected`` is every refusal the fake answers with instead of a reply; ``invalid`` is the common
400, a message that starts with the field at fault, the way the API's own 400s read.
"""
from __future__ import annotations

from typing import Any

from ..core.errors import Portable


class RequestRejected(Portable, Exception):
    """An HTTP error the fake server answers with instead of a reply: ``status``, the API's ``error.type``
    (``kind``), its message, and ``error.details`` (``details``, with its ``error_code``) where the installed
    SDK types one for this fault, so that the SDK raises its own class (``anthropic._error_classes``:
    ``(400, "compaction_block_misplaced")`` becomes ``CompactionBlockMisplacedError``)."""

    def __init__(self, status: int, kind: str, message: str, *, code: str | None = None, **details: Any):
        message = message.encode("utf-8", "backslashreplace").decode()  # a quoted lone surrogate, escaped
        super().__init__(message)
        self.status, self.kind = status, kind
        self.details: dict[str, Any] | None = {"error_code": code, **details} if code else None

    def body(self) -> dict[str, Any]:
        """The error's JSON body, as the API sends it."""
        error: dict[str, Any] = {"type": self.kind, "message": str(self)}
        if self.details:
            error["details"] = self.details
        return {"type": "error", "error": error}


def invalid(field: str, message: str) -> RequestRejected:
    """A 400 whose message starts with the field at fault."""
    return RequestRejected(400, "invalid_request_error", f"{field}: {message}")
