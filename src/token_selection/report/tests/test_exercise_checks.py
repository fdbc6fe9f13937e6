import numpy as np
import pytest
import torch

from token_selection.report.binned import compare_spread
from token_selection.report.exercise_checks import (
    check_accuracy_gap,
    check_class_signed_frequency,
    check_quadratic_minimum,
    check_spread_ratio,
)
from token_selection.report.measures import accuracy_gap
from token_selection.theory.multiclass import class_signed_frequency
from token_selection.theory.shape import quadratic_minimum


def _stub(*args, **kwargs):
    raise NotImplementedError


def test_right_solutions_pass_and_stubs_are_not_attempted():
    assert check_accuracy_gap(accuracy_gap)
    assert check_quadratic_minimum(quadratic_minimum)
    assert check_spread_ratio(lambda x, a, b: compare_spread(x, a, b).ratio)
    assert check_class_signed_frequency(class_signed_frequency)
    for check in (check_accuracy_gap, check_quadratic_minimum, check_spread_ratio, check_class_signed_frequency):
        assert check(_stub) is None


def test_wrong_accuracy_gap_fails():
    def no_interval_scale(a, n_a, b, n_b):  # a fraction, not points
        return accuracy_gap(a, n_a, b, n_b) / 100

    def paired_with_one_n(a, n_a, b, n_b):  # uses one test set's size for both
        return accuracy_gap(a, n_a, b, n_a)

    for wrong in (no_interval_scale, paired_with_one_n):
        with pytest.raises(AssertionError, match="accuracy_gap"):
            check_accuracy_gap(wrong)


@pytest.mark.filterwarnings("ignore:All-NaN")
def test_wrong_quadratic_minimum_fails():
    def argmin_of_data(x, y):  # the lowest point, not the fitted minimum
        return float(x[np.argmin(y)])

    def ignores_concavity(x, y):
        c, b, _ = np.polyfit(x, y, 2)
        return float(-b / (2 * c))

    for wrong in (argmin_of_data, ignores_concavity):
        with pytest.raises(AssertionError, match="quadratic_minimum"):
            check_quadratic_minimum(wrong)


def test_wrong_spread_ratio_fails():
    def unweighted(x, a, b):  # plain mean of the per-bin stds, not weighted by counts
        from token_selection.theory.importance import bin_by_importance

        return float(bin_by_importance(x, b).std.mean() / bin_by_importance(x, a).std.mean())

    def inverted(x, a, b):
        return compare_spread(x, a, b).ratio ** -1

    for wrong in (unweighted, inverted):
        with pytest.raises(AssertionError, match="spread_ratio"):
            check_spread_ratio(wrong)


def test_wrong_class_signed_frequency_fails():
    def without_length_normalisation(X, y, K, V):
        return class_signed_frequency(X, y, K, V) * X.shape[1]

    def without_the_one_over_k(X, y, K, V):
        counts = torch.zeros(V, K, dtype=torch.float64)
        for j in range(X.shape[0]):
            for token in X[j].tolist():
                counts[token, int(y[j])] += 1 / X.shape[1]
        return counts / X.shape[0]

    for wrong in (without_length_normalisation, without_the_one_over_k):
        with pytest.raises(AssertionError, match="class_signed_frequency"):
            check_class_signed_frequency(wrong)


# The cases each checker uses: every one plays a role a wrong answer can be caught by.


def _spy(reference):
    """A right answer that records its arguments and results."""
    calls = []

    def candidate(*args):
        result = reference(*args)
        calls.append((args, result))
        return result

    return candidate, calls


def test_accuracy_gap_cases_are_equal_sizes_large_sizes_and_unequal_small_sizes():
    candidate, calls = _spy(accuracy_gap)
    assert check_accuracy_gap(candidate)
    # the rebuttal's 95 % against 72 % on 1,000 reviews each; two arms on 25,000; 40 against 60 reviews, b ahead
    assert [args for args, _ in calls] == [(0.95, 1000, 0.72, 1000), (0.87, 25000, 0.61, 25000), (0.5, 40, 0.55, 60)]


def test_quadratic_minimum_cases_are_two_convex_fits_and_a_concave_one():
    candidate, calls = _spy(quadratic_minimum)
    assert check_quadratic_minimum(candidate)
    (x, _), _ = calls[0]
    assert x.shape == (200,) and -1 <= x.min() < -0.95 and 0.95 < x.max() <= 1
    minima = [result for _, result in calls]
    # (x - 0.3)^2 has its minimum at 0.3, 2x^2 - x at 1/4 (worked by hand); the fits land within their noise of them
    assert minima[0] == pytest.approx(0.3, abs=0.02)
    assert minima[1] == pytest.approx(0.25, abs=0.03)
    assert np.isnan(minima[2]), "the third case must be concave: no minimum"
    # each case is its curve plus Gaussian noise of the stated size (0.1, 0.5, 0.1)
    curves = [(x - 0.3) ** 2, 2 * x**2 - x, -(x**2)]
    for ((_, y), _), curve, size in zip(calls, curves, (0.1, 0.5, 0.1), strict=True):
        assert np.std(y - curve) == pytest.approx(size, rel=0.15)


def test_spread_ratio_cases_are_a_wide_over_a_narrow_spread_its_inverse_and_a_folded_subset():
    candidate, calls = _spy(lambda x, a, b: compare_spread(x, a, b).ratio)
    assert check_spread_ratio(candidate)
    ratios = [result for _, result in calls]
    # per bin of width 0.1: a's std ~ sqrt(0.1^2 + 0.1^2/12) = 0.104, b's ~ 1 + x^2 (its slope adds 0.3^2/12):
    # the mean of 1 + x^2 over [-1, 1] is 4/3, so b over a ~ 1.333 / 0.104 = 12.8
    assert ratios[0] == pytest.approx(12.8, rel=0.1)
    assert ratios[1] == pytest.approx(1 / ratios[0], rel=1e-12)
    (x, a, b), _ = calls[0]
    # a is x plus noise of std 0.1; b is 3x plus unit noise scaled by 1 + x^2
    assert x.shape == (1000,) and np.std(a - x) == pytest.approx(0.1, rel=0.1)
    assert np.std((b - 3 * x) / (1 + x**2)) == pytest.approx(1.0, rel=0.1)
    (x3, a3, b3), _ = calls[2]
    assert x3.shape == (300,) and (b3 >= 0).all() and 2 < ratios[2] < ratios[0]


def test_class_signed_frequency_cases_cover_every_token_and_class_on_three_sizes():
    candidate, calls = _spy(class_signed_frequency)
    assert check_class_signed_frequency(candidate)
    sizes = [(tuple(X.shape), K, V) for (X, y, K, V), _ in calls]
    assert sizes == [((50, 6), 3, 12), ((80, 4), 4, 20), ((30, 5), 2, 8)]
    for (X, y, K, V), result in calls:
        assert X.dtype == torch.int64 and set(X.unique().tolist()) == set(range(V)), "a token never drawn"
        assert set(y.unique().tolist()) == set(range(K)) and tuple(result.shape) == (V, K)
