import numpy as np
import pytest

from token_selection.report.paper_numbers import REBUTTAL_BIN_CENTRES, REBUTTAL_KEY_QUERY, REBUTTAL_MLP
from token_selection.theory.importance import bin_by_importance
from token_selection.theory.shape import compare_spread, mean_within_bin_std, shape_of, shape_of_means

CENTRES = np.linspace(-0.95, 0.95, 20)


def test_rebuttal_tables_pass_exactly_the_tests_their_words_claim():
    kq = {k: shape_of_means(REBUTTAL_BIN_CENTRES, v) for k, v in REBUTTAL_KEY_QUERY.items()}
    mlp = {k: shape_of_means(REBUTTAL_BIN_CENTRES, v) for k, v in REBUTTAL_MLP.items()}
    assert kq["scores"].u_shaped and not kq["scores"].monotone
    assert kq["values"].monotone and not kq["values"].u_shaped
    assert mlp["scores"].u_shaped
    assert not mlp["values"].monotone and 0.5 < mlp["values"].spearman < 0.9


def test_clean_shapes():
    assert shape_of_means(CENTRES, CENTRES**2).u_shaped
    assert shape_of_means(CENTRES, 3 * CENTRES - 1).monotone
    assert not shape_of_means(CENTRES, 3 * CENTRES).u_shaped  # minimum at the left end
    one_sided = np.where(CENTRES < 0, CENTRES**2, 0.0)  # rises on the left only
    summary = shape_of_means(CENTRES, one_sided)
    assert not summary.u_shaped and summary.left_rise > 0.9 and summary.right_rise == 0.0
    flat = shape_of_means(CENTRES, np.ones(20))
    assert not flat.monotone and not flat.u_shaped


def test_shape_of_binned_and_input_checks():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 2000)
    summary = shape_of(bin_by_importance(x, np.abs(x) + 0.01 * rng.normal(size=x.size)))
    assert summary.u_shaped and abs(summary.argmin_centre) < 0.2
    with pytest.raises(ValueError, match="at least 5 non-empty bins"):
        shape_of_means(CENTRES[:3], CENTRES[:3])
    with pytest.raises(ValueError, match="strictly increasing"):
        shape_of_means(CENTRES[::-1], CENTRES)
    with pytest.raises(ValueError, match="finite"):
        shape_of_means(CENTRES, np.full(20, np.nan))


def test_compare_spread_raw_ratio_scales_relative_ratio_does_not():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, 3000)
    a = x + 0.5 * rng.normal(size=x.size)  # noisy relative to its signal
    b = 10 * (x + 0.1 * rng.normal(size=x.size))  # large, but clean
    spread = compare_spread(x, a, b)
    assert spread.ratio > 1  # b has the larger raw per-bin std
    assert spread.relative_ratio < 1  # but a is the noisier one relative to its signal
    rescaled = compare_spread(x, a, 3 * b)
    assert rescaled.ratio == pytest.approx(3 * spread.ratio)
    assert rescaled.relative_ratio == pytest.approx(spread.relative_ratio)
    assert mean_within_bin_std(bin_by_importance(x, a)) == pytest.approx(spread.std_a)
