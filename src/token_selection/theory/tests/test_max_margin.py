import numpy as np
import pytest
import torch
from sklearn.svm import LinearSVC

import token_selection as ts


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
