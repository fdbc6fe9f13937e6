import math

import numpy as np
import pytest

from token_selection.sources import REBUTTAL_BIN_CENTRES, REBUTTAL_KEY_QUERY, REBUTTAL_MLP
from token_selection.theory.importance import bin_by_importance
from token_selection.theory.shape import (
    MIN_ARM_SHARE,
    MIN_ARM_TOKENS,
    MIN_TOKENS,
    classify_binned,
    classify_shape,
    quadratic_minimum,
    spearman,
)

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, 600)
NOISE = RNG.normal(size=X.size)


def test_monotone_curve_that_is_not_u_shaped():
    # convex and increasing: the quadratic's minimum is interior, but the left arm is flat
    verdict = classify_shape(X, np.exp(3 * X) + 0.5 * NOISE)
    assert verdict.shape == "increasing" and verdict.monotone and not verdict.u_shaped
    assert verdict.interior and verdict.left_ci[1] > 0  # the left arm does not fall
    assert classify_shape(X, -X + 0.5 * NOISE).shape == "decreasing"


def test_flat_noisy_curve():
    verdict = classify_shape(X, NOISE)
    assert verdict.shape == "flat" and verdict.spearman_ci[0] < 0 < verdict.spearman_ci[1]


def test_u_shape_and_inverted_u():
    verdict = classify_shape(X, X**2 + 0.1 * NOISE)
    assert verdict.u_shaped and abs(verdict.minimum) < 0.05
    assert verdict.minimum_ci[0] < verdict.minimum < verdict.minimum_ci[1]
    assert verdict.left_ci[1] < 0 < verdict.right_ci[0]
    symmetric = np.linspace(-1, 1, X.size)
    inverted = classify_shape(symmetric, -(symmetric**2) + 0.1 * NOISE)  # concave: no minimum, no trend
    assert inverted.shape == "flat" and math.isnan(inverted.minimum)
    assert "U-shaped" in verdict.describe() and verdict.as_dict()["shape"] == "U-shaped"


def test_rebuttal_tables_at_their_printed_bin_centres():
    kq = {k: classify_shape(REBUTTAL_BIN_CENTRES, v) for k, v in REBUTTAL_KEY_QUERY.items()}
    mlp = {k: classify_shape(REBUTTAL_BIN_CENTRES, v) for k, v in REBUTTAL_MLP.items()}
    assert kq["scores"].u_shaped and mlp["scores"].u_shaped
    assert kq["values"].shape == mlp["values"].shape == "increasing"
    assert mlp["values"].spearman < kq["values"].spearman - 0.2  # "less clearly monotone"


def test_deterministic_and_seeded():
    y = X**2 + 0.5 * NOISE
    assert classify_shape(X, y, seed=3) == classify_shape(X, y, seed=3)
    assert classify_shape(X, y, seed=3).spearman_ci != classify_shape(X, y, seed=4).spearman_ci


def test_overall_interval_threshold_on_each_side():
    # a weak trend: significant at the 10% level, not at the 0.1% level
    y = X + 6.0 * NOISE
    loose, strict = classify_shape(X, y, alpha=0.1), classify_shape(X, y, alpha=0.001)
    assert loose.spearman_ci[0] > 0 and loose.shape == "increasing"
    assert strict.spearman_ci[0] < 0 and strict.shape == "flat"


def test_arm_interval_threshold_on_each_side():
    # a U whose right arm is weak: a U at the 20% level, only a decrease at the 0.1% level
    y = np.where(X < 0, X**2, 0.1 * X) + 0.2 * NOISE
    loose, strict = classify_shape(X, y, alpha=0.2), classify_shape(X, y, alpha=0.001)
    assert loose.u_shaped and loose.right_ci[0] > 0
    assert not strict.u_shaped and strict.right_ci[0] < 0


def _parabola_with_minimum_after(k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n evenly spaced points, noise-free parabola whose minimum lies between points k-1 and k."""
    x = np.arange(n, dtype=np.float64)
    return x, (x - (k - 0.5)) ** 2


def test_minimum_interior_share_threshold_on_each_side():
    n = 100  # MIN_ARM_SHARE * n = 10 > MIN_ARM_TOKENS: the share binds
    assert MIN_ARM_SHARE * n > MIN_ARM_TOKENS
    inside = classify_shape(*_parabola_with_minimum_after(10, n), n_boot=200)
    outside = classify_shape(*_parabola_with_minimum_after(9, n), n_boot=200)
    assert inside.interior and inside.u_shaped and inside.left_share == pytest.approx(0.10)
    assert not outside.interior and not outside.u_shaped and outside.shape == "increasing"


def test_minimum_interior_token_threshold_on_each_side():
    n = 30  # MIN_ARM_SHARE * n = 3 < MIN_ARM_TOKENS: the token count binds
    assert MIN_ARM_SHARE * n < MIN_ARM_TOKENS
    assert classify_shape(*_parabola_with_minimum_after(MIN_ARM_TOKENS, n), n_boot=200).interior
    assert not classify_shape(*_parabola_with_minimum_after(MIN_ARM_TOKENS - 1, n), n_boot=200).interior


def test_convexity_threshold_on_each_side():
    x = np.linspace(-1, 1, 50)
    assert quadratic_minimum(x, x + 1e-3 * x**2) == pytest.approx(-500.0)
    assert math.isnan(quadratic_minimum(x, x - 1e-3 * x**2))
    assert math.isnan(classify_shape(x, x - 1e-3 * x**2).minimum)


def test_minimum_number_of_points_on_each_side():
    x = np.linspace(-1, 1, MIN_TOKENS)
    assert classify_shape(x, x, n_boot=50).shape == "increasing"
    with pytest.raises(ValueError, match=f"at least {MIN_TOKENS} points"):
        classify_shape(x[1:], x[1:])
    with_nan = np.append(x[1:], np.nan)
    with pytest.raises(ValueError, match="finite importance and score"):
        classify_shape(with_nan, np.append(x[1:], 1.0))  # the NaN point is dropped


def test_input_checks():
    with pytest.raises(ValueError, match="equal length"):
        classify_shape(X, X[:-1])
    with pytest.raises(ValueError, match="alpha"):
        classify_shape(X, X, alpha=0.0)
    with pytest.raises(ValueError, match="n_boot"):
        classify_shape(X, X, n_boot=0)


def test_spearman_handles_ties_and_constants():
    assert spearman(np.array([1.0, 1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0, 4.0])) == pytest.approx(0.9486832980505138)
    assert spearman(np.arange(5.0), np.ones(5)) == 0.0


def test_classify_binned_uses_bin_means():
    x = RNG.uniform(-1, 1, 3000)
    binned = bin_by_importance(x, np.abs(x) + 0.01 * RNG.normal(size=x.size))
    assert classify_binned(binned, n_boot=200).u_shaped


@pytest.mark.parametrize("scale", [0.001, 0.01, 1.0, 1000.0])
def test_u_shape_is_found_at_any_scale_of_the_importance(scale):
    # the degeneracy test of the quadratic fit once depended on the scale of x: a clear U on the
    # signed-frequency scale (|x| ~ 0.01) came out as "increasing"
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 400)
    y = x**2 + 0.05 * rng.standard_normal(400)
    verdict = classify_shape(scale * x, y, n_boot=200, seed=0)
    assert verdict.shape == "U-shaped"
    assert abs(verdict.minimum / scale) < 0.1
