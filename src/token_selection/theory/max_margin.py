"""The max-margin token-selection program, in the standard form of Tarzanagh et al. (2023).

That the paper's margin is this program is the course's reading (chapter 4 tags it [inferred]):

    p_mm = argmin |p|  s.t.  p . (E_r - E_s) >= 1

for every training sequence, every relevant token r of it and every
irrelevant token s of it. With several *selected* tokens per sequence the
program of Tarzanagh et al. also ties the selected tokens of a sequence:
``p . (E_a - E_b) = 0`` for selected a, b (``selection=``).

Every constraint depends on its sequence only through a token pair, so
duplicate pairs are removed, and ``p`` lies in the span of the few token
embeddings involved: the program is solved in the coordinates of an
orthonormal basis of that span (at most one per distinct token), with the
ties projected out. That small problem is a least-distance program, solved
exactly by non-negative least squares (Lawson and Hanson); the solution is then
polished on its support, checked against every constraint, and scaled so that
the smallest margin is at least 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.optimize import nnls
from threadpoolctl import threadpool_limits

from ..validation import ArrayLike, as_tensor, check_finite, check_mask, check_matrix, check_tokens


@dataclass(frozen=True)
class MaxMarginSolution:
    """p: (d,) float64 solution of the QP; direction: p / |p|; margin = 1 / |p|.

    pairs: (K, 2) int64 distinct (relevant, irrelevant) token pairs constrained;
    active: (K,) bool, pairs whose constraint is tight to 1e-6 (the support);
    ties: (M, 2) int64 distinct pairs of selected tokens held at equal score (empty without ``selection``).
    """

    p: torch.Tensor
    direction: torch.Tensor
    margin: float
    pairs: np.ndarray
    active: np.ndarray
    ties: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))


def _positions(X: ArrayLike, marked: ArrayLike, vocab_size: int, mask: ArrayLike | None, name: str):
    X = check_tokens(X, vocab_size).cpu()
    mask = check_mask(mask, X)
    marked = as_tensor(marked, name).cpu()
    if marked.dtype != torch.bool or tuple(marked.shape) != tuple(X.shape):
        raise ValueError(f"{name} must be a bool tensor of shape {tuple(X.shape)}, got {marked.dtype} {tuple(marked.shape)}")
    real = torch.ones_like(marked) if mask is None else mask.cpu()
    return X.numpy(), (marked & real).numpy(), (~marked & real).numpy()


_WORDS = {"relevant": ("relevant", "irrelevant"), "selection": ("selected", "unselected")}


def selection_pairs(
    X: ArrayLike, relevant: ArrayLike, vocab_size: int, mask: ArrayLike | None = None, *, name: str = "relevant"
) -> np.ndarray:
    """Distinct (relevant token, irrelevant token) pairs that share a sequence: (K, 2).

    X: (n, T) ids; relevant: (n, T) bool; mask: (n, T) bool or None; name: "relevant"
    or "selection", the argument the mask came from (for the messages).
    Raises ValueError when a sequence has no relevant token or when one of its
    relevant tokens also occupies an irrelevant position (the program is then infeasible).
    """
    Xn, rel, irr = _positions(X, relevant, vocab_size, mask, name)
    marked, unmarked = _WORDS[name]
    no_relevant = np.flatnonzero(~rel.any(axis=1))
    if len(no_relevant):
        raise ValueError(f"sequence {no_relevant[0]} has no {marked} token; the program needs one in every sequence")
    pairs = set()
    for j in range(Xn.shape[0]):
        r_tokens, s_tokens = set(Xn[j, rel[j]].tolist()), set(Xn[j, irr[j]].tolist())
        clash = r_tokens & s_tokens
        if clash:
            raise ValueError(
                f"the max-margin program is infeasible: in sequence {j}, token {min(clash)} is marked both "
                f"{marked} and {unmarked}, so no p can score it above itself"
            )
        pairs.update((r, s) for r in r_tokens for s in s_tokens)
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def tie_pairs(X: ArrayLike, selection: ArrayLike, vocab_size: int, mask: ArrayLike | None = None) -> np.ndarray:
    """Distinct pairs (a, b), a < b, of different selected tokens that share a sequence: (M, 2).

    X: (n, T) ids; selection: (n, T) bool; mask: (n, T) bool or None.
    """
    Xn, sel, _ = _positions(X, selection, vocab_size, mask, "selection")
    ties = set()
    for j in range(Xn.shape[0]):
        tokens = sorted(set(Xn[j, sel[j]].tolist()))
        ties.update((a, b) for i, a in enumerate(tokens) for b in tokens[i + 1 :])
    return np.array(sorted(ties), dtype=np.int64).reshape(-1, 2)


def _least_distance(G: np.ndarray) -> np.ndarray | None:
    """argmin |w| s.t. G w >= 1, exactly, or None when no w is feasible. G: (K, r).

    Lawson and Hanson's least-distance programming: with u >= 0 minimising
    |[G^T; 1^T] u - e_last|, the residual r gives w = -r[:-1] / r[-1], and r = 0
    means infeasible (near it, the w read off fails the final check). The support {u > 0} is then polished: w is recomputed as the
    least-norm solution of G_S w = 1 and kept if it is feasible and no longer.
    """
    K, r = G.shape
    A = np.vstack([G.T, np.ones((1, K))])
    target = np.zeros(r + 1)
    target[-1] = 1.0
    u, _ = nnls(A, target, maxiter=50 * (r + 1))
    residual = A @ u - target
    if residual[-1] >= 0:
        return None
    w = -residual[:-1] / residual[-1]
    support = u > 0
    if support.any():
        polished = np.linalg.lstsq(G[support], np.ones(int(support.sum())), rcond=None)[0]
        if (G @ polished).min() >= 1 - 1e-12 and np.linalg.norm(polished) <= np.linalg.norm(w) * (1 + 1e-9):
            w = polished
    # no w meets G w >= 1 - 1e-6 when the program is infeasible, so this also certifies feasibility
    if (G @ w).min() < 1 - 1e-6:
        return None
    return w


def _check_E(E: ArrayLike) -> np.ndarray:
    """E (V, d), a tensor or numpy array, as a float64 numpy array."""
    return check_finite(check_matrix(E, "E"), "E").detach().double().cpu().numpy()


def _solve_in_span(En: np.ndarray, pairs: np.ndarray, ties: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """(w, W) with p = W w the solution, W (d, r) orthonormal; w is None when infeasible.

    W spans the embeddings of the tokens in ``pairs`` and ``ties``, less every tie difference.
    """
    tokens, local = np.unique(np.concatenate([pairs.ravel(), ties.ravel()]), return_inverse=True)
    local = local.reshape(-1, 2)
    U, S, Wt = np.linalg.svd(En[tokens], full_matrices=False)
    tolerance = S[0] * max(En.shape) * np.finfo(float).eps
    B, W = U[:, S > tolerance] * S[S > tolerance], Wt[S > tolerance].T
    if len(ties):
        tied = B[local[len(pairs) :, 0]] - B[local[len(pairs) :, 1]]
        _, St, Vt = np.linalg.svd(tied, full_matrices=True)
        free = Vt[int((St > tolerance).sum()) :].T  # coordinates orthogonal to every tie difference
        B, W = B @ free, W @ free
    G = B[local[: len(pairs), 0]] - B[local[: len(pairs), 1]]
    return (_least_distance(G) if G.shape[1] else None), W


def solve_max_margin(
    E: ArrayLike,
    X: ArrayLike,
    relevant: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    selection: ArrayLike | None = None,
) -> MaxMarginSolution:
    """Solve the program exactly in float64. E: (V, d) float; X: (n, T) ids; mask: (n, T) bool or None.

    Give exactly one of
    - ``relevant``: (n, T) bool; every relevant token of a sequence scores at least 1 above
      each of its other tokens (relevant tokens of one sequence are not compared);
    - ``selection``: (n, T) bool; the same, and the selected tokens of a sequence also tie,
      ``p . (E_a - E_b) = 0``, as when attention converges onto all of them.
    Raises ValueError when the program is infeasible or has no constraint.
    """
    if (relevant is None) == (selection is None):
        raise ValueError("give exactly one of relevant= (no ties) and selection= (ties among the selected tokens)")
    En = _check_E(E)
    marked = relevant if selection is None else selection
    name = "relevant" if selection is None else "selection"
    word = _WORDS[name][0]
    pairs = selection_pairs(X, marked, En.shape[0], mask, name=name)
    ties = np.zeros((0, 2), dtype=np.int64) if selection is None else tie_pairs(X, selection, En.shape[0], mask)
    if len(pairs) == 0:
        raise ValueError(f"no sequence has both a {word} and another token; every p selects trivially")
    # the matrices are at most (distinct tokens) x d: BLAS threads would only add synchronisation
    with threadpool_limits(limits=1):
        w, W = _solve_in_span(En, pairs, ties)
        solution = None if w is None else W @ w
        scores = None if w is None else En @ solution
    if w is None:
        raise ValueError(
            f"the max-margin program has no solution: no p scores every {word} token above the others of its "
            "sequence" + (" while the selected tokens tie" if len(ties) else "") + "; the tokens cannot be separated"
        )
    gaps = scores[pairs[:, 0]] - scores[pairs[:, 1]]
    # the tightest constraint at exactly 1 makes p feasible to rounding and as short as allowed
    scale = float(gaps.min())
    solution, gaps = solution / scale, gaps / scale
    norm = float(np.linalg.norm(solution))
    return MaxMarginSolution(
        p=torch.from_numpy(solution),
        direction=torch.from_numpy(solution / norm),
        margin=1.0 / norm,
        pairs=pairs,
        active=gaps <= 1 + 1e-6,
        ties=ties,
    )


def max_margin_direction(
    E: ArrayLike,
    X: ArrayLike,
    relevant: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    selection: ArrayLike | None = None,
) -> torch.Tensor:
    """Unit vector ``p_mm / |p_mm|``: (d,) float64. See ``solve_max_margin``."""
    return solve_max_margin(E, X, relevant, mask, selection=selection).direction
