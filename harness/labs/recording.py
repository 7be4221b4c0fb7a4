"""A client that remembers something about every request it sends (chapter 00).

Wrap any Anthropic-style client. ``measure(request)`` sees the keyword
arguments of each ``messages.create`` call *before* it is sent (the loop
rewrites the history in place afterwards); its result is kept in ``records``
once the call has succeeded, so ``records[i]`` lines up with a session's
``trace[i]``. A measure that returns None keeps nothing for that request.
Chapter 00 measures what a request is made of, chapter 05 its memory
picture, chapter 08 the prompt-cache segments.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class RecordingClient:
    inner: Any
    measure: Callable[[dict[str, Any]], Any]
    records: list[Any] = field(default_factory=list)

    @property
    def messages(self) -> "RecordingClient":
        return self  # so that ``client.messages.create`` lands on ``create`` below

    @property
    def beta(self) -> "_BetaRecording":
        return _BetaRecording(self)  # ``client.beta.messages.create``: the API's context management

    def create(self, **request: Any) -> Any:
        return self._send(self.inner.messages, request)

    def _send(self, api: Any, request: dict[str, Any]) -> Any:
        value = self.measure(request)
        response = api.create(**request)
        if value is not None:
            self.records.append(value)
        return response

    def count_tokens(self, **request: Any) -> Any:
        return self.inner.messages.count_tokens(**request)


@dataclass
class _BetaRecording:
    """``RecordingClient.beta``: the same recording, sent through the inner client's beta API."""
    outer: RecordingClient

    @property
    def messages(self) -> "_BetaRecording":
        return self

    def create(self, **request: Any) -> Any:
        return self.outer._send(self.outer.inner.beta.messages, request)
