"""The chapter-5 checkers accept the package's answer and reject a plausible wrong one."""

from __future__ import annotations

import pytest
import torch

from token_selection.explorer.compute import selected_relevant_per_sequence
from token_selection.explorer.config import factor_for_alignment
from token_selection.explorer.exercises import check_factor_for_alignment, check_selected_per_sequence


def test_checkers_accept_the_reference_and_report_a_stub():
    assert check_factor_for_alignment(factor_for_alignment) is True
    assert check_selected_per_sequence(selected_relevant_per_sequence) is True

    def stub(*args):
        raise NotImplementedError

    assert check_factor_for_alignment(stub) is False and check_selected_per_sequence(stub) is False


def test_factor_checker_rejects_the_squared_law():
    # a classic slip: inverting r^2 / (1 + r^2) instead of r / sqrt(1 + r^2)
    with pytest.raises(AssertionError, match="factor_for_alignment, case 2"):
        check_factor_for_alignment(lambda target: (target / (1 - target)) ** 0.5)


def test_selection_checker_rejects_counting_positions():
    def positions(attention, X, relevant, vocab_size):
        return float(((attention >= 0.01) & relevant).sum(1).double().mean())

    with pytest.raises(AssertionError, match="selected_per_sequence, case 1"):
        check_selected_per_sequence(positions)


def test_selection_checker_rejects_judging_each_repeat_alone():
    def per_position(attention, X, relevant, vocab_size):
        counts = [len({int(x) for x, r, a in zip(row, rel, att, strict=True) if r and a >= 0.01})
                  for row, rel, att in zip(X, relevant, attention, strict=True)]  # fmt: skip
        return float(torch.tensor(counts, dtype=torch.float64).mean())

    with pytest.raises(AssertionError, match="selected_per_sequence, case 2"):
        check_selected_per_sequence(per_position)
