"""The checks of the steps a student writes (harness/labs/steps.py): each can fail, points at the mistake,
never shows the answer and never raises; the reference passes; a passing function is kept for chapter 05."""
from __future__ import annotations

import copy
import functools
import inspect
import os
import importlib.util
import textwrap

import pytest

from harness.labs.solutions import all_steps, find_step
from harness.labs.steps import check, judge, yours_or_reference
from harness.labs.yours import Raised
from wrong_answers import wrong_answers

WRONG = wrong_answers()  # step -> (a typical wrong version, what the check's line must name), from every chapter


def test_every_step_has_a_wrong_answer_here():
    assert set(WRONG) == set(all_steps())


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_typical_wrong_answer_is_caught_and_pointed_at(name, capsys):
    wrong, says = WRONG[name]
    wrong.__name__ = name
    step = find_step(name)
    chosen = check(wrong)
    line = capsys.readouterr().out
    assert chosen is step.reference
    assert line.startswith(f"{name}: differs in ") and says in line and step.hint in line, line
    assert "goes on with the reference" in line


@pytest.mark.parametrize("name", sorted(WRONG))
def test_the_line_never_shows_what_the_reference_gives(name):
    """The first difference's expected value is not in the line (the check would hand out the answer)."""
    from harness.labs.yours import compare
    wrong, _ = WRONG[name]
    step = find_step(name)
    first = compare(name, wrong, step.reference, step.cases(), step.observe, step.label).differences[0]
    line, passed = judge(step, wrong)
    shown = repr(first.expected)
    assert not passed and "expected" not in line
    assert len(shown) < 8 or shown[:40] not in line  # a short value (a count) may appear by coincidence


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_stub_is_not_written_yet(name, capsys):
    def stub(*args, **kwargs):
        raise NotImplementedError("your code here")
    stub.__name__ = name
    assert check(stub) is find_step(name).reference
    assert capsys.readouterr().out == f"{name}: not written yet; the chapter goes on with the reference.\n"


@pytest.mark.parametrize("name", sorted(WRONG))
def test_the_reference_passes_its_own_check(name):
    step = find_step(name)
    line, passed = judge(step, step.reference)
    assert passed and line == f"{name}: yours passes all {len(step.cases())} cases; the chapter goes on with yours."


@pytest.mark.parametrize("broken", [lambda *a: 1 / 0, lambda: None, lambda *a: object()])
def test_a_check_never_raises(broken, capsys):
    broken.__name__ = "choose_to_clear"
    assert check(broken) is find_step("choose_to_clear").reference
    assert "differs" in capsys.readouterr().out


def test_an_unknown_name_is_said_and_the_function_kept(capsys):
    def my_own_helper():
        return 1
    assert check(my_own_helper) is my_own_helper
    assert "no step of this course has that name" in capsys.readouterr().out


def module_from(tmp_path, name: str, source: str):
    """Functions defined in a real file, so that their source can be read back (as in a notebook cell)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_passing_function_is_kept_and_chapter_05_runs_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path / "yours"))
    written = module_from(tmp_path, "student", '''
        def replace_in_place(chosen):
            for block, name in chosen:
                block["content"] = "[Previous: used " + name + "]"
            return len(chosen)
        ''')
    assert check(written.replace_in_place) is written.replace_in_place
    assert (tmp_path / "yours" / "replace_in_place.py").exists()
    capsys.readouterr()
    loaded = yours_or_reference("replace_in_place")
    assert loaded is not find_step("replace_in_place").reference
    assert capsys.readouterr().out == "replace_in_place: yours, from chapter 02.\n"
    block = {"type": "tool_result", "tool_use_id": "t", "content": "x" * 200}
    assert loaded([(block, "bash")]) == 1 and block["content"] == "[Previous: used bash]"


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


def test_a_kept_composition_runs_the_kept_steps_it_calls(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    reference = find_step("my_micro_compact").reference
    (tmp_path / "my_micro_compact.py").write_text(
        "def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({'read_file'}), min_chars=100):\n"
        "    chosen = choose_to_clear(collect_tool_results(messages), tool_name_map(messages), keep_recent,"
        " preserve_tools, min_chars)\n    return replace_in_place(chosen)\n", encoding="utf-8")
    loaded = yours_or_reference("my_micro_compact")
    assert loaded is not reference
    history = copy.deepcopy(find_step("my_micro_compact").cases()[-1][1][0])
    assert loaded(copy.deepcopy(history)) == reference(copy.deepcopy(history))


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


@pytest.mark.parametrize("name", sorted(WRONG))
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
    def choose_to_clear(*args):
        return ReprRaises()
    assert check(choose_to_clear) is find_step("choose_to_clear").reference
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


@pytest.mark.parametrize("name", sorted(WRONG))
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
    from harness.labs import steps
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
    reference = find_step("replace_in_place").reference
    assert check(reference) is reference
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("replace_in_place: yours passes all ")
    assert out[1].startswith("replace_in_place: yours could not be kept for chapter 05 (FileExistsError: ")
    assert in_the_way.read_text(encoding="utf-8") == "a file where the folder should be"


COMPOSITION = ("def my_micro_compact(messages, keep_recent=3, preserve_tools=frozenset({'read_file'}),"
               " min_chars=100):\n"
               "    chosen = choose_to_clear(collect_tool_results(messages), tool_name_map(messages), keep_recent,"
               " preserve_tools, min_chars)\n    return replace_in_place(chosen)\n")


@pytest.mark.parametrize("kept", [
    "    def choose_to_clear(results, names, keep_recent, preserve_tools, min_chars=100):\n        return []\n",
    "raise SystemExit('a kept file that exits')\n",
    "def choose_to_clear(\n",
])
def test_a_kept_step_that_does_not_load_is_said_in_one_line_and_the_reference_used(tmp_path, monkeypatch, capsys, kept):
    """Chapter 05's setup cell loads the steps a composition calls: one that does not load must not stop it."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    (tmp_path / "choose_to_clear.py").write_text(kept, encoding="utf-8")
    (tmp_path / "my_micro_compact.py").write_text(COMPOSITION, encoding="utf-8")
    loaded = yours_or_reference("my_micro_compact")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("choose_to_clear: your kept version does not load (") and out[0].endswith(
        "); using the reference."), out
    assert out[1:] == ["my_micro_compact: yours, from chapter 02."]
    assert loaded.__globals__["choose_to_clear"] is find_step("choose_to_clear").reference


def test_a_kept_file_that_exits_is_said_not_raised(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    (tmp_path / "replace_in_place.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    assert yours_or_reference("replace_in_place") is find_step("replace_in_place").reference
    assert capsys.readouterr().out == ("replace_in_place: your kept version does not load (SystemExit: 3); "
                                       "using the reference.\n")


def test_a_function_written_inside_another_is_kept_so_that_it_loads(tmp_path, monkeypatch, capsys):
    """Its source is indented where it was written; kept as is, it would not load in chapter 05."""
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))

    def tool_name_map(messages):
        return find_step("tool_name_map").reference(messages)

    assert check(tool_name_map) is tool_name_map
    capsys.readouterr()
    assert yours_or_reference("tool_name_map", {"find_step": find_step}) is not find_step("tool_name_map").reference
    assert capsys.readouterr().out == "tool_name_map: yours, from chapter 02.\n"


def test_a_passing_function_whose_source_cannot_be_read_back_is_said_not_kept(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARNESS_YOURS", str(tmp_path))
    yours = functools.partial(find_step("replace_in_place").reference)
    assert check(yours) is yours
    assert capsys.readouterr().out.splitlines()[1] == (
        "replace_in_place: yours is not kept for chapter 05 (its source cannot be read back on its own).")
    assert not list(tmp_path.iterdir())


class Unsayable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@pytest.mark.parametrize("error, said", [(Unsayable(), "Unsayable: (its message raised)"),
                                         (ValueError("two\nlines"), "ValueError: two lines")])
def test_an_error_that_stops_the_check_is_said_on_one_line(error, said):
    class Hostile(dict):  # a dict where a dict is expected, so the comparison walks it and meets the error
        def get(self, key, default=None):
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
    def choose_to_clear(*args):
        return ClaimsToBe(claimed)
    assert check(choose_to_clear) is find_step("choose_to_clear").reference
    assert "yours gave ClaimsToBe()" in capsys.readouterr().out
    impostor = ClaimsToBe(claimed)
    assert check(impostor) is impostor
    assert capsys.readouterr().out == "ClaimsToBe() is not a function; nothing checked.\n"
