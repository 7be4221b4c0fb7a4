"""The checks of the steps a student writes (harness/labs/steps.py): each catches the mistakes students make and
names the kind of mistake, never shows the answer and never raises; correct versions in other styles pass; a
passing function is kept with what it uses, and chapter 05 loads it or says why not."""
from __future__ import annotations

import copy
import functools
import importlib.util
import inspect
import os
import re
import textwrap
import types

import pytest

from harness.labs import steps
from harness.labs.keeping import gather
from harness.labs.solutions import all_answers, all_steps, chapters, find_step
from harness.labs.steps import check, examine, judge, yours_or_reference
from harness.labs.yours import Raised
from wrong_answers import ISSUE, ISSUE_RIGHT, right_answers, wrong_answers

WRONG = wrong_answers()   # step -> [(a typical wrong version, what the check's line must say)]
RIGHT = right_answers()   # step -> [correct versions in other styles]
WRONG_CASES = [(name, wrong, says) for name, items in sorted(WRONG.items()) for wrong, says in items]
RIGHT_CASES = [(name, right) for name, items in sorted(RIGHT.items()) for right in items]


def named(function, name: str):
    """A copy of ``function`` under another name, as a student would write it under the stub's."""
    copied = types.FunctionType(function.__code__, function.__globals__, name, function.__defaults__,
                                function.__closure__)
    copied.__kwdefaults__ = function.__kwdefaults__
    return copied


def test_every_step_has_wrong_versions_and_right_ones_in_another_style():
    assert set(WRONG) == set(all_steps()) == set(RIGHT)


@pytest.mark.parametrize("name, wrong, says", WRONG_CASES, ids=[f"{n}-{w.__name__}" for n, w, _ in WRONG_CASES])
def test_a_typical_wrong_version_is_caught_its_mistake_named_and_the_answer_never_shown(name, wrong, says):
    """The line names the case, where yours differs and the kind of mistake; the shown difference's expected
    value is not in it (the check would hand out the answer), beyond what yours has in common with it."""
    line, passed, shown = examine(find_step(name), named(wrong, name))
    assert not passed and line.startswith(f"{name}: differs in ") and says in line, line
    assert line.endswith("So the chapter goes on with the reference.") and "\n" not in line
    assert "expected" not in line
    if isinstance(shown.expected, str) and isinstance(shown.got, str):
        rest = shown.expected[len(os.path.commonprefix([shown.expected, shown.got])):][:30]
        assert len(rest) < 8 or rest not in line or rest in shown.got
    else:
        expected = repr(shown.expected)
        assert len(expected) < 8 or expected[:40] not in line  # a short value (a count) may appear by coincidence


def test_check_prints_the_line_and_goes_on_with_the_reference(capsys):
    wrong, says = WRONG["choose_to_clear"][0]
    assert check(named(wrong, "choose_to_clear")) is find_step("choose_to_clear").reference
    line = capsys.readouterr().out
    assert line.startswith("choose_to_clear: differs in ") and says in line and line.count("\n") == 1


@pytest.mark.parametrize("name, right", RIGHT_CASES, ids=[f"{n}-{r.__name__}" for n, r in RIGHT_CASES])
def test_a_right_version_in_another_style_passes(name, right):
    line, passed = judge(find_step(name), named(right, name))
    assert passed, line


def test_every_mistake_the_issue_found_passing_has_a_wrong_version_here_and_each_rejection_a_right_one():
    """Each is then run by the tests above: the wrong ones rejected, the right ones passed."""
    for name, wrong_name in ISSUE.values():
        assert wrong_name in [w.__name__ for w, _ in WRONG[name]], wrong_name
    for name, right_name in ISSUE_RIGHT.values():
        assert right_name in [r.__name__ for r in RIGHT[name]], right_name
    assert len(ISSUE) == 11 and len(ISSUE_RIGHT) == 2


def recap_runs() -> set[tuple[str, ...]]:
    """Every run of five words of every chapter's recap answers."""
    runs: set[tuple[str, ...]] = set()
    for chapter in chapters():
        for answer_text in getattr(importlib.import_module(f"harness.labs.solutions.{chapter}"), "RECAP", []):
            words = re.findall(r"[\w'-]+", answer_text.lower())
            runs |= {tuple(words[i:i + 5]) for i in range(len(words) - 4)}
    return runs


def every_hint() -> list[tuple[str, str]]:
    hints = []
    for step in all_steps().values():
        hints += [(step.name, h) for h in (step.hint, *step.traps.values(), *step.flags.values())]
    for exercise in all_answers().values():
        hints += [(exercise.name, h) for h in (exercise.hint, *exercise.hints.values())]
    return hints


def test_no_hint_gives_a_recap_answer():
    runs = recap_runs()
    for name, hint in every_hint():
        words = re.findall(r"[\w'-]+", hint.lower())
        shared = [" ".join(words[i:i + 5]) for i in range(len(words) - 4) if tuple(words[i:i + 5]) in runs]
        assert not shared, f"{name}'s hint repeats a recap answer: {shared}"


def test_no_hint_of_chapter_04_gives_exercise_2s_answer():
    """Exercise 2 asks which focus finish_round compacts with when compact is called twice."""
    for step in (s for s in all_steps().values() if s.chapter == "04" and s.name != "two_compacts"):
        for hint in (step.hint, *step.traps.values(), *step.flags.values()):
            assert not re.search(r"\blast (compact|call|one|focus)|the rules", hint), (step.name, hint)


@pytest.mark.parametrize("name", sorted(all_steps()))
def test_a_stub_is_not_written_yet(name, capsys):
    def stub(*args, **kwargs):
        raise NotImplementedError("your code here")
    stub.__name__ = name
    assert check(stub) is find_step(name).reference
    assert capsys.readouterr().out == f"{name}: not written yet; the chapter goes on with the reference.\n"


@pytest.mark.parametrize("name", sorted(all_steps()))
def test_the_reference_passes_its_own_check(name):
    step = find_step(name)
    line, passed = judge(step, step.reference)
    assert passed and line == f"{name}: yours passes all {len(step.cases())} cases; the chapter goes on with yours."


def test_the_reference_the_chapter_went_on_with_is_not_passed_as_yours(tmp_path, monkeypatch, capsys):
    """A check cell run again after a stub: its name is now bound to the reference, which check returned."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    reference = find_step("choose_to_clear").reference
    assert check(reference) is reference
    assert capsys.readouterr().out == ("choose_to_clear: this is the reference, which the chapter went on with last "
                                       "time, not yours: run the cell that defines your choose_to_clear, then this "
                                       "one again.\n")
    assert not list(tmp_path.iterdir())


def test_calling_the_harness_own_version_is_told_and_not_passed(tmp_path, capsys):
    written = module_from(tmp_path, "cheat", '''
        from harness import micro_compact

        def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
            return len(micro_compact(messages, keep_recent, preserve_tools, min_chars).cleared)
        ''')
    assert check(written.my_micro_compact) is find_step("my_micro_compact").reference
    assert capsys.readouterr().out == (
        "my_micro_compact: yours calls micro_compact from harness.core.micro, the harness's own version of what "
        "this step asks you to write: write it yourself; the chapter goes on with the reference.\n")


@pytest.mark.parametrize("broken", [lambda *a: 1 / 0, lambda: None, lambda *a: object()])
def test_a_check_never_raises(broken, capsys):
    broken.__name__ = "choose_to_clear"
    assert check(broken) is find_step("choose_to_clear").reference
    assert "differs" in capsys.readouterr().out


def test_an_unknown_name_names_the_step_closest_to_it(capsys):
    def my_micro_compactt():
        return 1
    assert check(my_micro_compactt) is my_micro_compactt
    assert capsys.readouterr().out == (
        "my_micro_compactt: no step of this course has that name, so nothing was checked. The step closest to it "
        "is my_micro_compact: name your function so (def my_micro_compact(...)), then run its cell and this one "
        "again.\n")

    def my_own_helper():
        return 1
    assert check(my_own_helper) is my_own_helper
    assert "nothing was checked: give your function the name of the stub it fills in" in capsys.readouterr().out


def test_a_function_bound_to_a_steps_name_is_checked_and_kept_under_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    written = module_from(tmp_path, "student", '''
        from harness.labs.solutions import find_step

        def my_replace(chosen):
            for block, name in chosen:
                block["content"] = "[Previous: used " + name + "]"
            return len(chosen)

        replace_in_place = my_replace
        ''')
    exec("replace_in_place = check(replace_in_place)", written.__dict__ | {"check": check}, written.__dict__)
    assert capsys.readouterr().out.startswith("replace_in_place: yours passes all ")
    kept = (tmp_path / "replace_in_place.py").read_text(encoding="utf-8")
    assert "def my_replace(chosen):" in kept and kept.rstrip().endswith("replace_in_place = my_replace")
    assert yours_or_reference("replace_in_place") is not find_step("replace_in_place").reference


def test_a_stub_left_beside_a_function_of_another_name_is_told_which(capsys):
    """A function written in the notebook, with the step's parameters and a name close to it; a function
    imported there (the harness's own micro_compact has those parameters too) is never named."""
    scope = {"check": check}
    exec("from harness import micro_compact\n"
         "def my_micro(messages, keep_recent=3, preserve_tools=frozenset({'read_file'}), min_chars=100):\n"
         "    return 0\n"
         "def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({'read_file'}), min_chars=100):\n"
         "    raise NotImplementedError('your code here')\n"
         "result = check(my_micro_compact)\n", scope)
    assert capsys.readouterr().out == (
        "my_micro_compact: not written yet; the chapter goes on with the reference. (my_micro has its parameters: "
        "if it is yours, name it my_micro_compact and run both cells again.)\n")


def module_from(tmp_path, name: str, source: str):
    """Functions defined in a real file, so that their source can be read back (as in a notebook cell)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_passing_function_is_kept_with_its_helpers_values_and_imports_and_loads_on_its_own(
        tmp_path, monkeypatch, capsys):
    """Chapter 05 runs it in a namespace of its own: what it used in chapter 02 comes with it."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path / "yours"))
    written = module_from(tmp_path, "student", '''
        import json as js
        from collections import Counter
        from pathlib import Path
        from harness.labs.solutions.ch02 import collect_tool_results, tool_name_map

        PLACEHOLDER = "[Previous: used {}]"
        TOO_SHORT = {"min": 100}
        ROOT = Path("_work") / "02"
        SEEN = Counter({"read_file": 2})

        def long_enough(block, min_chars):
            return isinstance(block["content"], str) and len(block["content"]) > min_chars

        def placeholder(name):
            return PLACEHOLDER.format(name)

        def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({"read_file"}), min_chars=100):
            results = collect_tool_results(messages)
            names = tool_name_map(messages)
            older = results[: max(0, len(results) - keep_recent)]
            chosen = [(b, names.get(b["tool_use_id"], "unknown")) for _, _, b in older if long_enough(b, min_chars)]
            chosen = [(b, n) for b, n in chosen if n not in preserve_tools]
            for block, name in chosen:
                block["content"] = placeholder(name)
            js.dumps(TOO_SHORT), ROOT.name, SEEN["read_file"]
            return len(chosen)
        ''')
    assert check(written.my_micro_compact) is written.my_micro_compact
    capsys.readouterr()
    kept = (tmp_path / "yours" / "my_micro_compact.py").read_text(encoding="utf-8")
    assert "import json as js" in kept and "PLACEHOLDER = '[Previous: used {}]'" in kept
    assert "from harness.labs.solutions.ch02 import collect_tool_results" in kept
    assert "from pathlib import PosixPath" in kept and "ROOT = PosixPath('_work/02')" in kept
    assert "SEEN = Counter({'read_file': 2})" in kept
    assert kept.index("def long_enough") < kept.index("def my_micro_compact")
    loaded = yours_or_reference("my_micro_compact")
    assert capsys.readouterr().out == "my_micro_compact: yours, from chapter 02.\n"
    assert loaded is not find_step("my_micro_compact").reference and loaded.__globals__ is not written.__dict__


def test_a_function_that_uses_a_notebook_value_is_not_kept_and_chapter_05_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path / "yours"))
    written = module_from(tmp_path, "student", '''
        HISTORY = [{"role": "user", "content": "x" * 30_000}]

        def replace_in_place(chosen):
            for block, name in chosen:
                block["content"] = f"[Previous: used {name}]"
            len(HISTORY)
            return len(chosen)
        ''')
    (tmp_path / "yours").mkdir()
    (tmp_path / "yours" / "replace_in_place.py").write_text("def replace_in_place(chosen):\n    return 0\n")
    assert check(written.replace_in_place) is written.replace_in_place
    out = capsys.readouterr().out.splitlines()
    assert out[1] == ("replace_in_place: yours is not kept for later chapters: it uses `HISTORY`, a list made in "
                      "the notebook, which cannot be written to a file (pass it as an argument, or make it a "
                      "constant).")
    assert not (tmp_path / "yours" / "replace_in_place.py").exists()  # the older version goes too
    assert yours_or_reference("replace_in_place") is find_step("replace_in_place").reference
    assert capsys.readouterr().out == (
        "replace_in_place: yours passed in chapter 02 but could not be kept (it uses `HISTORY`, a list made in "
        "the notebook, which cannot be written to a file (pass it as an argument, or make it a constant)); using "
        "the reference.\n")


def test_what_gather_writes_reads_back_every_plain_value_and_refuses_a_lambda(tmp_path):
    written = module_from(tmp_path, "values", '''
        A = (1, 2.5, "x", None, True)
        B = frozenset({"read_file"})
        C = [{"k": [1, {2}]}]
        SQUARE = lambda x: x * x

        def f():
            return A, B, C

        def g():
            return SQUARE(2)
        ''')
    found = gather(written.f, "f")
    fresh: dict = {}
    exec(found.source, fresh)
    assert not found.problems and fresh["f"]() == written.f()
    assert gather(written.g, "g").problems == ["it uses `SQUARE`, a lambda made in the notebook, which cannot be "
                                               "written to a file (pass it as an argument, or make it a constant)"]


def test_a_kept_function_that_no_longer_passes_is_not_used(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    (tmp_path / "replace_in_place.py").write_text("def replace_in_place(chosen):\n    return 0\n", encoding="utf-8")
    assert yours_or_reference("replace_in_place") is find_step("replace_in_place").reference
    out = capsys.readouterr().out
    assert "differs" in out and out.endswith("replace_in_place: using the reference.\n")


def test_nothing_kept_means_the_reference(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    assert yours_or_reference("my_micro_compact") is find_step("my_micro_compact").reference
    assert "not kept yet (write it in chapter 02)" in capsys.readouterr().out


def stub_shaped_like(reference):
    """A stub with the reference's very parameters (a case may call it inside a session, with exactly those)."""
    parts, defaults, star_done = [], {}, False
    for i, p in enumerate(inspect.signature(reference).parameters.values()):
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star_done = True
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        if p.kind is p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        default = ""
        if p.default is not p.empty:
            defaults[f"_d{i}"] = p.default
            default = f"=_d{i}"
        parts.append(f"{p.name}{default}")
    scope = dict(defaults)
    exec(f"def {reference.__name__}({', '.join(parts)}):\n    raise NotImplementedError('your code here')", scope)
    return scope[reference.__name__]


@pytest.mark.parametrize("name", sorted(all_steps()))
def test_a_stub_with_the_real_signature_is_not_written_yet(name, capsys):
    """Also where the case runs the function inside a session (chapter 05's loop and layers)."""
    step = find_step(name)
    assert check(stub_shaped_like(step.reference)) is step.reference
    assert capsys.readouterr().out == f"{name}: not written yet; the chapter goes on with the reference.\n"


class ReprRaises:
    """A result a student's function might return: its repr raises."""
    def __repr__(self):
        raise RuntimeError("no repr")


def test_a_result_whose_repr_raises_is_named_by_its_type(capsys):
    def whole_input(*args):
        return ReprRaises()
    assert check(whole_input) is find_step("whole_input").reference
    line = capsys.readouterr().out
    assert "differs" in line and "yours gave <a ReprRaises whose repr raised RuntimeError>" in line, line


def test_a_partial_is_checked_under_the_name_of_what_it_wraps(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    reference = find_step("replace_in_place").reference
    yours = functools.partial(reference)
    assert check(yours) is yours
    assert capsys.readouterr().out.startswith("replace_in_place: yours passes all ")
    wrong = functools.partial(lambda chosen, extra: 0, extra=1)
    wrong.func.__name__ = "replace_in_place"
    assert check(wrong) is reference and "differs" in capsys.readouterr().out


def test_what_is_not_a_function_is_said(capsys):
    assert check(3) == 3
    assert capsys.readouterr().out == "3 is not a function; nothing checked.\n"


def test_a_function_that_exits_is_a_function_that_raised(capsys):
    def choose_to_clear(*args):
        raise SystemExit(1)
    assert check(choose_to_clear) is find_step("choose_to_clear").reference
    assert "yours raised SystemExit" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(all_steps()))
def test_no_step_lets_an_exit_through(name, capsys):
    """Also where the case runs yours inside a session, whose own code calls it."""
    def exits(*args, **kwargs):
        raise SystemExit("bye")
    exits.__name__ = name
    assert check(exits) is find_step(name).reference
    assert f"{name}: " in capsys.readouterr().out


def test_an_interrupt_still_interrupts():
    """Ctrl-C (the kernel's interrupt) is the student stopping the cell: the check does not swallow it."""
    def choose_to_clear(*args):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        check(choose_to_clear)


def test_two_kernels_keeping_the_same_step_do_not_share_a_temporary_file(tmp_path, monkeypatch):
    """The other kernel keeps the same step between this one's write and its replace (the race of two
    kernels on one folder, made to happen every time): both keeps succeed, and nothing is left over."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    step = find_step("replace_in_place")
    (tmp_path / "other").mkdir()
    other = module_from(tmp_path / "other", "other", "def replace_in_place(chosen):\n    return 0\n")
    real_replace, raced = os.replace, []

    def replace_after_the_other_kernel(source, target):
        if not raced:
            raced.append(1)
            steps.keep(step, other.replace_in_place)
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace_after_the_other_kernel)
    assert steps.keep(step, step.reference) == tmp_path / "replace_in_place.py"
    assert raced and sorted(p.name for p in tmp_path.iterdir()) == ["other", "replace_in_place.py"]
    assert "def replace_in_place(chosen):" in (tmp_path / "replace_in_place.py").read_text(encoding="utf-8")


def test_a_folder_that_cannot_hold_yours_is_said_not_raised(tmp_path, monkeypatch, capsys):
    in_the_way = tmp_path / "yours"
    in_the_way.write_text("a file where the folder should be", encoding="utf-8")
    monkeypatch.setenv("HARNESS_YOURS", str(in_the_way))
    written = module_from(tmp_path, "student", "def replace_in_place(chosen):\n    for block, name in chosen:\n"
                                               "        block['content'] = f'[Previous: used {name}]'\n"
                                               "    return len(chosen)\n")
    assert check(written.replace_in_place) is written.replace_in_place
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("replace_in_place: yours passes all ")
    assert out[1].startswith("replace_in_place: yours could not be kept for later chapters (FileExistsError: ")
    assert in_the_way.read_text(encoding="utf-8") == "a file where the folder should be"


@pytest.mark.parametrize("kept", [
    "    def replace_in_place(chosen):\n        return []\n",
    "raise SystemExit('a kept file that exits')\n",
    "def replace_in_place(\n",
])
def test_a_kept_file_that_does_not_load_is_said_in_one_line_and_the_reference_used(tmp_path, monkeypatch, capsys,
                                                                                   kept):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    (tmp_path / "replace_in_place.py").write_text(kept, encoding="utf-8")
    assert yours_or_reference("replace_in_place") is find_step("replace_in_place").reference
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("replace_in_place: your kept version does not load (")
    assert out[0].endswith("); using the reference.")


def test_a_function_written_inside_another_is_kept_so_that_it_loads(tmp_path, monkeypatch, capsys):
    """Its source is indented where it was written; kept as is, it would not load in chapter 05."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))

    def tool_name_map(messages):
        return find_step("tool_name_map").reference(messages)

    assert check(tool_name_map) is tool_name_map
    capsys.readouterr()
    assert yours_or_reference("tool_name_map") is not find_step("tool_name_map").reference
    assert capsys.readouterr().out == "tool_name_map: yours, from chapter 02.\n"


def test_a_passing_partial_is_said_not_kept(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    yours = functools.partial(find_step("replace_in_place").reference)
    assert check(yours) is yours
    assert capsys.readouterr().out.splitlines()[1] == (
        "replace_in_place: yours is not kept for later chapters: it is a functools.partial; write it with def to "
        "keep it.")
    assert not (tmp_path / "replace_in_place.py").exists()


class Unsayable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@pytest.mark.parametrize("error, said", [(Unsayable(), "Unsayable: (its message raised)"),
                                         (ValueError("two\nlines"), "ValueError: two lines")])
def test_an_error_that_stops_the_check_is_said_on_one_line(error, said):
    class Hostile(dict):  # a dict where a dict is expected, so the comparison walks it and meets the error
        def get(self, key, default=None):
            raise error

        def keys(self):
            raise error

    def tool_name_map(messages):
        return Hostile(find_step("tool_name_map").reference(messages))

    line, passed = judge(find_step("tool_name_map"), tool_name_map)
    assert not passed
    assert line == f"tool_name_map: could not be checked ({said}); the chapter goes on with the reference."


class ClaimsToBe:
    """A result that claims another class through ``__class__``, which isinstance believes."""
    def __init__(self, claimed):
        self.claimed = claimed

    @property
    def __class__(self):
        return self.claimed

    def __repr__(self):
        return "ClaimsToBe()"


@pytest.mark.parametrize("claimed", [Raised, functools.partial])
def test_what_yours_claims_to_be_is_not_believed(claimed, capsys):
    def whole_input(*args):
        return ClaimsToBe(claimed)
    assert check(whole_input) is find_step("whole_input").reference
    assert "yours gave ClaimsToBe()" in capsys.readouterr().out
    impostor = ClaimsToBe(claimed)
    assert check(impostor) is impostor
    assert capsys.readouterr().out == "ClaimsToBe() is not a function; nothing checked.\n"


def test_a_duplicate_tool_result_counts_as_the_third_broken_history_before_the_rule_exists():
    """Until harness/core/messages.py refuses two results for one call, the case finds them itself; once it
    does, its refusal names compact's id and counts the same (not one of the chapter's two rules)."""
    from harness.labs.solutions.ch04 import CHAPTER_RULES, refusal
    history = next(r for r in RIGHT["third_broken_history"] if r.__name__ == "answered_twice")()
    rule, tool_id = refusal(copy.deepcopy(history))
    assert rule not in CHAPTER_RULES and tool_id == "toolu_compact_01"
