"""Your turn: a stub you fill in, a check that can fail, the reference held back (chapters 02-05, 07-09, 11, 12).

Each function a build chapter asks you to write ships as a stub: its
signature, a docstring stating the contract, the steps as comments, and
``raise NotImplementedError``. The cell after it runs ``check(your_function)``:
yours against the reference on the step's cases (``compare``), and one line:

- "not written yet": yours raises NotImplementedError;
- "differs": the first case where yours differs, where (a path into what is
  compared) and what yours gave there; never what the reference gives, so the
  check does not hand out the answer;
- "passes N cases".

It never raises. It returns the function the rest of the chapter runs: yours
once it passes, else the reference, and the line says which. So the chapter
always runs, and its numbers are the reference's until yours matches them.

An exercise that asks for a value rather than a function (a set of settings,
a count) has a cell tagged ``answer`` holding ``name = None``, and the cell
after it runs ``answer("name", name)``. The truth is worked out in the
chapter's solutions module (``ANSWERS``), never in a visible cell, and the
line says only "correct" or how far off yours is in kind ("2 too many, 1
missing", "too high"), not the value.

The references, the cases and the answers are in ``harness/labs/solutions/``
(one module per chapter): open it when you are stuck, not before.

Why not nbgrader or otter-grader: both generate a student version from an
instructor notebook and grade it against hidden tests, with their own
metadata, commands and (for nbgrader) a course database. Here the committed
notebook *is* the student version and must run under strict nbval as shipped,
so all that is needed is a cell tag (jupytext writes ``# %% tags=["stub"]``
into the notebook we already build from a source) and a check that imports
its reference; the test suite fills the stubs from the references to prove
that the solutions reproduce every number. A function that passes is
kept, its source written to ``yours_folder()``, so that chapter 05's agent can
run what you wrote in chapters 02-04 (``yours_or_reference``).
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .solutions import Answer, Step, find_answer, find_step
from .yours import Raised, compare, short

YOURS_ENV = "HARNESS_YOURS"  # where passing functions are kept; default notebooks/yours/ of this checkout


def check(function: Callable[..., Any]) -> Callable[..., Any]:
    """Check your function against the reference of the step of the same name; print one line; return the
    function the chapter goes on with (yours if it passes, else the reference). Never raises: whatever
    yours does (raise, exit, return a value whose repr raises) is reported; only an interrupt goes through.
    A ``functools.partial`` is checked under the name of the function it wraps."""
    name = _name_of(function)
    if name is None:
        print(f"{short(function, 60)} is not a function; nothing checked.")
        return function
    step = find_step(name)
    if step is None:
        print(f"{name}: no step of this course has that name; nothing checked.")
        return function
    verdict, passed = judge(step, function)
    print(verdict)
    if passed:
        try:
            if keep(step, function) is None:
                print(f"{name}: yours is not kept for chapter 05 (its source cannot be read back on its own).")
        except OSError as error:  # a folder that cannot hold it: yours still drives this chapter
            print(f"{name}: yours could not be kept for chapter 05 ({_told(error)}).")
        return function
    return step.reference


def _name_of(function: Any) -> str | None:
    """The name a function is checked under (a partial's is its function's); None for what is not a function."""
    while issubclass(type(function), functools.partial):  # its real type: isinstance asks its __class__
        function = function.func
    try:
        name = getattr(function, "__name__", None) if callable(function) else None
    except Exception:  # a callable object whose attributes raise: no name to check it under
        return None
    return name if type(name) is str else None


def judge(step: Step, function: Callable[..., Any]) -> tuple[str, bool]:
    """(the line ``check`` prints, whether yours passes)."""
    goes_on = "the chapter goes on with the reference"
    watched = _Watched(function, step.name)
    try:
        agreement = compare(step.name, watched, step.reference, step.cases(), step.observe, step.label)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # observing yours failed in a way the comparison cannot show
        return f"{step.name}: could not be checked ({_told(error)}); {goes_on}.", False
    if agreement.ok:
        return f"{step.name}: yours passes all {agreement.cases} cases; the chapter goes on with yours.", True
    if watched.stub:
        return f"{step.name}: not written yet; {goes_on}.", False
    first = agreement.differences[0]
    where, gave = first.where, f"gave {short(first.got, 80)}"
    if type(first.got) is Raised:  # yours may return what claims to be one
        gave = f"raised {first.got.error}"
    elif where.endswith(" (length)"):
        where, gave = where.removesuffix(" (length)"), f"has {first.got} items"
    return (f"{step.name}: differs in {len(agreement.differences)} of {agreement.cases} cases. First, "
            f"{first.case}: at {where}, yours {gave}. Hint: {step.hint} So {goes_on}.", False)


def answer(name: str, value: Any) -> bool:
    """Check a value an exercise asks for against its truth, held out of sight; print one line; return
    whether it is the answer. Never raises."""
    exercise = find_answer(name)
    if exercise is None:
        print(f"{name}: no exercise of this course asks for that name; nothing checked.")
        return False
    if value is None:
        print(f"{name}: fill it in, then run this cell again.")
        return False
    try:
        truth = _truth(exercise)
    except Exception as error:  # the reference run failed: say so rather than stop the notebook
        print(f"{name}: could not be checked ({type(error).__name__}: {error}).")
        return False
    verdict = how_far(exercise, value, truth)
    print(f"{name}: correct." if verdict is None else f"{name}: not quite: {verdict}. Hint: {exercise.hint}")
    return verdict is None


def how_far(exercise: Answer, value: Any, truth: Any) -> str | None:
    """None when ``value`` is the answer, else how it is off, in words that never show the truth.

    Both are compared in their ``plain`` form: numbers by value across int, float and numpy's scalars (a
    bool is not a number), a list, tuple or array as a sequence; nothing of yours is called, so a value
    cannot say it is equal."""
    truth = plain(truth)
    try:
        mine = plain(value)
    except Unreadable as unread:
        return f"{unread}, which the check does not read: give plain Python values ({READ})"
    given = type(value).__name__
    if isinstance(truth, frozenset):
        if not isinstance(mine, (frozenset, tuple)):
            return f"the answer is a set, yours is {given}"
        extra, missing = len(frozenset(mine) - truth), len(truth - frozenset(mine))
        if not extra and not missing:
            return None
        return ", ".join(part for part in (f"{extra} in yours should not be there" if extra else "",
                                            f"{missing} missing" if missing else "") if part)
    if isinstance(truth, Flag):
        return None if mine == truth else "no"
    if type(truth) in (int, float):
        if type(mine) not in (int, float):
            return f"the answer is a number, yours is {given}"
        if mine != mine:
            return "yours is not a number (nan)"
        if truth - exercise.tolerance <= mine <= truth + exercise.tolerance:  # exact: an int never overflows
            return None
        return "too high" if mine > truth else "too low"
    if isinstance(truth, tuple):
        if not isinstance(mine, tuple):
            return f"the answer is a sequence, yours is {given}"
        if mine == truth:
            return None
        if len(mine) != len(truth):
            return f"yours has {len(mine)} items, the answer {len(truth)}"
        first = next(i for i, (a, b) in enumerate(zip(mine, truth)) if a != b)
        return f"the first item that is off is at position {first}"
    return None if mine == truth else "not the answer"


READ = "int, float, bool, str, list, tuple, set"  # what ``plain`` reads (and numpy's scalars and arrays)
DEEPEST = 20  # the nesting ``plain`` walks; the course's answers are two deep at most


@dataclass(frozen=True)
class Flag:
    """A bool in ``plain`` form: equal to the same bool only, never to 0 or 1 (a bool is not a number)."""
    value: bool


class Unreadable(Exception):
    """A value ``plain`` does not read; its message says what in it (``yours is of type Fraction``)."""


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` built again from plain Python, the form answers are compared in: None, int, float, str, a
    ``Flag`` for a bool, a tuple for a list, tuple or numpy array, a frozenset for a set; numpy's own
    scalars by their value. Nothing of the value's own is called: a subclass of a built-in is read
    through the built-in (an IntEnum is its int, whatever its methods say). Anything else raises
    ``Unreadable``."""
    if depth > DEEPEST:
        raise Unreadable(f"yours is nested more than {DEEPEST} deep")
    kind = type(value)  # its real type: isinstance would ask the value's own __class__
    numpy = sys.modules.get("numpy")  # a numpy value means numpy is imported: never imported here
    if numpy is not None and any(kind is own for own in _numpy_kinds(numpy)):
        inner = value.tolist() if kind is numpy.ndarray else value.item()  # numpy's own methods, by value
        if type(inner) is not kind:  # a longdouble is its own item: no plain value holds it
            return plain(inner, depth)
    if value is None or kind is bool:
        return None if value is None else Flag(value)
    for base, its_value in ((int, int.__int__), (float, float.__float__), (str, str.__str__)):
        if issubclass(kind, base):
            return its_value(value)  # the built-in's own method: a subclass cannot change what it gives
    for base, kept_as in ((list, tuple), (tuple, tuple), (set, frozenset), (frozenset, frozenset)):
        if issubclass(kind, base):
            return kept_as(plain(item, depth + 1) for item in base.__iter__(value))
    raise Unreadable(f"yours {'is' if depth == 0 else 'holds a value'} of type {kind.__name__}")


@functools.lru_cache(maxsize=1)
def _numpy_kinds(numpy: Any) -> tuple[type, ...]:
    """numpy's array and its own scalar types (a subclass of one is not among them)."""
    return (numpy.ndarray, *numpy.sctypeDict.values())


_TRUTHS: dict[str, Any] = {}


def _truth(exercise: Answer) -> Any:
    """The exercise's truth, worked out once per kernel (some run a session)."""
    if exercise.name not in _TRUTHS:
        _TRUTHS[exercise.name] = exercise.truth()
    return _TRUTHS[exercise.name]


class _Watched:
    """Your function, called as it is, noting how its calls ended: a stub raises NotImplementedError every
    time it is called and never returns, however a case calls it (directly, or inside a session whose
    observer catches what it raises)."""

    def __init__(self, function: Callable[..., Any], name: str) -> None:
        self.function, self.__name__ = function, name
        self.not_implemented = self.returned = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            result = self.function(*args, **kwargs)
        except NotImplementedError:
            self.not_implemented += 1
            raise
        self.returned += 1
        return result

    @property
    def stub(self) -> bool:
        return self.not_implemented > 0 and self.returned == 0


def yours_folder() -> Path:
    """Where passing functions are kept: ``$HARNESS_YOURS``, else ``notebooks/yours/`` of this checkout."""
    configured = os.environ.get(YOURS_ENV)
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "notebooks" / "yours"


def keep(step: Step, function: Callable[..., Any]) -> Path | None:
    """Write a passing function's source to ``yours_folder()/<name>.py``; None when its source is unknown
    or does not stand on its own.

    The source goes to a temporary file of this call's own (a unique name in the same folder), then
    replaces the kept file in one atomic step: two kernels keeping the same step leave one whole file,
    never a mix, and a write that fails leaves the kept file as it was. Raises OSError when the folder
    cannot hold it."""
    try:
        source = textwrap.dedent(inspect.getsource(function))  # one written inside another is indented
        compile(source, f"{step.name}.py", "exec")
    except Exception:  # no source (a partial, a builtin) or none that stands on its own (a lambda's line)
        return None
    folder = yours_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{step.name}.py"
    handle, temporary = tempfile.mkstemp(prefix=f".{step.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(source)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def yours_or_reference(name: str, namespace: dict[str, Any] | None = None) -> Callable[..., Any]:
    """Your kept function ``name`` if it still passes its check, else the reference; prints which.

    Your source runs in ``namespace`` (the notebook's globals, so it sees what your chapter imported),
    after the kept functions of the same chapter it may call. A kept file that does not load (it raises,
    exits or is not Python) is said in one line and its reference used: never raised."""
    step = find_step(name)
    if step is None:
        raise KeyError(f"no step named {name!r}")
    if not (yours_folder() / f"{name}.py").exists():
        print(f"{name}: not kept yet (write it in chapter {step.chapter}); using the reference.")
        return step.reference
    scope = dict(namespace or {})
    for earlier in step.needs:
        if (yours_folder() / f"{earlier}.py").exists():
            _load(earlier, scope)
        else:
            scope[earlier] = find_step(earlier).reference  # type: ignore[union-attr]
    function = _load(name, scope)
    if function is step.reference:
        return function
    verdict, passed = judge(step, function)
    if not passed:
        print(f"{verdict}\n{name}: using the reference.")
        return step.reference
    print(f"{name}: yours, from chapter {step.chapter}.")
    return function


def _load(name: str, scope: dict[str, Any]) -> Callable[..., Any]:
    """Run your kept ``name`` into ``scope`` and return it; when it does not load, say so and put (and
    return) the reference there instead."""
    path = yours_folder() / f"{name}.py"
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), scope)
        return scope[name]
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        print(f"{name}: your kept version does not load ({_told(error)}); using the reference.")
        scope[name] = find_step(name).reference  # type: ignore[union-attr]
        return scope[name]


def _told(error: BaseException) -> str:
    """``Type: message`` of an error yours raised, on one line, even when its message cannot be made."""
    try:
        message = " ".join(str(error).split())
    except Exception:
        message = "(its message raised)"
    return f"{type(error).__name__}: {message if len(message) <= 200 else message[:197] + '...'}"
