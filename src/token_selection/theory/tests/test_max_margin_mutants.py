"""Exact checks of the max-margin program on instances solved by hand: active set, precision, messages."""

import re

import numpy as np
import pytest
import torch
from scipy.optimize import nnls

import token_selection as ts
from token_selection.theory.max_margin import _least_distance, selection_pairs, tie_pairs


def _exact(message: str):
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


def line_case():
    """Token 0 irrelevant at the origin, relevant tokens 1..4 on the first axis at 1, 3, 1 + 5e-7 and 1 + 2e-6.

    p_mm = (1, 0): the pair (1, 0) is tight, (3, 0) has gap 1 + 5e-7 (tight to the 1e-6 tolerance),
    (2, 0) and (4, 0) have gaps 3 and 1 + 2e-6 (not tight).
    """
    E = torch.tensor([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [1 + 5e-7, 0.0], [1 + 2e-6, 0.0]], dtype=torch.float64)
    X = torch.tensor([[1, 0], [2, 0], [3, 0], [0, 4]])
    relevant = torch.tensor([[True, False], [True, False], [True, False], [False, True]])
    return E, X, relevant


def test_active_set_and_solution_of_a_case_solved_by_hand():
    E, X, relevant = line_case()
    solution = ts.solve_max_margin(E, X, relevant)
    assert solution.pairs.tolist() == [[1, 0], [2, 0], [3, 0], [4, 0]] and solution.pairs.dtype == np.int64
    assert solution.active.tolist() == [True, False, True, False]
    assert torch.allclose(solution.p, torch.tensor([1.0, 0.0], dtype=torch.float64), rtol=0, atol=1e-15)
    assert solution.margin == pytest.approx(1.0, abs=1e-15)
    assert torch.allclose(solution.direction, torch.tensor([1.0, 0.0], dtype=torch.float64), rtol=0, atol=1e-15)
    assert solution.ties.shape == (0, 2)
    assert torch.equal(ts.max_margin_direction(E, X, relevant), solution.direction)


def test_smallest_gap_is_scaled_to_exactly_one():
    # two directions: p_mm = (1/2, 1/2) for D = (1, 1), with a second, slack constraint D = (3, 1)
    E = torch.tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [3.0, 1.0, 0.0]], dtype=torch.float64)
    X = torch.tensor([[1, 0], [2, 0]])
    relevant = torch.tensor([[True, False], [True, False]])
    solution = ts.solve_max_margin(E, X, relevant)
    assert torch.allclose(solution.p, torch.tensor([0.5, 0.5, 0.0], dtype=torch.float64), rtol=0, atol=1e-15)
    gaps = (E @ solution.p)[[1, 2]] - (E @ solution.p)[0]
    assert float(gaps.min()) == pytest.approx(1.0, abs=1e-15) and float(gaps.max()) == pytest.approx(2.0, abs=1e-14)
    assert solution.active.tolist() == [True, False]
    assert solution.margin == pytest.approx(2**0.5, rel=1e-14)


def test_least_distance_program_by_hand():
    # all active: w = (1, 1/2, 1/4, 0, 0); a redundant constraint changes nothing
    G = np.array([[1.0, 0, 0, 0, 0], [0, 2.0, 0, 0, 0], [0, 0, 4.0, 0, 0]])
    assert np.allclose(_least_distance(G), [1.0, 0.5, 0.25, 0.0, 0.0], rtol=0, atol=1e-15)
    assert np.allclose(_least_distance(np.vstack([G, [[2.0, 0, 0, 0, 0]]])), [1.0, 0.5, 0.25, 0.0, 0.0], rtol=0, atol=1e-15)
    # w . (1, 1) >= 1 alone: the shortest w is (1/2, 1/2)
    assert np.allclose(_least_distance(np.array([[1.0, 1.0]])), [0.5, 0.5], rtol=0, atol=1e-15)
    # w >= 1 and -w >= 1 cannot both hold
    assert _least_distance(np.array([[1.0], [-1.0]])) is None
    assert _least_distance(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])) is None


def test_least_distance_meets_every_constraint_on_random_programs():
    # feasible by construction (every row has a positive inner product with the all-ones direction)
    rng = np.random.default_rng(0)
    for _ in range(20):
        G = rng.normal(size=(12, 6)) + 2.0 * np.ones(6) / 6**0.5
        G = G[G @ np.ones(6) > 0.5]
        w = _least_distance(G)
        assert w is not None and (G @ w).min() >= 1 - 1e-9
        # optimal: w lies in the cone of the tight rows (KKT), checked by non-negative least squares
        tight = G[G @ w <= 1 + 1e-7]
        _, residual = nnls(tight.T, w)
        assert residual < 1e-8 * np.linalg.norm(w)


def test_selection_pairs_and_ties():
    X = torch.tensor([[3, 1, 0, 0], [2, 1, 4, 1]])
    relevant = torch.tensor([[True, False, False, False], [True, False, True, False]])
    mask = torch.tensor([[True, True, False, False], [True, True, True, True]])
    assert selection_pairs(X, relevant, 5, mask).tolist() == [[2, 1], [3, 1], [4, 1]]
    assert selection_pairs(X, relevant, 5).tolist() == [[2, 1], [3, 0], [3, 1], [4, 1]]
    assert tie_pairs(X, relevant, 5, mask).tolist() == [[2, 4]]
    single = torch.tensor([[True, False, False, False], [True, False, False, False]])
    ties = tie_pairs(X, single, 5)
    assert ties.shape == (0, 2) and ties.dtype == np.int64
    only_relevant = selection_pairs(torch.tensor([[1, 2]]), torch.tensor([[True, True]]), 3)
    assert only_relevant.shape == (0, 2) and only_relevant.dtype == np.int64


def test_messages():
    E, X, relevant = line_case()
    with _exact("sequence 1 has no relevant token; the program needs one in every sequence"):
        ts.solve_max_margin(E, X, torch.tensor([[True, False], [False, False], [True, False], [False, True]]))
    with _exact("sequence 1 has no selected token; the program needs one in every sequence"):
        ts.solve_max_margin(E, X, selection=torch.tensor([[True, False], [False, False], [True, False], [False, True]]))
    clash_X = torch.tensor([[1, 2, 1, 2, 0]])
    clash = torch.tensor([[True, True, False, False, False]])
    with _exact(
        "the max-margin program is infeasible: in sequence 0, token 1 is marked both relevant and irrelevant, "
        "so no p can score it above itself"
    ):
        ts.solve_max_margin(torch.zeros(3, 2, dtype=torch.float64), clash_X, clash)
    with _exact(
        "the max-margin program is infeasible: in sequence 0, token 1 is marked both selected and unselected, "
        "so no p can score it above itself"
    ):
        ts.solve_max_margin(torch.zeros(3, 2, dtype=torch.float64), clash_X, selection=clash)
    with _exact("relevant must be a bool tensor of shape (4, 2), got torch.int64 (4, 2)"):
        ts.solve_max_margin(E, X, relevant.long())
    with _exact("selection must be a bool tensor of shape (4, 2), got torch.bool (4, 3)"):
        ts.solve_max_margin(E, X, selection=torch.ones(4, 3, dtype=torch.bool))
    with _exact("selection must be a torch.Tensor or numpy array, got list"):
        ts.solve_max_margin(E, X, selection=relevant.tolist())
    with _exact("no sequence has both a relevant and another token; every p selects trivially"):
        ts.solve_max_margin(E, torch.tensor([[1, 2]]), torch.tensor([[True, True]]))
    with _exact("no sequence has both a selected and another token; every p selects trivially"):
        ts.solve_max_margin(E, torch.tensor([[1, 2]]), selection=torch.tensor([[True, True]]))
    with _exact("E must have shape (V, d), got (5,)"):
        ts.solve_max_margin(E[:, 0], X, relevant)
    with _exact("E must be a torch.Tensor or numpy array, got list"):
        ts.solve_max_margin(E.tolist(), X, relevant)
    with _exact("E contains NaN or inf"):
        ts.solve_max_margin(E.clone().index_fill_(0, torch.tensor([2]), float("inf")), X, relevant)
    with _exact("E must be a floating-point matrix, got dtype torch.int64"):
        ts.solve_max_margin(E.long(), X, relevant)
    with _exact("give exactly one of relevant= (no ties) and selection= (ties among the selected tokens)"):
        ts.solve_max_margin(E, X)


def test_infeasible_messages_with_and_without_ties():
    # token 1 must beat token 2 in one sequence and token 2 beat token 1 in another
    E = torch.tensor([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], dtype=torch.float64)
    X = torch.tensor([[1, 2], [2, 1]])
    with _exact(
        "the max-margin program has no solution: no p scores every relevant token above the others of its "
        "sequence; the tokens cannot be separated"
    ):
        ts.solve_max_margin(E, X, torch.tensor([[True, False], [True, False]]))
    # tokens 1 and 2 must tie, so p . (E_2 - E_1) = p_1 = 0, and token 1 can no longer beat token 0
    X = torch.tensor([[1, 2, 0], [0, 2, 2]])
    selection = torch.tensor([[True, True, False], [True, False, False]])
    with _exact(
        "the max-margin program has no solution: no p scores every selected token above the others of its "
        "sequence while the selected tokens tie; the tokens cannot be separated"
    ):
        ts.solve_max_margin(E, X, selection=selection)


def test_tied_solution_by_hand():
    # tokens 1 = (1, 0) and 2 = (0, 1) are selected together over token 0 = (0, 0): they tie, so p = (1, 1)
    E = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    X = torch.tensor([[1, 2, 0]])
    solution = ts.solve_max_margin(E, X, selection=torch.tensor([[True, True, False]]))
    assert solution.ties.tolist() == [[1, 2]]
    assert torch.allclose(solution.p, torch.tensor([1.0, 1.0], dtype=torch.float64), rtol=0, atol=1e-14)
    assert solution.active.tolist() == [True, True]
    # token 2 = (2, 1): alone, p = (1, 0) with slack on token 2; tied to token 1, p_2 = -p_1 and p = (1, -1)
    E3 = torch.tensor([[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]], dtype=torch.float64)
    free = ts.solve_max_margin(E3, X, torch.tensor([[True, True, False]]))
    tied = ts.solve_max_margin(E3, X, selection=torch.tensor([[True, True, False]]))
    assert torch.allclose(free.p, torch.tensor([1.0, 0.0], dtype=torch.float64), rtol=0, atol=1e-14)
    assert free.active.tolist() == [True, False] and free.ties.shape == (0, 2)
    assert torch.allclose(tied.p, torch.tensor([1.0, -1.0], dtype=torch.float64), rtol=0, atol=1e-14)
    assert tied.active.tolist() == [True, True] and tied.margin == pytest.approx(2**-0.5, rel=1e-14)


def test_padding_adds_no_constraint_and_no_tie():
    # the padded positions hold tokens that would clash (token 1 both selected and not) or tie (1 with 2)
    E, X, relevant = line_case()
    padded = torch.cat([X, torch.tensor([[1], [1], [1], [1]])], 1)
    mask = torch.cat([torch.ones(4, 2, dtype=torch.bool), torch.zeros(4, 1, dtype=torch.bool)], 1)
    marked = torch.cat([relevant, torch.zeros(4, 1, dtype=torch.bool)], 1)
    plain = ts.solve_max_margin(E, X, relevant)
    masked = ts.solve_max_margin(E, padded, marked, mask)
    assert torch.equal(masked.p, plain.p) and masked.pairs.tolist() == plain.pairs.tolist()
    assert torch.equal(ts.max_margin_direction(E, padded, marked, mask), plain.direction)
    selection = torch.cat([relevant, torch.ones(4, 1, dtype=torch.bool)], 1)  # padded token 1 "selected" with 2, 3, 4
    tied = ts.solve_max_margin(E, padded, selection=selection, mask=mask)
    assert tied.ties.shape == (0, 2) and torch.equal(tied.p, plain.p)
    assert torch.equal(ts.max_margin_direction(E, padded, selection=selection, mask=mask), plain.direction)
    assert tie_pairs(padded, selection, 5, mask).shape == (0, 2)
    assert tie_pairs(padded, selection, 5).tolist() == [[1, 2], [1, 3], [1, 4]]


def test_direction_with_selection_is_the_tied_solution():
    E = torch.tensor([[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]], dtype=torch.float64)
    X = torch.tensor([[1, 2, 0]])
    selection = torch.tensor([[True, True, False]])
    expected = torch.tensor([1.0, -1.0], dtype=torch.float64) / 2**0.5
    assert torch.allclose(ts.max_margin_direction(E, X, selection=selection), expected, rtol=0, atol=1e-14)


def test_tie_pairs_names_its_argument():
    X = torch.tensor([[1, 2]])
    with _exact("selection must be a bool tensor of shape (1, 2), got torch.int64 (1, 2)"):
        tie_pairs(X, torch.ones(1, 2, dtype=torch.long), 3)
