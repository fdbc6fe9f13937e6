import math

import numpy as np
import pytest
from scipy import stats

from token_selection.intervals import as_interval, seed_interval, show_interval


def test_seed_interval_is_the_student_t_interval_of_uneven_values():
    values = [0.81, 0.84, 0.845, 0.9]  # uneven spacing: the mean is not the midpoint of the extremes
    interval = seed_interval(values)
    mean, sem = np.mean(values), np.std(values, ddof=1) / math.sqrt(4)
    half = stats.t.ppf(0.975, 3) * sem
    assert interval["value"] == pytest.approx(mean, abs=1e-15)
    assert interval["low"] == pytest.approx(mean - half, abs=1e-15)
    assert interval["high"] == pytest.approx(mean + half, abs=1e-15)
    assert interval["n"] == 4 and interval["values"] == values


def test_two_seeds_use_the_wide_t_quantile_not_the_normal_one():
    interval = seed_interval([0.0, 1.0])
    assert interval["high"] - interval["value"] == pytest.approx(12.706 * 0.5, rel=1e-3)


def test_one_seed_is_a_point_and_says_so():
    interval = seed_interval([0.7])
    assert interval["low"] == interval["high"] == interval["value"] == 0.7 and interval["n"] == 1
    assert show_interval(interval, "{:.1f}", 100, " %") == "70.0 % (one seed)"


def test_show_interval_with_several_seeds():
    text = show_interval({"value": 0.5, "low": 0.25, "high": 0.75, "n": 3}, "{:.2f}", 1, "x")
    assert text == "0.50 [0.25, 0.75]x (3 seeds)"


@pytest.mark.parametrize("bad", [[], [1.0, float("nan")], [[1.0, 2.0]], [float("inf")]])
def test_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="values must"):
        seed_interval(bad)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5])
def test_confidence_must_lie_strictly_inside(confidence):
    with pytest.raises(ValueError, match="confidence"):
        seed_interval([0.1, 0.2], confidence)


def test_as_interval_takes_numbers_and_intervals_only():
    assert as_interval(0.5)["n"] == 1
    given = {"value": 1.0, "low": 0.5, "high": 1.5, "n": 2}
    assert as_interval(given) is given
    with pytest.raises(ValueError, match="missing"):
        as_interval({"value": 1.0})
    for bad in ("0.5", True, None):
        with pytest.raises(TypeError):
            as_interval(bad)


def test_bounds_clip_the_interval_on_the_boundary_and_refuse_what_lies_outside():
    free = seed_interval([0.0, 0.5, 1.0])
    clipped = seed_interval([0.0, 0.5, 1.0], bounds=(0.0, 1.0))
    assert free["low"] < 0 and free["high"] > 1
    assert (clipped["low"], clipped["high"], clipped["value"]) == (0.0, 1.0, 0.5)
    inside = seed_interval([0.4, 0.5, 0.6], bounds=(0.0, 1.0))
    assert inside == seed_interval([0.4, 0.5, 0.6]), "an interval inside its bounds is unchanged"
    assert seed_interval([0.0], bounds=(0.0, 1.0))["low"] == 0.0  # a value on the bound itself is allowed
    with pytest.raises(ValueError, match=r"within bounds \(0.0, 1.0\)"):
        seed_interval([0.5, 1.2], bounds=(0.0, 1.0))
    with pytest.raises(ValueError, match="low < high"):
        seed_interval([0.5], bounds=(1.0, 1.0))


def test_the_test_sets_error_widens_an_accuracy_interval_in_quadrature_and_stays_in_0_1():
    from token_selection.intervals import with_test_set_error

    seeds = {"value": 0.885, "low": 0.88, "high": 0.89, "n": 3}
    wide = with_test_set_error(seeds, 2500)
    test_half = 1.959964 * math.sqrt(0.885 * 0.115 / 2500)
    assert wide["high"] - 0.885 == pytest.approx(math.hypot(0.005, test_half), rel=1e-6) and wide["n_test"] == 2500
    assert wide["value"] == 0.885 and wide["n"] == 3
    assert with_test_set_error(seeds, 0) == seeds and with_test_set_error(seeds, None) is not seeds
    near_one = with_test_set_error({"value": 0.999, "low": 0.999, "high": 0.999, "n": 1}, 10)
    assert near_one["high"] == 1.0 and near_one["low"] == pytest.approx(0.999 - 1.959964 * math.sqrt(0.000999 / 10))
