"""The checks of the values exercises ask for (harness/labs/steps.py ``answer``): the truth is held in the
chapter's solutions module, the line says only "correct" or how far off in kind, and never raises."""
from __future__ import annotations

import numpy
import pytest

from harness.labs import steps
from harness.labs.solutions import Answer, all_answers
from harness.labs.steps import _truth, answer, how_far
from wrong_answers import right_values, wrong_values

WRONG_VALUES = wrong_values()
RIGHT_VALUES = right_values()


def asked(truth, hint: str = "look again", tolerance: float = 0.0, **options) -> Answer:
    return Answer("made_up", "00", lambda: truth, hint, tolerance, **options)


@pytest.fixture
def made_up(monkeypatch):
    """An exercise named ``made_up`` whose truth the test sets (the truths worked out so far forgotten)."""
    def install(truth, **options):
        exercise = asked(truth, **options)
        monkeypatch.setattr(steps, "find_answer", lambda name: exercise if name == "made_up" else None)
        steps._truth.cache_clear()
        return exercise
    yield install
    steps._truth.cache_clear()


@pytest.mark.parametrize("truth, value, says", [
    ({(0, False, False), (1, False, False)}, {(0, False, False)}, "1 missing"),
    ({(0, False, False)}, {(0, False, False), (2, True, True)}, "1 in yours should not be there"),
    ({1, 2, 3}, {1, 9}, "1 in yours should not be there, 2 missing"),
    ({1, 2}, 12, "the answer is a set, yours is int"),
    ({1, 2}, "12", "the answer is a set, yours is str"),
    (14, 15, "too high"),
    (14, 3, "too low"),
    (14, "14", "the answer is a number, yours is str"),
    ([3, 1, 2], [3, 1], "yours has 2 items, the answer 3"),
    ([3, 1, 2], [3, 2, 1], "the first item that is off is at position 1"),
    (True, False, "yours is not the answer"),
    (True, 1, "the answer is a yes or no (a bool), yours is int"),
    ("read_file", "bash", "not the answer"),
])
def test_a_wrong_value_is_told_how_it_is_off_never_what_the_answer_is(made_up, capsys, truth, value, says):
    made_up(truth)
    assert answer("made_up", value) is False
    line = capsys.readouterr().out
    assert line == f"made_up: not quite: {says}. Hint: look again\n"
    assert repr(truth) not in line


@pytest.mark.parametrize("truth, value", [({1, 2}, [2, 1]), ({1, 2}, frozenset({1, 2})), (14, 14), (14, 14.0),
                                           ([3, 1], (3, 1)), (True, True), ("x", "x")])
def test_the_answer_in_any_reasonable_form_is_correct(made_up, capsys, truth, value):
    made_up(truth)
    assert answer("made_up", value) is True
    assert capsys.readouterr().out == "made_up: correct.\n"


def test_a_number_within_the_tolerance_is_correct(made_up, capsys):
    made_up(0.5, tolerance=0.01)
    assert answer("made_up", 0.505) and not answer("made_up", 0.52)


def test_none_asks_to_fill_it_in_and_computes_nothing(monkeypatch, capsys):
    def never():
        raise AssertionError("the truth was computed")
    monkeypatch.setattr(steps, "find_answer", lambda name: Answer("made_up", "00", never))
    assert answer("made_up", None) is False
    assert capsys.readouterr().out == "made_up: fill it in, then run this cell again.\n"


def test_a_failing_reference_run_is_said_not_raised(made_up, capsys):
    exercise = made_up(None)
    object.__setattr__(exercise, "truth", lambda: 1 / 0)
    assert answer("made_up", 3) is False
    assert "could not be checked (ZeroDivisionError: division by zero)" in capsys.readouterr().out


def test_the_truth_is_held_in_no_attribute_of_the_module(made_up):
    made_up(4_242_424)
    assert answer("made_up", 4_242_424)
    seen = [value for value in vars(steps).values() if isinstance(value, dict | list | tuple | set)]
    assert not any(4_242_424 in (v.values() if isinstance(v, dict) else v) for v in seen)


def test_an_exercise_with_several_right_answers_is_judged_by_what_the_value_does(made_up, capsys):
    made_up(2, accepts=lambda value: None if value % 2 == 0 else "an odd number does not do it")
    assert answer("made_up", 40) and not answer("made_up", 3)
    assert capsys.readouterr().out == ("made_up: correct.\n"
                                       "made_up: not quite: an odd number does not do it. Hint: look again\n")


def test_a_hint_for_the_way_yours_is_off(made_up, capsys):
    made_up(14, hints={"too high": "fewer, then"})
    answer("made_up", 20), answer("made_up", 2)
    assert capsys.readouterr().out == ("made_up: not quite: too high. Hint: fewer, then\n"
                                       "made_up: not quite: too low. Hint: look again\n")


def test_a_live_exercise_is_not_checked_offline(made_up, capsys, monkeypatch):
    monkeypatch.setattr(steps, "_live", lambda: False)
    made_up(3, live=True)
    assert answer("made_up", 3) is False
    assert capsys.readouterr().out == ("made_up: this one needs real Claude (ANTHROPIC_API_KEY and USE_REAL_MODEL=1); "
                                       "nothing checked.\n")


def test_an_unknown_name_is_said(capsys):
    assert answer("no_such_exercise", 3) is False
    assert "no exercise of this course asks for that name" in capsys.readouterr().out


def test_the_truth_is_worked_out_once(made_up):
    calls = []
    exercise = made_up(None)
    object.__setattr__(exercise, "truth", lambda: calls.append(1) or 7)
    answer("made_up", 7), answer("made_up", 8)
    assert calls == [1]


def test_every_answer_has_a_typical_wrong_value_here():
    assert set(WRONG_VALUES) == set(all_answers())


@pytest.mark.solutions
@pytest.mark.parametrize("name", sorted(a.name for a in all_answers().values() if not a.live))
def test_each_exercise_takes_its_truth_and_catches_a_typical_wrong_value(name, capsys):
    """Runs the reference (some exercises run sessions): with the solutions, not in the unit suite."""
    exercise = all_answers()[name]
    truth = _truth(name)
    assert answer(name, truth) and capsys.readouterr().out == f"{name}: correct.\n"
    for right in RIGHT_VALUES.get(name, []):
        assert answer(name, right) and capsys.readouterr().out == f"{name}: correct.\n"
    for wrong, says in WRONG_VALUES[name]:
        assert not answer(name, wrong)
        line = capsys.readouterr().out
        assert says in line and line.startswith(f"{name}: " if exercise.own_words else f"{name}: not quite: "), line
        assert not exercise.own_words or "wrong" not in line  # a misread prompt is not a wrong one
        assert len(repr(truth)) < 8 or repr(truth)[:40] not in line


class AlwaysEqual:
    """A value that says it equals anything: the check must not take its word for it."""
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


class Liar(float):
    """A float subclass whose arithmetic and comparisons all say "the same as the truth"."""
    def __sub__(self, other):
        return 0.0

    __rsub__ = __sub__

    def __abs__(self):
        return 0.0

    def __eq__(self, other):
        return True

    def __le__(self, other):
        return True

    __ge__ = __lt__ = __gt__ = __le__
    __hash__ = float.__hash__


PLAIN = ": give plain Python values (int, float, bool, str, list, tuple, set)"


@pytest.mark.parametrize("truth, value, says", [
    ("read_file", AlwaysEqual(), "yours is of type AlwaysEqual, which the check does not read" + PLAIN),
    (14, AlwaysEqual(), "yours is of type AlwaysEqual, which the check does not read" + PLAIN),
    ([3, 1], [3, AlwaysEqual()], "yours holds a value of type AlwaysEqual, which the check does not read" + PLAIN),
    ({"a"}, {AlwaysEqual()}, "yours holds a value of type AlwaysEqual, which the check does not read" + PLAIN),
    (14, Liar(99.0), "too high"),
    (14, Liar(3.0), "too low"),
    (1, True, "the answer is a number, yours is bool"),
    ({(0, False, False)}, {(0, 0, 0)}, "1 in yours should not be there, 1 missing"),
    ([1, 0], [True, False], "the first item that is off is at position 0"),
    (0.5, 10 ** 400, "too high"),
    (0.5, float("nan"), "yours is not a number (nan)"),
])
def test_equality_is_never_taken_from_yours(made_up, capsys, truth, value, says):
    made_up(truth)
    assert answer("made_up", value) is False
    assert capsys.readouterr().out == f"made_up: not quite: {says}. Hint: look again\n"


def test_an_unknown_type_is_said_with_a_hint_of_what_is_read(made_up, capsys):
    from fractions import Fraction
    made_up(14)
    assert answer("made_up", Fraction(14)) is False
    assert capsys.readouterr().out == (
        f"made_up: not quite: yours is of type Fraction, which the check does not read{PLAIN}. Hint: look again\n")


def test_a_subclass_of_a_built_in_is_read_by_its_own_value_whatever_its_methods_say(made_up, capsys):
    import enum

    class Seventeen(enum.IntEnum):
        VALUE = 17

    made_up(17)
    assert answer("made_up", Seventeen.VALUE) and answer("made_up", Liar(17.0))
    assert not answer("made_up", Liar(18.0))



@pytest.mark.parametrize("truth, value", [
    (17, numpy.int64(17)), (0.5, numpy.float32(0.5)), (True, numpy.bool_(True)), ([3, 1, 2], numpy.array([3, 1, 2])),
])
def test_numpy_values_are_read_by_value(made_up, capsys, truth, value):
    made_up(truth)
    assert answer("made_up", value) is True
    assert capsys.readouterr().out == "made_up: correct.\n"


@pytest.mark.parametrize("truth, value, says", [
    ([3, 1], [numpy.array([3, 1]), 1], "the first item that is off is at position 0"),
    ([3, 1], numpy.array([[3, 1]]), "yours has 1 items, the answer 2"),
    (17, numpy.int64(18), "too high"),
    ({(0, False)}, {(numpy.int64(0), numpy.int64(0))}, "1 in yours should not be there, 1 missing"),
    (0.5, numpy.longdouble(0.5), "yours is of type longdouble, which the check does not read" + PLAIN),
    ([0.5], numpy.array([0.5], dtype=numpy.longdouble),
     "yours holds a value of type longdouble, which the check does not read" + PLAIN),
])
def test_a_wrong_numpy_value_is_told_how_it_is_off(made_up, capsys, truth, value, says):
    made_up(truth)
    assert answer("made_up", value) is False
    assert capsys.readouterr().out == f"made_up: not quite: {says}. Hint: look again\n"


def test_nesting_deeper_than_any_answer_is_said_not_walked(made_up, capsys):
    deep = [1]
    for _ in range(100_000):
        deep = [deep]
    made_up([1])
    assert answer("made_up", deep) is False
    assert "yours is nested more than" in capsys.readouterr().out


class Impostor:
    """Claims to be an int through ``__class__``, which isinstance believes."""
    @property
    def __class__(self):
        return int


def test_a_value_is_read_by_its_real_type_not_the_one_it_claims(made_up, capsys):
    made_up(14)
    assert answer("made_up", Impostor()) is False
    assert capsys.readouterr().out == (
        f"made_up: not quite: yours is of type Impostor, which the check does not read{PLAIN}. Hint: look again\n")
