import cvxpy as cp
import numpy as np
import pytest
import torch
from scipy.optimize import nnls
from sklearn.svm import LinearSVC

import token_selection as ts
from token_selection.theory.max_margin import tie_pairs


def test_solution_satisfies_every_constraint(reference_case):
    data, model = reference_case
    solution = ts.solve_max_margin(model.E.detach(), data.X, data.relevant)
    E = model.E.detach().double()
    p = solution.p
    scores = E @ p
    # every relevant token beats every irrelevant token of its own sequence by at least 1
    for j in range(data.X.shape[0]):
        rel = scores[data.X[j][data.relevant[j]]]
        irr = scores[data.X[j][~data.relevant[j]]]
        assert float(rel.min() - irr.max()) >= 1 - 1e-6
    assert solution.active.any()
    assert float(solution.direction.norm()) == pytest.approx(1.0, abs=1e-12)
    assert solution.margin == pytest.approx(1 / float(p.norm()))


def test_solution_is_optimal_against_an_independent_svm(reference_case):
    data, model = reference_case
    solution = ts.solve_max_margin(model.E.detach(), data.X, data.relevant)
    E = model.E.detach().double().numpy()
    D = E[solution.pairs[:, 0]] - E[solution.pairs[:, 1]]
    # hard-margin SVM through the origin on {D: +1, -D: -1} solves min |w| s.t. w . D >= 1
    svm = LinearSVC(fit_intercept=False, C=1e6, loss="hinge", tol=1e-10, max_iter=200_000)
    svm.fit(np.vstack([D, -D]), np.r_[np.ones(len(D)), -np.ones(len(D))])
    w = svm.coef_.ravel()
    cosine = float(w @ solution.direction.numpy() / np.linalg.norm(w))
    assert cosine > 0.999


def test_infeasible_program_names_the_sequence():
    X = torch.tensor([[0, 2, 3], [1, 2, 1]])
    relevant = torch.tensor([[True, False, False], [True, False, False]])
    E = torch.randn(4, 6, dtype=torch.float64)
    with pytest.raises(ValueError, match="sequence 1, token 1"):
        ts.solve_max_margin(E, X, relevant)


def test_sequence_without_relevant_token_is_rejected():
    X = torch.tensor([[0, 2, 3], [1, 2, 3]])
    relevant = torch.tensor([[True, False, False], [False, False, False]])
    with pytest.raises(ValueError, match="sequence 1 has no relevant token"):
        ts.solve_max_margin(torch.randn(4, 6, dtype=torch.float64), X, relevant)


def test_masked_positions_add_no_constraint():
    X = torch.tensor([[0, 2, 3], [1, 2, 0]])
    relevant = torch.tensor([[True, False, False], [True, False, False]])
    mask = torch.tensor([[True, True, True], [True, True, False]])
    pairs = ts.selection_pairs(X, relevant, 4, mask)
    assert pairs.tolist() == [[0, 2], [0, 3], [1, 2]]
    with pytest.raises(ValueError, match="sequence 1, token 0"):
        ts.selection_pairs(torch.tensor([[0, 2, 3], [0, 2, 0]]), relevant, 4)


def test_bad_relevant_mask():
    with pytest.raises(ValueError, match="relevant must be a bool tensor"):
        ts.selection_pairs(torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 3), 4)


def dense_qp(E: np.ndarray, pairs: np.ndarray, ties: np.ndarray | None = None) -> np.ndarray:
    """The same program written directly for a generic interior-point solver (cvxpy, CLARABEL)."""
    p = cp.Variable(E.shape[1])
    constraints = [(E[pairs[:, 0]] - E[pairs[:, 1]]) @ p >= 1]
    if ties is not None and len(ties):
        constraints.append((E[ties[:, 0]] - E[ties[:, 1]]) @ p == 0)
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(p)), constraints).solve(
        solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12
    )
    return np.asarray(p.value)


def kkt_residual(E: np.ndarray, pairs: np.ndarray, ties: np.ndarray, p: np.ndarray) -> float:
    """Relative distance from p to {sum over tight pairs of lambda (E_r - E_s) + ties part, lambda >= 0}."""
    D = E[pairs[:, 0]] - E[pairs[:, 1]]
    tight = D[D @ p <= 1 + 1e-7]
    Tie = E[ties[:, 0]] - E[ties[:, 1]]
    generators = np.vstack([tight, Tie, -Tie])  # tie multipliers are free: both signs
    _, residual = nnls(generators.T, p)
    return residual / np.linalg.norm(p)


def test_matches_a_generic_dense_solver_and_meets_kkt(reference_case):
    data, model = reference_case
    solution = ts.solve_max_margin(model.E.detach(), data.X, data.relevant)
    E, p = model.E.detach().double().numpy(), solution.p.numpy()
    reference = dense_qp(E, solution.pairs)
    assert 1 - p @ reference / (np.linalg.norm(p) * np.linalg.norm(reference)) < 1e-9
    gaps = (E[solution.pairs[:, 0]] - E[solution.pairs[:, 1]]) @ p
    # exact up to float64 rounding: every gap >= 1 to 1e-9 and the tightest one at 1
    assert gaps.min() >= 1 - 1e-9 and gaps.min() <= 1 + 1e-9
    assert kkt_residual(E, solution.pairs, solution.ties, p) < 1e-9


def two_relevant_tokens_case(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """E: (40, 64) Gaussian; 60 sequences of 6 tokens, each with two different tokens of its class's five.

    E_1 = 1.5 E_0, so any p that scores token 0 above 0 scores token 1 higher still: ties bind.
    """
    gen = torch.Generator().manual_seed(seed)
    E = torch.randn(40, 64, generator=gen, dtype=torch.float64) / 8
    E[1] = 1.5 * E[0]
    X = torch.randint(10, 40, (60, 6), generator=gen)
    for j in range(60):
        first = 5 * (j % 2)
        X[j, :2] = first + torch.randperm(5, generator=gen)[:2]
    selection = torch.zeros(60, 6, dtype=torch.bool)
    selection[:, :2] = True
    return E, X, selection


def test_ties_hold_and_the_solution_is_the_minimum_norm_feasible_point():
    E, X, selection = two_relevant_tokens_case()
    solution = ts.solve_max_margin(E, X, selection=selection)
    En, p = E.numpy(), solution.p.numpy()
    assert len(solution.ties) > 0
    scores = En @ p
    assert np.abs(scores[solution.ties[:, 0]] - scores[solution.ties[:, 1]]).max() < 1e-9
    assert (scores[solution.pairs[:, 0]] - scores[solution.pairs[:, 1]]).min() >= 1 - 1e-9
    assert kkt_residual(En, solution.pairs, solution.ties, p) < 1e-9
    reference = dense_qp(En, solution.pairs, solution.ties)
    assert 1 - p @ reference / (np.linalg.norm(p) * np.linalg.norm(reference)) < 1e-9
    assert np.linalg.norm(p) == pytest.approx(np.linalg.norm(reference), rel=1e-6)
    # without the ties the program has another solution, whose selected tokens do not tie
    untied = ts.solve_max_margin(E, X, selection).p.numpy()
    assert np.abs((En @ untied)[solution.ties[:, 0]] - (En @ untied)[solution.ties[:, 1]]).max() > 1e-2
    assert np.linalg.norm(untied) < np.linalg.norm(p)


def test_tie_pairs_are_distinct_and_per_sequence():
    X = torch.tensor([[3, 1, 2, 1], [1, 3, 0, 0]])
    selection = torch.tensor([[True, True, False, True], [True, True, False, False]])
    assert tie_pairs(X, selection, 4).tolist() == [[1, 3]]
    assert tie_pairs(X, selection, 4, torch.tensor([[True, False, True, True], [True, True, True, True]])).tolist() == [[1, 3]]


def test_ties_that_contradict_a_margin_are_infeasible():
    X = torch.tensor([[0, 1, 2], [0, 1, 3]])
    selection = torch.tensor([[True, True, False], [True, False, False]])
    E = torch.randn(4, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with pytest.raises(ValueError, match="no solution.*tie"):
        ts.solve_max_margin(E, X, selection=selection)
    ts.solve_max_margin(E, X, selection)  # without ties the same marks are feasible


def test_exactly_one_of_relevant_and_selection():
    E, X, selection = two_relevant_tokens_case()
    with pytest.raises(ValueError, match="exactly one of"):
        ts.solve_max_margin(E, X)
    with pytest.raises(ValueError, match="exactly one of"):
        ts.solve_max_margin(E, X, selection, selection=selection)
    with pytest.raises(ValueError, match="sequence 0 has no selected token"):
        ts.solve_max_margin(E, X, selection=torch.zeros_like(selection))
