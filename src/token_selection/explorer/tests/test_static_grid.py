"""The static explorer over a grid computed by ``compute_grid`` (the hand-written grids are in test_static.py)."""

from __future__ import annotations

from token_selection.explorer.static import static_explorer, static_figure

from .test_static import check_frames


def test_a_computed_grid_gives_one_frame_per_point_with_its_values(tiny_grid):
    check_frames(static_figure(tiny_grid, start=(0.0, 64, 8)), tiny_grid, ["0,64,4", "0,64,8"], "0,64,8")
    bundle = static_explorer(tiny_grid, start=(0.0, 64, 4))._repr_mimebundle_()
    assert len(bundle["application/vnd.plotly.v1+json"]["frames"]) == 2
    assert bundle["application/vnd.plotly.v1+json"]["layout"]["meta"] == "0,64,4"
