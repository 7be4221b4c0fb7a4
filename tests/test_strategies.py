"""The strategy registry (chapter 08): every strategy leaves a valid history, on generated and real runs;
the nine-section summary, the control and the API's clearing behave as their knobs say."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from test_blit import pixels, png_of_full_draw
from hypothesis import given, settings
from histories import valid_histories

from harness import (SUMMARY_PROMPT, CompactionConfig, RunContext, assistant, build_summary_request,
                     tool_result, tool_use, user, validate_messages)
from harness.fake import fake_client
from harness.fake.summarizer import summarise_text
from harness.fake.view import build_view
from harness.labs.runs import run_scenario
from harness.labs.scenarios import LONG_SESSION, TWELVE_FILES
from harness.fake.context_management import CLEARED_RESULT
from harness.labs.cost import Segment, request_segments
from harness.labs.strategy_lab import (ClearingKnobs, StrategyRun, aligned_requests, listed, one_call_per_turn,
                                       retention_figure,
                                       retention_table, run_strategy, seen_segments, strategy_table, summary_requests)
from harness.strategies.base import Compactor
from harness.strategies.guards import Guarded, check_next_request
from harness.strategies.controls import THREE_QUESTIONS_ABOVE, WholeConversationLayers
from harness.strategies.one_call import OneCallPerTurn
from harness.strategies.registry import PRETEND_WINDOW, Strategy, all_strategies, control_strategies
from harness.strategies.server_side import ServerCompaction, ServerToolClearing
from harness.strategies.structured_summary import SECTIONS, STRUCTURED_PROMPT, StructuredSummary, structured_request
from harness.strategies.three_layers import ThreeLayers
from harness.strategies.usage_triggered import UsageTriggered

KEYS = ("none", "s06", "usage", "structured", "clearing", "compaction")
CONTROLS = ("s06 whole", "usage 85%", "clear_at_least")
FIRST_WORDS = ("s06", "usage", "clear_at_least")  # a table's rows split on spaces: the controls' first words
CLIENT_SIDE = KEYS[:5]  # the server's compaction needs a trigger of at least 50,000: not on tiny windows


def context(messages, tmp_path, client=None, threshold=50_000):
    """A RunContext over ``messages`` with the fake client; events and traces collected."""
    events, traces = [], []
    schemas = [{"name": n, "description": n, "input_schema": {"type": "object"}}
               for n in ("read_file", "bash", "list_files", "edit_file", "write_file", "compact")]
    config = CompactionConfig(threshold=threshold, transcript_dir=tmp_path / "transcripts")
    run = RunContext(client or fake_client(), messages, config, "system", schemas, None,
                     events.append, traces.append, call=1)
    return run, events, traces


def read_turns(count: int, size: int = 2_000, name: str = "read_file", prefix: str = "t") -> list:
    """A user request, then ``count`` answered tool calls with long results."""
    messages = [user("Read the files.")]
    for k in range(count):
        messages += [assistant([tool_use(f"{prefix}{k}", name, {"path": f"f{k}.py"})]),
                     user([tool_result(f"{prefix}{k}", f"line {k}\n" * (size // 7))])]
    return messages


# --- the registry -------------------------------------------------------------------------

def test_registry_has_six_labelled_strategies_in_order():
    chosen = all_strategies()
    assert tuple(s.key for s in chosen) == KEYS
    for s in chosen + control_strategies():
        assert s.title and s.modelled_on and s.fires and s.simplified
    assert "s06" in chosen[1].modelled_on and "Codex" in chosen[2].modelled_on
    assert "Claude Code" in chosen[3].modelled_on and "clear_tool_uses_20250919" in chosen[4].modelled_on
    assert "compact_20260112" in chosen[5].modelled_on


def test_each_factory_makes_a_fresh_compactor_of_the_right_kind():
    kinds = (Compactor, ThreeLayers, UsageTriggered, StructuredSummary, ServerToolClearing, ServerCompaction,
             WholeConversationLayers, UsageTriggered, ServerToolClearing)
    for s, kind in zip(all_strategies() + control_strategies(), kinds):
        first, second = s.make(), s.make()
        assert type(first) is kind and first is not second


def test_triggers_scale_with_the_window_and_match_at_85_percent():
    _, _, usage, structured, clearing, compaction = (s.make() for s in all_strategies(window=10_000))
    assert usage.threshold == 9_000 and structured.threshold == clearing.trigger == compaction.trigger == 8_500
    assert all_strategies()[3].make().threshold == int(0.85 * PRETEND_WINDOW) == 51_000


# --- valid histories, generated -----------------------------------------------------------

@pytest.mark.parametrize("key", KEYS + CONTROLS)
@given(history=valid_histories())
@settings(max_examples=30, deadline=None)
def test_every_hook_of_every_strategy_leaves_a_valid_history(key, history, tmp_path_factory):
    strategies = all_strategies(window=200) + control_strategies(window=200)
    compactor = {s.key: s for s in strategies}[key].make()  # tiny window: everything fires
    run, _, _ = context(history, tmp_path_factory.mktemp(key), threshold=1)
    compactor.before_call(run)
    validate_messages(run.messages)
    compactor.after_round(run, {"input_tokens": 10**6, "output_tokens": 0})
    check_next_request(run.messages)
    compactor.on_compact(run, "the user's requests")
    check_next_request(run.messages)


# --- valid histories, real runs -----------------------------------------------------------

@pytest.fixture(scope="module")
def short_runs(tmp_path_factory):
    """Every strategy, guarded, on the first 5 requests of LONG_SESSION with a 12,000-token window, one call per
    turn: twelve reads answered together would take twice that window in one message."""
    root = tmp_path_factory.mktemp("short")
    config = CompactionConfig(threshold=10_000)
    runs = {}
    for s in all_strategies(window=12_000)[:len(CLIENT_SIDE)] + control_strategies(window=12_000):
        guarded = Strategy(s.key, s.title, s.modelled_on, s.fires, s.simplified,
                           lambda make=s.make: Guarded(OneCallPerTurn(make()), min_gap=1))
        runs[s.key] = run_strategy(guarded, root, config=config, requests=LONG_SESSION.requests[:5], window=None)
    return runs


def test_real_runs_compact_and_stay_valid(short_runs):
    """The fake server refuses any invalid request, so finishing at all proves every request valid."""
    for key, run in short_runs.items():
        kinds = {e.kind for e in run.session.events}
        assert "guard_invalid" not in kinds, key
        assert (key == "none") == (not kinds - {"micro"}), (key, kinds)  # all but none compact
        check_next_request(run.session.messages)
        assert all(answer for answer in run.session.answers), key


def test_format_table_lists_every_strategy(short_runs):
    table = strategy_table(list(short_runs.values())).splitlines()
    assert table[0].split()[:3] == ["strategy", "model", "calls"]
    assert [line.split()[0] for line in table[2:]] == [*CLIENT_SIDE, *FIRST_WORDS]
    assert set(table[1]) == {"-", " "}


def test_a_row_reads_the_session_stats(short_runs):
    run: StrategyRun = short_runs["s06"]
    row = run.row()
    assert row["model calls"] == run.session.stats.model_calls
    assert row["input billed"] == run.session.stats.input_tokens_billed
    assert 0 <= row["amnesia score"] <= 1


def test_a_run_is_priced_on_every_token_it_was_billed(short_runs):
    """Cached or not, the priced input is the billed input (server steps included), split three ways."""
    for key, run in short_runs.items():
        billed = run.session.stats.input_tokens_billed
        assert run.cached.total("input") == run.uncached.total("input") == billed, key
        assert run.uncached.total("uncached") == billed and run.cached.total("cache_read") > 0, key
        assert run.cached.dollars < run.uncached.dollars, key
        assert run.row()["USD cached"] == round(run.cached.dollars, 2), key


def test_the_cache_sees_the_request_after_the_servers_clearing():
    history = read_turns(6, size=4_000)
    edit = ServerToolClearing(trigger=1_000, keep=2)
    request = {"model": "m", "max_tokens": 10, "system": "system", "messages": history,
               "betas": ["context-management-2025-06-27"], "context_management": {"edits": [edit.edit]}}
    seen = seen_segments(request)
    sent = request_segments(history, "system")
    assert len(seen) == len(sent) and sum(s.tokens for s in seen) < sum(s.tokens for s in sent)
    results = [s.key for s in seen if s.key[1] == "tool_result"]
    assert [key[3] == CLEARED_RESULT for key in results] == [True] * 4 + [False] * 2
    plain = {key: value for key, value in request.items() if key not in ("betas", "context_management")}
    assert seen_segments(plain) == sent


def test_a_server_compaction_step_is_priced_as_one_uncached_request():
    from types import SimpleNamespace

    from harness.core.loop import CallTrace
    trace = [CallTrace(1, 100, 5, 0, 0, (), ()), CallTrace(1, 900, 50, 0, 0, (ServerCompaction.name,), (), "summary"),
             CallTrace(2, 120, 5, 0, 0, (), ())]
    first, second = [Segment(("a",), 100)], [Segment(("b",), 120)]
    aligned = aligned_requests(SimpleNamespace(trace=trace), [first, second])
    assert aligned[0] == first and aligned[2] == second and sum(s.tokens for s in aligned[1]) == 900


def test_the_retention_table_has_one_row_per_fact_and_one_column_per_strategy(short_runs):
    runs = list(short_runs.values())
    lines = retention_table(runs).splitlines()
    assert lines[0].split()[:5] == ["fact", "said", "in", "position", "source"]
    assert lines[0].endswith(CONTROLS[-1]) and set(lines[1]) == {"-", " "}
    probes = [a.probe for a in runs[0].amnesia.answers]
    assert [line[:len(p.name)] for line, p in zip(lines[2:], probes)] == [p.name for p in probes]
    for line, probe in zip(lines[2:], probes):
        assert line.split()[-len(runs):] == ["yes" if r.amnesia.remembered[probe.name] else "no" for r in runs]
    assert lines[-1].split() == ["facts", "kept"] + [f"{sum(r.amnesia.remembered.values())}/{len(probes)}"
                                                     for r in runs]


def test_the_retention_figure_colours_each_cell_by_what_was_kept(short_runs):
    runs = list(short_runs.values())
    ax = retention_figure(runs).axes[0]
    cells = ax.get_images()[0].get_array()
    assert cells.tolist() == [[float(r.amnesia.remembered[a.probe.name]) for r in runs]
                              for a in runs[0].amnesia.answers]
    assert [t.get_text() for t in ax.texts] == ["kept" if v else "lost" for row in cells.tolist() for v in row]
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == [r.strategy.key for r in runs]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()


def test_summary_requests_counts_requests_off_by_tool_less_calls():
    from types import SimpleNamespace

    from harness.core.loop import CallTrace
    session = SimpleNamespace(trace=[CallTrace(1, 0, 0, 0, 0, (), ("read_file",)), CallTrace(2, 0, 0, 0, 0, (), ()),
                     CallTrace(3, 0, 0, 0, 0, (), ("bash",), "summary"), CallTrace(3, 0, 0, 0, 0, (), ("bash",)),
                     CallTrace(4, 0, 0, 0, 0, (), ()), CallTrace(5, 0, 0, 0, 0, (), (), "summary"),
                     CallTrace(5, 0, 0, 0, 0, (), ())])
    assert summary_requests(session) == (2, 3)


def test_summary_requests_of_a_real_run(short_runs):
    s06 = short_runs["s06"].session
    assert len(summary_requests(s06)) == s06.stats.summary_calls > 0
    assert all(1 <= n <= len(s06.answers) for n in summary_requests(s06))
    assert summary_requests(short_runs["none"].session) == ()


# --- the Claude Code family: nine sections ------------------------------------------------

def test_the_prompt_names_the_nine_sections():
    assert len(SECTIONS) == 9
    assert all(f"{n}. {title}" in STRUCTURED_PROMPT for n, title in enumerate(SECTIONS, start=1))


def test_the_structured_request_is_the_whole_conversation_then_the_instruction():
    history = read_turns(60)  # far more than chapter 03's 80,000-character tail
    before = copy.deepcopy(history)
    request = structured_request(history, CompactionConfig(summary_max_tokens=10), "the tags")
    assert len(json.dumps(history)) > 80_000 and history == before
    assert request["messages"][:-1] == history and "tools" not in request and request["max_tokens"] == 10
    assert request["messages"][-1] == user(STRUCTURED_PROMPT + "\nFocus especially on: the tags")


def test_the_control_asks_s06s_questions_of_the_whole_conversation():
    assert THREE_QUESTIONS_ABOVE != SUMMARY_PROMPT and "conversation above" in THREE_QUESTIONS_ABOVE
    history = read_turns(60)
    request = WholeConversationLayers.summary_request(history, CompactionConfig(), None)
    assert request["messages"] == [*history, user(THREE_QUESTIONS_ABOVE)]
    assert ThreeLayers.summary_request(history, CompactionConfig(), None)["messages"][0]["content"].endswith(
        json.dumps(history, ensure_ascii=False)[-1_000:] + "\n</conversation>")  # s06: the dump's tail


def test_the_fake_answers_in_sections_only_when_the_instructions_ask():
    history = [user("From now on, never edit anything under tools/; it is vendored code."),
               assistant("Understood. From now on, never edit anything under tools/; it is vendored code."),
               user("Which file did I first ask you to change?")]
    request = build_summary_request(history, model="m", max_tokens=10, tail_chars=None,
                                    prompt=STRUCTURED_PROMPT.replace("above", "below"))
    sectioned = summarise_text(request["messages"][0]["content"])
    headings = [line for line in sectioned.splitlines() if line[:1].isdigit()]
    assert headings == [f"{n}. {title}:" for n, title in enumerate(SECTIONS, start=1)]
    assert "- Rule: From now on, never edit anything under tools/" in sectioned
    assert "- User: Which file did I first ask you to change?" in sectioned
    plain = summarise_text("Summarise this.\n\n<conversation>\n" + json.dumps(history)
                           + "\n" + STRUCTURED_PROMPT + "\n</conversation>")
    assert plain.startswith("1. What was accomplished:")  # sections named only inside the conversation


def test_structured_summary_fires_past_its_fraction_and_keeps_the_users_words(tmp_path):
    compactor = StructuredSummary(window=20_000, fraction=0.5)
    history = read_turns(5, size=2_000, name="bash")
    run, events, traces = context(history, tmp_path)
    assert compactor.before_call(run) == ["micro"]          # ~3,000 tokens: only micro
    history += read_turns(12, size=6_000, prefix="u")[1:]   # read_file results: micro keeps them
    run, events, traces = context(history, tmp_path)
    assert compactor.before_call(run) == ["micro", "structured"]
    assert len(run.messages) == 1 and traces[-1].kind == "summary"
    view = build_view(run.messages + [assistant("ok"), user("next")])
    assert "Read the files." in view.user_texts
    assert [e.kind for e in events] == ["micro", "structured"]


def test_structured_summary_validates_its_knobs():
    for bad in ({"window": 0}, {"fraction": 0.0}, {"fraction": 1.5}, {"keep_recent": -1}):
        with pytest.raises(ValueError):
            StructuredSummary(**bad)


def test_a_failed_structured_summary_leaves_the_history(tmp_path):
    from harness import SummaryFailed
    history = read_turns(12, size=6_000)
    before = copy.deepcopy(history)
    run, _, _ = context(history, tmp_path, client=fake_client(fail_summaries=1))
    with pytest.raises(SummaryFailed):
        StructuredSummary(window=10_000, keep_recent=100).before_call(run)
    assert run.messages == before


# --- the API's clearing, served by the fake ------------------------------------------------

def test_clearing_on_a_real_session_cuts_the_peak(tmp_path):
    plain = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path / "plain", compactor=Compactor())
    clearing = run_scenario(TWELVE_FILES, CompactionConfig(), tmp_path / "clear",
                            compactor=ServerToolClearing(trigger=8_000, keep=2))
    assert clearing.stats.peak_context < 12_000 < plain.stats.peak_context
    assert listed(clearing.answers[-1]) == listed(plain.answers[-1])  # the notes survive: same final answer


# --- the chapter's sliders ----------------------------------------------------------------

SLIDERS = ([{"trigger": t} for t in range(2_000, 26_001, 2_000)] + [{"keep": k} for k in range(0, 7)]
           + [{"clear_at_least": c} for c in range(0, 20_001, 4_000)]
           + [{"exclude_reads": True}, {"clear_inputs": True}, {"exclude_reads": True, "clear_inputs": True}])


@pytest.fixture(scope="module")
def clearing_knobs(tmp_path_factory):
    return ClearingKnobs(tmp_path_factory.mktemp("knobs"))


@pytest.mark.parametrize("knobs", SLIDERS, ids=lambda k: ",".join(f"{n}={v}" for n, v in k.items()))
def test_the_clearing_figure_draws_every_slider_position(knobs, clearing_knobs):
    fig = clearing_knobs(**knobs).figure
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:2] == ["no compaction", "API clearing"] and labels[2].startswith("trigger")
    assert ax.get_xlabel() == "model call" and ax.get_ylabel() and "cleared" in ax.get_title()
    assert max(ax.get_lines()[1].get_ydata()) <= ax.get_ylim()[1]
    assert max(max(line.get_xdata()) for line in ax.get_lines()[:2]) <= ax.get_xlim()[1]
    spiral = knobs.get("keep") == 0
    assert ("max_turns" in ax.get_title()) == spiral
    assert ax.get_legend().get_texts()[2].get_text() == f"trigger ({knobs.get('trigger', 10_000):,})"


def test_one_call_per_turn_keeps_the_strategy_and_asks_for_one_call():
    """Chapter 08's runs: the same strategy, its compactor wrapped so every call sends disable_parallel_tool_use."""
    clearing = next(s for s in all_strategies() if s.key == "clearing")
    wrapped = one_call_per_turn(clearing)
    made = wrapped.make()
    assert (wrapped.key, wrapped.title, wrapped.fires, wrapped.model) == (clearing.key, clearing.title,
                                                                          clearing.fires, clearing.model)
    assert isinstance(made, OneCallPerTurn) and made.inner == clearing.make()
    options = made.request_options(None)
    assert options["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert options["context_management"] == clearing.make().request_options(None)["context_management"]


def test_the_clearing_sliders_start_where_section_3_stands(clearing_knobs):
    """One call per turn, as chapter 08's section 3: 10 tool uses (17,713 tokens) cleared at the last call, the
    same answer (with parallel calls the twelve reads arrive together and 28 tool uses go)."""
    title = clearing_knobs().figure.axes[0].get_title()
    assert title.startswith("last call: 10 tool uses cleared (17,713 tokens)") and "same answer" in title


def test_the_clearing_figure_is_one_figure_updated_in_place(clearing_knobs, tmp_path):
    """Each move redraws the same figure; what it shows is what a fresh figure for those knobs shows."""
    first = clearing_knobs(keep=0)
    spiral_title = first.figure.axes[0].get_title()
    again = clearing_knobs(keep=3)
    assert again is first and again.figure.axes[0].get_title() != spiral_title
    picture = again.png()
    fresh = ClearingKnobs(tmp_path)(keep=3)
    assert fresh.figure.axes[0].get_title() == again.figure.axes[0].get_title()
    assert np.array_equal(pixels(fresh.png()), pixels(picture))
    assert np.array_equal(pixels(picture), pixels(png_of_full_draw(again.figure, again)))


def test_the_benchmark_prints_one_row_per_strategy():
    from benchmarks import strategies as bench
    table = bench.render(bench.measure(LONG_SESSION.requests[:2])).splitlines()
    assert table[0] == "Strategies on the long session (2 requests, then the amnesia probe on a copy)"
    assert [line.split()[0] for line in table[3:]] == [*KEYS, *FIRST_WORDS]
    assert all(line.endswith(" s") for line in table[3:])
    assert "facts kept" in table[1] and all(" 2/2 " in line or " 1/2 " in line or " 0/2 " in line
                                             for line in table[3:])  # the two facts request 2 said
