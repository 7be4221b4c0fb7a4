"""The tuning lab: settings, sweeps, ranking, figures and the slider callback (harness/labs/tuning.py, chapter 09)."""
from __future__ import annotations

import dataclasses
import itertools

import pytest
from matplotlib.figure import Figure

from harness.labs.cost import SESSION_PRICES
from harness.labs.scenarios import AGENT_FILES, LONG_SESSION, READ_AGENTS, Scenario
from harness.labs.tables import Table
from harness.labs.tuning import (GOLDFISH, HOARDER, KEEP_SLIDER, LAB_METRICS, PRESERVE_CHOICES, READ_FILE,
                                 THRESHOLD_SLIDER, TUNING_PROBES, TUNING_REQUESTS, UNCOMPRESSED, Lab, Setting,
                                 cost_split_figure, curves_figure, fact_metrics, heatmaps_figure, lab_panel,
                                 Spiral, outcome_line, outcome_table, recommend, settings_grid)

# Three files and two requests: a few model calls a run, so the sliders' whole range stays cheap.
TINY = Scenario("tiny", (("agents", dict(list(AGENT_FILES.items())[:3])),),
                (READ_AGENTS, "What is VERSION_TAG in agents/s01_agent_loop.py?"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """TINY's calls are under Haiku 4.5's 4,096-token minimum: priced as if every call could be cached."""
    prices = dataclasses.replace(SESSION_PRICES, min_cacheable=1)
    return Lab(tmp_path_factory.mktemp("lab"), scenario=TINY, requests=None, max_turns=20, prices=prices)


def test_the_lab_prices_at_the_sessions_model_by_default(tmp_path):
    assert Lab(tmp_path).prices == SESSION_PRICES


def test_setting_labels_and_validation():
    assert Setting().label == "keep 3 · 50k · preserve read_file"
    assert UNCOMPRESSED.label == "no compaction"
    assert GOLDFISH == Setting(1, 20_000) and HOARDER == Setting(10, 120_000)
    assert Setting(preserve_tools=set()).label == "keep 3 · 50k · preserve nothing"
    assert Setting(recall=True, preserve_tools=frozenset()).label.endswith("preserve nothing · recall")
    assert Setting(batch_tokens=10_000, auto=False).label == "keep 3 · no auto · preserve read_file · batch 10k"
    assert Setting(preserve_tools=["bash", "read_file"]) == Setting(preserve_tools=frozenset({"read_file", "bash"}))
    with pytest.raises(ValueError):
        Setting(recall=True, batch_tokens=1)
    with pytest.raises(ValueError):
        Setting(keep_recent=-1)
    with pytest.raises(ValueError):
        Setting(threshold=0)


def test_the_lab_session_is_the_start_of_the_long_session():
    assert TUNING_REQUESTS == LONG_SESSION.requests[:12]


def test_settings_grid_runs_row_by_row():
    assert [(s.keep_recent, s.threshold) for s in settings_grid((1, 3), (20_000, 50_000))] == [
        (1, 20_000), (1, 50_000), (3, 20_000), (3, 50_000)]
    assert {s.preserve_tools for s in settings_grid((1,), (1,), frozenset())} == {frozenset()}


def test_lab_runs_each_setting_once_and_measures_it(lab):
    first = lab.run(Setting(keep_recent=1, preserve_tools=frozenset()))
    assert lab.run(Setting(keep_recent=1, preserve_tools=frozenset())) is first
    assert len(first.context) == first.stats.model_calls == len(first.spent)
    assert first.spent[-1] == pytest.approx(first.dollars)
    assert list(first.spent) == sorted(first.spent)
    assert first.cost.total("cache_read") + first.cost.total("cache_write") + first.cost.total("uncached") == \
        first.stats.input_tokens_billed
    assert first.dollars > 0 and first.dollars_uncached > 0  # here caching costs more: micro rewrites every call
    untouched = lab.run(UNCOMPRESSED)
    assert 0 < untouched.dollars < untouched.dollars_uncached  # a history nobody rewrites is cheaper cached
    assert set(first.forgotten) <= {p.name for p in TUNING_PROBES} and len(TUNING_PROBES) == 4
    for name in LAB_METRICS:
        assert first.metric(name) >= 0


def test_sweep_keeps_the_order_and_reuses_runs(lab):
    settings = settings_grid((1, 3), (10_000, 150_000))
    outcomes = lab.sweep(settings, progress=False)
    assert [o.setting for o in outcomes] == settings
    assert lab.sweep(reversed(settings), progress=False) == outcomes[::-1]


def test_recall_and_batched_settings_run(lab):
    recall = lab.run(Setting(keep_recent=1, preserve_tools=frozenset(), recall=True))
    batched = lab.run(Setting(keep_recent=1, preserve_tools=frozenset(), batch_tokens=3_000))
    plain = lab.run(Setting(keep_recent=1, preserve_tools=frozenset()))
    assert recall.recalls == plain.stats.re_reads > 0 and recall.stats.re_reads == 0
    assert batched.stats.compactions.get("micro", 0) < plain.stats.compactions["micro"]


def test_recommend_ranks_by_memory_then_dollars_then_re_reads(lab):
    outcomes = lab.sweep(settings_grid((1, 3), (10_000, 150_000)) + [UNCOMPRESSED], progress=False)
    ranked = recommend(outcomes)
    keys = [(len(o.forgotten), o.dollars, o.stats.re_reads) for o in ranked]
    assert keys == sorted(keys) and len(ranked) == len(outcomes)
    limit = min(o.stats.peak_context for o in outcomes)
    assert all(o.stats.peak_context <= limit for o in recommend(outcomes, max_peak=limit))
    assert recommend(outcomes, max_peak=0) == []


def test_table_and_line_show_the_numbers(lab):
    outcome = lab.run(UNCOMPRESSED)
    table = outcome_table([outcome])
    header, rule, row = table.splitlines()
    assert set(rule) == {"-", " "}
    assert header.split()[:3] == ["setting", "re_reads", "recalls"]
    assert row.startswith("no compaction") and f"${outcome.dollars:.3f}" in row
    assert isinstance(table, Table) and "| no compaction |" in table._repr_markdown_()
    line = outcome_line(outcome)
    assert f"{outcome.stats.model_calls} calls" in line and f"peak {outcome.stats.peak_context:,}" in line


def test_metrics_read_the_outcome(lab):
    outcome = lab.run(Setting(keep_recent=1, threshold=10_000, preserve_tools=frozenset()))
    assert outcome.metric("micro_steps") == outcome.stats.compactions.get("micro", 0) > 0
    assert outcome.metric("summaries") == outcome.stats.compactions.get("auto", 0)
    assert outcome.metric("cache_writes") == outcome.cost.total("cache_write") > 0
    assert lab.run(UNCOMPRESSED).metric("micro_steps") == lab.run(UNCOMPRESSED).metric("summaries") == 0


def labelled(fig: Figure) -> bool:
    return all(ax.get_xlabel() for ax in fig.axes if ax.get_label() != "<colorbar>")


def test_figures_have_labelled_axes(lab):
    outcomes = lab.sweep(settings_grid((1, 3), (10_000, 150_000)), progress=False)
    heat = heatmaps_figure(outcomes, ("re_reads", "dollars", "forgotten"), title="t")
    assert len([ax for ax in heat.axes if ax.get_ylabel() == "KEEP_RECENT"]) == 3
    assert labelled(heat)
    bars = cost_split_figure(outcomes)
    assert labelled(bars) and bars.axes[0].get_legend() is not None
    panel = curves_figure([lab.run(UNCOMPRESSED), outcomes[0]])
    assert labelled(panel) and all(ax.get_legend() is not None for ax in panel.axes)


SLIDER_POINTS = sorted(
    {(k, t, p) for k, t, (_, p) in itertools.product(KEEP_SLIDER, (THRESHOLD_SLIDER[0], THRESHOLD_SLIDER[-1]),
                                                      PRESERVE_CHOICES)}
    | {(k, t, READ_FILE) for k, t in itertools.product((KEEP_SLIDER[0], KEEP_SLIDER[-1]), THRESHOLD_SLIDER)},
    key=lambda x: (x[0], x[1], sorted(x[2])))


@pytest.mark.parametrize("keep, threshold, preserve", SLIDER_POINTS,
                         ids=[f"keep{k}-{t // 1000}k-{'+'.join(sorted(p)) or 'nothing'}" for k, t, p in SLIDER_POINTS])
def test_the_slider_callback_over_its_range(lab, keep, threshold, preserve):
    """Every KEEP_RECENT at both THRESHOLD ends with every preserve choice, every THRESHOLD at both KEEP ends."""
    line, fig = lab_panel(keep, threshold, preserve, lab=lab)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    outcome = lab.run(Setting(keep, threshold, preserve))
    assert line == outcome_line(outcome)  # the numbers, shown above the figure
    assert outcome.stats.model_calls >= 1
    assert outcome.spiral is None  # the harness never clears a result before the model has read it
    assert "max_turns" not in outcome.stats.compactions and fig._suptitle is None


def test_each_fact_is_kept_or_forgotten(lab):
    outcome = lab.run(UNCOMPRESSED)
    assert outcome.asked and set(outcome.kept) | set(outcome.forgotten) == set(outcome.asked)
    assert not set(outcome.kept) & set(outcome.forgotten)
    for fact in outcome.asked:
        assert outcome.metric("forgot:" + fact) == float(fact in outcome.forgotten)
    with pytest.raises(KeyError):
        outcome.metric("forgot:no such fact")
    assert fact_metrics([outcome, outcome]) == tuple("forgot:" + f for f in outcome.asked)


def test_table_line_and_heatmaps_name_the_facts(lab):
    outcomes = lab.sweep(settings_grid((1, 3), (10_000, 150_000)), progress=False)
    table = outcome_table(outcomes, ("re_reads", "facts"))
    assert table.header == ("setting", "re_reads", *outcomes[0].asked)
    for o, row in zip(outcomes, table.rows):
        assert row[2:] == tuple("forgot" if f in o.forgotten else "kept" for f in o.asked)
    numbers, facts = outcome_line(outcomes[0]).splitlines()
    assert facts == (f"forgot: {', '.join(outcomes[0].forgotten) or 'nothing'} · "
                     f"kept: {', '.join(outcomes[0].kept) or 'nothing'}")
    heat = heatmaps_figure(outcomes, ("dollars", "facts"))
    titles = [ax.get_title() for ax in heat.axes if ax.get_label() != "<colorbar>"]
    assert titles == [LAB_METRICS["dollars"][0], *outcomes[0].asked] and labelled(heat)


def test_the_lab_session_forgets_different_facts_at_different_thresholds(tmp_path):
    """On the real lab session the per-fact view says more than the count: one summary at 50k keeps
    the tag the user set in request 7, four summaries at 20k lose it too."""
    lab = Lab(tmp_path)
    assert [p.name for p in TUNING_PROBES] == [
        "first file changed", "constraint and its reason", "decision and its reason", "c06_storage's tag"]
    at_50k, at_20k = lab.run(Setting(threshold=50_000)), lab.run(Setting(threshold=20_000))
    assert at_50k.kept == ("c06_storage's tag",) and len(at_50k.forgotten) == 3
    assert at_20k.kept == () and at_20k.asked == at_50k.asked
    assert "kept: c06_storage's tag" in lab_panel(3, 50_000, READ_FILE, lab=lab)[0]


def test_a_death_spiral_stops_the_session_and_says_its_numbers_are_not_comparable(lab):
    """Without the harness's guard (the s06 count), keep_recent=0 clears each result before the model sees it."""
    assert lab.run(Setting(keep_recent=0, preserve_tools=frozenset())).spiral is None  # with the guard: none
    spiral = lab.run(Setting(keep_recent=0, preserve_tools=frozenset(), s06_count=True))
    done = lab.run(Setting(keep_recent=1, preserve_tools=frozenset()))
    assert spiral.spiral == Spiral(request=1, calls=lab.max_turns, skipped=len(TINY.requests) - 1)
    assert spiral.stats.model_calls == lab.max_turns and spiral.stats.compactions["max_turns"] == 1
    assert done.spiral is None and done.stats.model_calls > len(TINY.requests)
    first, *rest = outcome_line(spiral).splitlines()
    assert first == ("death spiral: request 1 hit the turn limit after 20 calls; the remaining request was not "
                     "run. Its numbers cover 1 of 2 requests, not comparable with a finished session.")
    assert rest == outcome_line(dataclasses.replace(spiral, spiral=None)).splitlines()  # the numbers still shown
    assert not outcome_line(done).startswith("death spiral")
    rows = outcome_table([spiral, done]).rows
    assert "stopped: death spiral in request 1" in rows[0][0] and "not comparable" in rows[0][0]
    assert rows[1][0] == done.setting.label
    assert recommend([spiral, done]) == [done]  # cheaper and forgetting nothing, but it did not do the work


def test_spiral_wording():
    assert str(Spiral(3, 100, 9)).startswith(
        "death spiral: request 3 hit the turn limit after 100 calls; the remaining 9 requests were not run.")
    assert "covers" not in str(Spiral(12, 100, 0)) and "it was the last request" in str(Spiral(12, 100, 0))
    assert "cover 12 of 12 requests" in str(Spiral(12, 100, 0))
