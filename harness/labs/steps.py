"""Your turn: a stub you fill in, a check that can fail, the reference held back (chapters 01-13).

Each function a chapter asks you to write ships as a stub: its signature, a docstring stating the
contract, comments saying what each step must achieve and the trap to avoid, and ``raise
NotImplementedError``. The cell after it runs ``check(your_function)``: yours against the reference on
cases made from the mistakes students make (``compare``), and one line:

- "not written yet": yours raises NotImplementedError;
- "differs": the first case where yours differs (with its settings), where (a path into what is
  compared), what yours gave there (for a text, the part where it differs), and a hint that names the
  kind of mistake; never what the reference gives, so the check does not hand out the answer;
- "passes N cases".

It never raises, and it returns the function the rest of the chapter runs: yours once it passes, else
the reference, and the line says which. So the chapter always runs, and its numbers are the reference's
until yours matches them. Run again on the reference it returned, it says so rather than pass it.
A function that calls the harness's own version of the step is told so and not passed.

An exercise that asks for a value rather than a function (a set of settings, a count) has a cell
tagged ``answer`` holding ``name = None``, and the cell after it runs ``answer("name", name)``. The
truth is worked out in the chapter's solutions module (``ANSWERS``) when first needed, never in a
visible cell nor in a module attribute, and the line says only "correct" or how far off yours is in
kind ("2 too many, 1 missing", "too high"), not the value.

The references, the cases and the answers are in ``harness/labs/solutions/`` (one module per chapter):
open it when you are stuck, not before.

Why not nbgrader or otter-grader: both generate a student version from an instructor notebook and grade
it against hidden tests, with their own metadata, commands and (for nbgrader) a course database. Here
the committed notebook *is* the student version and must run under strict nbval as shipped, so all that
is needed is a cell tag (jupytext writes ``# %% tags=["stub"]`` into the notebook we already build from a
source) and a check that imports its reference; the test suite fills the stubs from the references to
prove that the solutions reproduce every number. A function that passes is kept, written to
``yours_folder()`` with the helpers, values and imports it uses (``harness.labs.keeping``), so that
chapter 05's agent runs what you wrote in chapters 02-04 (``yours_or_reference``).
"""
from __future__ import annotations

import dataclasses
import copy
import difflib
import functools
import importlib
import inspect
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .keeping import KEPT, Gathered, gather
from .solutions import Answer, Step, all_answers, all_steps, find_answer, find_step
from .yours import MISSING, Difference, Raised, compare, observed, short

YOURS_ENV = "HARNESS_YOURS"  # where passing functions are kept; default notebooks/yours/ of this checkout
GOES_ON = "the chapter goes on with the reference"


def check(function: Callable[..., Any]) -> Callable[..., Any]:
    """Check your function against the reference of the step of the same name; print one line; return the
    function the chapter goes on with (yours if it passes, else the reference). Never raises: whatever
    yours does (raise, exit, return a value whose repr raises) is reported; only an interrupt goes through.
    A ``functools.partial`` is checked under the name of the function it wraps; a function bound in the
    notebook to a step's name (``choose_to_clear = my_choose``) under that name."""
    name = _name_of(function)
    if name is None:
        print(f"{short(function, 60)} is not a function; nothing checked.")
        return function
    caller = inspect.currentframe().f_back  # type: ignore[union-attr]
    step = find_step(name) or _bound_step(function, caller.f_globals if caller else {})
    if step is None:
        print(_no_such_step(name))
        return function
    if function is step.reference:
        print(f"{step.name}: this is the reference, which the chapter went on with last time, not yours: run "
              f"the cell that defines your {step.name}, then this one again.")
        return function
    gathered = gather(_unwrapped(function), step.name)
    twin = _twin_called(step, gathered)
    if twin is not None:
        print(f"{step.name}: yours calls {twin}, the harness's own version of what this step asks you to write: "
              f"write it yourself; {GOES_ON}.")
        return step.reference
    verdict, passed = judge(step, function)
    if not passed and verdict.endswith("not written yet; " + GOES_ON + "."):
        verdict += _misnamed(step, caller.f_globals if caller else {})
    print(verdict)
    if not passed:
        return step.reference
    try:
        if keep(step, function, gathered) is None:
            print(f"{step.name}: yours is not kept for later chapters: {'; '.join(gathered.problems)}.")
    except OSError as error:  # a folder that cannot hold it: yours still drives this chapter
        print(f"{step.name}: yours could not be kept for later chapters ({_told(error)}).")
    return function


def _unwrapped(function: Any) -> Any:
    while issubclass(type(function), functools.partial):  # its real type: isinstance asks its __class__
        function = function.func
    return function


def _name_of(function: Any) -> str | None:
    """The name a function is checked under (a partial's is its function's); None for what is not a function."""
    function = _unwrapped(function)
    try:
        name = getattr(function, "__name__", None) if callable(function) else None
    except Exception:  # a callable object whose attributes raise: no name to check it under
        return None
    return name if type(name) is str else None


def _bound_step(function: Any, names: dict[str, Any]) -> Step | None:
    """The step whose name the notebook binds to this very function (``choose_to_clear = my_choose``)."""
    steps = all_steps()
    return next((steps[name] for name, value in list(names.items()) if value is function and name in steps), None)


def _no_such_step(name: str) -> str:
    close = difflib.get_close_matches(name, list(all_steps()), n=1, cutoff=0.6)
    line = f"{name}: no step of this course has that name, so nothing was checked"
    if close:
        return (f"{line}. The step closest to it is {close[0]}: name your function so (def {close[0]}(...)), "
                "then run its cell and this one again.")
    return f"{line}: give your function the name of the stub it fills in."


def _misnamed(step: Step, names: dict[str, Any]) -> str:
    """When the stub is still there: a function written in the notebook (``names``, its globals) with the
    step's parameters and a name close to it, which may be yours under another name."""
    try:
        wanted = list(inspect.signature(step.reference).parameters)
    except (TypeError, ValueError):
        return ""
    for name, value in sorted(names.items(), key=lambda item: item[0]):
        if (inspect.isfunction(value) and value.__globals__ is names and name not in all_steps()
                and not name.startswith("_") and difflib.SequenceMatcher(None, name, step.name).ratio() >= 0.6):
            try:
                if list(inspect.signature(value).parameters) == wanted:
                    return f" ({name} has its parameters: if it is yours, name it {step.name} and run both cells again.)"
            except (TypeError, ValueError):
                continue
    return ""


def _twin_called(step: Step, gathered: Gathered) -> str | None:
    """The harness's own version of the step that yours (or a helper of yours) reads, if any."""
    for dotted in step.twins:
        module, _, attribute = dotted.partition(":")
        try:
            twin = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):
            continue
        if any(value is twin for value in gathered.reads):
            return f"{attribute} from {module}"
    return None


def judge(step: Step, function: Callable[..., Any]) -> tuple[str, bool]:
    """(the line ``check`` prints, whether yours passes)."""
    line, passed, _ = examine(step, function)
    return line, passed


def examine(step: Step, function: Callable[..., Any]) -> tuple[str, bool, Difference | None]:
    """(the line ``check`` prints, whether yours passes, the difference the line shows)."""
    watched = _Watched(function, step.name)
    try:
        agreement = compare(step.name, watched, step.reference, step.cases(), step.observe, step.label,
                            step.tolerance, stop=lambda: watched.stub, expected=lambda i: _expected(step.name)[i])
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # observing yours failed in a way the comparison cannot show
        return f"{step.name}: could not be checked ({_told(error)}); {GOES_ON}.", False, None
    if watched.stub:
        return f"{step.name}: not written yet; {GOES_ON}.", False, None
    if agreement.ok:
        return f"{step.name}: yours passes all {agreement.cases} cases; the chapter goes on with yours.", True, None
    shown = next((d for d in agreement.differences if _trap_hint(step, d)), agreement.differences[0])
    length = shown.where.endswith(" (length)")
    where, gave = shown.where.removesuffix(" (length)"), gave_words(shown.expected, shown.got, length)
    note = _misread(step, function, shown.case)
    return (f"{step.name}: differs in {len(agreement.differences)} of {agreement.cases} cases. "
            f"{'First, ' if shown is agreement.differences[0] else 'For instance, '}{shown.case}: at {where}, "
            f"yours {gave}. Hint: {_trap_hint(step, shown) or step.hint}{f' {note}' if note else ''} "
            f"So {GOES_ON}.", False, shown)


def _misread(step: Step, function: Callable[..., Any], case: str) -> str | None:
    """How the fake reads what yours returned for ``case``, when the step asks (``Step.misread``) and the fake
    does not read it as meant; None when it does, or when yours cannot be run again on the case."""
    if step.misread is None:
        return None
    arguments = next((found[1] for found in step.cases() if found[0] == case), None)
    if arguments is None:
        return None
    try:
        return step.misread(function(*copy.deepcopy(arguments)))
    except KeyboardInterrupt:
        raise
    except BaseException:  # yours raised or exited, or built what the fake refuses: the difference says so
        return None


@functools.lru_cache(maxsize=None)
def _expected(name: str) -> tuple[Any, ...]:
    """What the reference's run of each case of a step is observed as: made once per kernel (a chapter's check
    and its re-check, or chapter 05's, compare with the same), and held in the cache, not in an attribute."""
    step = find_step(name)
    return tuple(observed(step.observe, step.reference, case[1]) for case in step.cases())  # type: ignore[union-attr]


def _trap_hint(step: Step, difference: Difference) -> str | None:
    """The hint for the mistake this difference shows: by what the two gave, by where they differ, else by what
    its case was made to catch."""
    try:
        named = step.diagnose(difference.expected, difference.got) if step.diagnose else None
    except Exception:  # what yours gave is not what the diagnosis reads: no hint from it
        named = None
    if named in step.traps:
        return step.traps[named]
    for key, hint in step.flags.items():
        if key in difference.where:
            return hint
    return step.traps.get(difference.trap) if difference.trap else None


def gave_words(expected: Any, got: Any, length: bool = False) -> str:
    """What yours gave, in words that never show the reference's value: an error, a count of items
    (``length``: the two are the lengths of two sequences), the part of a text from where it differs."""
    if length:
        return f"has {got} item{'s' if got != 1 else ''}, {'more' if got > expected else 'fewer'} than it should"
    if got is MISSING:
        return "has nothing there"
    if expected is MISSING:
        return f"has {short(got, 60)} there, where nothing is due"
    if type(got) is Raised:  # its real type: yours may return what claims to be one
        return f"raised {got.error}"
    if type(expected) is Raised:
        return f"returned {short(got, 60)} where an error is due"
    if type(expected) is str and type(got) is str:
        return _text_part(expected, got)
    return f"gave {short(got, 80)}"


def _text_part(expected: str, got: str) -> str:
    """Where yours differs from a text, shown from yours only."""
    same = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    if not got:
        return "gave an empty text"
    if same == len(got) < len(expected):
        ending = f", ending {short(got[-40:], 50)}" if got else ""
        return f"gave a text that stops short after {len(got):,} characters{ending}"
    if same == len(expected) < len(got):
        return f"gave a text with more after character {same:,}: {short(got[same:same + 60], 70)}"
    start = max(0, same - 20)
    return (f"gave a text that differs from character {same:,} on: "
            f"{'...' if start else ''}{got[start:same + 50]!r}{'...' if same + 50 < len(got) else ''}")


def answer(name: str, value: Any) -> bool:
    """Check a value an exercise asks for against its truth, held out of sight; print one line; return
    whether it is the answer. Never raises."""
    exercise = find_answer(name)
    if exercise is None:
        close = difflib.get_close_matches(name, list(all_answers()), n=1, cutoff=0.6)
        print(f"{name}: no exercise of this course asks for that name; nothing checked."
              + (f" Did you mean {close[0]}?" if close else ""))
        return False
    if value is None:
        print(f"{name}: fill it in, then run this cell again.")
        return False
    if exercise.live and not _live():
        print(f"{name}: this one needs real Claude (ANTHROPIC_API_KEY and USE_REAL_MODEL=1); nothing checked.")
        return False
    try:
        verdict = exercise.accepts(value) if exercise.accepts else how_far(exercise, value, _truth(name))
    except KeyboardInterrupt:
        raise
    except Exception as error:  # the reference run (or yours, read) failed: say so rather than stop the notebook
        print(f"{name}: could not be checked ({_told(error)}).")
        return False
    if verdict is None:
        print(f"{name}: correct.")
        return True
    if exercise.own_words:
        print(f"{name}: {verdict}")
        return False
    hint = next((h for key, h in exercise.hints.items() if key in verdict), exercise.hint)
    print(f"{name}: not quite: {verdict}. Hint: {hint}")
    return False


def _live() -> bool:
    from ..clients import uses_real_model
    return uses_real_model()


@functools.lru_cache(maxsize=None)
def _truth(name: str) -> Any:
    """The exercise's truth, worked out once per kernel (some run a session); held in the cache, not in an
    attribute."""
    return find_answer(name).truth()  # type: ignore[union-attr]


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
        if not isinstance(mine, Flag):
            return f"the answer is a yes or no (a bool), yours is {given}"
        return None if mine == truth else "yours is not the answer"
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
    ``Flag`` for a bool, a tuple for a list, tuple or numpy array, a frozenset for a set, a tuple of its
    fields for one of the harness's dataclasses (a lab's ``Setting``); numpy's own scalars by their value.
    Nothing of the value's own is called: a subclass of a built-in is read through the built-in (an
    IntEnum is its int, whatever its methods say). Anything else raises ``Unreadable``."""
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
    if dataclasses.is_dataclass(kind) and kind.__module__.startswith("harness."):
        return tuple(plain(object.__getattribute__(value, f.name), depth + 1) for f in dataclasses.fields(kind))
    raise Unreadable(f"yours {'is' if depth == 0 else 'holds a value'} of type {kind.__name__}")


@functools.lru_cache(maxsize=1)
def _numpy_kinds(numpy: Any) -> tuple[type, ...]:
    """numpy's array and its own scalar types (a subclass of one is not among them)."""
    return (numpy.ndarray, *numpy.sctypeDict.values())


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


def keep(step: Step, function: Callable[..., Any], gathered: Gathered | None = None) -> Path | None:
    """Write a passing function, with what it uses, to ``yours_folder()/<name>.py``; None when it cannot be
    kept, and then the reason goes to ``<name>.why`` (and an older kept version goes), for chapter 05 to say.

    Each file goes to a temporary file of this call's own (a unique name in the same folder), then
    replaces the kept file in one atomic step: two kernels keeping the same step leave one whole file,
    never a mix, and a write that fails leaves the kept file as it was. Raises OSError when the folder
    cannot hold it."""
    gathered = gathered or gather(_unwrapped(function), step.name)
    if issubclass(type(function), functools.partial):  # its source is the function's, without what it binds
        gathered.problems[:] = ["it is a functools.partial; write it with def to keep it"]
    if not gathered.problems:
        try:
            compile(gathered.source, f"{step.name}.py", "exec")
        except (SyntaxError, ValueError) as error:
            gathered.problems.append(f"what it uses does not make a file Python reads ({_told(error)})")
    folder = yours_folder()
    folder.mkdir(parents=True, exist_ok=True)
    kept, why = folder / f"{step.name}.py", folder / f"{step.name}.why"
    if gathered.problems:
        _write(why, "; ".join(gathered.problems) + "\n")
        kept.unlink(missing_ok=True)
        return None
    _write(kept, gathered.source)
    why.unlink(missing_ok=True)
    return kept


def _write(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def yours_or_reference(name: str) -> Callable[..., Any]:
    """Your kept function ``name`` if it still passes its check, else the reference; prints which, and why.

    Your file runs in a namespace of its own: it holds what your function uses (``keep``). A kept file
    that does not load (it raises, exits or is not Python) is said in one line and its reference used:
    never raised."""
    step = find_step(name)
    if step is None:
        raise KeyError(f"no step named {name!r}")
    folder = yours_folder()
    if not (folder / f"{name}.py").exists():
        why = folder / f"{name}.why"
        if why.exists():
            reason = why.read_text(encoding="utf-8").strip()
            print(f"{name}: yours passed in chapter {step.chapter} but could not be kept ({reason}); "
                  "using the reference.")
        else:
            print(f"{name}: not kept yet (write it in chapter {step.chapter}); using the reference.")
        return step.reference
    function = _load(name)
    if function is step.reference:
        return function
    verdict, passed = judge(step, function)
    if not passed:
        print(f"{verdict}\n{name}: using the reference.")
        return step.reference
    print(f"{name}: yours, from chapter {step.chapter}.")
    return function


def _load(name: str) -> Callable[..., Any]:
    """Run your kept ``name`` in a namespace of its own and return it; when it does not load, say so and
    return the reference."""
    path = yours_folder() / f"{name}.py"
    scope: dict[str, Any] = {"__name__": f"yours_{name}", KEPT: str(path)}
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), scope)
        return scope[name]
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        print(f"{name}: your kept version does not load ({_told(error)}); using the reference.")
        return find_step(name).reference  # type: ignore[union-attr]


def _told(error: BaseException) -> str:
    """``Type: message`` of an error yours raised, on one line, even when its message cannot be made."""
    try:
        message = " ".join(str(error).split())
    except Exception:
        message = "(its message raised)"
    return f"{type(error).__name__}: {message if len(message) <= 200 else message[:197] + '...'}"
