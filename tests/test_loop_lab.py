"""Labs of chapters 04 and 05 (harness/labs/loop_lab.py): the memory picture, layer markers,
cached runs of the long session and what they cost, and both slider callbacks over their whole range."""
from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from harness import (CompactionConfig, assistant, count_tokens, run_agent, text, tool_result, tool_use, user,
                     validate_messages, write_transcript)
from harness.fake import fake_client
from harness.labs.cost import SESSION_PRICES
from harness.labs.loop_lab import (MEMORY_NAMES, agent_limit, compact_tool_lab, compact_tool_runs,
                                   context_tokens, layer_markers, manual_only_run, memory_of, memory_picture,
                                   memory_recorder, memory_table, run_cost, three_layer_run, three_layer_runs,
                                   three_layers_lab, uncompressed_run)
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES

SYSTEM = "You are a test agent."
TOOLS = [{"name": "bash", "description": "Run a program.", "input_schema": {"type": "object", "properties": {}}}]
ALL_REQUESTS = len(LONG_SESSION.requests)
SWEEP_REQUESTS = 6  # requests per run when a sweep moves another slider: enough to read a folder and edit
KEEP_RECENTS, THRESHOLDS = (1, 3, 10), (10_000, 30_000, 50_000, 120_000)  # chapter 05's sliders
LIMITS = range(0, 60_001, 5_000)  # chapter 04's limit slider


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """One folder for every cached run of this module, so runs are shared between tests."""
    return tmp_path_factory.mktemp("loop_lab")


def parts(picture):
    return {p.name: p for p in picture}


def history():
    """A request, three tool rounds (one full result, one placeholder, one short), a reply."""
    return [
        user("Read a.py, then run two commands."),
        assistant([text("Reading."), tool_use("t1", "read_file", {"path": "a.py"})]),
        user([tool_result("t1", "def a():\n    return 1\n" * 30)]),
        assistant([tool_use("t2", "bash", {"command": "wc -l a.py"})]),
        user([tool_result("t2", "[Previous: used bash]")]),
        assistant([tool_use("t3", "bash", {"command": "echo hi"})]),
        user([tool_result("t3", "hi")]),
        assistant([text("Done.")]),
    ]


# --- the memory picture ---------------------------------------------------------

def test_memory_picture_sorts_every_block_and_adds_up_to_count_tokens():
    h = history()
    picture = memory_picture(h, keep_recent=1, system=SYSTEM, tools=TOOLS)
    p = parts(picture)
    assert [x.name for x in picture] == list(MEMORY_NAMES)
    assert (p["working"].items, p["short-term"].items, p["kept in full"].items) == (1, 1, 1)
    assert p["long-term: summary"].items == 0 and p["long-term: transcripts"].items == 0
    assert p["conversation"].items == 6  # the request, two replies and the three tool calls
    assert p["framing"].items == len(h)
    assert context_tokens(picture) == count_tokens(h, system=SYSTEM, tools=TOOLS)
    assert p["long-term: transcripts"].where == "disk"
    assert all(x.where == "context" for x in picture if x.name != "long-term: transcripts")


@pytest.mark.parametrize("keep_recent, working, kept, short", [
    (0, 0, 2, 1), (1, 1, 1, 1), (2, 2, 1, 0), (3, 3, 0, 0), (10, 3, 0, 0)])
def test_working_memory_is_the_newest_keep_recent_results(keep_recent, working, kept, short):
    p = parts(memory_picture(history(), keep_recent=keep_recent))
    assert (p["working"].items, p["kept in full"].items, p["short-term"].items) == (working, kept, short)
    assert context_tokens(list(p.values())) == count_tokens(history())


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3"])
def test_memory_picture_refuses_a_bad_keep_recent(bad):
    with pytest.raises(ValueError):
        memory_picture(history(), keep_recent=bad)


def test_summary_and_transcripts_are_long_term_memory(tmp_path):
    folder = tmp_path / "transcripts"
    write_transcript(history(), folder)
    write_transcript(history()[:3], folder)
    compressed = [user("[Conversation compressed. Transcript: t.jsonl]\n\n1. What was accomplished: ..."),
                  user("Next request.")]
    p = parts(memory_picture(compressed, keep_recent=3, transcript_dir=folder))
    assert p["long-term: summary"].items == 1 and p["conversation"].items == 1
    assert p["long-term: transcripts"].items == 2
    assert p["long-term: transcripts"].tokens == count_tokens(history()) + count_tokens(history()[:3])
    assert parts(memory_picture(compressed, keep_recent=3, transcript_dir=tmp_path / "none"))[
        "long-term: transcripts"].items == 0


def test_memory_table_has_a_line_per_part_and_a_column_per_run():
    picture = memory_picture(history(), keep_recent=1)
    lines = memory_table({"one": picture, "two": picture}).splitlines()
    assert len(lines) == 1 + len(MEMORY_NAMES)
    assert "one" in lines[0] and "two" in lines[0]
    assert lines[1].split()[0] == "working" and lines[1].count("items") == 2


def test_the_recorder_pictures_every_agent_request_as_the_api_counted_it(tmp_path):
    config = CompactionConfig(threshold=10_000)
    recorder = memory_recorder(fake_client(compact_policy="after_task"), config.keep_recent, tmp_path / "transcripts")
    session = run_scenario(TWELVE_FILES, config, tmp_path, client=recorder)
    agent = [t for t in session.trace if t.kind == "agent"]
    assert session.stats.summary_calls >= 2, "summary calls happened, and are not pictured"
    assert [context_tokens(p) for p in recorder.records] == [t.input_tokens for t in agent]
    on_disk = [parts(p)["long-term: transcripts"].items for p in recorder.records]
    assert on_disk == sorted(on_disk) and on_disk[-1] == session.stats.compactions["auto"]
    assert context_tokens(memory_of(session)) == count_tokens(session.messages, system=session.system,
                                                              tools=session.toolbox.schemas)


# --- markers and cached runs ------------------------------------------------------

def test_layer_markers_sit_on_the_curve_where_each_layer_fired(tmp_path):
    session = run_scenario(TWELVE_FILES, CompactionConfig(threshold=10_000), tmp_path, compact_policy="after_task")
    markers = layer_markers(session)
    context = {t.call: t.input_tokens for t in session.trace if t.kind == "agent"}
    assert [m.layer for m in markers] == [e.kind for e in session.events]
    assert {"micro", "auto", "manual"} == {m.layer for m in markers}
    assert all(m.tokens == context[m.call] for m in markers)
    manual = [m for m in markers if m.layer == "manual"]
    assert manual[-1].call == max(context), "manual fires after the last agent call"


def test_agent_limit_is_97_percent_of_the_threshold():
    assert agent_limit(50_000) == 48_500
    assert agent_limit(10_000) == 9_700 and agent_limit(120_000) == 116_400


def test_runs_are_cached_by_their_knobs(root):
    first = three_layer_run(3, 50_000, 2, root)
    assert three_layer_run(3, 50_000, 2, str(root)) is first, "a str root and a Path root share the cache"
    assert three_layer_run(4, 50_000, 2, root) is not first
    assert uncompressed_run(2, root) is uncompressed_run(2, root)
    assert (root / "k3-t50000-r2" / "session.jsonl").exists(), "each run keeps its session log"
    assert first.log.fsync is False, "a lab run's log is not flushed to the disk each round"


def test_a_log_written_without_fsync_is_the_same_log(tmp_path):
    logs = []
    for fsync in (True, False):
        run_scenario(TWELVE_FILES, CompactionConfig(threshold=10_000), tmp_path, log=True, fsync=fsync,
                     compact_policy="after_task", requests=TWELVE_FILES.requests[:4])
        logs.append((tmp_path / "session.jsonl").read_bytes())
    assert logs[0] == logs[1] and logs[0].count(b'"kind": "compaction"') >= 1


def counting(calls):
    """A loop that is the harness's, and counts the requests it runs (the student's stands in its place)."""
    def my_loop(*args, **kwargs):
        calls.append(kwargs["first_call"])
        return run_agent(*args, **kwargs)
    return my_loop


def test_runs_and_labs_use_the_loop_they_are_given(root, tmp_path):
    calls = []
    mine = counting(calls)
    run = three_layer_run(3, 50_000, 3, tmp_path, loop=mine)
    assert len(calls) == 3, "one loop run per request"
    assert three_layer_run(3, 50_000, 3, tmp_path, loop=mine) is run and len(calls) == 3, "cached per loop"
    harness_run = three_layer_run(3, 50_000, 3, root)
    assert run.stats == harness_run.stats and run.answers == harness_run.answers
    calls.clear()
    runs = three_layer_runs((3, 4), (50_000,), 3, tmp_path, loop=mine)
    assert runs[3, 50_000] is run and len(calls) == 3, "the cached run, and one new run of the loop given"
    calls.clear()
    assert list(compact_tool_runs((30_000,), 2, tmp_path, loop=mine)) == [30_000] and len(calls) == 2


def test_the_slider_callbacks_only_cut_runs_made_before(tmp_path):
    calls = []
    mine = counting(calls)
    layers, compact = three_layer_runs((3,), (50_000,), 3, tmp_path, loop=mine), compact_tool_runs((0,), 3, tmp_path,
                                                                                                    loop=mine)
    plain = uncompressed_run(3, tmp_path, loop=mine)
    calls.clear()
    for requests in (1, 2, 3):
        three_layers_lab(3, 50_000, requests, runs=layers, uncompressed=plain)
        compact_tool_lab(0, requests, runs=compact, uncompressed=plain)
    assert calls == [], "no loop ran"
    with pytest.raises(KeyError):
        three_layers_lab(4, 50_000, 1, runs=layers, uncompressed=plain)
    with pytest.raises(ValueError):
        compact_tool_lab(0, 4, runs=compact, uncompressed=plain)


def test_a_run_folder_belongs_to_one_loop(tmp_path):
    uncompressed_run(1, tmp_path, loop=counting([]))
    uncompressed_run(1, tmp_path, loop=counting([]))  # the same name: a loop redefined may take the folder
    with pytest.raises(ValueError, match="give each loop a root of its own"):
        uncompressed_run(1, tmp_path)


@pytest.mark.parametrize("requests", [0, ALL_REQUESTS + 1, True, "3"])
def test_runs_refuse_a_bad_number_of_requests(root, requests):
    with pytest.raises(ValueError):
        three_layer_run(3, 50_000, requests, root)
    with pytest.raises(ValueError):
        uncompressed_run(requests, root)


@pytest.mark.parametrize("limit", [-1, True, 2.5])
def test_manual_only_run_refuses_a_bad_limit(root, limit):
    with pytest.raises(ValueError):
        manual_only_run(limit, 2, root)


# --- the slider callbacks over their whole range ---------------------------------

def check_layers_figure(fig, compressed, limit):
    """The figure of a lab: both curves, the limit, and one scatter point per layer event."""
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert labels[:2] == ["no compaction", "with compaction"]
    assert [line.get_ydata()[0] for line in ax.get_lines()][2:] == [limit], "the limit is the dashed line"
    points = sum(len(c.get_offsets()) for c in ax.collections)
    assert points == len(layer_markers(compressed))
    assert ax.get_xlabel() and ax.get_ylabel()


def check_history_and_peak(compressed, uncompressed):
    """A whole run's history is valid; a run or its first requests peak no higher than no compaction."""
    if hasattr(compressed, "messages"):
        validate_messages(compressed.messages + [user("And now?")])
    assert compressed.stats.peak_context <= uncompressed.stats.peak_context
    assert "max_turns" not in compressed.stats.compactions


@pytest.fixture(scope="module")
def sweep_runs(root):
    """Chapter 05's slider runs, on the first SWEEP_REQUESTS requests, and the uncompressed run."""
    return three_layer_runs(KEEP_RECENTS, THRESHOLDS, SWEEP_REQUESTS, root), uncompressed_run(SWEEP_REQUESTS, root)


@pytest.mark.parametrize("keep_recent, threshold", [(k, t) for k in KEEP_RECENTS for t in THRESHOLDS])
@pytest.mark.parametrize("requests", [1, SWEEP_REQUESTS // 2, SWEEP_REQUESTS])
def test_three_layers_lab(sweep_runs, keep_recent, threshold, requests):
    runs, plain = sweep_runs
    fig = three_layers_lab(keep_recent, threshold, requests, runs=runs, uncompressed=plain)
    compressed = runs[keep_recent, threshold].first(requests)
    check_layers_figure(fig, compressed, threshold)
    check_history_and_peak(compressed, plain.first(requests))
    check_history_and_peak(runs[keep_recent, threshold], plain)
    assert f"KEEP_RECENT={keep_recent}, THRESHOLD={threshold:,}, first {requests} requests" in fig.axes[0].get_title()
    assert all(e.tokens_before > threshold for e in compressed.events if e.kind == "auto")
    assert all(m.tokens > agent_limit(threshold) for m in layer_markers(compressed) if m.layer == "manual")
    assert len(compressed.answers) == requests


def test_three_layers_lab_at_its_starting_position_has_all_three_layers(root):
    compressed = three_layer_run(3, 50_000, ALL_REQUESTS, root)
    assert set(compressed.stats.compactions) == {"micro", "auto", "manual"}
    assert compressed.stats.peak_context < 50_000 < uncompressed_run(ALL_REQUESTS, root).stats.peak_context


@pytest.fixture(scope="module")
def compact_runs(root):
    """Chapter 04's slider runs, on the first SWEEP_REQUESTS requests, and the uncompressed run."""
    return compact_tool_runs(LIMITS, SWEEP_REQUESTS, root), uncompressed_run(SWEEP_REQUESTS, root)


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("requests", [1, SWEEP_REQUESTS // 2, SWEEP_REQUESTS])
def test_compact_tool_lab(compact_runs, limit, requests):
    runs, plain = compact_runs
    fig = compact_tool_lab(limit, requests, runs=runs, uncompressed=plain)
    compressed = runs[limit].first(requests)
    check_layers_figure(fig, compressed, limit)
    check_history_and_peak(compressed, plain.first(requests))
    check_history_and_peak(runs[limit], plain)
    markers = layer_markers(compressed)
    assert {m.layer for m in markers} <= {"manual"}, "micro and auto are off"
    assert all(m.tokens > limit for m in markers), "the agent compacts only above its limit"
    assert f"above {limit:,} tokens, first {requests} requests" in fig.axes[0].get_title()


def test_with_limit_zero_every_request_ends_in_a_compaction(root):
    for requests in (1, SWEEP_REQUESTS):
        assert manual_only_run(0, requests, root).stats.compactions == {"manual": requests}


def test_the_first_requests_of_a_session_are_a_session_of_only_those_requests(tmp_path):
    """Session.first(n) cuts a finished run after its n-th request: nothing looks ahead, so it is what
    a run of only n requests does, call for call (chapter 05's requests slider relies on it). Every run uses
    one folder: a transcript's path is in the history, so its tokens are in the count."""
    config = CompactionConfig(keep_recent=2, threshold=12_000)
    whole = run_scenario(LONG_SESSION, config, tmp_path, requests=LONG_SESSION.requests[:9])
    for n in (1, 4, 9):
        alone = run_scenario(LONG_SESSION, config, tmp_path, requests=LONG_SESSION.requests[:n])
        part = whole.first(n)
        assert (part.trace, part.tool_calls, part.answers) == (alone.trace, alone.tool_calls, alone.answers)
        where = [[(e.kind, e.call, e.tokens_before, e.tokens_after) for e in run.events] for run in (part, alone)]
        assert where[0] == where[1]  # the events' details name their own run's transcript folder
        assert part.stats == alone.stats
    assert whole.first(9).stats == whole.stats and "auto" in whole.stats.compactions


@pytest.mark.parametrize("bad", [0, 10, True, 2.0])
def test_first_refuses_a_request_count_the_session_did_not_run(tmp_path, bad):
    session = run_scenario(LONG_SESSION, CompactionConfig(), tmp_path, requests=LONG_SESSION.requests[:9])
    with pytest.raises(ValueError, match="between 1 and 9"):
        session.first(bad)


# --- what a cached run cost -------------------------------------------------------

def test_a_cached_runs_cost_prices_every_call_and_caching_only_lowers_it(root):
    session = three_layer_run(3, 10_000, SWEEP_REQUESTS, root)
    plain, cached = run_cost(session, caching=False), run_cost(session, caching=True)
    assert len(plain.calls) == len(session.trace) and plain.prices == SESSION_PRICES
    assert plain.total("uncached") == session.stats.input_tokens_billed and plain.total("cache_read") == 0
    assert cached.total("cache_read") > 0 and cached.dollars < plain.dollars
