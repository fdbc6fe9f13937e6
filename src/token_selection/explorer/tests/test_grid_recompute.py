"""The grid against ``explore`` itself: a computed grid holds what ``explore`` returns, the shipped grid is current, and
the spot check fails when the numbers change, not when the code changes without changing them. These tests run
``explore``; the grid's bookkeeping is tested without it in ``test_grid.py``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from token_selection.explorer import compute as compute_module
from token_selection.explorer import grid as grid_module
from token_selection.explorer.compute import explore
from token_selection.explorer.grid import (
    GRID_PATH,
    SPOT_CHECK_POINTS,
    check_grid_points,
    checksum_path,
    grid_point,
    mismatch_message,
    read_grid,
    write_grid,
)

from .conftest import TINY_AXES


def test_grid_round_trip_and_lookup(tmp_path, tiny_grid):
    assert len(tiny_grid["points"]) == 2 and len(tiny_grid["token_class"]) == 50
    path = tmp_path / "grid.json"
    digest = write_grid(tiny_grid, path)
    assert checksum_path(path).read_text() == f"{digest}  grid.json\n"
    loaded = read_grid(path, axes=TINY_AXES)
    assert loaded == json.loads(json.dumps(tiny_grid))
    point = grid_point(loaded, 0.0, 64, 8)
    direct = explore(0.0, 64, 8, **grid_module.fixed_settings())
    # stored with 4 significant digits: relative rounding error at most 5e-4
    assert point["corr"] == pytest.approx(direct.correlation, rel=5e-4)
    assert point["eta_star"] == pytest.approx(direct.eta_star, rel=5e-4)
    assert point["notice"] == direct.notice
    assert len(point["ev"]) == 50 and len(point["step"]) == len(point["att_min"])
    with pytest.raises(ValueError, match="not a grid point"):
        grid_point(loaded, 0.0, 64, 16)


def test_the_shipped_grid_is_package_data_and_current():
    assert GRID_PATH.parent.name == "explorer" and GRID_PATH.parent.parent.name == "token_selection"
    grid = read_grid()  # the default path is the package's own copy
    assert len(grid["points"]) == math.prod(len(v) for v in grid_module.GRID_AXES.values())
    differences = check_grid_points(grid)  # the present code computes the stored numbers
    assert not differences, mismatch_message(GRID_PATH, differences, len(SPOT_CHECK_POINTS))


def test_an_edit_that_changes_no_number_keeps_the_grid_current(tmp_path, tiny_grid):
    """Only axes and fixed settings are compared on reading: a comment, a refactoring or a new version is no staleness."""
    assert set(grid_module.grid_config()) == {"axes", "settings"}
    older = json.loads(json.dumps(tiny_grid))
    older["config"].update(code_sha256="0" * 64, package_version="0.0.1")  # what grids written before the spot check held
    write_grid(older, tmp_path / "grid.json")
    assert read_grid(tmp_path / "grid.json", axes=TINY_AXES)["points"] == older["points"]
    assert check_grid_points(older, [(0.0, 64, 4), (0.0, 64, 8)]) == []


def test_an_edit_that_changes_the_numbers_is_reported_without_advising_to_regenerate_first(tiny_grid, monkeypatch):
    real = compute_module.step_size_threshold
    monkeypatch.setattr(compute_module, "step_size_threshold", lambda *a, **k: 1.01 * real(*a, **k))  # a 1% slip
    differences = check_grid_points(tiny_grid, [(0.0, 64, 8)])
    assert any(line.startswith("(delta=0, d=64, T=8) eta_star: stored ") for line in differences)
    assert any("relative difference 0.01 > 0.002" in line for line in differences)
    message = mismatch_message(Path("grid.json"), differences, 1)
    assert "no longer matches what the present code computes" in message and differences[0] in message
    assert "Find out which edit and why before regenerating" in message
    assert message.index("Find out") < message.index("--force")  # understanding first, regenerating last
