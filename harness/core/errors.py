"""Errors that cross a process as themselves (chapter 04's sweeps run sessions in worker processes).

Python pickles an exception as its class called with ``args``, the message alone
when ``__init__`` passed only that on to ``Exception``. An error whose
``__init__`` takes other arguments (``InvalidHistory``'s rule and index, a
log's path and line) then fails to unpickle, and a sweep's worker that raised
one reaches the kernel as a broken worker pool instead. ``Portable`` pickles
the exception's ``args`` and attributes and rebuilds it without calling
``__init__``, so the kernel gets the same class with the same fields.
"""
from __future__ import annotations

from typing import Any


class Portable:
    """Mixin for an exception with its own ``__init__``: pickled with its ``args`` and attributes."""

    def __reduce__(self) -> tuple[Any, ...]:
        assert isinstance(self, BaseException)
        return _rebuilt, (type(self), self.args, dict(vars(self)))


def _rebuilt(kind: type[BaseException], args: tuple[Any, ...], fields: dict[str, Any]) -> BaseException:
    error = kind.__new__(kind, *args)
    error.args = args
    vars(error).update(fields)
    return error
