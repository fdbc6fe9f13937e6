"""Tests of the precomputed grid: round trip, lookup, and a cache that detects damage, staleness and absence."""

from __future__ import annotations

import json
import math

import pytest

from token_selection.explorer import grid as grid_module
from token_selection.explorer.compute import explore
from token_selection.explorer.grid import (
    GRID_PATH,
    GridCacheError,
    checksum_path,
    grid_point,
    load_or_compute_grid,
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
    stale["config_sha256"] = "0" * 64  # written by other code or settings
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


def test_code_hash_covers_the_computing_modules_and_changes_with_their_source(monkeypatch):
    modules = grid_module.source_modules()
    for name in ("theory.max_margin", "theory.one_step", "theory.training", "explorer.compute", "explorer.config"):
        assert f"token_selection.{name}" in modules
    assert not {"token_selection.explorer.static", "token_selection.explorer.panels"} & set(modules)  # drawing only
    digest = grid_module.code_sha256()
    assert len(digest) == 64 and digest == grid_module.code_sha256()
    assert grid_module.config_sha256(grid_module.grid_config()) != grid_module.config_sha256(grid_module.grid_config(TINY_AXES))

    real = grid_module.inspect.getsource

    def edited(module):
        return real(module) + ("# edited" if module.__name__ == "token_selection.theory.max_margin" else "")

    monkeypatch.setattr(grid_module.inspect, "getsource", edited)
    assert grid_module.code_sha256() != digest


def test_rounding_keeps_four_significant_digits_and_drops_non_finite():
    assert grid_module._rounded(0.123456) == 0.1235
    assert grid_module._rounded([1234567.0, math.nan, -math.inf]) == [1235000.0, None, None]
