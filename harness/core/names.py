"""File names the API can always carry, and the way back to the file (chapters 00 and 11).

A name on disk is a string of bytes. Python hands a byte that is not part of
valid UTF-8 back as a lone surrogate (``b"caf\\xe9.py"`` becomes
``"caf\\udce9.py"``, the ``surrogateescape`` rule of ``os.fsdecode``), and a
lone surrogate cannot be encoded as UTF-8: the SDK's JSON body and the session
log both fail on it. So every name a tool shows goes through ``shown``, one
rule shared by the workspace tools (``harness.core.tools``) and the memory
store (``harness.memory.store``):

- a backslash is shown doubled: ``\\\\``;
- a byte that is not part of valid UTF-8 is shown as ``\\x`` and two lowercase
  hex digits (always 80 to ff: bytes below 80 are ASCII, so always valid);
- everything else is shown as it is.

Two different names never look the same (every backslash of a shown name
starts one of the two escapes, so it reads back one way only). ``meant`` reads
a path the model sends: ``\\\\`` is one backslash, ``\\xhh`` with hh from 80 to
ff (either case) is that byte, and any other backslash is taken as written.
So a shown name always leads back to its file, and a plain name is its own
path. Limits: a name whose real bytes spell ``\\xe9`` must be sent as
``\\\\xe9`` (as it is shown); an escape can never make ``/``, ``.``, or NUL,
so it cannot add a path step; ``bash`` arguments are not read this way (they
go to the program as written, and its output is decoded with replacement
characters).
"""
from __future__ import annotations

import os
import re

_TO_SHOW = re.compile("[\\\\\udc80-\udcff]")  # a backslash, or an undecodable byte as os.fsdecode gives it
_ESCAPE = re.compile(r"\\(\\|[xX][89a-fA-F][0-9a-fA-F])")


def shown(name: str) -> str:
    """``name`` (as ``os`` functions return it) in the form a tool result may carry."""
    return _TO_SHOW.sub(lambda m: "\\\\" if m[0] == "\\" else f"\\x{ord(m[0]) - 0xDC00:02x}", name)


def meant(path: str) -> str:
    """The name ``path`` stands for, as ``os`` functions take it (the inverse of ``shown``)."""
    if "\\" not in path:
        return path
    decoded = _ESCAPE.sub(lambda m: "\\" if m[1] == "\\" else chr(0xDC00 + int(m[1][1:], 16)), path)
    return os.fsdecode(os.fsencode(decoded))  # escaped bytes that form UTF-8 become their characters
