"""Tests of the precomputed grid's bookkeeping, without running ``explore`` (hand-made results and payloads): lookup,
a cache that detects damage, staleness and absence, the payload of a point and the spot check's comparison. The tests
that run ``explore`` are in ``test_grid_recompute.py``."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from token_selection._version import __version__
from token_selection.explorer import grid as grid_module
from token_selection.explorer.config import DEFAULT_CONFIG
from token_selection.explorer.grid import (
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
from token_selection.theory.synthetic import make_synthetic

from .conftest import TINY_AXES, hand_made_result


def test_grid_cache_detects_damage_staleness_and_absence(tmp_path):
    tiny_grid = _tiny()
    path = tmp_path / "grid.json"
    with pytest.raises(GridCacheError, match="is missing"):
        read_grid(path, axes=TINY_AXES)

    write_grid(tiny_grid, path)
    path.write_bytes(path.read_bytes().replace(b'"i":', b'"i": ', 1))
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


def test_load_or_compute_grid_recomputes_when_the_cache_is_unusable(tmp_path, monkeypatch):
    tiny_grid = _tiny()
    monkeypatch.setattr(grid_module, "compute_grid", lambda **kwargs: tiny_grid)
    grid, status = load_or_compute_grid(tmp_path / "missing.json", progress=False)
    assert grid is tiny_grid
    assert "is missing" in status and "scripts/build_explorer_grid.py" in status and "Recomputed" in status


RULES = (  # what_to_notice's rules in its order, each by a phrase only its sentence holds
    ("noise", "the noise"),
    ("no p_mm", "no max-margin direction"),
    ("lost", "an irrelevant token takes their attention"),
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
    # the seed slider's reason to be: at the reference setting one seed of the axis ends one-sided
    at_reference = [grid_point(grid, 0.0, 512, 8, seed) for seed in grid["config"]["axes"]["seed"]]
    assert {_rule(p["notice"]) for p in at_reference} == {"converges", "lost"}, [p["notice"] for p in at_reference]


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


# The grid's bookkeeping with explore replaced: hand-made results and payloads, no run.


def test_the_fixed_settings_are_the_live_defaults_off_the_sliders():
    assert grid_module.fixed_settings() == {
        "n": DEFAULT_CONFIG.n, "step_factor": DEFAULT_CONFIG.step_factor, "p_steps": DEFAULT_CONFIG.p_steps,
        "vocab_size": DEFAULT_CONFIG.vocab_size, "p_lr": DEFAULT_CONFIG.p_lr, "zipf": DEFAULT_CONFIG.zipf,
    }  # fmt: skip
    assert DEFAULT_CONFIG.seed == 0  # what a grid without a seed axis holds


def test_grid_config_stores_delta_as_floats_and_sizes_as_integers():
    axes = {"T": (8.0, 4), "delta": (0, 1), "d": (np.int64(64), 16.0), "ignored": (1,)}
    config = grid_module.grid_config(axes)
    assert config == {"axes": {"delta": [0.0, 1.0], "d": [64, 16], "T": [8, 4]}, "settings": grid_module.fixed_settings()}
    assert [type(v) for v in config["axes"]["delta"] + config["axes"]["d"]] == [float, float, int, int]
    assert list(config["axes"]) == ["delta", "d", "T"]
    assert grid_module.grid_config()["axes"] == {k: list(v) for k, v in grid_module.GRID_AXES.items()}
    seeded = grid_module.grid_config({"seed": (2.0, np.int64(0)), **axes})["axes"]
    assert list(seeded) == ["delta", "d", "T", "seed"] and seeded["seed"] == [2, 0]
    assert [type(v) for v in seeded["seed"]] == [int, int]


def test_config_sha256_is_of_the_canonical_json():
    assert grid_module.config_sha256({"b": [1, 2], "a": 0.5}) == hashlib.sha256(b'{"a": 0.5, "b": [1, 2]}').hexdigest()
    assert grid_module.config_sha256({"a": 0.5, "b": [1, 2]}) != grid_module.config_sha256({"a": 0.5, "b": [2, 1]})


@pytest.mark.parametrize(
    ("value", "digits", "rounded"),
    [
        (123456, 4, 123500.0),  # an int is a number too
        (np.int64(-98765), 2, -99000.0),
        (np.float32(0.5), 4, 0.5),
        (2.0 / 3.0, 2, 0.67),
        (math.inf, 4, None),
        ([1 / 3, math.nan], 3, [0.333, None]),
        (np.array([[1.23456], [7.0]]).ravel(), 4, [1.235, 7.0]),
    ],
)
def test_rounding_to_significant_digits(value, digits, rounded):
    assert grid_module._rounded(value, digits) == rounded


def test_a_point_payload_holds_what_the_panels_draw_rounded():
    result = hand_made_result(
        eta_star=4.123456, step_size=10.98765, correlation=0.987654, selection_cosine=0.912345, final_cosine=0.954321
    )
    payload = grid_module.point_payload(result)
    assert payload == {
        "delta": 0.25, "d": 64, "T": 6, "seed": 3, "eta_star": 4.123, "eta": 10.99,
        "alpha": [0.5, -0.25, 0.0, 0.125, 0.75, -0.125], "ev": [1.0, -0.5, 0.25, 0.5, 2.0, -0.25],
        "ep": [3.0, 2.0, -1.0, -1.5, 4.0, -0.5], "step": [0, 1, 10, 100], "cos": [0.0, 0.5, 0.9, 0.96],
        "att_mean": [0.3, 0.4, 0.8, 0.99], "att_min": [0.1, 0.2, 0.6, 0.95], "corr": 0.9877, "corr_pred": 0.9287,
        "slope": 2.5, "pred": 3.0, "cos_final": 0.9543, "cos_own": 0.9123, "rel": 1.5, "sel": 1.5, "lost": 0.0, "opt": 1.0,
        "msg": "",
        # the sentence of the stored numbers (the hand-made result's own notice is a placeholder)
        "notice": "delta=0.25, d=64, T=6: several relevant tokens per sequence (1.5 on average), and p attends to all "
        "of them (cos(p, p_mm) = 0.954)",
    }  # fmt: skip
    assert [type(s) for s in payload["step"]] == [int] * 4
    json.dumps(payload)  # JSON-ready
    no_pmm = grid_module.point_payload(replace(result, final_cosine=None, selection_cosine=None, max_margin_message="why"))
    assert (no_pmm["cos"], no_pmm["cos_final"], no_pmm["cos_own"], no_pmm["msg"]) == (None, None, None, "why")
    assert grid_module.point_payload(replace(result, selection_cosine=None))["cos_own"] is None


@pytest.fixture
def fake_points(monkeypatch):
    """compute_grid with each point's payload replaced by its coordinates (no explore run); the calls are recorded."""
    calls = []

    def compute_point(point):
        calls.append(point)
        return {"delta": point[0], "d": point[1], "T": point[2], "seed": point[3] if len(point) > 3 else None}

    monkeypatch.setattr(grid_module, "_compute_point", compute_point)
    monkeypatch.setattr(grid_module, "ProcessPoolExecutor", _SerialPool)  # no worker processes in these tests
    monkeypatch.setattr(_SerialPool, "built", [])
    return calls


def test_compute_grid_orders_the_points_delta_major_and_records_its_config(fake_points):
    axes = {"delta": (0.0, 0.5), "d": (16, 32, 64), "T": (8, 4), "seed": (3, 0)}
    grid = grid_module.compute_grid(axes, progress=False)
    points = [(p["delta"], p["d"], p["T"], p["seed"]) for p in grid["points"]]
    expected = [(delta, d, T, seed) for delta in (0.0, 0.5) for d in (16, 32, 64) for T in (8, 4) for seed in (3, 0)]
    assert points == fake_points == expected
    assert grid["format"] == grid_module.GRID_FORMAT == 4
    assert grid["config"] == grid_module.grid_config(axes) | {"package_version": __version__}
    assert grid["config_sha256"] == grid_module.config_sha256(grid_module.grid_config(axes))  # the version left out
    assert grid["token_class"] == make_synthetic(2, 2, 50, 0.0).token_class.tolist() and len(grid["token_class"]) == 50
    for delta, d, T, seed in points:  # every point where grid_point looks for it
        assert grid_point(grid, delta, d, T, seed) == {"delta": delta, "d": d, "T": T, "seed": seed}
    with pytest.raises(ValueError, match=r"seed=1\) is not a grid point"):
        grid_point(grid, 0.0, 16, 8, 1)
    # without a seed axis the points are (delta, d, T), each seed 0 by grid_point
    fake_points.clear()
    plain = grid_module.compute_grid({"delta": (0.0,), "d": (16, 32), "T": (8, 4)}, progress=False)
    assert fake_points == [(0.0, 16, 8), (0.0, 16, 4), (0.0, 32, 8), (0.0, 32, 4)]
    assert grid_point(plain, 0.0, 32, 8) == grid_point(plain, 0.0, 32, 8, 0) == plain["points"][2]
    with pytest.raises(ValueError, match=r"seed=1\) is not a grid point"):
        grid_point(plain, 0.0, 32, 8, 1)


class _SerialPool:
    """Stands in for ProcessPoolExecutor: records how it was built, maps in this process."""

    built: list = []

    def __init__(self, *, max_workers, mp_context):
        _SerialPool.built.append((max_workers, mp_context.get_start_method()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, function, items):
        return map(function, items)


@pytest.mark.parametrize(("jobs", "pool"), [(1, []), (2, [(2, "spawn")]), (3, [(3, "spawn")])])
def test_jobs_above_one_use_that_many_spawned_workers(fake_points, monkeypatch, jobs, pool):
    monkeypatch.setattr(grid_module, "ProcessPoolExecutor", _SerialPool)
    monkeypatch.setattr(_SerialPool, "built", [])
    grid = grid_module.compute_grid({"delta": (0.0,), "d": (16,), "T": (4, 8)}, jobs=jobs, progress=False)
    assert _SerialPool.built == pool and len(grid["points"]) == 2


def test_progress_shows_a_bar_over_every_point(fake_points, monkeypatch):
    import tqdm.auto

    bars = []

    def bar(iterable, **kwargs):
        bars.append(kwargs)
        return iterable

    monkeypatch.setattr(tqdm.auto, "tqdm", bar)
    grid_module.compute_grid({"delta": (0.0, 0.1), "d": (16,), "T": (4, 8, 16)}, progress=True)
    assert bars == [{"total": 6, "desc": "explorer grid", "unit": "point"}]
    grid_module.compute_grid({"delta": (0.0,), "d": (16,), "T": (4,)}, progress=False)
    assert len(bars) == 1


def test_a_grid_point_is_computed_at_the_fixed_settings(monkeypatch):
    seen = []
    monkeypatch.setattr(grid_module, "explore", lambda *args, **kwargs: seen.append((args, kwargs)) or hand_made_result())
    assert grid_module._compute_point((0.3, 32, 16)) == grid_module.point_payload(hand_made_result())
    assert grid_module._compute_point((0.3, 32, 16, 2)) == grid_module.point_payload(hand_made_result())
    assert seen == [((0.3, 32, 16), grid_module.fixed_settings() | {"seed": seed}) for seed in (0, 2)]


def _no_recomputing(**kwargs):
    raise AssertionError("a current cache is loaded, not recomputed")


def _tiny(points: int = 2) -> dict:
    config = grid_module.grid_config(TINY_AXES)
    return {"format": grid_module.GRID_FORMAT, "config": config, "points": [{"i": i} for i in range(points)]}


def test_write_grid_writes_compact_sorted_json_and_its_sha256(tmp_path):
    path = tmp_path / "new" / "folder" / "g.json"  # folders made as needed
    digest = write_grid({"b": 1, "a": [1, 2]}, path)
    assert path.read_bytes() == b'{"a":[1,2],"b":1}'
    assert digest == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()
    assert (tmp_path / "new" / "folder" / "g.json.sha256").read_text() == f"{digest}  g.json\n"
    assert checksum_path("x/grid.json") == Path("x/grid.json.sha256")


def test_read_grid_names_the_missing_file(tmp_path):
    path = tmp_path / "grid.json"
    with pytest.raises(GridCacheError) as missing:
        read_grid(path, axes=TINY_AXES)
    assert str(missing.value) == f"no cached explorer grid: {path} is missing; run `python scripts/build_explorer_grid.py`"
    write_grid(_tiny(), path)
    checksum_path(path).unlink()
    with pytest.raises(GridCacheError) as sidecar:
        read_grid(path, axes=TINY_AXES)
    assert f"{checksum_path(path)} is missing" in str(sidecar.value)


def test_read_grid_reports_a_checksum_that_does_not_match(tmp_path):
    path = tmp_path / "grid.json"
    digest = write_grid(_tiny(), path)
    path.write_bytes(path.read_bytes() + b" ")
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(GridCacheError) as error:
        read_grid(path, axes=TINY_AXES)
    assert str(error.value) == (
        f"the cached explorer grid {path} fails its checksum (sha256 {actual[:12]}..., expected {digest[:12]}...); "
        "run `python scripts/build_explorer_grid.py`"
    )
    checksum_path(path).write_text("   \n")  # an empty sidecar expects nothing: a mismatch, not a crash
    with pytest.raises(GridCacheError, match=r"expected \.\.\.\)"):
        read_grid(path, axes=TINY_AXES)


def test_read_grid_calls_another_format_stale(tmp_path):
    path = tmp_path / "grid.json"
    write_grid(_tiny() | {"format": 1}, path)
    with pytest.raises(GridCacheError) as error:
        read_grid(path, axes=TINY_AXES)
    assert str(error.value) == (
        f"the cached explorer grid {path} is stale: it was computed on other axes or fixed settings "
        "(or in another file format) than the present ones; run `python scripts/build_explorer_grid.py`"
    )
    assert read_grid(path, axes=TINY_AXES, require_current=False)["format"] == 1
    write_grid({"format": 2, "points": []}, path)  # no config at all: stale, not a KeyError
    with pytest.raises(GridCacheError, match="is stale"):
        read_grid(path, axes=TINY_AXES)


def test_load_or_compute_grid_says_what_it_loaded(tmp_path, monkeypatch):
    path = tmp_path / "grid.json"
    monkeypatch.setattr(grid_module, "GRID_AXES", {k: list(v) for k, v in TINY_AXES.items()})
    digest = write_grid(_tiny(3), path)
    monkeypatch.setattr(grid_module, "compute_grid", _no_recomputing)
    grid, status = load_or_compute_grid(path)
    assert grid == _tiny(3) and status == f"loaded the cached grid (grid.json, 3 points, sha256 {digest[:12]}...)"


def test_load_or_compute_grid_recomputes_with_the_jobs_and_progress_asked_for(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(grid_module, "compute_grid", lambda **kwargs: calls.append(kwargs) or _tiny(5))
    clock = iter([100.0, 112.6])
    monkeypatch.setattr(grid_module.time, "perf_counter", lambda: next(clock))
    path = tmp_path / "grid.json"
    grid, status = load_or_compute_grid(path, jobs=3, progress=False)
    assert grid == _tiny(5) and calls == [{"jobs": 3, "progress": False}]
    assert status == (
        f"no cached explorer grid: {path} is missing; run `python scripts/build_explorer_grid.py`. "
        "Recomputed the 5 points instead (13 s)"
    )


def test_grid_point_matches_delta_to_within_1e_12():
    grid = {"config": {"axes": {"delta": [0.0, 0.1], "d": [16], "T": [4]}}, "points": ["a", "b"]}
    assert grid_point(grid, 0.1 + 0.9e-12, 16, 4) == "b" and grid_point(grid, 0.1 - 0.9e-12, 16, 4) == "b"
    with pytest.raises(ValueError) as error:
        grid_point(grid, 0.1 + 1.1e-12, 16, 4)
    assert str(error.value) == (
        f"(delta={0.1 + 1.1e-12}, d=16, T=4, seed=0) is not a grid point; the grid has {grid['config']['axes']}"
    )


def test_long_values_are_cut_to_160_characters_in_a_difference():
    stored, fresh = {"msg": "a" * 200}, {"msg": "b" * 158}
    (line,) = payload_differences(stored, fresh)
    assert line == f"msg: stored {repr('a' * 200)[:157]}..., recomputed {'b' * 158!r}"  # repr: 158 + 2 quotes = 160 kept


def test_differences_name_non_finite_values_at_other_places_and_tiny_stored_values():
    line = payload_differences({"v": [1.0, None]}, {"v": [None, 1.0]})[0]
    assert line == "v: non-finite values at other positions (stored [1.0, None], recomputed [None, 1.0])"
    # a stored 0 next to a recomputed 1: the relative difference is read against the smallest positive float
    (zero,) = payload_differences({"x": 0.0}, {"x": 1.0})
    assert zero.startswith("x: stored 0, recomputed 1, relative difference ") and zero.endswith(" > 0.002")
    assert payload_differences({"v": [None, None]}, {"v": [None, None]}) == []  # nothing finite: nothing to compare
    assert payload_differences({"x": 1.0}, {"x": 1.0 + 1.5e-3}, rtol=1e-3, atol=1e-3) == []  # rtol and atol add up


def test_check_grid_points_names_each_point_and_passes_the_tolerances(monkeypatch):
    stored = {"delta": 0.1, "d": 16, "T": 4, "x": 1.0}
    grid = {"config": {"axes": {"delta": [0.1], "d": [16], "T": [4]}}, "points": [stored]}
    monkeypatch.setattr(grid_module, "_compute_point", lambda point: {**stored, "x": 1.01})
    assert check_grid_points(grid, [(0.1, 16, 4)]) == [
        "(delta=0.1, d=16, T=4) x: stored 1, recomputed 1.01, relative difference 0.01 > 0.002"
    ]
    assert check_grid_points(grid, [(0.1, 16, 4)], rtol=0.02) == []
    assert check_grid_points(grid, [(0.1, 16, 4)], rtol=0.0, atol=0.02) == []


def test_mismatch_message_in_full():
    message = mismatch_message(Path("g.json"), ["one", "two"], 3)
    assert message.splitlines() == [
        "the explorer grid g.json no longer matches what the present code computes: recomputing 3 of its points gives "
        "other numbers (tolerance: 0.002 relative, 1e-06 of each field's largest magnitude):",
        "  one",
        "  two",
        "An edit to the code the grid's numbers come from (explore and the theory modules it calls) changed them.",
        "Find out which edit and why before regenerating the grid: if the change was not meant, it is a bug, and",
        "regenerating would ship it in the book's static explorer. Only when the new numbers are understood and",
        "intended, run `python scripts/build_explorer_grid.py --force` and say in the commit why the numbers changed.",
    ]


def test_a_grid_is_current_for_its_own_axes_in_their_order_only(tmp_path):
    axes = {"delta": (0.0, 0.1), "d": (256, 512, 1024), "T": (4, 8)}
    grid = {"format": grid_module.GRID_FORMAT, "config": grid_module.grid_config(axes), "points": [{"i": i} for i in range(12)]}
    path = tmp_path / "grid.json"
    write_grid(grid, path)
    assert read_grid(path, axes=axes)["points"] == grid["points"]
    for other in ({**axes, "d": (256, 1024, 512)}, {**axes, "T": (4, 8, 16)}, {**axes, "delta": (0.0,)}):
        with pytest.raises(GridCacheError, match="is stale"):
            read_grid(path, axes=other)  # the order of an axis is its points' order


def test_rounding_a_stored_list_again_keeps_it():
    stored = grid_module._rounded([0.123456, math.nan, 7, -math.inf])
    assert stored == [0.1235, None, 7.0, None] and grid_module._rounded(stored) == stored


def test_defaults_are_one_process_with_a_progress_bar(fake_points, monkeypatch):
    import tqdm.auto

    bars = []
    monkeypatch.setattr(tqdm.auto, "tqdm", lambda iterable, **kwargs: bars.append(kwargs) or iterable)
    grid_module.compute_grid({"delta": (0.0,), "d": (16, 32), "T": (4,)})
    assert _SerialPool.built == [] and bars == [{"total": 2, "desc": "explorer grid", "unit": "point"}]
    grid_module.compute_grid({"delta": (0.0, 0.1), "d": (16,), "T": (4, 8, 16)}, jobs=2)  # the bar over the workers too
    assert _SerialPool.built == [(2, "spawn")] and bars[1] == {"total": 6, "desc": "explorer grid", "unit": "point"}
    calls = []
    monkeypatch.setattr(grid_module, "compute_grid", lambda **kwargs: calls.append(kwargs) or _tiny(1))
    load_or_compute_grid(Path("no/such/grid.json"))
    assert calls == [{"jobs": 1, "progress": True}]


def test_check_grid_points_recomputes_each_point_and_reports_them_all(monkeypatch):
    grid = {
        "config": {"axes": {"delta": [0.0, 0.1], "d": [16], "T": [4, 8]}},
        "points": [{"x": 1.0}, {"x": 2.0}, {"x": 3.0}, {"x": 4.0}],
    }
    asked = []
    monkeypatch.setattr(grid_module, "_compute_point", lambda point: asked.append(point) or {"x": 10.0})
    lines = check_grid_points(grid, [(0.0, 16, 8), (0.1, 16, 4)])
    assert asked == [(0.0, 16, 8), (0.1, 16, 4)]
    assert [line.split(" x: ")[0] for line in lines] == ["(delta=0, d=16, T=8)", "(delta=0.1, d=16, T=4)"]
    assert lines[0].startswith("(delta=0, d=16, T=8) x: stored 2, recomputed 10")
    # a point with its seed: compared with that seed's payload, and named with it
    seeded = {
        "config": {"axes": {"delta": [0.0], "d": [16], "T": [4], "seed": [0, 5]}},
        "points": [{"x": 1.0}, {"x": 10.0}],
    }
    asked.clear()
    assert check_grid_points(seeded, [(0.0, 16, 4, 5)]) == []
    assert asked == [(0.0, 16, 4, 5)]
    (line,) = check_grid_points(seeded, [(0.0, 16, 4, 0)])
    assert line.startswith("(delta=0, d=16, T=4, seed=0) x: stored 1, recomputed 10")


def test_grid_point_refuses_a_delta_exactly_1e_12_off():
    grid = {"config": {"axes": {"delta": [0.0], "d": [16], "T": [4]}}, "points": ["a"]}
    assert abs(0.0 - 1e-12) == 1e-12  # the boundary is hit exactly
    with pytest.raises(ValueError, match="is not a grid point"):
        grid_point(grid, 1e-12, 16, 4)
    assert grid_point(grid, -0.999e-12, 16, 4) == "a"


def test_differences_of_a_missing_number_a_text_against_a_number_and_step_counts():
    assert payload_differences({"x": None}, {"x": 1.0}) == ["x: stored None, recomputed 1.0"]
    assert payload_differences({"x": 1.0}, {"x": None}) == ["x: stored 1.0, recomputed None"]
    assert payload_differences({"msg": "a"}, {"msg": 1.0}) == ["msg: stored 'a', recomputed 1.0"]
    assert payload_differences({"msg": 1.0}, {"msg": "a"}) == ["msg: stored 1.0, recomputed 'a'"]
    # step counts are compared exactly, not within the tolerance that 1000 -> 1001 (1e-3 relative) would pass
    assert payload_differences({"step": [0, 1000]}, {"step": [0, 1001]}) == ["step: stored [0, 1000], recomputed [0, 1001]"]
    assert payload_differences({"steps": [0, 1000]}, {"steps": [0, 1001]}) == []


def test_every_field_is_compared_after_one_that_differs_in_shape_or_in_its_non_finite_places():
    stored = {"a": [1.0, 2.0], "b": [1.0, None], "c": 1.0}
    fresh = {"a": [1.0], "b": [None, 1.0], "c": 2.0}
    assert payload_differences(stored, fresh) == [
        "a: stored 2 values, recomputed 1",
        "b: non-finite values at other positions (stored [1.0, None], recomputed [None, 1.0])",
        "c: stored 1, recomputed 2, relative difference 1 > 0.002",
    ]


def test_the_worst_entry_is_the_one_furthest_beyond_its_allowance():
    (line,) = payload_differences({"v": [1000.0, 4.0]}, {"v": [1000.0, 5.0]})
    assert line == "v: stored 4, recomputed 5 (worst of 1 entries), relative difference 0.25 > 0.002"


def test_an_entry_exactly_on_its_allowance_is_not_counted():
    exact = 2.0**-9
    (line,) = payload_differences({"v": [1.0, 1.0, 1.0]}, {"v": [1.0 + exact, 1.5, 1.0]}, rtol=exact, atol=0.0)
    assert "(worst of 1 entries)" in line


def test_the_stored_sentence_prints_the_stored_numbers_digit_for_digit():
    from token_selection.explorer.grid import _rounded, point_payload, stored_notice
    from token_selection.explorer.notice import what_to_notice

    base = hand_made_result(final_cosine=0.995, selection_cosine=0.9)
    # 0.99846 prints 0.998, but the grid stores 0.9985, which the readout prints 0.999: the stored sentence follows
    # the stored number; a number not at a rounding edge prints alike both ways
    lost = replace(base, lost_fraction=0.5, final_cosine=0.31894, selection_cosine=0.99846)
    assert "(cos 0.998)" in what_to_notice(lost)
    assert "(cos 0.999), not to p_mm (cos 0.32)" in stored_notice(lost)
    assert f"{_rounded(0.99846):.3f}" == "0.999"
    assert point_payload(lost)["notice"] == stored_notice(lost)
    # without a direction of its own selection the sentence still forms (None is not rounded)
    assert "the selection it makes, not to p_mm (cos 0.32)" in stored_notice(replace(lost, selection_cosine=None))
