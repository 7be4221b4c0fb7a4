"""A slider panel: controls on top, one line of numbers and one picture below, updated in place (chapter 00).

``panel(callback, **controls)`` shows each control (an ipywidgets slider,
checkbox or dropdown; any other value is passed to the callback as it is),
calls ``callback(**values)`` once, and again whenever a control's value
changes. The callback returns a matplotlib ``Figure``, a text, or both as
``(text, figure)``; the panel puts the text in an HTML line and the figure,
drawn to PNG, in an ``Image`` widget (a ``Blitted`` figure redraws only its
moving parts). Each position's text and PNG are kept (``Drawings``), so going
back to a position costs nothing; ``draw_all`` draws every position up front.
Nothing is printed or displayed
through an ``Output`` widget: when a notebook is executed headless,
nbclient answers every output captured by an ``Output`` widget with a
message on the kernel's shell channel, and that send can swallow the
wake-up for the cell's own reply, so the cell then waits for its full
timeout (jupyter/nbclient#312). Setting widget values sends nothing back.
A callback that raises shows its error in the text line; the last picture stays.
Every redraw sets the picture first and the line last, and the line carries the
redraw's number (``data-redraw``): a browser test that sees the number change
knows the picture of that redraw has arrived too.
"""
from __future__ import annotations

import html
import io
import itertools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from IPython.display import display
from ipywidgets.widgets.widget_description import DescriptionStyle
from matplotlib.figure import Figure

from .blit import Blitted
from .progress import ProgressBar

Drawing = Figure | Blitted | str | tuple[str, Figure | Blitted]
HINT = "A slider panel: run this cell (and the ones above it) to use it."
CSS_CLASS = "harness-panel"  # how a browser test finds a panel on the page
MAX_DRAW_ALL = 400
LINE_STYLE = "white-space: pre-wrap; word-break: normal; overflow-wrap: normal"  # wrap between words only


class Panel(widgets.VBox):
    """A box of widgets that, before its cell runs, a notebook shows as a one-line hint, not a repr."""

    def __init__(self, children: list[widgets.Widget], hint: str = HINT) -> None:
        super().__init__(children)
        self.hint = hint

    def __repr__(self) -> str:
        return self.hint


def png(figure: Figure | Blitted) -> bytes:
    """The figure drawn as PNG bytes, at its own size and resolution."""
    if isinstance(figure, Blitted):
        return figure.png()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def split(drawing: Drawing) -> tuple[str | None, Figure | Blitted | None]:
    """(text, figure) of what a callback returned."""
    if isinstance(drawing, (Figure, Blitted)):
        return None, drawing
    if isinstance(drawing, str):
        return drawing, None
    text, figure = drawing
    return text, figure


def readable(name: str, control: widgets.Widget) -> widgets.Widget:
    """Labels shown in full (not cut to the default width; ``name`` when it has none), and sliders
    that act on release."""
    if hasattr(control, "description") and not control.description:
        control.description = name
    if isinstance(getattr(control, "style", None), DescriptionStyle):
        control.style.description_width = "initial"
    if hasattr(control, "continuous_update"):
        control.continuous_update = False
    return control


class Drawings:
    """What the callback drew for each position of the controls (text and PNG), newest kept:
    a position seen before is shown again without calling the callback or drawing."""

    def __init__(self, callback: Callable[..., Drawing], size: int = 256) -> None:
        self.callback, self.size = callback, size
        self.drawn: OrderedDict[tuple, tuple[str | None, bytes | None]] = OrderedDict()

    def __call__(self, **values: Any) -> tuple[str | None, bytes | None]:
        key = tuple(sorted(values.items()))
        try:
            hash(key)
        except TypeError:  # a value that cannot be a key: draw every time
            return self.draw(values)
        if key not in self.drawn:
            self.drawn[key] = self.draw(values)
            if len(self.drawn) > self.size:
                self.drawn.popitem(last=False)
        self.drawn.move_to_end(key)
        return self.drawn[key]

    def draw(self, values: dict[str, Any]) -> tuple[str | None, bytes | None]:
        text, figure = split(self.callback(**values))
        return text, None if figure is None else png(figure)


def positions(control: widgets.ValueWidget) -> list[Any]:
    """Every value a control can take: a slider's steps, a checkbox's two states, a list's options."""
    if isinstance(control, widgets.Checkbox):
        return [False, True]
    if isinstance(control, widgets.IntSlider):
        return list(range(control.min, control.max + 1, control.step))
    if hasattr(control, "_options_full"):  # Dropdown, SelectionSlider, RadioButtons, ...
        return [value for _, value in control._options_full]
    raise TypeError(f"cannot list the positions of a {type(control).__name__}")


def every_position(controls: dict[str, widgets.ValueWidget]) -> list[dict[str, Any]]:
    """Every combination of the controls' positions."""
    names = list(controls)
    return [dict(zip(names, values)) for values in itertools.product(*(positions(c) for c in controls.values()))]


def panel(callback: Callable[..., Drawing], /, *, draw_all: bool = False, **controls: Any) -> Panel:
    """Show the controls, the callback's text and figure, and redraw on every change; returns the panel.

    ``draw_all`` draws every position before the panel is shown (a progress bar counts them), so
    every move is only a look-up; for callbacks too slow to answer a move in time (at most
    ``MAX_DRAW_ALL`` positions)."""
    inputs = {name: readable(name, c) for name, c in controls.items() if isinstance(c, widgets.ValueWidget)}
    fixed = {name: value for name, value in controls.items() if name not in inputs}
    drawings = Drawings(lambda **values: callback(**fixed, **values))
    if draw_all:
        todo = every_position(inputs)
        if len(todo) > MAX_DRAW_ALL:
            raise ValueError(f"{len(todo)} positions are too many to draw up front (at most {MAX_DRAW_ALL})")
        drawings.size = max(drawings.size, len(todo))
        with ProgressBar(len(todo), "drawing every position", unit="position") as bar:
            for values in todo:
                drawings(**values)
                bar.update()
    line = widgets.HTML()
    picture = widgets.Image(format="png")
    redraws = 0

    def redraw(_change: object = None) -> None:
        nonlocal redraws
        redraws += 1
        try:
            text, image = drawings(**{name: c.value for name, c in inputs.items()})
        except Exception as error:  # shown to the student, who can move the slider again
            message = html.escape(f"{type(error).__name__}: {error}")
            line.value = f"<pre data-redraw='{redraws}' style='{LINE_STYLE}; color:#b00020'>{message}</pre>"
            return
        if image is not None:
            picture.value = image
        line.value = f"<pre data-redraw='{redraws}' style='{LINE_STYLE}'>{html.escape(text or '')}</pre>"

    for control in inputs.values():
        control.observe(redraw, names="value")
    redraw()
    box = Panel([widgets.HBox(list(inputs.values()), layout=widgets.Layout(flex_flow="row wrap")), line, picture])
    box.add_class(CSS_CLASS)
    display(box)
    return box
