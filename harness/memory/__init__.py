"""Memory across sessions: the client side of the API's memory tool, and a flush before compaction (chapter 11)."""
