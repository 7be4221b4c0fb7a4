"""The reference of every step a chapter asks you to write, and the cases it is checked on (chapters 00-13).

One module per chapter (``ch02``, ...), each with ``STEPS`` (the functions you write; empty in a chapter
without any), ``ANSWERS`` (the values its exercises ask you to work out, where it has such exercises) and
``RECAP`` (the answers to its recap questions): open it when you are stuck, not before. A
reference is written the way a student would write the stub, in the stub's shape (the harness's own
version of the same layer is the concise one, in ``harness/core``). ``harness.labs.steps`` checks
your function against it.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from ..yours import Raised


def chapters() -> list[str]:
    """The chapter modules of this package (``ch02``, ...), in course order."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("ch"))


@dataclass(frozen=True)
class Step:
    """One function you write: its reference, the cases it is checked on, what is compared, and the hints.

    A case is ``(name, arguments)``, or ``(name, arguments, trap)`` for one made to catch a mistake. The
    hint shown with a difference is the one of ``traps`` that ``diagnose`` names for it (from what the two
    gave), else the one of ``flags`` whose key is in the path where they differ (a part of what is compared
    that names a kind of mistake, as "the history's own blocks" does), else the one of the case's trap,
    else ``hint``: each says what kind of mistake it is and what to look at, never what the reference
    gives. A step that builds a request a student may word differently has ``misread``: when yours differs,
    the line also says how the fake reads the request yours built, if it does not read it as meant."""
    name: str
    chapter: str
    reference: Callable[..., Any]
    cases: Callable[[], list[tuple[Any, ...]]]     # built when first checked
    observe: Callable[[Callable[..., Any], tuple[Any, ...]], Any] | None = None  # None: what it returns
    label: str = "result"
    hint: str = ""                                   # for a difference no trap explains
    traps: Mapping[str, str] = field(default_factory=dict)  # a case's trap, or a diagnosis -> its hint
    flags: Mapping[str, str] = field(default_factory=dict)  # a key of what is compared -> its hint
    diagnose: Callable[[Any, Any], str | None] | None = None  # (expected, got) at the difference -> a trap
    twins: tuple[str, ...] = ()                      # the harness's own versions ("module:name"): calling one is no answer
    tolerance: float = 0.0                           # numbers this close to the reference's count as equal
    misread: Callable[[Any], str | None] | None = None  # what yours returned for a case -> how the fake reads it


@dataclass(frozen=True)
class Answer:
    """A value an exercise asks you to work out (a set, a number, a list): how the truth is found, out of
    sight of the notebook. ``truth`` runs the harness's reference when the value is first checked.

    An exercise with more than one right answer has ``accepts``: it judges a value (None when it is right,
    else how it is off, in words that never give an answer), and ``truth`` gives one right answer.
    ``hints`` may hold a hint per way of being off ("too high", "missing", ...), in place of ``hint``. With
    ``own_words``, the verdict is shown as ``accepts`` words it: chapter 03's prompt of your own, which the
    fake may misread without its being wrong."""
    name: str                         # the variable the exercise asks you to fill in
    chapter: str
    truth: Callable[[], Any]
    hint: str = ""                    # one line, shown when yours is not the answer
    tolerance: float = 0.0            # a number within this of the truth counts (0: exactly)
    accepts: Callable[[Any], str | None] | None = None
    hints: Mapping[str, str] = field(default_factory=dict)
    live: bool = False                # its truth needs real Claude (chapter 10): checked only when live
    own_words: bool = False           # accepts' verdict is said as it is, with no "not quite" and no hint


def raised(expected: Any, got: Any) -> str | None:
    """A ``Step.diagnose`` for any step: the name of the error yours raised where the reference did not (or
    raised another), or "returned" where the reference raised and yours did not; None otherwise."""
    if type(got) is Raised and got != expected:  # the real type: yours may return what claims to be one
        return got.error
    return "returned" if type(expected) is Raised and type(got) is not Raised else None


@lru_cache(maxsize=None)
def all_answers() -> dict[str, Answer]:
    """Every value an exercise asks for, in every chapter, by name."""
    return _by_name("ANSWERS")


def find_answer(name: str) -> Answer | None:
    return all_answers().get(name)


@lru_cache(maxsize=None)
def all_steps() -> dict[str, Step]:
    """Every step of every chapter, by function name."""
    return _by_name("STEPS")


def _by_name(attribute: str) -> dict[str, Any]:
    """The ``attribute`` list (``STEPS`` or ``ANSWERS``) of every chapter module, joined by name; a name
    twice is an error. A chapter without the attribute has none."""
    found: dict[str, Any] = {}
    for chapter in chapters():
        for item in getattr(importlib.import_module(f"{__name__}.{chapter}"), attribute, ()):
            if item.name in found:
                raise ValueError(f"two {attribute.lower()} named {item.name!r}")
            found[item.name] = item
    return found


def find_step(name: str) -> Step | None:
    return all_steps().get(name)
