"""The compaction inspector (chapter 07): one card per compaction, failures included."""
import ipywidgets as widgets

from harness import Event
from harness.labs.inspector import SUMMARY_TITLE, card_html, compaction_cards, compaction_inspector, header_html
from harness.session.replacement import summary_message


def compacted(call: int, summary: str = "Read a.py <and> b.py", reported=9_120) -> Event:
    return Event("history_compacted", call, 3_000, 400, {
        "reported_tokens": reported, "threshold": 8_000, "reason": f"reported usage {reported} reached 8000",
        "items_before": 14, "items_removed": 12, "items_kept": 3, "summary": summary, "tries": 1})


EVENTS = [
    Event("micro", 1, 10, 5),  # not a compaction of this strategy: no card
    compacted(6),
    Event("compaction_failed", 9, 3_100, 3_100, {"reported_tokens": 8_500, "threshold": 8_000,
                                                 "reason": "reported usage 8,500", "tries": 3,
                                                 "error": "summary call failed: Error code: 500"}),
    compacted(12, "second summary", reported=None),
    Event("auto_compaction_stopped", 20, 3_300, 3_300, {"failures": 3, "reason": "3 compactions failed in a row"}),
]


def test_one_card_per_compaction_failure_and_stop_in_order():
    cards = compaction_cards(EVENTS)
    assert [c.kind for c in cards] == ["history_compacted", "compaction_failed", "history_compacted",
                                       "auto_compaction_stopped"]
    assert [c.title for c in cards] == ["Compaction 1 · after call 6", "Compaction failed · after call 9",
                                        "Compaction 2 · after call 12", "Auto-compaction stopped · after call 20"]


def test_a_card_holds_the_numbers_the_reason_and_the_summary_the_model_got():
    card = compaction_cards([compacted(6)])[0]
    facts = dict(card.facts)
    assert facts["reported tokens"] == "9,120" and facts["threshold"] == "8,000"
    assert (facts["items before"], facts["items removed"], facts["items kept"]) == ("14", "12", "3")
    assert facts["estimate before → after"] == "3,000 → 400"
    assert card.reason == "reported usage 9120 reached 8000"
    assert card.summary == summary_message("Read a.py <and> b.py")["content"]


def test_a_manual_compaction_has_no_reported_numbers():
    assert dict(compaction_cards([compacted(3, reported=None)])[0].facts)["reported tokens"] == "-"


def test_card_html_escapes_everything():
    card = compaction_cards([Event("compaction_failed", 2, 1, 1, {
        "reported_tokens": 1, "reason": "<script>", "tries": 1, "error": "a & b"})])[0]
    markup = card_html(card)
    assert "<script>" not in markup and "&lt;script&gt;" in markup and "a &amp; b" in markup


def test_the_header_counts():
    assert header_html(compaction_cards(EVENTS)) == (
        "<b>Compactions: 2</b> · failed: 1 · auto-compaction stopped: yes")
    assert header_html([]) == "<b>Compactions: 0</b> · failed: 0 · auto-compaction stopped: no"


def test_the_widget_has_a_header_and_a_card_each_with_a_folded_summary():
    box = compaction_inspector(EVENTS)
    assert isinstance(box, widgets.VBox) and len(box.children) == 1 + 4
    assert "Compactions: 2" in box.children[0].value
    accordions = [part for card in box.children[1:] for part in card.children if isinstance(part, widgets.Accordion)]
    assert len(accordions) == 2
    assert all(a.selected_index is None and a.titles == (SUMMARY_TITLE,) for a in accordions)
    assert "Read a.py &lt;and&gt; b.py" in accordions[0].children[0].value


def test_no_events_no_cards():
    assert len(compaction_inspector([]).children) == 1
