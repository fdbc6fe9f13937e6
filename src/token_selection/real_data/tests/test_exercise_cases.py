"""The real-data exercises' cases do what the module promises: small seeded inputs, growing in size, that exercise
padding, rare tokens and empty bins, every class present, and test reviews other than the training ones."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from token_selection.real_data import exercises
from token_selection.real_data.exercises import EXERCISES, check_real_data_exercise
from token_selection.real_data.measurements import rebuttal_bins, rebuttal_edges


def _token_arguments(name: str) -> list[tuple]:
    return [arguments for arguments, _ in EXERCISES[name][1]()]


@pytest.mark.parametrize("num_classes", [2, 4])
def test_token_cases_are_padded_seeded_and_grow(num_classes):
    cases = exercises._token_cases(num_classes)
    assert len(cases) == 3
    sizes = [X.shape for X, _, _, _ in cases]
    assert [n for n, _ in sizes] == sorted({n for n, _ in sizes})  # three sizes, growing
    for X, y, V, mask in cases:
        assert X.dtype == torch.int64 and mask.dtype == torch.bool and X.shape == mask.shape
        assert 0 <= int(X.min()) and int(X.max()) < V
        assert mask[:, 0].all() and (~mask).any()  # every review has a word; some are padded
        assert torch.all(X[~mask] == 0)  # padding holds <pad>
        assert torch.equal(mask, torch.arange(X.shape[1])[None, :] < mask.sum(1)[:, None])  # padding at the end
        assert set(y.tolist()) == set(range(num_classes))  # every class present
    rare = [bool((torch.bincount(X[mask], minlength=V) <= 1).any()) for X, _, V, mask in cases]
    assert any(rare)  # some case holds a token seen once or never
    again = exercises._token_cases(num_classes)
    assert all(torch.equal(a[0], b[0]) and torch.equal(a[3], b[3]) for a, b in zip(cases, again, strict=True))  # seeded
    assert not torch.equal(cases[0][0], exercises._token_cases(num_classes, offset=10)[0][0])  # the offset moves the seeds


def test_the_three_token_cases_differ_from_each_other():
    cases = exercises._token_cases()
    assert len({(X.shape, V) for X, _, V, _ in cases}) == 3
    X, _, V, _ = cases[0]
    assert X.shape[0] < 10 and V < 10  # the first case is small enough to check by hand


def test_the_bin_cases_are_seeded_curves_over_the_whole_gap_range_with_empty_bins():
    cases = _token_arguments("ch6-bins")
    assert len(cases) == 3
    sizes = [len(x) for x, _ in cases]
    assert sizes == sorted(set(sizes))
    edges = rebuttal_edges()
    for x, values in cases:
        assert x.shape == values.shape and np.all(np.abs(x) <= 1)
        assert x.min() < -0.9 and x.max() > 0.9  # the curve covers the range
    assert len(rebuttal_bins(*cases[0]).count) < len(edges) - 1  # the smallest case leaves bins empty
    assert [np.array_equal(a[0], b[0]) for a, b in zip(cases, _token_arguments("ch6-bins"), strict=True)] == [True] * 3


def test_the_accuracy_cases_test_on_reviews_other_than_the_training_ones():
    for X, y, mask, X_test, y_test, mask_test, V in _token_arguments("ch7-alpha-classifier"):
        assert X.shape == X_test.shape and not torch.equal(X, X_test) and int(X_test.max()) < V
        assert set(y.tolist()) == set(y_test.tolist()) == {0, 1} and mask.shape == X.shape
        assert (~mask_test).any() and mask_test[:, 0].all()


def test_the_gap_and_class_cases_pass_the_inputs_in_the_chapters_order():
    for X, y, V, mask in _token_arguments("ch6-gap"):
        assert X.ndim == 2 and y.shape == (X.shape[0],) and isinstance(V, int) and mask.shape == X.shape
    for X, y, K, V, mask in _token_arguments("ch7-class-importance"):
        assert K == 4 and set(y.tolist()) == {0, 1, 2, 3} and int(X.max()) < V and mask.shape == X.shape


def test_the_checker_names_the_exercise_when_a_solution_is_wrong_and_refuses_unknown_names():
    def off_by_a_little(X, y, V, mask):
        return EXERCISES["ch6-gap"][0](X, y, V, mask) * 0.99

    with pytest.raises(AssertionError, match="ch6-gap"):
        check_real_data_exercise("ch6-gap", off_by_a_little)
    message = "name must be one of ['ch6-bins', 'ch6-gap', 'ch7-alpha-classifier', 'ch7-class-importance'], got 'ch9'"
    with pytest.raises(ValueError, match=re.escape(message)):
        check_real_data_exercise("ch9", off_by_a_little)


def test_the_token_cases_have_the_exercise_sizes():
    """The sizes are part of the exercise: a case small enough to print and check by hand, then two larger ones."""
    shapes = [(tuple(X.shape), V) for X, _, V, _ in exercises._token_cases()]
    assert shapes == [((6, 4), 5), ((40, 9), 20), ((200, 16), 60)]


def test_the_token_cases_hold_single_word_reviews_unpadded_ones_and_pad_ids_among_real_words():
    cases = exercises._token_cases()
    lengths = torch.cat([mask.sum(1) for _, _, _, mask in cases])
    assert int(lengths.min()) == 1  # a review of a single word
    assert any(bool((mask.sum(1) == X.shape[1]).any()) for X, _, _, mask in cases)  # and reviews with no padding
    # id 0 also stands at real positions: a function that finds padding by id instead of by the mask is caught
    assert any(bool((X[mask] == 0).any()) for X, _, _, mask in cases)


def test_the_bin_cases_have_the_exercise_sizes_and_follow_a_wave_with_small_noise():
    cases = _token_arguments("ch6-bins")
    assert [len(x) for x, _ in cases] == [50, 400, 5000]
    for x, values in cases:
        residual = values - np.sin(3 * x)
        assert abs(residual.mean()) < 0.05 and 0.07 < residual.std() < 0.13  # Gaussian noise of std 0.1 around sin(3x)
    assert len(rebuttal_bins(*cases[-1]).count) == len(rebuttal_edges()) - 1  # the largest case fills every bin
