"""Tests of the fit of P(miss | lean size): the score equations, the half-way lean, the ranking score and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from token_selection.studies import miss_odds
from token_selection.studies.intervals import bootstrap_interval
from token_selection.studies.miss_odds import MissOdds, fit_miss_odds, half_lean_interval

# mirrored about 0.2: a miss at 0.2 + x wherever a reach sits at 0.2 - x, so the half-way lean is 0.2 by symmetry
MIRRORED_SIZES = np.array([0.1, 0.15, 0.19, 0.21, 0.25, 0.3])
MIRRORED_MISSED = np.array([False, True, False, True, False, True])

# uneven: seven seeds, two misses, a tie between a miss and a reach at 0.2
UNEVEN_SIZES = np.array([0.05, 0.1, 0.2, 0.2, 0.12, 0.4, 0.3])
UNEVEN_MISSED = np.array([False, False, True, False, False, True, False])


def test_the_half_way_lean_of_mirrored_seeds_is_their_centre():
    fit = fit_miss_odds(MIRRORED_SIZES, MIRRORED_MISSED)
    assert fit.half_lean == pytest.approx(0.2, abs=1e-6)
    assert fit.chance(fit.half_lean) == pytest.approx(0.5, abs=1e-9)
    assert fit.slope > 0  # misses lean more on the whole: 3 of the 3 largest pairs are misses


def test_the_fit_solves_the_score_equations_of_the_likelihood():
    # the maximum of the logistic likelihood: residuals sum to 0, and so do residuals times the size
    fit = fit_miss_odds(UNEVEN_SIZES, UNEVEN_MISSED)
    residual = UNEVEN_MISSED - fit.chance(UNEVEN_SIZES)
    assert abs(residual.sum()) < 1e-6 and abs((residual * UNEVEN_SIZES).sum()) < 1e-6

    # and it is no other curve: moving either parameter lowers the likelihood
    def likelihood(intercept, slope):
        chance = MissOdds(intercept, slope, 0.5).chance(UNEVEN_SIZES)
        return np.sum(np.where(UNEVEN_MISSED, np.log(chance), np.log1p(-chance)))

    best = likelihood(fit.intercept, fit.slope)
    assert all(likelihood(fit.intercept + a, fit.slope + b) < best for a, b in ((0.1, 0), (-0.1, 0), (0, 0.5), (0, -0.5)))


def test_the_ranking_score_counts_pairs_and_halves_ties():
    # misses at 0.2 and 0.4 against reaches at 0.1, 0.2 and 0.3: four pairs won, one tied, one lost, so 4.5 of 6
    fit = fit_miss_odds([0.1, 0.2, 0.2, 0.4, 0.3], np.array([False, True, False, True, False]))
    assert fit.auc == pytest.approx(0.75)
    # the uneven seeds: misses {0.2, 0.4} against reaches {0.05, 0.1, 0.2, 0.12, 0.3}: 0.2 beats 3, ties 1; 0.4 beats 5
    assert fit_miss_odds(UNEVEN_SIZES, UNEVEN_MISSED).auc == pytest.approx((3 + 0.5 + 5) / 10)


def test_chance_keeps_the_shape_of_its_input_and_rises_with_the_lean():
    fit = MissOdds(intercept=-2.0, slope=10.0, auc=0.9)
    grid = np.array([[0.0, 0.2], [0.4, 1.0]])
    chance = fit.chance(grid)
    assert chance.shape == (2, 2) and chance[0, 1] == pytest.approx(0.5) and fit.half_lean == pytest.approx(0.2)
    assert chance[0, 0] == pytest.approx(1 / (1 + np.exp(2.0))) and np.all(np.diff(chance.ravel()) > 0)


def test_a_size_that_separates_the_seeds_is_refused_on_the_boundary_too():
    with pytest.raises(ValueError, match="separates them"):
        fit_miss_odds([0.1, 0.2, 0.3], np.array([False, False, True]))
    # a tie between the smallest miss and the largest reach still separates them: no finite maximum
    with pytest.raises(ValueError, match="at least as large"):
        fit_miss_odds([0.1, 0.2, 0.2, 0.3], np.array([False, False, True, True]))
    # one miss below one reach: a finite fit
    assert fit_miss_odds([0.1, 0.25, 0.2, 0.3], np.array([False, False, True, True])).slope > 0


@pytest.mark.parametrize(
    ("sizes", "missed", "named"),
    [
        ([0.1, 0.2], np.array([True, False, True]), "one length"),
        ([[0.1, 0.2]], np.array([[True, False]]), "1-D"),
        ([0.1, 0.2, 0.3], np.array([1, 0, 1]), "booleans"),
        ([0.1, -0.2, 0.3], np.array([True, False, True]), "^sizes must be finite lean sizes >= 0 "),
        ([0.1, np.nan, 0.3], np.array([True, False, True]), "^sizes must be finite"),
        ([0.1, None, 0.3], np.array([True, False, True]), "^sizes must be finite"),  # a missing lean, not a TypeError
        ([0.1, 0.2, 0.3], np.array([True, True, True]), "3 misses of 3"),
        ([0.1, 0.2, 0.3], np.array([False, False, False]), "0 misses of 3"),
    ],
)
def test_bad_input_is_refused_naming_what_is_wrong(sizes, missed, named):
    with pytest.raises(ValueError, match=named):
        fit_miss_odds(sizes, missed)


def test_a_lean_of_exactly_zero_is_a_size_like_any_other():
    fit = fit_miss_odds([0.0, 0.2, 0.1, 0.3], np.array([False, False, True, True]))
    assert fit.slope > 0 and fit.auc == pytest.approx(0.75)  # 0.1 beats 0.0, loses to 0.2; 0.3 beats both


# The bootstrap of the half-way lean: sixty seeds of uneven outcome drawn from a known logistic curve.

_rng = np.random.default_rng(5)
DRAWN_SIZES = _rng.uniform(0.0, 0.4, 60)
DRAWN_MISSED = _rng.uniform(size=60) < 1 / (1 + np.exp(-(12 * DRAWN_SIZES - 2.4)))  # half-way at 0.2


def test_the_batched_fits_are_scikit_learn_s():
    samples = np.stack([DRAWN_SIZES, DRAWN_SIZES[::-1], np.roll(DRAWN_SIZES, 7)])
    outcomes = np.stack([DRAWN_MISSED, DRAWN_MISSED, DRAWN_MISSED])
    beta = miss_odds._batched_fits(samples, outcomes.astype(float))
    for (intercept, slope), sizes in zip(beta, samples, strict=True):
        fit = fit_miss_odds(sizes, DRAWN_MISSED)
        assert (intercept, slope) == pytest.approx((fit.intercept, fit.slope), rel=1e-6)


def test_the_interval_is_the_bootstrap_of_scikit_learn_s_fit():
    assert 10 < DRAWN_MISSED.sum() < 50 and DRAWN_MISSED.sum() != 30  # both outcomes, unevenly
    # the sizes overlap widely: no resample of these is separated, so the two fits meet on every one
    assert DRAWN_SIZES[DRAWN_MISSED].min() < 0.1 and DRAWN_SIZES[~DRAWN_MISSED].max() > 0.35
    rows = np.column_stack([DRAWN_SIZES, DRAWN_MISSED])
    expected = bootstrap_interval(
        rows, lambda r: fit_miss_odds(r[:, 0], r[:, 1].astype(bool)).half_lean, n_boot=100, seed=3, confidence=0.9
    )
    found = half_lean_interval(DRAWN_SIZES, DRAWN_MISSED, n_boot=100, seed=3, confidence=0.9)
    assert found == pytest.approx(expected, rel=1e-6)
    low, high = half_lean_interval(DRAWN_SIZES, DRAWN_MISSED)
    assert low < fit_miss_odds(DRAWN_SIZES, DRAWN_MISSED).half_lean < high and high - low < 0.2


def test_a_separated_resample_takes_the_midpoint_of_its_gap():
    # forty seeds the size separates: reaches at 0.10, 0.11, ..., 0.29; misses at 0.31, ..., 0.50
    sizes = np.concatenate([np.linspace(0.10, 0.29, 20), np.linspace(0.31, 0.50, 20)])
    missed = np.arange(40) >= 20
    rows = np.random.default_rng(4).integers(0, 40, size=(200, 40))
    gaps = [(sizes[r][missed[r]].min() + sizes[r][~missed[r]].max()) / 2 for r in rows]
    expected = (np.quantile(gaps, 0.025), np.quantile(gaps, 0.975))
    assert half_lean_interval(sizes, missed, n_boot=200, seed=4) == pytest.approx(expected)
    assert 0.28 < expected[0] <= 0.30 <= expected[1] < 0.32


def test_resamples_of_one_outcome_are_refused():
    missed = np.zeros(30, dtype=bool)
    missed[4] = True  # one miss of thirty: a third of the resamples lack it
    with pytest.raises(ValueError, match="misses only or reaches only"):
        half_lean_interval(np.linspace(0, 0.3, 30), missed)


def test_a_fit_that_does_not_settle_is_an_error(monkeypatch):
    monkeypatch.setattr(miss_odds, "NEWTON_STEPS", 1)
    with pytest.raises(ValueError, match="did not settle after 1 Newton steps"):
        half_lean_interval(DRAWN_SIZES, DRAWN_MISSED, n_boot=100)


@pytest.mark.parametrize(
    ("settings", "named"),
    [({"n_boot": 99}, "at least 100"), ({"confidence": 0.0}, r"\(0, 1\)"), ({"confidence": 1.0}, r"\(0, 1\)")],
)
def test_the_bootstrap_s_settings_are_checked_on_their_boundary(settings, named):
    with pytest.raises(ValueError, match=named):
        half_lean_interval(DRAWN_SIZES, DRAWN_MISSED, **settings)
    half_lean_interval(DRAWN_SIZES, DRAWN_MISSED, n_boot=100, confidence=0.5)  # the smallest accepted
