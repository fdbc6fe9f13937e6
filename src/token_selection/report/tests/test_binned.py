import numpy as np
import pytest

from token_selection.report.binned import (
    binned_from_record,
    compare_spread,
    mean_within_bin_std,
    relative_spread,
    scale_free_spread,
)
from token_selection.theory.importance import bin_by_importance


def test_compare_spread_raw_ratio_scales_relative_ratio_does_not():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, 3000)
    a = x + 0.5 * rng.normal(size=x.size)  # noisy relative to its signal
    b = 10 * (x + 0.1 * rng.normal(size=x.size))  # large, but clean
    spread = compare_spread(x, a, b)
    assert spread.ratio > 1 and spread.relative_ratio < 1
    rescaled = compare_spread(x, a, 3 * b)
    assert rescaled.ratio == pytest.approx(3 * spread.ratio)
    assert rescaled.relative_ratio == pytest.approx(spread.relative_ratio)
    assert mean_within_bin_std(bin_by_importance(x, a)) == pytest.approx(spread.std_a)


def test_record_curves_give_the_same_spreads():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, 2000)
    a, b = x + 0.3 * rng.normal(size=x.size), 4 * x + rng.normal(size=x.size)
    curves = []
    for values in (a, b):
        binned = bin_by_importance(x, values)
        record = {
            "bin_centres": binned.centres.tolist(),
            "bin_mean": binned.mean.tolist(),
            "bin_std": binned.std.tolist(),
            "bin_count": binned.count.tolist(),
        }
        curves.append(binned_from_record(record))
    spread = compare_spread(x, a, b)
    assert mean_within_bin_std(curves[1]) / mean_within_bin_std(curves[0]) == pytest.approx(spread.ratio)
    assert relative_spread(curves[0]) == pytest.approx(spread.relative_a)
    assert relative_spread(curves[1]) == pytest.approx(spread.relative_b)


def test_the_scale_free_spread_recovers_the_tokens_std_from_the_bins():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 4000)
    y = rng.normal(size=4000) + 2 * x + 0.5 * (x > 0.7)  # uneven bins
    binned = bin_by_importance(x, y, bins=20)
    within = np.average(binned.std, weights=binned.count)
    assert scale_free_spread(binned) == pytest.approx(within / y.std(), rel=1e-12)  # population std of the tokens
    flat = bin_by_importance(x, rng.normal(size=4000), bins=20)
    assert scale_free_spread(binned) < scale_free_spread(flat) < 1  # signal between the bins lowers the reading
