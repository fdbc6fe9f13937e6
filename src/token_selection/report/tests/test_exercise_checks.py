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
        assert check(_stub) is False


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
