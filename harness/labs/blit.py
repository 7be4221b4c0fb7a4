"""A slider figure drawn in two layers: the still parts once, the moving parts on every move (chapter 02).

Drawing a matplotlib figure to PNG costs 100-250 ms here, most of it laying out
and rendering text (tick labels, legends) that no slider move changes. ``Blitted``
draws everything except its ``moving`` artists once, keeps that picture as a
background, and for each new picture pastes the background back and draws only
the moving artists on it (matplotlib's blitting). It is for figures whose axes
never change: fix their limits before the first picture, since a moving artist
outside the axes' limits is cut off, and ticks are part of the background.
The moving artists are put on top of everything else, in the order given (a
legend a moving curve may cross goes last), so a full drawing of the figure
and a blitted one are the same picture.
"""
from __future__ import annotations

import io
from collections.abc import Sequence

from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

TOP = 100  # above every still artist (matplotlib's own go up to 5, legends)


class Blitted:
    """``figure`` with the artists that change between pictures named; ``png()`` draws it."""

    def __init__(self, figure: Figure, moving: Sequence[Artist]) -> None:
        self.figure, self.moving = figure, list(moving)
        for rank, artist in enumerate(self.moving):
            artist.set_zorder(TOP + rank)  # a full drawing stacks them as the blitted one does
        self.canvas = FigureCanvasAgg(figure)
        self.background = None

    def png(self) -> bytes:
        """The figure as it is now, as PNG bytes; the still parts are drawn only the first time."""
        if self.background is None:
            for artist in self.moving:
                artist.set_animated(True)  # left out of the full draw: the background is the rest
            self.canvas.draw()
            self.background = self.canvas.copy_from_bbox(self.figure.bbox)
        else:
            self.canvas.restore_region(self.background)
        for artist in self.moving:
            self.figure.draw_artist(artist)
        image = Image.frombuffer("RGBA", self.canvas.get_width_height(), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buffer = io.BytesIO()
        image.save(buffer, format="png")
        return buffer.getvalue()
