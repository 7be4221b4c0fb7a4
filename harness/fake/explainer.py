"""``explain(body)``: how the fake reads a request, without a client (chapter 03).

The same reading the ``x-fake-reading`` header of the reply carries (``interpretation``), because it is the
reply's: the body is sent to a fresh ``FakeModel`` as the SDK would send it, and the reading the server made
is returned. A body the API would refuse raises ``ValueError`` with the refusal, as the course prints errors.
"""
from __future__ import annotations

import json
from typing import Any

import httpx2

from ..core.error_text import error_text
from .interpretation import Reading
from .server import FakeModel

MESSAGES_URL = "https://api.anthropic.com/v1/messages"


class Refused(ValueError):
    """The fake server refused the body (``explain``); ``status_code`` and ``body`` as an SDK error has them."""

    def __init__(self, status_code: int, body: Any) -> None:
        self.status_code, self.body = status_code, body
        super().__init__(error_text(self))


def explain(body: dict[str, Any], **options: Any) -> Reading:
    """How a fresh ``FakeModel(**options)`` reads ``body`` (the keyword arguments of ``messages.create``, or a
    request as the harness builds one): the ``Reading`` its reply's ``x-fake-reading`` header states. Refused
    (a ``ValueError``) when the server refuses the body."""
    model = FakeModel(**options)
    sent = {key: value for key, value in body.items() if key not in ("extra_headers", "betas")}
    headers = {"content-type": "application/json", **body.get("extra_headers", {})}
    if body.get("betas"):
        headers["anthropic-beta"] = ",".join(body["betas"])
    response = model.handle(httpx2.Request("POST", MESSAGES_URL, headers=headers,
                                           content=json.dumps(sent).encode()))
    if response.status_code != 200:
        raise Refused(response.status_code, response.json())
    return model.readings[-1]
