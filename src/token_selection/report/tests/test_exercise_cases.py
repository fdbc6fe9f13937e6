"""The checkers' cases are valid inputs that tell right from wrong, and each checker reports under its own name.

The cases are read by a stand-in for ``check_exercise``; each property is one a good case set needs
(accuracies in [0, 1], uneven test-set sizes, a concave case, uneven class counts, ...).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from token_selection.report import exercise_checks
from token_selection.report.binned import compare_spread
from token_selection.report.measures import accuracy_gap
from token_selection.theory.multiclass import class_signed_frequency
from token_selection.theory.shape import quadratic_minimum


@pytest.fixture
def cases(monkeypatch):
    """The (name, reference, cases) each checker hands to check_exercise."""
    seen = {}

    def spy(candidate, reference, cases, *, name, **tolerances):
        seen[name] = (reference, cases, tolerances)
        return True

    monkeypatch.setattr(exercise_checks, "check_exercise", spy)
    for check in (
        exercise_checks.check_accuracy_gap,
        exercise_checks.check_quadratic_minimum,
        exercise_checks.check_spread_ratio,
        exercise_checks.check_class_signed_frequency,
    ):
        assert check(lambda *args: None) is True
    return seen


def test_each_checker_names_its_function(cases):
    assert set(cases) == {"accuracy_gap", "quadratic_minimum", "spread_ratio", "class_signed_frequency"}
    assert cases["accuracy_gap"][0] is accuracy_gap and cases["quadratic_minimum"][0] is quadratic_minimum
    assert cases["class_signed_frequency"][0] is class_signed_frequency


def test_accuracy_gap_cases_are_accuracies_on_test_sets_of_several_sizes(cases):
    _, given, _ = cases["accuracy_gap"]
    assert len(given) == 3
    for (acc_a, n_a, acc_b, n_b), kwargs in given:
        assert kwargs == {} and 0 < acc_a < 1 and 0 < acc_b < 1 and n_a >= 1 and n_b >= 1
    assert any(n_a != n_b for (_, n_a, _, n_b), _ in given)  # a solution that swaps or reuses n fails
    assert any(acc_a < acc_b for (acc_a, _, acc_b, _), _ in given)  # a negative gap
    assert len({n_a for (_, n_a, _, _), _ in given}) == 3


def test_quadratic_minimum_cases_hold_convex_and_concave_data_on_one_interval(cases):
    _, given, tolerances = cases["quadratic_minimum"]
    assert tolerances == {"rtol": 1e-6, "atol": 1e-9}
    minima = [quadratic_minimum(x, y) for (x, y), _ in given]
    assert sum(np.isnan(m) for m in minima) == 1 and sum(np.isfinite(m) for m in minima) == 2
    for (x, y), _ in given:
        assert x.shape == y.shape == (200,) and -1 <= x.min() < 0 < x.max() <= 1
    finite = [m for m in minima if np.isfinite(m)]
    assert finite[0] == pytest.approx(0.3, abs=0.05) and finite[1] == pytest.approx(0.25, abs=0.1)


def test_spread_ratio_cases_compare_both_ways_and_on_a_subset(cases):
    reference, given, _ = cases["spread_ratio"]
    ratios = [reference(*args) for args, _ in given]
    assert ratios[0] == pytest.approx(1 / ratios[1]) and ratios[0] > 1
    sizes = [args[0].size for args, _ in given]
    assert sizes == [1000, 1000, 300]
    for (x, a, b), _ in given:
        assert -1 <= x.min() and x.max() <= 1 and reference(x, a, b) == compare_spread(x, a, b).ratio
    assert (given[2][0][2] >= 0).all()  # the third case's b is non-negative (|b|)


def test_class_signed_frequency_cases_have_several_class_counts_and_valid_ids(cases):
    _, given, _ = cases["class_signed_frequency"]
    seen_K = set()
    for (X, y, K, V), _ in given:
        assert X.dtype == torch.int64 and X.min() >= 0 and X.max() < V and y.min() >= 0 and y.max() < K
        assert X.shape[0] == y.shape[0] and len(torch.unique(y)) == K  # every class present
        counts = torch.bincount(y, minlength=K)
        seen_K.add(K)
        assert counts.max() > counts.min()  # uneven class counts
    assert seen_K == {2, 3, 4}


@pytest.mark.parametrize(
    ("check", "right", "name", "count"),
    [
        ("check_accuracy_gap", accuracy_gap, "accuracy_gap", 3),
        ("check_quadratic_minimum", quadratic_minimum, "quadratic_minimum", 3),
        ("check_spread_ratio", lambda x, a, b: compare_spread(x, a, b).ratio, "spread_ratio", 3),
        ("check_class_signed_frequency", class_signed_frequency, "class_signed_frequency", 3),
    ],
)
def test_a_right_solution_is_reported_under_the_functions_name(capsys, check, right, name, count):
    assert getattr(exercise_checks, check)(right) is True
    assert capsys.readouterr().out == f"{name}: correct on all {count} cases\n"


def _as_plain(value):
    if isinstance(value, torch.Tensor | np.ndarray):
        return value.tolist()
    if isinstance(value, tuple | list):
        return [_as_plain(v) for v in value]
    return value


def test_the_cases_are_the_same_on_every_call(monkeypatch):
    """Seeded: a reader who fails a case sees the same case when trying again."""
    runs = []
    for _ in range(2):
        seen = {}

        def spy(candidate, reference, cases, *, name, seen=seen, **tolerances):
            seen[name] = _as_plain([args for args, _ in cases])
            return True

        monkeypatch.setattr(exercise_checks, "check_exercise", spy)
        exercise_checks.check_quadratic_minimum(None)
        exercise_checks.check_spread_ratio(None)
        exercise_checks.check_class_signed_frequency(None)
        runs.append(seen)
    assert runs[0] == runs[1]


def test_every_token_id_can_occur_in_the_class_frequency_cases(cases):
    _, given, _ = cases["class_signed_frequency"]
    for (X, _, _, V), _ in given:
        assert X.min() == 0 and X.max() == V - 1  # ids drawn from all of [0, V)
