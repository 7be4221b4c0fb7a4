"""A progress bar that leaves one plain line behind (chapters 02-09: sweeps and slider panels).

In a notebook the bar is a widget while it runs; when it closes, the output becomes the line it
showed all along as text, ``"sweep: 8 runs"``, so a stored notebook never shows a bar frozen at
0/8 and a re-run (nbval compares the first display a cell sends) prints that same line. Outside a
kernel (tests, scripts) it is tqdm's text bar on stderr.
"""
from __future__ import annotations

from typing import Any

from tqdm import tqdm

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def line(desc: str, total: int, unit: str = "run") -> str:
    """What the bar says in plain text, from its first moment to its last."""
    return f"{desc}: {total:,} {unit}{'' if total == 1 else 's'}"


def in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the lab
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class ProgressBar:
    """``update()`` once per finished job, ``close()`` at the end (also as a context manager)."""

    def __init__(self, total: int, desc: str, *, unit: str = "run", enabled: bool = True) -> None:
        self.text = line(desc, total, unit)
        self._widget: Any = None
        self._handle: Any = None
        self._terminal: tqdm | None = None
        if not enabled:
            return
        if in_kernel():
            from IPython.display import display
            from ipywidgets import IntProgress

            self._widget = IntProgress(value=0, min=0, max=max(total, 1), description=desc)
            bundle = {"text/plain": self.text,
                      WIDGET_VIEW: {"model_id": self._widget.model_id, "version_major": 2, "version_minor": 0}}
            self._handle = display(bundle, raw=True, display_id=True)
        else:
            self._terminal = tqdm(total=total, desc=desc)

    def update(self) -> None:
        if self._widget is not None:
            self._widget.value += 1
        elif self._terminal is not None:
            self._terminal.update()

    def close(self) -> None:
        """The widget gives way to its line (idempotent)."""
        if self._widget is not None:
            self._handle.update({"text/plain": self.text}, raw=True)
            self._widget.close()
            self._widget = None
        elif self._terminal is not None:
            self._terminal.close()
            self._terminal = None

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
