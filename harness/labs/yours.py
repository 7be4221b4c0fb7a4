"""Your function against the harness's: many cases, and exactly where they first differ (chapters 02-05).

A build chapter has the student write a layer in small cells, then checks it
here before the student's version drives the chapter's figures and sliders.
``compare`` runs both functions on fresh copies of the same inputs and
``observe`` turns one run into what must match (the history it left, what it
returned, or the exception it raised). A difference is reported at its first
position, as a path into that value: ``history[4].content[0].content:
expected '[Previous: used bash]', got '...'``.

``random_histories`` makes valid histories from a seed (no Hypothesis: the lab
installs none), with what trips a hand-written layer: several results in one
message, list contents, short and long results, errors, text after results.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..core.messages import Message, assistant, text, tool_result, tool_use, user



class _Missing:
    """What a dict lacks a key in, where the other has it (``first_difference``)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()
TOOL_NAMES = ("read_file", "bash", "list_files", "edit_file", "write_file", "compact")


@dataclass(frozen=True)
class Raised:
    """What a run that raised is compared by: the exception's type, not its wording."""
    error: str


@dataclass(frozen=True)
class Difference:
    """The first place where your result and the harness's differ, in one case; ``trap`` names the
    mistake the case was made to catch (None for a case that is not aimed at one)."""
    case: str
    where: str
    expected: Any
    got: Any
    trap: str | None = None

    def __str__(self) -> str:
        return f"{self.case}: at {self.where}: expected {short(self.expected)}, got {short(self.got)}"


@dataclass
class Agreement:
    """The outcome of ``compare``: how many cases ran, and the first difference of each that failed."""
    name: str
    cases: int
    differences: list[Difference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences

    def __str__(self) -> str:
        if self.ok:
            return f"{self.name}: yours and the harness's agree on all {self.cases} cases"
        shown = "\n".join(f"  {d}" for d in self.differences[:5])
        more = len(self.differences) - 5
        return (f"{self.name}: yours differs from the harness's in {len(self.differences)} of "
                f"{self.cases} cases\n{shown}" + (f"\n  ... and {more} more" if more > 0 else ""))


def first_difference(expected: Any, got: Any, where: str = "", tolerance: float = 0.0) -> tuple[str, Any, Any] | None:
    """(path, expected, got) at the first position where two values differ, or None if equal.
    Dicts are walked in the expected value's key order, lists index by index; two numbers of the same
    type within ``tolerance`` of each other are equal."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in list(expected) + [k for k in got if k not in expected]:
            inner = f"{where}.{key}" if type(key) is str and key.isidentifier() else f"{where}[{short(key, 40)}]"
            found = first_difference(expected.get(key, MISSING), got.get(key, MISSING), inner, tolerance)
            if found:
                return found
        return None
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple) and type(expected) is type(got):
        for i, (a, b) in enumerate(zip(expected, got)):
            found = first_difference(a, b, f"{where}[{i}]", tolerance)
            if found:
                return found
        if len(expected) != len(got):
            return f"{where} (length)", len(expected), len(got)
        return None
    if tolerance and type(expected) in (int, float) and type(got) in (int, float) and abs(expected - got) <= tolerance:
        return None
    if type(expected) is not type(got) or expected != got:
        return where or "(the value)", expected, got
    return None


def compare(name: str, yours: Callable[..., Any], theirs: Callable[..., Any],
            cases: Iterable[tuple[Any, ...]],
            observe: Callable[[Callable[..., Any], tuple[Any, ...]], Any] | None = None,
            label: str = "result", tolerance: float = 0.0,
            stop: Callable[[], bool] | None = None,
            expected: Callable[[int], Any] | None = None) -> Agreement:
    """Run both functions on a deep copy of each case's arguments and compare what ``observe``
    sees (by default, what the function returned). A case is ``(name, arguments)`` or ``(name, arguments,
    trap)``, the trap naming the mistake it was made to catch. An exception is observed as ``Raised``, ``SystemExit``
    too (a function that exits has raised); ``KeyboardInterrupt`` is the student stopping the run and
    goes through. Yours runs first on each case: when ``stop()`` is then true (yours is a stub, say), the
    comparison ends there, the harness's run of that case not made. ``expected(i)``, when given, is what the
    harness's run of case ``i`` is observed as, known already (``theirs`` is then not run)."""
    observe = observe or (lambda function, args: function(*args))
    agreement = Agreement(name, 0)
    for index, case in enumerate(cases):
        case_name, args, trap = case[0], case[1], (case[2] if len(case) > 2 else None)
        agreement.cases += 1
        got = observed(observe, yours, args)
        if stop is not None and stop():
            break
        theirs_seen = expected(index) if expected is not None else observed(observe, theirs, args)
        found = first_difference(theirs_seen, got, label, tolerance)
        if found:
            agreement.differences.append(Difference(case_name, *found, trap=trap))
    return agreement


def observed(observe: Callable[[Callable[..., Any], tuple[Any, ...]], Any] | None,
             function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """What ``observe`` sees of one run of ``function`` on a deep copy of ``args`` (by default, what it
    returns); an exception as ``Raised``."""
    observe = observe or (lambda function, args: function(*args))
    try:
        return observe(function, copy.deepcopy(args))
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the harness raising is a behaviour to match, not a failure of the check
        return Raised(type(error).__name__)


def random_histories(count: int, seed: int = 0, max_turns: int = 8) -> list[list[Message]]:
    """``count`` valid histories (each passes ``validate_messages``), the same ones for the same seed."""
    rng = random.Random(seed)
    return [_history(rng, max_turns) for _ in range(count)]


def _history(rng: random.Random, max_turns: int) -> list[Message]:
    words = ("alpha", "beta", "gamma", "token", "agent", "file", "TODO", "é", "言")

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))

    messages: list[Message] = [user(sentence())]
    next_id = 0
    for _ in range(rng.randint(0, max_turns)):
        if rng.random() < 0.2:  # a plain answer and a new request
            messages += [assistant(sentence()), user(sentence())]
            continue
        ids = [f"toolu_{next_id + k:03d}" for k in range(rng.randint(1, 4))]
        next_id += len(ids)
        content = [text(sentence())] if rng.random() < 0.5 else []
        for tool_id in ids:
            name = rng.choice(TOOL_NAMES)
            content.append(tool_use(tool_id, name, {} if name == "compact" else {"path": f"src/{rng.choice(words[:6])}.py"}))
        answers = [tool_result(tool_id, _result(rng, words), is_error=rng.random() < 0.15)
                   for tool_id in rng.sample(ids, len(ids))]
        if rng.random() < 0.25:
            answers.append(text(sentence()))
        messages += [assistant(content), user(answers)]
    return messages


def _result(rng: random.Random, words: tuple[str, ...]) -> str | list[dict[str, Any]]:
    kind = rng.random()
    if kind < 0.3:
        return "".join(rng.choice("abc xyz\n01") for _ in range(rng.randint(0, 100)))
    if kind < 0.85:
        return (rng.choice(words) + " ") * rng.randint(25, 500)  # 101 characters and up, mostly
    return [text(" ".join(rng.choice(words) for _ in range(3)))]  # list content, never cleared


def short(value: Any, width: int = 70) -> str:
    """``repr(value)``, cut to ``width`` characters; a value whose repr raises is named by its type."""
    try:
        shown = repr(value)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        shown = f"<a {type(value).__name__} whose repr raised {type(error).__name__}>"
    return shown if len(shown) <= width else shown[: width - 3] + "..."
