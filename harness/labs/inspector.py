"""A compaction inspector for Jupyter: one card per compaction (chapter 07).

The notebook's counterpart of the usage-triggered design's debug console. A header counts the
compactions; each card shows the numbers (reported tokens, threshold, items
before, removed and kept, the estimate before and after), the reason, and a
collapsed "Summary sent to the model" holding the message the model got.
Failed compactions and a stopped breaker get cards too, so a failure is
never silent. ``compaction_cards`` and ``card_html`` are pure;
``compaction_inspector`` only puts them into widgets.
"""
from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.loop import Event
from ..session.replacement import summary_message

if TYPE_CHECKING:
    import ipywidgets as widgets

SUMMARY_TITLE = "Summary sent to the model"
INSPECTOR_HINT = "A compaction inspector: run this cell (and the ones above it) to see it."
COLOURS = {"history_compacted": "#2b7a3d", "compaction_failed": "#b36b00", "auto_compaction_stopped": "#b00020"}


@dataclass(frozen=True)
class Card:
    kind: str
    title: str
    facts: tuple[tuple[str, str], ...]
    reason: str
    summary: str | None  # the summary message as the model received it


def number(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "-"


def compaction_cards(events: Iterable[Event]) -> list[Card]:
    """A card for every compaction, failed compaction and breaker stop, in order."""
    cards, done = [], 0
    for event in events:
        d = event.detail
        if event.kind == "history_compacted":
            done += 1
            facts = (("reported tokens", number(d["reported_tokens"])), ("threshold", number(d["threshold"])),
                     ("items before", number(d["items_before"])), ("items removed", number(d["items_removed"])),
                     ("items kept", number(d["items_kept"])),
                     ("estimate before → after", f"{event.tokens_before:,} → {event.tokens_after:,}"),
                     ("summary tries", number(d["tries"])))
            cards.append(Card(event.kind, f"Compaction {done} · after call {event.call}", facts, d["reason"],
                              summary_message(d["summary"])["content"]))
        elif event.kind == "compaction_failed":
            facts = (("reported tokens", number(d["reported_tokens"])), ("tries", number(d["tries"])),
                     ("history", "untouched"))
            cards.append(Card(event.kind, f"Compaction failed · after call {event.call}", facts,
                              f"{d['reason']}; error: {d['error']}", None))
        elif event.kind == "auto_compaction_stopped":
            cards.append(Card(event.kind, f"Auto-compaction stopped · after call {event.call}",
                              (("failures in a row", number(d["failures"])),), d["reason"], None))
    return cards


def card_html(card: Card) -> str:
    """One card as HTML: title, a table of numbers, the reason (everything escaped)."""
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right'><b>{html.escape(v)}</b></td></tr>"
                   for k, v in card.facts)
    colour = COLOURS[card.kind]
    return (f"<div style='border-left:4px solid {colour};padding:2px 8px'>"
            f"<b style='color:{colour}'>{html.escape(card.title)}</b>"
            f"<table>{rows}</table><i>{html.escape(card.reason)}</i></div>")


def header_html(cards: list[Card]) -> str:
    counts = {kind: sum(c.kind == kind for c in cards) for kind in COLOURS}
    stopped = "yes" if counts["auto_compaction_stopped"] else "no"
    return (f"<b>Compactions: {counts['history_compacted']}</b> · failed: {counts['compaction_failed']}"
            f" · auto-compaction stopped: {stopped}")


def compaction_inspector(events: Iterable[Event]) -> widgets.VBox:
    """The widget: a header, then one card per compaction with its summary folded away."""
    import ipywidgets as widgets  # imported here, so ``import harness`` stays light outside Jupyter

    from .panel import Panel

    cards = compaction_cards(events)
    children: list[widgets.Widget] = [widgets.HTML(header_html(cards))]
    for card in cards:
        parts: list[widgets.Widget] = [widgets.HTML(card_html(card))]
        if card.summary is not None:
            body = widgets.HTML(f"<pre style='white-space:pre-wrap'>{html.escape(card.summary)}</pre>")
            parts.append(widgets.Accordion(children=[body], titles=(SUMMARY_TITLE,), selected_index=None))
        children.append(widgets.VBox(parts))
    return Panel(children, hint=INSPECTOR_HINT)
