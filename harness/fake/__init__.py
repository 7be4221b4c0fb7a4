"""An offline, deterministic fake of Claude behind the real SDK (chapter 00).

``explain(body)`` says how the fake reads a request (chapter 03): the ``x-fake-reading`` header of its reply,
as a ``Reading``."""
from .explainer import explain
from .interpretation import Reading
from .server import FakeModel, fake_client

__all__ = ["FakeModel", "Reading", "explain", "fake_client"]
