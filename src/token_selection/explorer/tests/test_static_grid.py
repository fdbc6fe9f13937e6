"""The static explorer over a grid computed by ``compute_grid`` (the hand-written grids are in test_static.py)."""

from __future__ import annotations

import pytest

from token_selection.explorer.static import static_explorer, static_figure

from .test_static import check_frames


def test_a_computed_grid_gives_one_frame_per_point_with_its_values(tiny_grid):
    # a grid without a seed axis holds seed 0, and gets three sliders, as wide as their lines ask
    figure = static_figure(tiny_grid, start=(0.0, 64, 8))
    check_frames(figure, tiny_grid, ["0,64,4,0", "0,64,8,0"], "0,64,8,0")
    places = [value for s in figure.layout.sliders for value in (s.x, s.len)]
    lengths = [0.9 * n / 71 for n in (25, 23, 23)]  # "delta (relevant rate) = 0", "d (...) = 64", "T (...) = 4"
    assert places == pytest.approx([0, lengths[0], lengths[0] + 0.05, lengths[1], sum(lengths[:2]) + 0.1, lengths[2]])
    bundle = static_explorer(tiny_grid, start=(0.0, 64, 4))._repr_mimebundle_()
    assert len(bundle["application/vnd.plotly.v1+json"]["frames"]) == 2
    assert bundle["application/vnd.plotly.v1+json"]["layout"]["meta"] == "0,64,4,0"
