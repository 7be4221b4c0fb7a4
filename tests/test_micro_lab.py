"""The chapter 02 lab (harness/labs/micro_lab.py): helpers, and the slider callback over its whole range."""
from __future__ import annotations

import copy
import functools
import itertools

import numpy as np
import pytest
from test_blit import pixels, png_of_full_draw

from harness import (CompactionConfig, InvalidHistory, assistant, estimate_tokens, iter_tool_results, micro_compact,
                     text, tool_result, tool_use, user)
from harness.labs.micro_lab import (KEEP_RECENT_RANGE, LAB_MAX_TURNS, PRESERVABLE_TOOLS, MicroKnobs,
                                    measure_micro, micro_figure, micro_layer, outline, preserve_set, price_micro,
                                    result_label, result_labels, result_tokens)
from harness.labs.cost import SESSION_PRICES
from harness.labs.runs import run_scenario
from harness.labs.scenarios import TWELVE_FILES
from harness.labs.style import BARS_AND_CURVE
from harness.labs.yours import random_histories
from harness.strategies.three_layers import ThreeLayers

FILES = [f"{stem}.py" for stem in (
    "s01_agent_loop", "s02_tool_use", "s03_todo_write", "s04_subagent", "s05_skill_loading",
    "s06_context_compact", "s07_task_system", "s08_background_tasks", "s09_agent_teams",
    "s10_team_protocols", "s11_autonomous_agents", "s12_worktree_isolation")]

TOGGLES = list(itertools.product((False, True), repeat=2))
# The s06 agent's count (the student's my_micro_compact in chapter 02): results, read or not. The harness's own
# micro_compact spares the results the model has not read yet.
S06 = functools.partial(micro_compact, spare_unread=False)
KEEP_RECENT_VALUES = range(KEEP_RECENT_RANGE[0], KEEP_RECENT_RANGE[1] + 1)


@pytest.fixture(scope="module")
def twelve(tmp_path_factory):
    """The 12-file task run with compaction off: its history and its per-call context."""
    session = run_scenario(TWELVE_FILES, CompactionConfig(micro=False, auto=False),
                           tmp_path_factory.mktemp("twelve"))
    return session.messages, [t.input_tokens for t in session.trace]


def small_history():
    return [
        user("Look around."),
        assistant([text("Listing first."), tool_use("t1", "list_files", {"path": "src"})]),
        user([tool_result("t1", "src/a.py\nsrc/b.py")]),
        assistant([tool_use("t2", "read_file", {"path": "src/a.py"}), tool_use("t3", "bash", {"command": "ls"})]),
        user([tool_result("t2", "x" * 400), tool_result("t3", "[Previous: used bash]")]),
        assistant("Done."),
    ]


# --- small helpers ------------------------------------------------------------

@pytest.mark.parametrize("read_file, list_files", TOGGLES)
def test_preserve_set_has_exactly_the_ticked_tools(read_file, list_files):
    chosen = preserve_set(read_file, list_files)
    assert chosen == {name for name, on in zip(PRESERVABLE_TOOLS, (read_file, list_files)) if on}
    assert isinstance(chosen, frozenset)


def test_result_label_names_files_by_basename_and_other_tools_by_name_and_path():
    assert result_label("read_file", {"path": "agents/s01_agent_loop.py"}) == "s01_agent_loop.py"
    assert result_label("list_files", {"path": "agents"}) == "list_files agents"
    assert result_label("bash", {"command": "ls"}) == "bash"


def test_labels_and_tokens_follow_the_tool_results_in_order():
    history = small_history()
    assert result_labels(history) == ["list_files src", "a.py", "bash"]
    assert result_tokens(history) == [len("src/a.py\nsrc/b.py") // 4, 100, len("[Previous: used bash]") // 4]


def test_labels_say_unknown_for_a_result_without_its_tool_use():
    orphan = [user([tool_result("nowhere", "text")])]
    assert result_labels(orphan) == ["unknown"]


def test_outline_has_one_line_per_block_and_abbreviates_long_results():
    lines = outline(small_history())
    assert len(lines) == 9 and all("\n" not in line for line in lines)
    assert lines[0] == "[ 0] user      text        Look around."
    assert lines[2] == "[ 1] assistant tool_use    list_files(path='src')"
    assert lines[3] == "[ 2] user      tool_result <17 characters>"  # multi-line content is never printed
    assert lines[5] == "[ 3] assistant tool_use    bash(command='ls')"
    assert lines[6] == "[ 4] user      tool_result <400 characters>"
    assert lines[7] == "[ 4] user      tool_result [Previous: used bash]"
    assert lines[8] == "[ 5] assistant text        Done."


def test_outline_cuts_long_first_lines_of_text():
    line = outline([user("word " * 40)], width=20)[0]
    assert line.endswith("...") and len(line.split("text", 1)[1].strip()) == 20


# --- micro_layer: a function that returns a count, or nothing, as a layer -----------

def count_only(messages, keep_recent, preserve_tools, min_chars):
    """A student's micro_compact: edits in place and returns how many results it cleared."""
    return len(micro_compact(messages, keep_recent, preserve_tools, min_chars).cleared)


def silent(messages, keep_recent, preserve_tools, min_chars):
    """... or returns nothing at all."""
    micro_compact(messages, keep_recent, preserve_tools, min_chars)


@pytest.mark.parametrize("clear", [micro_compact, count_only, silent])
def test_micro_layer_reports_exactly_what_micro_compact_reports(clear):
    for i, history in enumerate(random_histories(80, seed=5)):
        keep_recent, preserve = i % 4, (frozenset(), frozenset({"read_file"}))[i % 2]
        expected, got = copy.deepcopy(history), copy.deepcopy(history)
        report = micro_compact(expected, keep_recent, preserve, 100)
        assert micro_layer(clear)(got, keep_recent, preserve, 100) == report
        assert got == expected


def test_micro_layer_names_the_tool_and_both_contents_of_a_cleared_result():
    history = small_history()
    report = micro_layer(silent)(history, 1, frozenset(), 0)
    assert [(c.message_index, c.block_index, c.tool_use_id, c.tool_name) for c in report.cleared] == [
        (2, 0, "t1", "list_files"), (4, 0, "t2", "read_file")]  # t3 holds its placeholder already
    assert report.cleared[1].old_content == "x" * 400
    assert report.cleared[1].new_content == "[Previous: used read_file]" == history[4]["content"][0]["content"]


def test_micro_layer_sees_a_list_content_changed_in_place():
    history = [user("go"), assistant([tool_use("t1", "bash", {})]), user([tool_result("t1", "ok")])]
    history[2]["content"][0]["content"] = [text("a long listing")]

    def shorten(messages, *knobs):
        messages[2]["content"][0]["content"][0]["text"] = "short"

    report = micro_layer(shorten)(history, 0, frozenset(), 0)
    assert [(c.old_content, c.new_content) for c in report.cleared] == [
        ([text("a long listing")], [text("short")])]


def test_micro_layer_refuses_a_function_that_moves_tool_results():
    def drop_last_two(messages, *knobs):
        del messages[-2:]

    with pytest.raises(ValueError, match="drop_last_two added, removed or moved tool results"):
        micro_layer(drop_last_two)(small_history(), 3, frozenset(), 100)


def test_micro_layer_checks_the_history_before_calling_the_function():
    called = []
    with pytest.raises(InvalidHistory):
        micro_layer(lambda *args: called.append(args))([{"role": "user"}], 3, frozenset(), 100)
    assert called == []


def test_three_layers_runs_the_micro_layer_it_is_given_before_each_call(tmp_path):
    calls = []

    def spy(messages, keep_recent, preserve_tools, min_chars):
        calls.append((len(messages), keep_recent, preserve_tools, min_chars))
        return micro_compact(messages, keep_recent, preserve_tools, min_chars)

    session = run_scenario(TWELVE_FILES, CompactionConfig(keep_recent=2, auto=False), tmp_path,
                           compactor=ThreeLayers(micro=spy))
    assert [n for n, *_ in calls] == list(range(1, 2 * len(calls), 2))  # before every call: 1, 3, 5, ... messages
    assert len(calls) == session.stats.model_calls == 3  # list, twelve reads in one turn, the answer
    assert {tuple(knobs) for _, *knobs in calls} == {(2, frozenset({"read_file"}), 100)}


# --- measure_micro -------------------------------------------------------------

def test_micro_lab_does_not_touch_the_history_it_is_given(twelve, tmp_path):
    history, _ = twelve
    before = copy.deepcopy(history)
    measure_micro(history, 3, frozenset(), tmp_path)
    assert history == before


def test_micro_lab_matches_micro_compact_on_a_copy(twelve, tmp_path):
    history, _ = twelve
    lab = measure_micro(history, 3, frozenset(), tmp_path)
    copied = copy.deepcopy(history)
    report = micro_compact(copied, 3, frozenset())
    assert (lab.tokens_before, lab.tokens_after, lab.cleared) == (
        estimate_tokens(history), estimate_tokens(copied), len(report.cleared))
    assert lab.labels == ("list_files agents", *FILES)
    assert lab.after == tuple(result_tokens(copied))
    assert lab.saved_percent == pytest.approx(100 * (1 - estimate_tokens(copied) / estimate_tokens(history)))


def test_measure_micro_runs_the_function_it_is_given_in_both_halves(twelve, tmp_path):
    """A function that ignores preserve_tools behaves, statically and in the loop, like preserving nothing."""
    history, baseline = twelve

    def ignores_preserve(messages, keep_recent, preserve_tools, min_chars):
        return count_only(messages, keep_recent, frozenset(), min_chars)

    theirs = measure_micro(history, 3, frozenset(), tmp_path)
    yours = measure_micro(history, 3, frozenset({"read_file"}), tmp_path, clear=ignores_preserve)
    assert (yours.after, yours.cleared, yours.context) == (theirs.after, theirs.cleared, theirs.context)
    nothing = measure_micro(history, 3, frozenset(), tmp_path, clear=lambda *args: None)
    assert nothing.after == nothing.before and nothing.cleared == 0 and list(nothing.context) == baseline


def expected_calls(keep_recent: int, preserve: frozenset[str]) -> int:
    """The loop's calls with parallel calls (this fake's rule) and the s06 count (``S06``): a listing, then the
    twelve reads in one turn. Micro keeps the newest ``keep_recent`` *results*, not turns: read_file not preserved, all but the newest
    ``keep_recent`` of each turn's reads are cleared before the model reads them, so it reads those again, turn
    after turn: ceil(12 / keep_recent) turns of reads. At 0, with read_file or list_files cleared, a death spiral."""
    if keep_recent == 0 and preserve != {"read_file", "list_files"}:
        return LAB_MAX_TURNS
    return 3 if "read_file" in preserve else 2 + -(-12 // keep_recent)


def expected_cleared(keep_recent: int, preserve: frozenset[str]) -> int:
    """Results 0..12 are list_files then 12 read_file; the oldest 13 - keep_recent are candidates."""
    tools = ["list_files"] + ["read_file"] * 12
    return sum(1 for name in tools[: max(0, 13 - keep_recent)] if name not in preserve)


@pytest.mark.parametrize("keep_recent", [0, 1, 3, 13])
def test_micro_lab_numbers_at_the_ends_and_the_default(twelve, tmp_path, keep_recent):
    history, _ = twelve
    for read_file, list_files in TOGGLES:
        preserve = preserve_set(read_file, list_files)
        lab = measure_micro(history, keep_recent, preserve, tmp_path, clear=S06)
        assert lab.cleared == expected_cleared(keep_recent, preserve)
        spiral = keep_recent == 0 and preserve != {"read_file", "list_files"}
        assert lab.hit_max_turns == spiral
        assert lab.model_calls == expected_calls(keep_recent, preserve)
        assert len(lab.context) == lab.model_calls


@pytest.mark.parametrize("keep_recent", [0, 1, 3, 13])
def test_the_harness_micro_compact_never_costs_the_task_a_call(twelve, tmp_path, keep_recent):
    """The harness's guard: whatever keep_recent and the preserve set, no read is cleared before the model reads
    it, so the task takes its three calls, and the finished history is cleared as the s06 count clears it."""
    history, baseline = twelve
    for read_file, list_files in TOGGLES:
        preserve = preserve_set(read_file, list_files)
        lab = measure_micro(history, keep_recent, preserve, tmp_path)
        assert (lab.model_calls, lab.re_reads, lab.hit_max_turns) == (len(baseline), 0, False) == (3, 0, False)
        assert lab.cleared == expected_cleared(keep_recent, preserve)


# --- the slider callback over its whole range -----------------------------------

@pytest.fixture(scope="module")
def knobs(twelve, tmp_path_factory):
    """One callback for every position, as in the chapter (the student's s06 count): each draws on the picture the
    last one left."""
    history, baseline = twelve
    return MicroKnobs(history, baseline, tmp_path_factory.mktemp("knobs"), clear=S06)


@pytest.mark.parametrize("read_file, list_files", TOGGLES)
@pytest.mark.parametrize("keep_recent", KEEP_RECENT_VALUES)
def test_the_slider_callback_over_its_whole_range(twelve, knobs, keep_recent, read_file, list_files):
    history, baseline = twelve
    figure = knobs(keep_recent, read_file, list_files).figure
    assert tuple(figure.get_size_inches()) == BARS_AND_CURVE
    bars, curves = figure.axes
    for axes in (bars, curves):
        assert axes.get_xlabel() and axes.get_ylabel() and axes.get_legend() is not None

    preserve = preserve_set(read_file, list_files)
    compacted = copy.deepcopy(history)
    S06(compacted, keep_recent, preserve)
    after = estimate_tokens(compacted)
    assert f"keep_recent={keep_recent}," in bars.get_title()
    assert f"{estimate_tokens(history):,} -> {after:,} tokens" in bars.get_title()
    cleared = sum(1 for patch in bars.patches[13:] if patch.get_height() < 10)
    assert cleared == expected_cleared(keep_recent, preserve)

    spiral = keep_recent == 0 and preserve != {"read_file", "list_files"}
    calls = expected_calls(keep_recent, preserve)
    assert curves.get_title().startswith(f"the loop: {calls} calls,")
    assert ("death spiral" in curves.get_title()) == spiral
    setting, no_micro = curves.lines
    assert list(no_micro.get_ydata()) == baseline
    assert len(setting.get_ydata()) == calls
    assert len(setting.get_ydata()) < curves.get_xlim()[1] and max(setting.get_ydata()) < curves.get_ylim()[1]
    if not spiral:  # the same task: smaller at its peak exactly when something was cleared
        assert (max(setting.get_ydata()) < max(baseline)) == (expected_cleared(keep_recent, preserve) > 0)


def test_the_slider_picture_is_what_a_full_drawing_of_it_shows(twelve, tmp_path):
    """Only the moving parts are redrawn for a new setting; nothing that changes is left out of them."""
    history, baseline = twelve
    knobs = MicroKnobs(history, baseline, tmp_path, clear=S06)
    for position in ((3, True, False), (0, False, False), (13, True, True)):
        drawing = knobs(*position)
        assert np.array_equal(pixels(drawing.png()), pixels(png_of_full_draw(drawing.figure, drawing)))


def test_the_slider_callback_draws_the_function_it_is_given(twelve, tmp_path):
    history, baseline = twelve
    figure = MicroKnobs(history, baseline, tmp_path, clear=lambda *args: None)(3, False, False).figure
    bars, curves = figure.axes
    assert "(0% saved)" in bars.get_title() and list(curves.lines[0].get_ydata()) == baseline


def test_micro_figure_draws_what_the_lab_measured(twelve, tmp_path):
    history, baseline = twelve
    lab = measure_micro(history, 2, frozenset(), tmp_path)
    figure = micro_figure(lab, baseline)
    bars = figure.axes[0]
    assert [p.get_height() for p in bars.patches] == [*lab.before, *lab.after]
    assert "78% saved" in bars.get_title() and "preserve nothing" in bars.get_title()


def test_fewer_results_than_keep_recent_clears_nothing(twelve):
    """Early in a task there are fewer results than keep_recent: none may be cleared.

    (A negative slice end once cleared the oldest ones; the slider range test found it.)
    """
    history, _ = twelve
    for n in range(1, len(history) + 1):
        prefix = copy.deepcopy(history[:n])
        results = len(iter_tool_results(prefix))  # results, not messages: twelve arrive in one
        for keep_recent in range(results, results + 3):
            assert micro_compact(prefix, keep_recent, frozenset(), 0).cleared == []


def test_price_micro_bills_the_same_input_as_the_loop_and_costs_more_when_it_clears_unread_results(twelve, tmp_path):
    """With parallel calls the task is three calls: no prefix is read from the cache (the one long enough to be
    cached is written on the last call). The s06 count keeping 3 results clears nine reads the model has not seen
    yet, so it reads them again: six calls, and more input billed than with no micro at all, cached or not."""
    _, baseline = twelve
    (plain_cached, plain_uncached), (micro_cached, micro_uncached) = (
        price_micro(tmp_path / "plain", SESSION_PRICES, None),
        price_micro(tmp_path / "micro", SESSION_PRICES, S06, 3, frozenset()))
    assert [c.input for c in plain_cached.calls] == [c.input for c in plain_uncached.calls] == baseline
    assert plain_uncached.total("cache_read") == plain_uncached.total("cache_write") == 0
    assert plain_cached.total("cache_read") == micro_cached.total("cache_read") == 0 < plain_cached.total("cache_write")
    assert (len(plain_cached.calls), len(micro_cached.calls)) == (3, 6)
    assert micro_uncached.total("input") > plain_uncached.total("input")
    assert micro_uncached.dollars > plain_uncached.dollars and micro_cached.dollars > plain_cached.dollars
    lab = measure_micro(twelve[0], 3, frozenset(), tmp_path / "lab", clear=S06)
    assert [c.input for c in micro_cached.calls] == list(lab.context)


def test_price_micro_one_call_a_turn_shows_what_clearing_does_to_the_cache(tmp_path):
    """Chapter 02's cost table: one tool call per turn, 14 calls. Micro cuts the uncached bill, and with caching no
    prefix is read again after it clears (each call rewrites the result that just left the newest three)."""
    (plain_cached, plain_uncached), (micro_cached, micro_uncached) = (
        price_micro(tmp_path / "plain", SESSION_PRICES, None, one_call=True),
        price_micro(tmp_path / "micro", SESSION_PRICES, micro_compact, 3, frozenset(), one_call=True))
    assert len(plain_cached.calls) == len(micro_cached.calls) == 14
    assert micro_cached.total("cache_read") == 0 < plain_cached.total("cache_read")
    assert micro_uncached.dollars < plain_uncached.dollars and micro_cached.dollars > plain_cached.dollars


def test_sparing_the_last_message_makes_clearing_unread_results_impossible(twelve, tmp_path):
    """The fix chapter 02 teaches (its reference micro_compact_seen_only): the results of the last message, which the
    model has not seen, are never cleared, so at any keep_recent the task runs as without micro. The s06 count has
    no such guard: with the twelve reads just answered it clears nine of them; the harness's micro_compact, none."""
    from harness.labs.solutions.ch02 import micro_compact_seen_only
    history, baseline = twelve
    for keep_recent in (0, 1, 3):
        lab = measure_micro(history, keep_recent, frozenset(), tmp_path, clear=micro_compact_seen_only)
        assert (lab.model_calls, lab.re_reads, lab.hit_max_turns) == (len(baseline), 0, False)
    just_answered = copy.deepcopy(history[:5])  # ends with the user message of twelve results
    unread = [c for c in S06(just_answered, 3, frozenset()).cleared if c.message_index == 4]
    assert len(unread) == 9
    guarded = copy.deepcopy(history[:5])
    assert [c.message_index for c in micro_compact(guarded, 3, frozenset()).cleared] == [2]  # only the listing
    spared = copy.deepcopy(history[:5])
    assert micro_compact_seen_only(spared, 3, frozenset()) == 1 and spared[4] == history[4]  # only the listing
