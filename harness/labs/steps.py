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

The references and the cases are in ``harness/labs/solutions/`` (one module per
chapter): open it when you are stuck, not before.

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

import copy
import inspect
import os
from pathlib import Path
from typing import Any, Callable

from .solutions import Step, find_step
from .yours import Raised, compare, short

YOURS_ENV = "HARNESS_YOURS"  # where passing functions are kept; default notebooks/yours/ of this checkout


def check(function: Callable[..., Any]) -> Callable[..., Any]:
    """Check your function against the reference of the step of the same name; print one line; return the
    function the chapter goes on with (yours if it passes, else the reference). Never raises."""
    step = find_step(function.__name__)
    if step is None:
        print(f"{function.__name__}: no step of this course has that name; nothing checked.")
        return function
    verdict, passed = judge(step, function)
    print(verdict)
    if passed:
        keep(step, function)
        return function
    return step.reference


def judge(step: Step, function: Callable[..., Any]) -> tuple[str, bool]:
    """(the line ``check`` prints, whether yours passes)."""
    cases = step.cases()
    goes_on = "the chapter goes on with the reference"
    if _not_written(function, cases):
        return f"{step.name}: not written yet; {goes_on}.", False
    try:
        agreement = compare(step.name, function, step.reference, cases, step.observe, step.label)
    except Exception as error:  # observing yours failed in a way the comparison cannot show
        return f"{step.name}: could not be checked ({type(error).__name__}: {error}); {goes_on}.", False
    if agreement.ok:
        return f"{step.name}: yours passes all {agreement.cases} cases; the chapter goes on with yours.", True
    first = agreement.differences[0]
    where, gave = first.where, f"gave {short(first.got, 80)}"
    if isinstance(first.got, Raised):
        gave = f"raised {first.got.error}"
    elif where.endswith(" (length)"):
        where, gave = where.removesuffix(" (length)"), f"has {first.got} items"
    return (f"{step.name}: differs in {len(agreement.differences)} of {agreement.cases} cases. First, "
            f"{first.case}: at {where}, yours {gave}. Hint: {step.hint} So {goes_on}.", False)


def _not_written(function: Callable[..., Any], cases: list[tuple[str, tuple[Any, ...]]]) -> bool:
    try:
        function(*copy.deepcopy(cases[0][1]))
    except NotImplementedError:
        return True
    except Exception:  # a written function that fails: compare reports it
        return False
    return False


def yours_folder() -> Path:
    """Where passing functions are kept: ``$HARNESS_YOURS``, else ``notebooks/yours/`` of this checkout."""
    configured = os.environ.get(YOURS_ENV)
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "notebooks" / "yours"


def keep(step: Step, function: Callable[..., Any]) -> Path | None:
    """Write a passing function's source to ``yours_folder()/<name>.py``; None when its source is unknown."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    folder = yours_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{step.name}.py"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(source, encoding="utf-8")
    temporary.replace(path)
    return path


def yours_or_reference(name: str, namespace: dict[str, Any] | None = None) -> Callable[..., Any]:
    """Your kept function ``name`` if it still passes its check, else the reference; prints which.

    Your source runs in ``namespace`` (the notebook's globals, so it sees what your chapter imported),
    after the kept functions of the same chapter it may call."""
    step = find_step(name)
    if step is None:
        raise KeyError(f"no step named {name!r}")
    path = yours_folder() / f"{name}.py"
    if not path.exists():
        print(f"{name}: not kept yet (write it in chapter {step.chapter}); using the reference.")
        return step.reference
    scope = dict(namespace or {})
    for earlier in step.needs:
        earlier_path = yours_folder() / f"{earlier}.py"
        if earlier_path.exists():
            exec(compile(earlier_path.read_text(encoding="utf-8"), str(earlier_path), "exec"), scope)
        else:
            scope[earlier] = find_step(earlier).reference  # type: ignore[union-attr]
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), scope)
        function = scope[name]
    except Exception as error:
        print(f"{name}: your kept version does not load ({type(error).__name__}: {error}); using the reference.")
        return step.reference
    verdict, passed = judge(step, function)
    if not passed:
        print(f"{verdict}\n{name}: using the reference.")
        return step.reference
    print(f"{name}: yours, from chapter {step.chapter}.")
    return function

