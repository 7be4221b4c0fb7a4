"""An offline, deterministic fake of Claude behind the real SDK (chapter 00)."""
from .server import FakeModel, fake_client

__all__ = ["FakeModel", "fake_client"]
