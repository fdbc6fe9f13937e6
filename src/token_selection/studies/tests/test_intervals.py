"""The studies' intervals on asymmetric cases and on the boundary of every argument check.

A Wilson interval is not symmetric about the observed share away from 1/2, and a percentile
bootstrap of a skewed statistic is not symmetric about it either: a formula that assumed
symmetry would pass the symmetric cases of test_studies.py and fail here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from token_selection.studies.intervals import bootstrap_interval, bootstrap_rows, percentile_interval, wilson_interval


def _wilson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval from its textbook formula (Wilson 1927), without clipping."""
    z = norm.ppf(1 - (1 - confidence) / 2)
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z / (1 + z * z / trials) * np.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    return centre - half, centre + half


@pytest.mark.parametrize(("successes", "trials"), [(2, 20), (17, 20), (1, 3), (40, 1000), (999, 1000), (3, 7)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_wilson_interval_matches_the_formula_on_uneven_counts(successes, trials, confidence):
    low, high = wilson_interval(successes, trials, confidence)
    expected_low, expected_high = _wilson(successes, trials, confidence)
    assert low == pytest.approx(max(0.0, expected_low), abs=1e-12)
    assert high == pytest.approx(min(1.0, expected_high), abs=1e-12)
    share = successes / trials
    assert low < share < high


def test_wilson_interval_is_asymmetric_and_mirrored():
    low, high = wilson_interval(2, 20)
    assert low == pytest.approx(0.02787, abs=1e-5) and high == pytest.approx(0.30103, abs=1e-5)
    assert high - 0.1 > 2 * (0.1 - low)  # pulled towards 1/2
    mirrored = wilson_interval(18, 20)
    assert mirrored[0] == pytest.approx(1 - high, abs=1e-12) and mirrored[1] == pytest.approx(1 - low, abs=1e-12)
    assert wilson_interval(2, 20, 0.8)[1] < high < wilson_interval(2, 20, 0.99)[1]  # wider with more confidence


def test_wilson_interval_on_the_edges_of_its_arguments():
    assert wilson_interval(0, 1) == (0.0, pytest.approx(_wilson(0, 1, 0.95)[1]))
    assert wilson_interval(1, 1)[1] == 1.0
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    for successes, trials in ((0, 0), (-1, 5), (6, 5), (1, -1)):
        with pytest.raises(ValueError, match=r"need 0 <= successes <= trials and trials >= 1"):
            wilson_interval(successes, trials)
    for confidence in (0.0, 1.0, -0.1, 1.1):
        with pytest.raises(ValueError, match=r"confidence must lie in \(0, 1\)"):
            wilson_interval(1, 2, confidence)
    assert 0 < wilson_interval(1, 2, 1e-9)[0] < 0.5 < wilson_interval(1, 2, 1 - 1e-9)[1] <= 1


def test_bootstrap_interval_of_a_skewed_statistic_is_asymmetric_and_is_the_percentile_interval():
    samples = np.random.default_rng(3).exponential(1.0, size=40)
    low, high = bootstrap_interval(samples, np.max, n_boot=400, seed=5)
    observed = float(samples.max())
    assert high == pytest.approx(observed) and low < observed  # the max of a resample never exceeds the sample's
    rng = np.random.default_rng(5)
    draws = rng.integers(0, 40, size=(400, 40))
    values = np.array([samples[rows].max() for rows in draws])
    assert (low, high) == (pytest.approx(np.quantile(values, 0.025)), pytest.approx(np.quantile(values, 0.975)))
    narrow = bootstrap_interval(samples, np.max, n_boot=400, seed=5, confidence=0.5)
    assert low <= narrow[0] <= narrow[1] <= high
    assert narrow == (pytest.approx(np.quantile(values, 0.25)), pytest.approx(np.quantile(values, 0.75)))


def test_bootstrap_interval_resamples_rows_and_is_seeded():
    pairs = np.column_stack([np.arange(10.0), np.arange(10.0) ** 2])
    low, high = bootstrap_interval(pairs, lambda rows: float(np.mean(rows[:, 1] - rows[:, 0] ** 2)), n_boot=100)
    assert low == high == 0.0  # each resampled row keeps its pair together
    samples = np.random.default_rng(0).normal(size=30)
    assert bootstrap_interval(samples, np.mean, seed=1) == bootstrap_interval(samples, np.mean, seed=1)
    assert bootstrap_interval(samples, np.mean, seed=1) != bootstrap_interval(samples, np.mean, seed=2)
    assert bootstrap_interval(samples, np.mean) == bootstrap_interval(samples, np.mean, n_boot=2000, seed=0, confidence=0.95)


def test_bootstrap_interval_on_the_edges_of_its_arguments():
    low, high = bootstrap_interval(np.array([1.0, 3.0]), np.mean, n_boot=100)  # two samples are enough
    assert 1.0 <= low < high <= 3.0
    with pytest.raises(ValueError, match=r"need at least 2 samples to bootstrap, got 1"):
        bootstrap_interval(np.array([1.0]), np.mean)
    with pytest.raises(ValueError, match=r"n_boot must be at least 100 for a percentile interval, got 99"):
        bootstrap_interval(np.arange(5.0), np.mean, n_boot=99)


@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.99])
def test_wilson_interval_never_leaves_zero_to_one_through_rounding(confidence):
    # centre + half rounds to 1.0000000000000002 for some all-success counts (2 of 2 at 50%, for one)
    for trials in range(1, 60):
        low, high = wilson_interval(trials, trials, confidence)
        assert high <= 1.0 and 0.0 <= wilson_interval(0, trials, confidence)[0]
    assert wilson_interval(2, 2, 0.5)[1] == 1.0


def test_bootstrap_interval_tails_split_the_rest_of_the_confidence_evenly():
    samples = np.random.default_rng(7).lognormal(size=50)  # skewed: a continuous statistic with distinct values
    rng = np.random.default_rng(0)
    means = samples[rng.integers(0, 50, size=(300, 50))].mean(axis=1)
    for confidence in (0.5, 0.9):
        low, high = bootstrap_interval(samples, np.mean, n_boot=300, confidence=confidence)
        tail = (1 - confidence) / 2
        assert (low, high) == (pytest.approx(np.quantile(means, tail)), pytest.approx(np.quantile(means, 1 - tail)))


def test_bootstrap_rows_draw_every_resample_from_the_seeded_generator_on_their_boundaries():
    rows = bootstrap_rows(3, n_boot=100, seed=7)  # the smallest accepted n_boot
    assert rows.shape == (100, 3) and rows.min() >= 0 and rows.max() <= 2 and set(rows.ravel()) == {0, 1, 2}
    assert np.array_equal(rows, np.random.default_rng(7).integers(0, 3, size=(100, 3)))
    assert np.array_equal(bootstrap_rows(2, n_boot=2000), np.random.default_rng(0).integers(0, 2, size=(2000, 2)))
    with pytest.raises(ValueError, match="at least 2 samples to bootstrap, got 1"):
        bootstrap_rows(1)
    with pytest.raises(ValueError, match="at least 100 for a percentile interval, got 99"):
        bootstrap_rows(3, n_boot=99)


def test_percentile_interval_takes_the_two_tail_quantiles():
    values = np.arange(101.0)  # quantile q of 0..100 is 100 q
    assert percentile_interval(values) == pytest.approx((2.5, 97.5))
    assert percentile_interval(values, 0.5) == pytest.approx((25.0, 75.0))
