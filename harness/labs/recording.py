"""A client that remembers something about every request it sends (chapter 00).

Wrap any Anthropic-style client. ``measure(request)`` sees the keyword
arguments of each ``messages.create`` call *before* it is sent (the loop
rewrites the history in place afterwards); its result is kept in ``records``
once the call has succeeded, so ``records[i]`` lines up with a session's
``trace[i]``. A measure that returns None keeps nothing for that request.
Chapter 00 measures what a request is made of, chapter 05 its memory
picture, chapter 09 the prompt-cache segments.
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
    def beta(self) -> "RecordingClient":
        """``client.beta.messages.create`` (the API's context management), recorded into the same list."""
        return RecordingClient(self.inner.beta, self.measure, self.records)

    def create(self, **request: Any) -> Any:
        value = self.measure(request)
        response = self.inner.messages.create(**request)
        if value is not None:
            self.records.append(value)
        return response

    def count_tokens(self, **request: Any) -> Any:
        return self.inner.messages.count_tokens(**request)

