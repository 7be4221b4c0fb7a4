"""The progress bar (harness.labs.progress): a widget while it runs, then the one line it showed from
the start, so a stored notebook never holds a frozen bar and nbval sees the same line on a re-run."""
from __future__ import annotations

import pytest

from harness.labs import progress
from harness.labs.progress import WIDGET_VIEW, ProgressBar, line


class FakeHandle:
    def __init__(self, shown: list) -> None:
        self.shown = shown

    def update(self, bundle, raw=False):
        self.shown.append(("update", bundle))


@pytest.fixture
def kernel(monkeypatch):
    """Pretend to be in a kernel: record what is displayed and how it is updated."""
    shown: list = []
    monkeypatch.setattr(progress, "in_kernel", lambda: True)
    import IPython.display
    monkeypatch.setattr(IPython.display, "display",
                        lambda bundle, raw=False, display_id=False: shown.append(("display", bundle)) or FakeHandle(shown))
    return shown


def test_the_line_counts_in_the_unit_given():
    assert line("sweep", 8) == "sweep: 8 runs" and line("sweep", 1) == "sweep: 1 run"
    assert line("drawing every position", 1_200, "position") == "drawing every position: 1,200 positions"


def test_in_a_kernel_the_bar_ends_as_the_line_it_showed_from_the_start(kernel):
    with ProgressBar(3, "sweep") as bar:
        for _ in range(3):
            bar.update()
        assert bar._widget.value == 3 and bar._widget.max == 3
    (first, first_bundle), (then, last_bundle) = kernel
    assert first == "display" and first_bundle["text/plain"] == "sweep: 3 runs" and WIDGET_VIEW in first_bundle
    assert then == "update" and last_bundle == {"text/plain": "sweep: 3 runs"}
    bar.close()  # closing twice changes nothing
    assert len(kernel) == 2


def test_a_disabled_bar_shows_nothing(kernel, capsys):
    with ProgressBar(3, "sweep", enabled=False) as bar:
        bar.update()
    assert kernel == [] and capsys.readouterr().err == ""


def test_outside_a_kernel_it_is_a_text_bar_on_stderr(capsys):
    with ProgressBar(2, "sweep") as bar:
        bar.update()
        bar.update()
    assert "sweep" in capsys.readouterr().err
