"""A typical wrong answer for every step a chapter asks the student to write, one module per chapter
(``chNN.py`` with ``WRONG``: step name -> (the wrong function, text its check's line must contain)), and a
typical wrong value for every value an exercise asks for (``WRONG_VALUES``: answer name -> (the wrong
value, text the line must contain)), where the chapter has such exercises."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable


def wrong_answers() -> dict[str, tuple[Callable[..., Any], str]]:
    found: dict[str, tuple[Callable[..., Any], str]] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("ch")):
        found.update(importlib.import_module(f"{__name__}.{module}").WRONG)
    return found


def wrong_values() -> dict[str, tuple[Any, str]]:
    found: dict[str, tuple[Any, str]] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("ch")):
        found.update(getattr(importlib.import_module(f"{__name__}.{module}"), "WRONG_VALUES", {}))
    return found
