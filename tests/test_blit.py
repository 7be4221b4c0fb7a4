"""Blitted figures (harness/labs/blit.py): the still parts drawn once, the moving ones on every picture."""
from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure
from PIL import Image

from harness.labs.blit import Blitted
from harness.labs.panel import png


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))


def moving_line() -> tuple[Figure, object]:
    figure = Figure(figsize=(4, 3))
    ax = figure.subplots()
    ax.plot([0, 1, 2], [2, 0, 1], color="grey", label="still")
    (line,) = ax.plot([], [], color="blue", label="moving")
    ax.set(xlim=(0, 2), ylim=(0, 2), xlabel="x", ylabel="y")
    ax.legend(loc="upper left")
    return figure, line


def test_a_blitted_picture_is_the_full_drawing_of_the_same_state():
    figure, line = moving_line()
    blitted = Blitted(figure, [line, figure.axes[0].get_legend(), figure.axes[0].title])
    for ys, title in (([0, 1, 2], "rising"), ([2, 2, 0], "falling")):
        line.set_data([0, 1, 2], ys)
        figure.axes[0].set_title(title)
        assert np.array_equal(pixels(blitted.png()), pixels(png_of_full_draw(figure, blitted)))


def png_of_full_draw(figure: Figure, blitted: Blitted) -> bytes:
    """The same figure drawn whole, moving artists included."""
    for artist in blitted.moving:
        artist.set_animated(False)
    try:
        return png(figure)
    finally:
        for artist in blitted.moving:
            artist.set_animated(True)


def test_going_back_to_a_state_gives_the_same_picture_and_leaves_no_trace_of_the_others():
    figure, line = moving_line()
    blitted = Blitted(figure, [line])
    line.set_data([0, 2], [0, 2])
    first = blitted.png()
    line.set_data([0, 2], [2, 0])
    other = blitted.png()
    line.set_data([0, 2], [0, 2])
    assert blitted.png() == first != other
    assert png(blitted) == first  # the panel draws a Blitted through the same png()
