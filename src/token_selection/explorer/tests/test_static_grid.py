"""The static explorer over a grid computed by ``compute_grid`` (the hand-written grids are in test_static.py)."""

from __future__ import annotations

from token_selection.explorer.static import frame_name, static_explorer, static_figure


def test_a_computed_grid_gives_one_frame_per_point_with_its_values(tiny_grid):
    figure = static_figure(tiny_grid, start=(0.0, 64, 8))
    names = [frame.name for frame in figure.frames]
    assert names == [frame_name(p["delta"], p["d"], p["T"]) for p in tiny_grid["points"]] == ["0,64,4", "0,64,8"]
    assert all(len(frame.data) == len(figure.data) == 11 for frame in figure.frames)
    assert figure.layout.meta == "0,64,8"
    # the frame of a point draws that point's values after one step, one marker per token
    four = tiny_grid["points"][0]
    drawn = [y for trace in figure.frames[0].data[:3] for y in trace.y]
    assert sorted(drawn) == sorted(four["ev"]) and len(drawn) == len(tiny_grid["token_class"])
    bundle = static_explorer(tiny_grid, start=(0.0, 64, 4))._repr_mimebundle_()
    assert len(bundle["application/vnd.plotly.v1+json"]["frames"]) == 2
    assert bundle["application/vnd.plotly.v1+json"]["layout"]["meta"] == "0,64,4"
