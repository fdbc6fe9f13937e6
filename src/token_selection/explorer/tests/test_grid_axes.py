"""A grid with several values on every axis, of uneven lengths: each point is found where compute_grid put it."""

from __future__ import annotations

import itertools

import pytest

from token_selection.explorer.grid import compute_grid, grid_point, read_grid, write_grid

UNEVEN_AXES = {"delta": (0.0, 0.1), "d": (256, 512, 1024), "T": (4, 8)}
"""2 x 3 x 2 points: every axis has several values and no two axes have the same length."""


@pytest.fixture(scope="module")
def uneven_grid():
    return compute_grid(UNEVEN_AXES, progress=False)


def test_every_point_is_found_at_its_own_setting(uneven_grid):
    assert len(uneven_grid["points"]) == 12
    assert uneven_grid["config"]["axes"] == {"delta": [0.0, 0.1], "d": [256, 512, 1024], "T": [4, 8]}
    for delta, d, T in itertools.product(*UNEVEN_AXES.values()):
        point = grid_point(uneven_grid, delta, d, T)
        assert (point["delta"], point["d"], point["T"]) == (delta, d, T)
        assert point["notice"].startswith(f"delta={delta:g}, d={d}, T={T}: ")
    assert grid_point(uneven_grid, 0.1 + 1e-13, 512, 8)["d"] == 512  # delta matched to rounding


@pytest.mark.parametrize(("delta", "d", "T"), [(0.2, 256, 4), (0.0, 128, 4), (0.0, 256, 16), (0.05, 512, 8)])
def test_a_setting_off_any_axis_is_not_a_grid_point(uneven_grid, delta, d, T):
    with pytest.raises(ValueError, match="is not a grid point"):
        grid_point(uneven_grid, delta, d, T)


def test_the_grid_is_current_for_its_own_axes_only(uneven_grid, tmp_path):
    path = tmp_path / "grid.json"
    write_grid(uneven_grid, path)
    assert read_grid(path, axes=UNEVEN_AXES)["points"] == uneven_grid["points"]
    reordered = {"delta": (0.0, 0.1), "d": (256, 1024, 512), "T": (4, 8)}
    with pytest.raises(ValueError, match="is stale"):
        read_grid(path, axes=reordered)  # the order of an axis is its points' order
