import numpy as np
import pytest

from token_selection.real_data.exercises import EXERCISES, check_real_data_exercise
from token_selection.real_data.measurements import signed_frequency_accuracy
from token_selection.studies.synthetic_variants import class_importance
from token_selection.theory.importance import posterior_gap


def test_the_references_pass_their_own_checks():
    for name, (reference, _) in EXERCISES.items():
        assert check_real_data_exercise(name, reference) is True


def test_a_stub_counts_as_not_attempted():
    def stub(*args):
        raise NotImplementedError

    assert check_real_data_exercise("ch6-gap", stub) is None


WRONG = {
    # the gap without the padding mask: padded ids 0 are counted as words
    "ch6-gap": lambda X, y, V, mask: posterior_gap(X, y, V),
    # equal-width bins instead of the rebuttal's centres
    "ch6-bins": lambda x, values: np.array(
        [values[(x >= lo) & (x < lo + 0.1)].mean() for lo in np.linspace(-1, 0.9, 20) if ((x >= lo) & (x < lo + 0.1)).any()]
    ),
    # alpha counted on the test reviews (a leak that changes the predictions)
    "ch7-alpha-classifier": lambda X, y, mask, Xt, yt, mt, V: signed_frequency_accuracy(Xt, yt, mt, Xt, yt, mt, V),
    # P(k|s) without subtracting 1/K
    "ch7-class-importance": lambda X, y, K, V, mask: class_importance(X, y, K, V, mask) + 1.0 / K,
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_checker_rejects_a_wrong_solution(name):
    with pytest.raises(AssertionError, match=name):
        check_real_data_exercise(name, WRONG[name])


def test_unknown_exercise():
    with pytest.raises(ValueError, match="ch6-gap"):
        check_real_data_exercise("ch9", lambda: None)
