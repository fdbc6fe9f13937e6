"""The explorer's selection threshold on its boundary, with repeated tokens and uneven numbers of relevant tokens."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from token_selection.explorer.compute import SELECTED_MASS, correlation, selected_relevant_per_sequence, slope, token_mass


def test_selected_mass_is_one_percent():
    assert SELECTED_MASS == 0.01


def test_token_mass_sums_repeats_within_a_sequence_only():
    X = torch.tensor([[1, 2, 1, 3], [1, 1, 1, 1]])
    attention = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]], dtype=torch.float64)
    mass = token_mass(attention, X, vocab_size=4)
    assert mass.tolist() == [[pytest.approx(0.4), 0.2, pytest.approx(0.4), 0.4], [1.0, 1.0, 1.0, 1.0]]


def test_a_relevant_token_is_selected_from_exactly_the_threshold_on():
    # three sequences with 2, 1 and 3 relevant tokens (uneven), masses on and around the threshold
    X = torch.tensor([[5, 6, 0, 1], [7, 0, 1, 2], [5, 8, 9, 3]])
    relevant = torch.tensor([[True, True, False, False], [True, False, False, False], [True, True, True, False]])
    just_below = np.nextafter(SELECTED_MASS, 0.0)
    attention = torch.tensor(
        [
            [SELECTED_MASS, just_below, 0.5, 0.5 - SELECTED_MASS - just_below],  # on: counted; just below: not
            [0.9, 0.05, 0.03, 0.02],
            [0.3, 0.3, 0.3, 0.1],
        ],
        dtype=torch.float64,
    )
    assert selected_relevant_per_sequence(attention, X, relevant, vocab_size=10) == pytest.approx((1 + 1 + 3) / 3)
    none_selected = torch.full((3, 4), 0.25, dtype=torch.float64).masked_fill(relevant, 0.0)
    assert selected_relevant_per_sequence(none_selected, X, relevant, vocab_size=10) == 0.0


def test_a_repeated_relevant_token_counts_once_and_by_its_summed_mass():
    X = torch.tensor([[4, 4, 4, 1]])
    relevant = torch.tensor([[True, True, True, False]])
    half = SELECTED_MASS / 2  # each repeat below the threshold, their sum on it
    attention = torch.tensor([[half, half / 2, half / 2, 1 - 2 * half]], dtype=torch.float64)
    assert selected_relevant_per_sequence(attention, X, relevant, vocab_size=5) == 1.0


def test_correlation_and_slope_of_constant_sides_are_zero_not_nan():
    x, y = np.array([1.0, 2.0, 4.0]), np.array([3.0, 3.0, 3.0])
    assert correlation(x, y) == 0.0 and correlation(y, x) == 0.0 and slope(y, x) == 0.0
    assert slope(x, y) == 0.0
    assert correlation(x, 2 * x + 1) == pytest.approx(1.0) and slope(x, 2 * x + 1) == pytest.approx(2.0)
    assert correlation(x, -x) == pytest.approx(-1.0)
