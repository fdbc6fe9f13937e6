"""Exact checks of the shape rule's pieces: the bootstrap it draws, the intervals, the messages and the report."""

import json
import math
import re

import numpy as np
import pytest
from scipy.stats import spearmanr

from token_selection.theory.importance import bin_by_importance
from token_selection.theory.shape import (
    MIN_TOKENS,
    SHAPES,
    _arms,
    _interval,
    _quadratic_minima,
    _spearman_rows,
    classify_binned,
    classify_shape,
    quadratic_minimum,
    spearman,
)

RNG = np.random.default_rng(1)
X = RNG.uniform(-1, 1, 200)
NOISE = RNG.normal(size=X.size)


def _exact(message: str):
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


def test_bootstrap_intervals_are_the_documented_percentiles():
    # n_boot resamples of the points, seeded; percentile interval at alpha / 2 and 1 - alpha / 2
    y = X**2 + 0.3 * NOISE
    verdict = classify_shape(X, y, n_boot=250, seed=7, alpha=0.1)
    draws = np.random.default_rng(7).integers(0, X.size, size=(250, X.size))
    rho = np.array([spearmanr(X[rows], y[rows]).statistic for rows in draws])
    assert verdict.spearman_ci == pytest.approx((np.quantile(rho, 0.05), np.quantile(rho, 0.95)), abs=1e-12)
    minima = _quadratic_minima(X[draws], y[draws])
    assert verdict.minimum_ci == pytest.approx((np.quantile(minima, 0.05), np.quantile(minima, 0.95)), abs=1e-12)
    arms = _arms(X[draws], y[draws], minima)
    assert verdict.left_ci == pytest.approx((np.quantile(arms[:, 0], 0.05), np.quantile(arms[:, 0], 0.95)), abs=1e-12)
    assert verdict.right_ci == pytest.approx((np.quantile(arms[:, 1], 0.05), np.quantile(arms[:, 1], 0.95)), abs=1e-12)
    assert verdict.spearman == pytest.approx(spearmanr(X, y).statistic, abs=1e-12)
    assert verdict.minimum == pytest.approx(quadratic_minimum(X, y), abs=0)
    left = X < verdict.minimum
    assert verdict.left_share == pytest.approx(left.mean(), abs=0)
    assert verdict.left_spearman == pytest.approx(spearmanr(X[left], y[left]).statistic, abs=1e-12)
    assert verdict.right_spearman == pytest.approx(spearmanr(X[~left], y[~left]).statistic, abs=1e-12)
    assert verdict.n_points == 200 and verdict.n_boot == 250 and verdict.alpha == 0.1


def test_defaults():
    y = X + NOISE
    verdict = classify_shape(X, y)
    assert verdict.n_boot == 1000 and verdict.alpha == 0.05
    assert verdict == classify_shape(X, y, n_boot=1000, seed=0, alpha=0.05)


def test_decreasing_and_flat_and_their_properties():
    down = classify_shape(X, -X + 0.5 * NOISE, n_boot=200)
    assert down.shape == "decreasing" and down.monotone and not down.u_shaped and down.spearman_ci[1] < 0
    up = classify_shape(X, X + 0.5 * NOISE, n_boot=200)
    assert up.shape == "increasing" and up.monotone
    flat = classify_shape(X, NOISE, n_boot=200)
    assert flat.shape == "flat" and not flat.monotone and not flat.u_shaped
    assert set(SHAPES) == {"U-shaped", "increasing", "decreasing", "flat"}


def test_no_convex_fit_leaves_nan_fields():
    verdict = classify_shape(X, -(X**2), n_boot=100)
    assert math.isnan(verdict.minimum) and math.isnan(verdict.left_share) and not verdict.interior
    assert all(math.isnan(v) for v in (*verdict.minimum_ci, *verdict.left_ci, *verdict.right_ci))
    assert math.isnan(verdict.left_spearman) and math.isnan(verdict.right_spearman)
    assert verdict.describe() == (
        f"{verdict.shape}: Spearman {verdict.spearman:+.2f} [{verdict.spearman_ci[0]:+.2f}, {verdict.spearman_ci[1]:+.2f}] "
        "(200 points, 95% bootstrap intervals)"
    )


def test_describe_and_as_dict_of_a_u():
    x = np.linspace(-1, 1, 1001)
    v = classify_shape(x, x**2 + 0.2 * np.random.default_rng(2).normal(size=x.size), n_boot=200, alpha=0.1)
    assert v.u_shaped
    assert v.describe() == (
        f"U-shaped: Spearman {v.spearman:+.2f} [{v.spearman_ci[0]:+.2f}, {v.spearman_ci[1]:+.2f}]; "
        f"minimum at {v.minimum:+.2f} [{v.minimum_ci[0]:+.2f}, {v.minimum_ci[1]:+.2f}], "
        f"left arm {v.left_spearman:+.2f} [{v.left_ci[0]:+.2f}, {v.left_ci[1]:+.2f}], "
        f"right arm {v.right_spearman:+.2f} [{v.right_ci[0]:+.2f}, {v.right_ci[1]:+.2f}] (1,001 points, 90% bootstrap intervals)"
    )
    record = v.as_dict()
    assert record["spearman_ci"] == list(v.spearman_ci) and record["left_ci"] == list(v.left_ci)
    assert record["shape"] == "U-shaped" and record["n_points"] == 1001 and record["interior"] is True
    assert json.loads(json.dumps(record)) == record


def test_spearman_rows_with_kept_points():
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    y = np.array([[1.0, 3.0, 2.0, 5.0, 4.0]])
    everything = _spearman_rows(x, y)
    assert everything[0] == pytest.approx(spearmanr(x[0], y[0]).statistic, abs=1e-15)
    keep = np.array([[True, True, True, False, False]])
    assert _spearman_rows(x, y, keep)[0] == pytest.approx(0.5, abs=1e-15)
    # fewer than 3 kept points: 0 by convention
    assert _spearman_rows(x, y, np.array([[True, False, False, False, True]]))[0] == 0.0
    assert spearman(np.array([1.0, 2.0]), np.array([2.0, 1.0])) == 0.0
    assert spearman(np.arange(3.0), np.array([3.0, 1.0, 2.0])) == pytest.approx(-0.5, abs=1e-15)


def test_quadratic_minimum_off_centre_and_degenerate():
    x = np.linspace(0.0, 10.0, 21)
    assert quadratic_minimum(x, (x - 3.0) ** 2 + 2.0) == pytest.approx(3.0, abs=1e-9)
    assert quadratic_minimum(x, 0.5 * (x - 7.5) ** 2) == pytest.approx(7.5, abs=1e-9)
    assert math.isnan(quadratic_minimum(np.full(5, 2.0), np.arange(5.0)))  # all x equal: no fit
    assert math.isnan(quadratic_minimum(x, 3.0 * x + 1.0))  # c = 0: not convex


def test_interval_and_arms():
    samples = np.array([np.nan, 0.0, 1.0, 2.0, 3.0, 4.0, np.inf])
    assert _interval(samples, 0.5) == (1.0, 3.0)
    assert all(math.isnan(v) for v in _interval(np.array([np.nan, np.inf]), 0.1))
    # points exactly at the split belong to neither arm
    x = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    y = np.array([[3.0, 2.0, 1.0, 10.0, 1.0, 2.0, 9.0]])
    assert _arms(x, y, np.array([3.0])).tolist() == [[-1.0, 1.0]]
    assert _arms(x, y, np.array([2.0])).tolist()[0][0] == 0.0  # two points left of 2: too few for a correlation


def test_messages():
    with _exact("importance and score must be 1-D of equal length, got shapes (200,) and (199,)"):
        classify_shape(X, X[:-1])
    with _exact("importance and score must be 1-D of equal length, got shapes (2, 100) and (2, 100)"):
        classify_shape(X.reshape(2, 100), X.reshape(2, 100))
    with _exact("alpha must lie strictly between 0 and 1, got 1.0"):
        classify_shape(X, X, alpha=1.0)
    with _exact("alpha must lie strictly between 0 and 1, got 0.0"):
        classify_shape(X, X, alpha=0.0)
    with _exact("n_boot must be an integer >= 1, got 0"):
        classify_shape(X, X, n_boot=0)
    short = np.linspace(0, 1, MIN_TOKENS - 1)
    with _exact(f"need at least {MIN_TOKENS} points with finite importance and score, got {MIN_TOKENS - 1}"):
        classify_shape(short, short)
    with_inf = np.append(short, 2.0)
    with _exact(f"need at least {MIN_TOKENS} points with finite importance and score, got {MIN_TOKENS - 1}"):
        classify_shape(with_inf, np.append(short, np.inf))


def test_points_exactly_at_the_minimum_belong_to_neither_side():
    # y = x^2 on the integers -4..5 fits exactly, with its minimum exactly at the point x = 0
    x = np.arange(-4, 6.0)
    verdict = classify_shape(x, x**2, n_boot=100)
    assert verdict.minimum == 0.0 and verdict.left_share == 0.4  # 4 of 10 points strictly left
    assert not verdict.interior  # 4 points left, 5 right: one short of MIN_ARM_TOKENS on the left
    mirrored = classify_shape(-x, x**2, n_boot=100)
    assert mirrored.minimum == 0.0 and not mirrored.interior  # 5 left, 4 right


def test_an_interval_touching_zero_is_not_significant():
    # a constant arm or curve has rank correlation 0 in every resample: intervals (0, 0) count as no trend
    x = np.random.default_rng(1).uniform(-1, 1, 200)
    hinge = classify_shape(x, np.maximum(x, 0), n_boot=200)
    assert hinge.interior and hinge.left_ci == (0.0, 0.0) and hinge.right_ci[0] > 0
    assert hinge.shape == "increasing"
    mirror = classify_shape(x, np.maximum(-x, 0), n_boot=200)
    assert mirror.interior and mirror.right_ci == (0.0, 0.0) and mirror.left_ci[1] < 0
    assert mirror.shape == "decreasing"
    constant = classify_shape(x, np.full(200, 2.0), n_boot=200)
    assert constant.spearman_ci == (0.0, 0.0) and constant.shape == "flat"


def test_degenerate_fits_raise_no_floating_point_warning():
    # 0/0 in a constant rank correlation and b/0 or 0/0 in a fit with c exactly 0 are expected and silenced
    xs = np.arange(-6, 7.0)
    with np.errstate(all="raise"):
        assert spearman(xs, np.ones_like(xs)) == 0.0
        assert math.isnan(quadratic_minimum(xs, np.zeros_like(xs)))
        assert math.isnan(quadratic_minimum(xs, xs.copy()))


def test_rows_are_fitted_independently_and_degenerate_rows_give_nan():
    a, b = np.linspace(-1, 3, 50), np.linspace(-1, 1, 50)
    minima = _quadratic_minima(np.stack([a, b]), np.stack([(a - 1.5) ** 2, (b - 0.2) ** 2]))
    assert minima == pytest.approx([1.5, 0.2], rel=1e-9)
    # all points but one at the same x: the normal equations are singular to rounding
    x = np.r_[np.zeros(20), 1e-5]
    assert math.isnan(quadratic_minimum(x, x**2 + 1.0))


def test_inputs_are_read_as_float64():
    x = np.arange(-7, 8)
    y = x**2 + (x % 3)
    as_float = classify_shape(x.astype(np.float64), y.astype(np.float64), n_boot=100)
    assert classify_shape(x.tolist(), y.tolist(), n_boot=100) == as_float
    # a float32 array is widened, not computed in float32
    x32 = np.linspace(-1, 1, 50, dtype=np.float32)
    y32 = (x32 - np.float32(0.3)) ** 2
    assert classify_shape(x32, y32, n_boot=100) == classify_shape(x32.astype(np.float64), y32.astype(np.float64), n_boot=100)


def test_classify_binned_passes_its_options():
    binned = bin_by_importance(X, X**2)
    verdict = classify_binned(binned, n_boot=50, seed=3, alpha=0.2)
    assert (verdict.n_boot, verdict.alpha) == (50, 0.2)
    assert verdict == classify_shape(binned.centres, binned.mean, n_boot=50, seed=3, alpha=0.2)
