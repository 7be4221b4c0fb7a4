"""The chapter 03 lab (harness/labs/auto_lab.py): measuring sessions, the sawtooth slider, the order pitfall."""
from __future__ import annotations

import copy
import json

import pytest

from harness import CompactionConfig, assistant, auto_compact, micro_compact, tool_result, tool_use, user
from harness.labs.auto_lab import (SAWTOOTH_REQUESTS, THRESHOLD_RANGE, explore_threshold,
                                   logged_results, placeholder_results, run_with_threshold, sawtooth_figure,
                                   threshold_run)
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.labs.style import SAWTOOTH
from harness.session.log import SessionLog
from harness.session.records import read_log
from harness.strategies.three_layers import ThreeLayers

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated")

THRESHOLDS = list(range(THRESHOLD_RANGE[0], THRESHOLD_RANGE[1] + 1, THRESHOLD_RANGE[2]))


@pytest.fixture(scope="module")
def uncompressed(tmp_path_factory):
    """Context per call of the lab's requests with compaction off."""
    session = run_scenario(LONG_SESSION, CompactionConfig(micro=False, auto=False),
                           tmp_path_factory.mktemp("first20"), requests=SAWTOOTH_REQUESTS)
    return [t.estimated for t in session.trace]


@pytest.fixture(scope="module")
def slider(tmp_path_factory, uncompressed):
    """The slider callback's figure at every position of the slider (each runs the session once)."""
    root = tmp_path_factory.mktemp("slider")
    return {threshold: explore_threshold(threshold, uncompressed=uncompressed, root=root / str(threshold))
            for threshold in THRESHOLDS}


def drawn(figure):
    """(compressed context per call, calls where auto fired, title) read back from a sawtooth figure."""
    axes = figure.axes[0]
    compressed = list(axes.lines[1].get_ydata())
    fired = [line.get_xdata()[0] for line in axes.lines[3:]]
    return compressed, fired, axes.get_title()


# --- the slider callback over its whole range -----------------------------------

def test_the_slider_range_is_what_the_notebook_says():
    assert THRESHOLDS == [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000]
    assert SAWTOOTH_REQUESTS == LONG_SESSION.requests[:20]


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_explore_threshold_draws_a_labelled_fixed_size_figure(slider, uncompressed, threshold):
    figure = slider[threshold]
    assert tuple(figure.get_size_inches()) == SAWTOOTH and len(figure.axes) == 1
    axes = figure.axes[0]
    assert axes.get_xlabel() and axes.get_ylabel()
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels[:3] == ["uncompressed", "micro + auto", f"THRESHOLD = {threshold:,}"]
    assert list(axes.lines[0].get_ydata()) == uncompressed
    assert list(axes.lines[2].get_ydata()) == [threshold, threshold]


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_explore_threshold_never_sends_more_than_the_threshold(slider, threshold):
    compressed, fired, title = drawn(slider[threshold])
    assert max(compressed) <= threshold
    assert title.startswith(f"THRESHOLD {threshold:,}: auto-compactions {len(fired)}, agent calls {len(compressed)},")
    assert "input tokens billed (no caching) " in title  # a count of tokens, not a cached price
    for call in fired:  # each tooth: the call right after a compaction sees a near-empty history
        assert compressed[call - 1] < 2_000
        # it grew up to the line, or one turn of reads (twelve files at once, about 25,000 tokens) took it past
        assert call == 1 or compressed[call - 2] > threshold - 26_000


def test_lower_thresholds_compact_more_often(slider):
    teeth = [len(drawn(slider[threshold])[1]) for threshold in THRESHOLDS]
    assert teeth == sorted(teeth, reverse=True)
    assert teeth[0] >= 4 and teeth[THRESHOLDS.index(50_000)] == 1 and teeth[-1] == 0


def test_the_top_of_the_range_is_above_the_uncompressed_peak(slider, uncompressed):
    assert max(uncompressed) < THRESHOLD_RANGE[1]
    assert drawn(slider[THRESHOLD_RANGE[1]])[1] == []


# --- threshold_run and run_with_threshold -------------------------------------------

def test_threshold_run_reads_a_session(tmp_path):
    session = run_scenario(TWELVE_FILES, CompactionConfig(threshold=10_000, preserve_tools=frozenset({"read_file"})),
                           tmp_path)
    run = threshold_run(session)
    stats = session.stats
    assert run.threshold == 10_000
    assert len(run.context) == stats.model_calls == run.model_calls
    assert run.compactions == tuple(e.call for e in session.events if e.kind == "auto")
    assert len(run.compactions) == stats.summary_calls == run.summary_calls >= 1
    assert (run.re_reads, run.billed) == (stats.re_reads, stats.input_tokens_billed)
    assert run.peak == max(run.context) <= 10_000


def test_run_with_threshold_runs_only_the_requests_given(tmp_path):
    one = run_with_threshold(10_000, tmp_path, requests=SAWTOOTH_REQUESTS[:1])
    two = run_with_threshold(10_000, tmp_path, requests=SAWTOOTH_REQUESTS[:2])
    assert one.model_calls >= 3  # list, 12 reads in one turn, answer; more when a compaction hid a file
    assert len(one.compactions) >= 1 and one.peak <= 10_000
    assert two.model_calls > one.model_calls  # deterministic: the shorter run is a prefix of the longer
    assert two.context[: one.model_calls] == one.context and two.compactions[: len(one.compactions)] == one.compactions


def test_sawtooth_figure_uses_the_label_it_is_given(tmp_path):
    run = run_with_threshold(10_000, tmp_path, requests=SAWTOOTH_REQUESTS[:1])
    figure = sawtooth_figure(run, [1, 2, 3], "a title", uncompressed_label="baseline")
    axes = figure.axes[0]
    assert axes.get_title() == "a title"
    assert [t.get_text() for t in axes.get_legend().get_texts()][0] == "baseline"
    assert len(axes.lines) == 3 + len(run.compactions)


def test_each_compaction_is_drawn_as_the_history_it_replaced(tmp_path):
    session = run_scenario(LONG_SESSION, CompactionConfig(threshold=20_000), tmp_path, requests=SAWTOOTH_REQUESTS[:3])
    run = threshold_run(session)
    autos = [e for e in session.events if e.kind == "auto"]
    assert run.before == tuple(e.tokens_before for e in autos) and len(run.before) == len(run.compactions) >= 1
    assert all(before > run.threshold for before in run.before)  # it grew past the line, and was never sent
    [diamonds] = sawtooth_figure(run, [1, 2, 3], "t").axes[0].collections
    assert [tuple(point) for point in diamonds.get_offsets()] == list(zip(run.compactions, run.before))
    labels = [t.get_text() for t in sawtooth_figure(run, [1], "t").axes[0].get_legend().get_texts()]
    assert labels[-1] == "history compacted (never sent)"


# --- the student's auto_compact drives the runs ------------------------------------

class Recorder:
    """An auto_compact that delegates to the harness's and remembers each call's history size and focus."""

    def __init__(self):
        self.calls = []

    def __call__(self, client, messages, config, focus=None):
        self.calls.append((len(messages), focus))
        return auto_compact(client, messages, config, focus)


def head_compact(client, messages, config, focus=None):
    """A different auto_compact: it summarises the first 4,000 characters of the history, not the last."""
    def head_request(messages, config, focus):
        return {"model": config.model, "max_tokens": config.summary_max_tokens, "messages": [user(
            "Summarise the conversation below.\n\n<conversation>\n"
            + json.dumps(messages, ensure_ascii=False)[:4_000] + "\n</conversation>")]}
    return auto_compact(client, messages, config, focus, build=head_request)


def test_three_layers_summarising_with_the_harness_auto_compact_is_the_reference_agent(tmp_path):
    config = CompactionConfig(threshold=10_000)
    runs = []
    for compactor in (ThreeLayers(), ThreeLayers(summarise=None), ThreeLayers(summarise=Recorder())):
        session = run_scenario(TWELVE_FILES, config, tmp_path, compactor=compactor)  # same folder: same paths
        runs.append((session.trace, session.events, session.messages))
    assert runs[0] == runs[1] == runs[2]
    assert sum(e.kind == "auto" for e in runs[0][1]) >= 1


def test_run_with_threshold_summarises_with_the_function_given(tmp_path):
    recorder = Recorder()
    run = run_with_threshold(10_000, tmp_path, requests=SAWTOOTH_REQUESTS[:2], compact=recorder)
    assert len(recorder.calls) == len(run.compactions) == run.summary_calls >= 1
    assert run == run_with_threshold(10_000, tmp_path, requests=SAWTOOTH_REQUESTS[:2])
    head = run_with_threshold(10_000, tmp_path, requests=SAWTOOTH_REQUESTS[:2], compact=head_compact)
    assert head.context != run.context  # another summary, another session


def test_explore_threshold_draws_the_run_of_the_function_given(tmp_path, uncompressed):
    recorder = Recorder()
    figure = explore_threshold(30_000, uncompressed=uncompressed, root=tmp_path, requests=SAWTOOTH_REQUESTS[:6],
                               compact=recorder)
    assert len(recorder.calls) == len(drawn(figure)[1]) >= 1


def test_the_compact_tool_summarises_with_the_function_given_and_its_focus(tmp_path):
    recorder = Recorder()
    session = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path, compactor=ThreeLayers(summarise=recorder),
                           compact_policy="after_task")
    manual = [e for e in session.events if e.kind == "manual"]
    assert len(manual) == 1 and recorder.calls == [(manual[0].detail["messages_before"],
                                                    "the user's requests, decisions and notes")]


# --- the order pitfall --------------------------------------------------------------

def history_with_outputs():
    messages = [user("Look.")]
    for n, name in enumerate(["bash", "list_files", "bash", "read_file", "bash"]):
        messages.append(assistant([tool_use(f"t{n}", name, {"path": "."})]))
        messages.append(user([tool_result(f"t{n}", f"output {n} " + "x" * 200)]))
    return messages


def test_placeholder_results_names_each_cleared_result():
    messages = history_with_outputs()
    assert placeholder_results(messages) == []
    micro_compact(messages, keep_recent=2)
    assert placeholder_results(messages) == [("t0", "bash"), ("t1", "list_files"), ("t2", "bash")]


def test_the_log_keeps_what_micro_compaction_clears(tmp_path):
    messages = history_with_outputs()
    original = copy.deepcopy(messages)
    log = SessionLog(tmp_path / "session.jsonl")
    log.sync(messages)                    # the loop logs before any layer rewrites the history
    micro_compact(messages, keep_recent=0, preserve_tools=frozenset())
    full = logged_results(read_log(log.path).records)
    assert len(placeholder_results(messages)) == 4  # the fifth, not read yet, stays
    assert full == {b["tool_use_id"]: b["content"] for m in original if m["role"] == "user"
                    and isinstance(m["content"], list) for b in m["content"]}
    assert not any(content.startswith("[Previous: used") for content in full.values())


def test_logged_results_skips_compaction_records():
    records = [{"seq": 1, "kind": "message", "message": user([tool_result("a", "kept")])},
               {"seq": 2, "kind": "compaction", "message": user("[Conversation compressed. Transcript: t]")}]
    assert logged_results(records) == {"a": "kept"}
