"""The max-margin token-selection program (Theorem 4.3 of the paper).

    p_mm = argmin |p|  s.t.  p . (E_r - E_s) >= 1

for every training sequence, every relevant token r of it and every
irrelevant token s of it. The constraints depend on the sequence only through
the token pair (r, s), so duplicates are removed before the QP is solved.
"""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import torch

from ..validation import ArrayLike, as_tensor, check_mask, check_tokens


@dataclass(frozen=True)
class MaxMarginSolution:
    """p: (d,) float64 solution of the QP; direction: p / |p|; margin = 1 / |p|.

    pairs: (K, 2) int64 distinct (relevant, irrelevant) token pairs constrained;
    active: (K,) bool, pairs whose constraint is tight to 1e-6 (the support).
    """

    p: torch.Tensor
    direction: torch.Tensor
    margin: float
    pairs: np.ndarray
    active: np.ndarray


def selection_pairs(X: ArrayLike, relevant: ArrayLike, vocab_size: int, mask: ArrayLike | None = None) -> np.ndarray:
    """Distinct (relevant token, irrelevant token) pairs that share a sequence: (K, 2).

    X: (n, T) ids; relevant: (n, T) bool; mask: (n, T) bool or None.
    Raises ValueError when a sequence has no relevant token or when one of its
    relevant tokens also occupies an irrelevant position (the program is then infeasible).
    """
    X = check_tokens(X, vocab_size).cpu()
    mask = check_mask(mask, X)
    relevant = as_tensor(relevant, "relevant").cpu()
    if relevant.dtype != torch.bool or tuple(relevant.shape) != tuple(X.shape):
        raise ValueError(
            f"relevant must be a bool tensor of shape {tuple(X.shape)}, got {relevant.dtype} {tuple(relevant.shape)}"
        )
    real = torch.ones_like(relevant) if mask is None else mask.cpu()
    rel, irr = (relevant & real).numpy(), (~relevant & real).numpy()
    Xn = X.numpy()
    no_relevant = np.flatnonzero(~rel.any(axis=1))
    if len(no_relevant):
        raise ValueError(f"sequence {no_relevant[0]} has no relevant token; the program needs one in every sequence")
    pairs = set()
    for j in range(Xn.shape[0]):
        r_tokens, s_tokens = set(Xn[j, rel[j]].tolist()), set(Xn[j, irr[j]].tolist())
        clash = r_tokens & s_tokens
        if clash:
            raise ValueError(
                f"the max-margin program is infeasible: in sequence {j}, token {min(clash)} is marked both "
                "relevant and irrelevant, so no p can score it above itself"
            )
        pairs.update((r, s) for r in r_tokens for s in s_tokens)
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def solve_max_margin(E: torch.Tensor, X: ArrayLike, relevant: ArrayLike, mask: ArrayLike | None = None) -> MaxMarginSolution:
    """Solve the QP with cvxpy in float64. E: (V, d); see ``selection_pairs`` for the rest."""
    if E.dim() != 2:
        raise ValueError(f"E must have shape (V, d), got {tuple(E.shape)}")
    pairs = selection_pairs(X, relevant, E.shape[0], mask)
    if len(pairs) == 0:
        raise ValueError("no sequence has both a relevant and an irrelevant token; every p selects trivially")
    En = E.detach().double().cpu().numpy()
    D = En[pairs[:, 0]] - En[pairs[:, 1]]
    p = cp.Variable(En.shape[1])
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(p)), [D @ p >= 1])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or p.value is None:
        raise ValueError(
            f"the max-margin program has no solution (solver status: {problem.status}); the relevant tokens cannot be separated"
        )
    solution = np.asarray(p.value, dtype=np.float64)
    solution /= min(1.0, float((D @ solution).min()))
    norm = float(np.linalg.norm(solution))
    return MaxMarginSolution(
        p=torch.from_numpy(solution),
        direction=torch.from_numpy(solution / norm),
        margin=1.0 / norm,
        pairs=pairs,
        active=(D @ solution) <= 1 + 1e-6,
    )


def max_margin_direction(E: torch.Tensor, X: ArrayLike, relevant: ArrayLike, mask: ArrayLike | None = None) -> torch.Tensor:
    """Unit vector ``p_mm / |p_mm|``: (d,) float64. See ``solve_max_margin``."""
    return solve_max_margin(E, X, relevant, mask).direction
