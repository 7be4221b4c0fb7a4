"""A slider panel: controls on top, one line of numbers and one picture below, updated in place (chapter 00).

``panel(callback, **controls)`` shows each control (an ipywidgets slider,
checkbox or dropdown; any other value is passed to the callback as it is),
calls ``callback(**values)`` once, and again whenever a control's value
changes. The callback returns a matplotlib ``Figure``, a text, or both as
``(text, figure)``; the panel puts the text in an HTML line and the figure,
drawn to PNG, in an ``Image`` widget. Nothing is printed or displayed
through an ``Output`` widget: when a notebook is executed headless,
nbclient answers every output captured by an ``Output`` widget with a
message on the kernel's shell channel, and that send can swallow the
wake-up for the cell's own reply, so the cell then waits for its full
timeout (jupyter/nbclient#312). Setting widget values sends nothing back.
A callback that raises shows its error in the text line; the last picture stays.
"""
from __future__ import annotations

import html
import io
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from IPython.display import display
from ipywidgets.widgets.widget_description import DescriptionStyle
from matplotlib.figure import Figure

Drawing = Figure | str | tuple[str, Figure]
HINT = "A slider panel: run this cell (and the ones above it) to use it."
CSS_CLASS = "harness-panel"  # how a browser test finds a panel on the page


class Panel(widgets.VBox):
    """The panel's widget; before its cell runs, a notebook shows the one-line hint instead of a repr."""

    def __repr__(self) -> str:
        return HINT


def png(figure: Figure) -> bytes:
    """The figure drawn as PNG bytes, at its own size and resolution."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def split(drawing: Drawing) -> tuple[str | None, Figure | None]:
    """(text, figure) of what a callback returned."""
    if isinstance(drawing, Figure):
        return None, drawing
    if isinstance(drawing, str):
        return drawing, None
    text, figure = drawing
    return text, figure


def readable(control: widgets.Widget) -> widgets.Widget:
    """Labels shown in full (not cut to the default width), and sliders that act on release."""
    if isinstance(getattr(control, "style", None), DescriptionStyle):
        control.style.description_width = "initial"
    if hasattr(control, "continuous_update"):
        control.continuous_update = False
    return control


def panel(callback: Callable[..., Drawing], /, **controls: Any) -> Panel:
    """Show the controls, the callback's text and figure, and redraw on every change; returns the panel."""
    inputs = {name: readable(c) for name, c in controls.items() if isinstance(c, widgets.ValueWidget)}
    fixed = {name: value for name, value in controls.items() if name not in inputs}
    line = widgets.HTML()
    picture = widgets.Image(format="png")

    def redraw(_change: object = None) -> None:
        try:
            text, figure = split(callback(**fixed, **{name: c.value for name, c in inputs.items()}))
        except Exception as error:  # shown to the student, who can move the slider again
            line.value = f"<pre style='color:#b00020'>{html.escape(f'{type(error).__name__}: {error}')}</pre>"
            return
        line.value = f"<pre>{html.escape(text)}</pre>" if text else ""
        if figure is not None:
            picture.value = png(figure)

    for control in inputs.values():
        control.observe(redraw, names="value")
    redraw()
    box = Panel([widgets.HBox(list(inputs.values()), layout=widgets.Layout(flex_flow="row wrap")), line, picture])
    box.add_class(CSS_CLASS)
    display(box)
    return box
