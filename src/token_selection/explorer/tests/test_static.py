"""Tests of the static explorer: frames for every point, sliders that compose, and where plotly.js comes from."""

from __future__ import annotations

import sys
import types

import pytest

from token_selection.explorer.static import (
    BOOK_PLOTLYJS,
    ELEMENT_ID,
    PANEL_TITLES,
    frame_name,
    static_explorer,
    static_figure,
)


@pytest.fixture(scope="module")
def figure(tiny_grid):
    return static_figure(tiny_grid, start=(0.0, 64, 8))


def test_one_frame_per_grid_point_with_every_trace(figure, tiny_grid):
    names = [frame.name for frame in figure.frames]
    assert names == [frame_name(p["delta"], p["d"], p["T"]) for p in tiny_grid["points"]] == ["0,64,4", "0,64,8"]
    assert all(len(frame.data) == len(figure.data) == 11 for frame in figure.frames)
    assert figure.layout.meta == "0,64,8"
    # the frame of a point draws that point's values after one step
    four = tiny_grid["points"][0]
    drawn = [y for trace in figure.frames[0].data[:3] for y in trace.y]
    assert sorted(drawn) == sorted(four["ev"])


def test_each_slider_step_changes_its_own_setting_only(figure):
    for frame in figure.frames:
        here = frame.name.split(",")
        for k, slider in enumerate(frame.layout.sliders):
            assert list(slider.steps[slider.active].args[0]) == [frame.name]  # each slider shows where the figure is
            for step in slider.steps:
                there = step.args[0][0].split(",")
                assert [a for i, a in enumerate(there) if i != k] == [a for i, a in enumerate(here) if i != k]


def test_panel_titles_sit_over_their_panels(figure):
    titles = [a for a in figure.layout.annotations if a.text in PANEL_TITLES]
    assert [a.text for a in titles] == list(PANEL_TITLES)
    for title, axis in zip(titles, ("xaxis", "xaxis2", "xaxis3"), strict=True):
        lo, hi = figure.layout[axis].domain
        assert title.x == pytest.approx((lo + hi) / 2, abs=1e-9)
        # the gap between panels (0.1 of the width, ~100 px on a book page) needs titles under ~30 characters
        assert len(title.text) <= 30
    assert all(figure.layout[axis].automargin for axis in ("xaxis", "yaxis", "yaxis2", "yaxis3"))


def test_html_loads_plotly_from_the_book_or_from_colab(tiny_grid, monkeypatch):
    bundle = static_explorer(tiny_grid, start=(0.0, 64, 4))._repr_mimebundle_()
    assert f'src="{BOOK_PLOTLYJS}"' in bundle["text/html"] and f'id="{ELEMENT_ID}"' in bundle["text/html"]
    assert "cdn.plot.ly" not in bundle["text/html"]
    assert len(bundle["application/vnd.plotly.v1+json"]["frames"]) == 2

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    colab = static_explorer(tiny_grid, start=(0.0, 64, 4))._repr_mimebundle_()
    assert set(colab) == {"text/html"} and "cdn.plot.ly" in colab["text/html"]
