"""Transcripts: the whole history saved to JSONL before a summary replaces it (chapter 03).

Names come from a counter and the file is created with exclusive mode, so two
compactions never overwrite each other, not even within the same second (the
reference agent names files by the whole-second clock and opens them with
"w", which loses one of two transcripts written in the same second).
"""
from __future__ import annotations

import json
from pathlib import Path

from .messages import Message, check_shape


def write_transcript(messages: list[Message], folder: str | Path) -> Path:
    """Write one JSON object per line to a new ``transcript_NNNN.jsonl`` and return its path.

    A malformed history (a value JSON cannot carry too: ``check_message``) raises InvalidHistory before
    anything is created: no folder, no file."""
    check_shape(messages)  # also every value one JSON carries, so the lines below cannot fail half-way
    lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    number = len(list(folder.glob("transcript_*.jsonl"))) + 1
    while True:
        path = folder / f"transcript_{number:04d}.jsonl"
        try:
            with path.open("x", encoding="utf-8") as f:
                f.write(lines)
            return path
        except FileExistsError:
            number += 1


def read_transcript(path: str | Path) -> list[Message]:
    """The messages of a transcript, in order."""
    with Path(path).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
