"""The usage-triggered design's decision and replacement (chapter 06), and per-model thresholds (chapter 07).

The replacement is checked on generated histories: whatever the history, the
result passes validate_messages, is accepted by the fake API, keeps the
newest user message, and keeps only the user's own words within the budget.
"""
from types import SimpleNamespace

import pytest
from anthropic.types import Usage
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from histories import sentence, valid_histories

from harness import (MODEL_WINDOWS, assistant, context_window, is_summary, resolve_threshold, text, text_of,
                     threshold_below_window, tool_result, tool_use, user, validate_messages)
from harness.core.messages import blocks
from harness.fake import FakeModel
from harness.session.replacement import (SUMMARY_HEADER, decide_compaction, describe_replacement,
                                         is_user_words, plan_replacement, replace_history, reported_total,
                                         summary_message)

# --- decision ---------------------------------------------------------------------


def test_no_usage_reported_means_no_decision():
    decision = decide_compaction(None, 8_000, 40)
    assert not decision.compact and "no usage reported" in decision.reason


def test_below_the_threshold_no_compaction_and_the_reason_names_both_numbers():
    decision = decide_compaction(7_999, 8_000, 40)
    assert not decision.compact
    assert "7,999" in decision.reason and "8,000" in decision.reason


def test_a_short_history_is_not_compacted():
    decision = decide_compaction(50_000, 8_000, 3)
    assert not decision.compact and "3 history items" in decision.reason


def test_reaching_the_threshold_compacts_with_a_reason_naming_both_numbers():
    decision = decide_compaction(8_000, 8_000, 4)
    assert decision.compact
    assert decision.reason == "reported usage 8,000 tokens reached the threshold 8,000"


def test_the_checks_come_in_the_seed_order():
    assert "no usage" in decide_compaction(None, 1, 0).reason      # usage first
    assert "below" in decide_compaction(5, 10, 0).reason            # then the threshold
    with pytest.raises(ValueError):
        decide_compaction(10, 0, 10)


def test_reported_total_reads_sdk_objects_and_dicts():
    assert reported_total(None) is None
    assert reported_total(SimpleNamespace(input_tokens=None, output_tokens=3)) is None
    assert reported_total(SimpleNamespace(input_tokens=100, output_tokens=20)) == 120
    assert reported_total({"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 5,
                           "cache_creation_input_tokens": None}) == 125


def test_reported_total_counts_cache_reads_and_writes_of_an_sdk_usage():
    """Claude's input_tokens excludes the cached input; the request's whole input is the sum of three fields."""
    cached = Usage(input_tokens=12, cache_read_input_tokens=9_500, cache_creation_input_tokens=400, output_tokens=80)
    assert reported_total(cached) == 9_992
    assert decide_compaction(reported_total(cached), 8_000, 10).compact
    assert reported_total(Usage(input_tokens=12, output_tokens=80)) == 92  # the SDK leaves absent fields None


# --- replacement on hand-made histories --------------------------------------------

def working_history() -> list:
    return [
        user("Read a.py"),
        assistant([tool_use("t1", "read_file", {"path": "a.py"})]),
        user([tool_result("t1", "print('a')")]),
        assistant("a.py prints a."),
        user("From now on, never edit b.py."),
        assistant("Understood."),
        user("Count the lines of a.py"),
        assistant([text("Counting."), tool_use("t2", "bash", {"command": "wc -l a.py"})]),
        user([tool_result("t2", "1 a.py")]),
    ]


def test_replacement_keeps_one_summary_then_the_user_words_in_order():
    history = working_history()
    new = replace_history(history, "They read a.py.")
    assert new[0] == summary_message("They read a.py.")
    assert new[0]["content"].startswith(SUMMARY_HEADER)
    assert [m["content"] for m in new[1:]] == ["Read a.py", "From now on, never edit b.py.",
                                              "Count the lines of a.py"]
    validate_messages(new)


def test_replacement_is_pure():
    history = working_history()
    before = repr(history)
    new = replace_history(history, "s")
    assert repr(history) == before
    new[1]["content"] = "changed"
    assert history[0]["content"] == "Read a.py"


def test_the_newest_user_message_is_kept_even_alone_over_budget():
    history = [user("old"), assistant("ok"), user("x" * 30_000)]
    new = replace_history(history, "s", budget_chars=20_000)
    assert [m["content"] for m in new[1:]] == ["x" * 30_000]


def test_an_exhausted_budget_drops_every_older_message():
    history = [user("a" * 10), assistant("ok"), user("b" * 10), assistant("ok"), user("c" * 10)]
    assert [m["content"] for m in replace_history(history, "s", budget_chars=20)[1:]] == ["b" * 10, "c" * 10]
    assert [m["content"] for m in replace_history(history, "s", budget_chars=19)[1:]] == ["c" * 10]
    assert [m["content"] for m in replace_history(history, "s", budget_chars=0)[1:]] == ["c" * 10]


def test_older_summaries_are_folded_into_the_new_one():
    history = [summary_message("first"), user("next"), assistant("ok"), user("last")]
    new = replace_history(history, "second")
    assert sum(is_summary(m) for m in new) == 1 and "second" in new[0]["content"]
    assert [m["content"] for m in new[1:]] == ["next", "last"]


def test_a_history_without_user_words_becomes_the_summary_alone():
    history = [summary_message("first"), assistant([tool_use("t", "bash", {})]), user([tool_result("t", "ok")])]
    assert replace_history(history, "second") == [summary_message("second")]


def test_an_empty_summary_is_refused():
    with pytest.raises(ValueError):
        replace_history(working_history(), "  ")


def test_the_plan_counts_what_goes_and_what_stays():
    plan = plan_replacement(working_history())
    assert plan.kept == (0, 4, 6) and plan.kept_chars == 9 + 29 + 23
    assert (plan.items_before, plan.items_removed, plan.items_kept) == (9, 6, 4)


# --- replacement on generated histories ---------------------------------------------

@st.composite
def histories_with_summaries(draw):
    """A valid history, sometimes starting with an older summary, sometimes with long user messages."""
    history = draw(valid_histories())
    if draw(st.booleans()):
        history = [summary_message(draw(sentence))] + history
    if draw(st.booleans()):
        history.append(user("y" * draw(st.integers(min_value=0, max_value=25_000)) + "!"))
    return history


@given(histories_with_summaries(), sentence, st.integers(min_value=0, max_value=30_000))
@settings(max_examples=300, deadline=None)
def test_replacement_of_any_history_is_valid_and_keeps_the_newest_words(history, summary, budget):
    new = replace_history(history, summary, budget)
    validate_messages(new)
    assert new[-1]["role"] == "user"
    assert all(m["role"] == "user" and b["type"] == "text" for m in new for b in blocks(m))
    words = [m for m in history if is_user_words(m)]
    kept = new[1:]
    assert kept == words[len(words) - len(kept):]               # a suffix of the user's words, in order
    assert (not words) or kept[-1] == words[-1]                  # the newest always kept
    sizes = [len(text_of(m)) for m in kept]
    assert len(kept) <= 1 or sum(sizes) <= budget                # the rest within the budget
    if len(kept) < len(words):                                   # stopped only when the next did not fit
        assert sum(sizes) + len(text_of(words[len(words) - len(kept) - 1])) > budget


@pytest.fixture(scope="module")
def fake_api():
    return FakeModel().client()


@given(histories_with_summaries(), sentence)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_fake_api_accepts_every_replacement(fake_api, history, summary):
    response = fake_api.messages.create(model="claude-haiku-4-5", max_tokens=64,
                                        messages=replace_history(history, summary))
    assert response.usage.input_tokens > 0


@pytest.mark.parametrize("budget", range(0, 40_001, 500))
def test_describe_replacement_over_the_slider_range(budget):
    history = working_history() + [assistant("done"), user("z" * 3_000)]
    lines = describe_replacement(history, budget).splitlines()
    plan = plan_replacement(history, budget)
    assert lines[0].startswith(f"budget {budget:,} chars: keep {len(plan.kept)} of 4 user messages")
    assert sum(line.startswith("  keep") for line in lines) == len(plan.kept)
    assert len(lines) == 1 + 4


# --- per-model thresholds ------------------------------------------------------------

def test_thresholds_in_tokens_or_as_a_fraction_of_the_window():
    assert resolve_threshold(8_000, "any-model") == 8_000
    assert resolve_threshold(0.04, "claude-haiku-4-5") == 8_000
    assert resolve_threshold(0.8, "claude-sonnet-5") == 800_000
    assert resolve_threshold(0.29, "claude-opus-4-5") == 58_000   # rounded, not floored
    assert resolve_threshold(1.0, "claude-haiku-4-5") == 200_000


def test_the_sdks_dated_ids_are_listed_and_unlisted_models_are_never_guessed():
    assert context_window("claude-haiku-4-5-20251001") == 200_000  # named by the SDK, as is its alias
    assert resolve_threshold(0.5, "small", {"small": 10_000}) == 5_000
    for unknown in ("claude-opus-4-3", "claude-sonnet-4-20250514", "claude-sonnet-4-5-20990101", "claude-opus-4-1",
                    "claude-sonnet-4-5", "claude-sonnet-4-5-20250929"):  # Sonnet 4.5 retired on 2026-11-30
        with pytest.raises(ValueError):
            context_window(unknown)  # not listed (or no longer): no fall back to a near name


@pytest.mark.parametrize("bad", [0, -1, 0.0, 1.5, -0.2, True, "8000", None])
def test_bad_thresholds_are_refused(bad):
    with pytest.raises(ValueError):
        resolve_threshold(bad, "claude-haiku-4-5")


def test_an_unknown_model_with_a_fraction_is_an_error_naming_the_model():
    with pytest.raises(ValueError, match="gpt-unknown"):
        resolve_threshold(0.5, "gpt-unknown")
    assert resolve_threshold(9_000, "gpt-unknown") == 9_000  # tokens need no window


def test_a_threshold_below_the_window_is_the_window_minus_the_reserve_minus_the_buffer():
    assert threshold_below_window("claude-haiku-4-5", output_reserve=20_000, buffer=13_000) == 167_000
    assert threshold_below_window("claude-sonnet-5", output_reserve=20_000, buffer=13_000) == 967_000
    assert threshold_below_window("claude-haiku-4-5-20251001", output_reserve=64_000, buffer=0) == 136_000
    assert threshold_below_window("small", output_reserve=0, buffer=0, windows={"small": 10_000}) == 10_000
    assert threshold_below_window("small", output_reserve=9_000, buffer=999, windows={"small": 10_000}) == 1


@pytest.mark.parametrize("reserve, buffer, match", [
    (200_000, 0, "no room for input"),        # the reserve alone fills the window
    (250_000, 0, "no room for input"),        # a reserve larger than the window
    (190_000, 10_000, "no room for input"),   # together exactly the window: not one token of input
    (-1, 13_000, "output_reserve must be >= 0"),
    (20_000, -5, "buffer must be >= 0"),
    (20_000.0, 13_000, "output_reserve must be an integer"),
    (True, 13_000, "output_reserve must be an integer"),
    (20_000, "13000", "buffer must be an integer"),
])
def test_nonsense_reserves_and_buffers_are_refused(reserve, buffer, match):
    with pytest.raises(ValueError, match=match):
        threshold_below_window("claude-haiku-4-5", output_reserve=reserve, buffer=buffer)


def test_a_threshold_below_an_unknown_window_is_an_error_naming_the_model():
    with pytest.raises(ValueError, match="gpt-unknown"):
        threshold_below_window("gpt-unknown", output_reserve=1_000, buffer=1_000)


def test_the_window_table_is_sane():
    assert MODEL_WINDOWS and all(isinstance(v, int) and v >= 100_000 for v in MODEL_WINDOWS.values())
