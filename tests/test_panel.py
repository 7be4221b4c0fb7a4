"""The slider panel (harness/labs/panel.py): redraws in place, shows errors, never goes through an Output widget."""
from __future__ import annotations

import ipywidgets as widgets
import pytest
from matplotlib.figure import Figure

from harness.labs.panel import HINT, Panel, panel


def square(n: int, label: str) -> tuple[str, Figure]:
    fig = Figure(figsize=(2, 2))
    fig.subplots().plot(range(n), [i * i for i in range(n)])
    return f"{label}: {n * n:,}", fig


def parts(box: Panel) -> tuple[widgets.HBox, widgets.HTML, widgets.Image]:
    controls, line, picture = box.children
    return controls, line, picture


def test_the_panel_draws_once_and_again_on_every_change(capsys):
    slider = widgets.IntSlider(value=3, min=1, max=50, description="a long description")
    box = panel(square, n=slider, label="squared")
    assert capsys.readouterr().out.strip() == HINT  # displayed once; outside Jupyter, as the hint
    controls, line, picture = parts(box)
    assert controls.children == (slider,) and "squared: 9" in line.value
    first = bytes(picture.value)
    assert first.startswith(b"\x89PNG")
    slider.value = 40
    assert "squared: 1,600" in line.value and bytes(picture.value) != first


def test_labels_show_in_full_and_sliders_act_on_release():
    slider, box = widgets.IntSlider(), widgets.Checkbox(description="preserve read_file")
    panel(lambda n, flag: f"{n} {flag}", n=slider, flag=box)
    assert slider.style.description_width == box.style.description_width == "initial"
    assert slider.continuous_update is False


def test_a_text_only_callback_and_an_error_keep_the_last_picture():
    slider = widgets.IntSlider(value=2, min=0, max=5)
    box = panel(lambda n: (f"n={n}", square(n, "x")[1]) if n else f"{1 // n}", n=slider)
    _, line, picture = parts(box)
    drawn = bytes(picture.value)
    slider.value = 0
    assert "ZeroDivisionError" in line.value and bytes(picture.value) == drawn


def test_no_output_widget_is_used():
    box = panel(square, n=widgets.IntSlider(value=2), label="x")
    assert not any(isinstance(w, widgets.Output) for w in (box, *box.children))
    assert repr(box) == HINT


def counting(calls: list):
    def callback(n: int, flag: bool = False) -> str:
        calls.append((n, flag))
        return f"n={n} flag={flag}"
    return callback


def test_a_position_seen_before_is_shown_again_without_calling_back():
    calls: list = []
    slider = widgets.IntSlider(value=1, min=0, max=5)
    box = panel(counting(calls), n=slider)
    slider.value = 2
    slider.value = 1
    _, line, _ = parts(box)
    assert calls == [(1, False), (2, False)] and "n=1" in line.value


def test_every_redraw_is_numbered_on_the_line():
    slider = widgets.IntSlider(value=1, min=0, max=5)
    _, line, _ = parts(panel(lambda n: f"{n}", n=slider))
    assert "data-redraw='1'" in line.value
    slider.value = 3
    assert "data-redraw='2'" in line.value


def test_a_control_without_a_description_is_labelled_by_its_name():
    slider = widgets.IntSlider()
    panel(lambda keep_recent: "x", keep_recent=slider)
    assert slider.description == "keep_recent"


def test_draw_all_draws_every_position_once_before_showing():
    calls: list = []
    slider, flag = widgets.IntSlider(value=0, min=0, max=4, step=2), widgets.Checkbox()
    box = panel(counting(calls), draw_all=True, n=slider, flag=flag)
    assert sorted(calls) == sorted((n, f) for n in (0, 2, 4) for f in (False, True))
    drawn = len(calls)
    slider.value, flag.value = 4, True
    assert len(calls) == drawn and "n=4 flag=True" in parts(box)[1].value


def test_draw_all_lists_dropdown_options_and_refuses_too_many_positions():
    calls: list = []
    panel(counting(calls), draw_all=True, n=widgets.Dropdown(options=[("one", 1), ("two", 2)], value=1))
    assert sorted(calls) == [(1, False), (2, False)]
    with pytest.raises(ValueError, match="too many to draw up front"):
        panel(counting([]), draw_all=True, n=widgets.IntSlider(min=0, max=10_000))
