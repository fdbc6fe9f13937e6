"""Tests of the precomputed grid: round trip, lookup, a cache that detects damage, staleness and absence, and a spot
check that recomputes grid points: it fails when the numbers change, not when the code changes without changing them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from token_selection.explorer import compute as compute_module
from token_selection.explorer import grid as grid_module
from token_selection.explorer.compute import explore
from token_selection.explorer.config import DEFAULT_CONFIG
from token_selection.explorer.grid import (
    GRID_PATH,
    SPOT_CHECK_POINTS,
    GridCacheError,
    check_grid_points,
    checksum_path,
    grid_point,
    load_or_compute_grid,
    mismatch_message,
    payload_differences,
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


def test_grid_cache_detects_damage_staleness_and_absence(tmp_path, tiny_grid):
    path = tmp_path / "grid.json"
    with pytest.raises(GridCacheError, match="is missing"):
        read_grid(path, axes=TINY_AXES)

    write_grid(tiny_grid, path)
    path.write_bytes(path.read_bytes().replace(b'"corr":', b'"corr": ', 1))
    with pytest.raises(GridCacheError, match="fails its checksum"):
        read_grid(path, axes=TINY_AXES)

    stale = json.loads(json.dumps(tiny_grid))
    stale["config"]["settings"]["n"] += 2  # computed under other fixed settings
    write_grid(stale, path)
    with pytest.raises(GridCacheError, match="is stale"):
        read_grid(path, axes=TINY_AXES)
    read_grid(path, axes=TINY_AXES, require_current=False)  # the checksum itself is fine

    write_grid(tiny_grid, path)
    with pytest.raises(GridCacheError, match="is stale"):
        read_grid(path)  # current for TINY_AXES, not for the chapter's axes


def test_load_or_compute_grid_recomputes_when_the_cache_is_unusable(tmp_path, tiny_grid, monkeypatch):
    monkeypatch.setattr(grid_module, "compute_grid", lambda **kwargs: tiny_grid)
    grid, status = load_or_compute_grid(tmp_path / "missing.json", progress=False)
    assert grid is tiny_grid
    assert "is missing" in status and "scripts/build_explorer_grid.py" in status and "Recomputed" in status


def test_the_shipped_grid_is_package_data_and_current():
    assert GRID_PATH.parent.name == "explorer" and GRID_PATH.parent.parent.name == "token_selection"
    grid = read_grid()  # the default path is the package's own copy
    assert len(grid["points"]) == math.prod(len(v) for v in grid_module.GRID_AXES.values())
    differences = check_grid_points(grid)  # the present code computes the stored numbers
    assert not differences, mismatch_message(GRID_PATH, differences, len(SPOT_CHECK_POINTS))


RULES = (  # what_to_notice's rules in its order, each by a phrase only its sentence holds
    ("noise", "the noise"),
    ("no p_mm", "no max-margin direction"),
    ("missed", "selects irrelevant tokens in"),
    ("partial", "of its own selection"),
    ("several", "p selects all of them"),
    ("converges", "p converges to p_mm"),
    ("not yet", "still off p_mm"),
)


def _rule(notice: str) -> str:
    return next(name for name, phrase in RULES if phrase in notice)


def test_the_spot_check_points_are_grid_points_and_cover_the_sentences_the_grid_shows():
    grid = read_grid()
    rule = {
        point: next(name for name, phrase in RULES if phrase in grid_point(grid, *point)["notice"]) for point in SPOT_CHECK_POINTS
    }
    shown = {next(name for name, phrase in RULES if phrase in p["notice"]) for p in grid["points"]}
    assert set(rule.values()) == shown  # every kind of sentence the grid holds is recomputed at least once
    assert rule[(DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T)] == "converges"


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


def test_payload_differences_tolerances_on_their_boundary():
    exact = 2.0**-9  # binary fractions: the boundary is hit exactly
    stored = {"x": 1.0, "v": [0.0, 2.0, None], "msg": "a", "step": [0, 10], "cos": None}
    assert payload_differences(stored, dict(stored), rtol=exact, atol=0.0) == []
    on_rtol = {**stored, "x": 1.0 + exact}
    assert payload_differences(stored, on_rtol, rtol=exact, atol=0.0) == []
    assert payload_differences(stored, {**stored, "x": 1.0 + 2 * exact}, rtol=exact, atol=0.0) != []
    # atol is relative to the field's largest magnitude (2.0 here): the zero entry may move by atol * 2
    assert payload_differences(stored, {**stored, "v": [2 * exact, 2.0, None]}, rtol=0.0, atol=exact) == []
    assert payload_differences(stored, {**stored, "v": [4 * exact, 2.0, None]}, rtol=0.0, atol=exact) != []
    for changed in ({"v": [0.0, 2.0, 1.0]}, {"v": [0.0, 2.0]}, {"msg": "b"}, {"step": [0, 11]}, {"cos": [1.0]}, {"new": 1}):
        assert payload_differences(stored, {**stored, **changed}) != [], changed
    line = payload_differences({"v": [1.0, 1.0, 1.0]}, {"v": [1.0, 1.5, 1.25]})[0]
    assert line == "v: stored 1, recomputed 1.5 (worst of 2 entries), relative difference 0.5 > 0.002"


def test_rounding_keeps_four_significant_digits_and_drops_non_finite():
    assert grid_module._rounded(0.123456) == 0.1235
    assert grid_module._rounded([1234567.0, math.nan, -math.inf]) == [1235000.0, None, None]
