"""Time the package's max-margin solver against a cvxopt QP in the formulation of Tarzanagh et al.

Their code for "Max-margin token selection in attention mechanism" solves
``min |p|^2/2  s.t.  p . (E_t - E_r) <= -1`` with ``cvxopt.solvers.qp``: identity
quadratic term, one row per sequence and per position other than the relevant
one (no duplicate removal), default tolerances. The same formulation is written
here; both solvers start from (E, X, relevant) and end with a vector p.

Cases: n sequences of length T over V tokens, one relevant token each (delta = 0),
E after one gradient step of size 10 eta* (the course's rule) in dimension d, float64.
Prints, per seed, both times, 1 - cos between the two directions and how well each
meets its constraints (smallest margin minus 1; negative is a violation).

    python benchmarks/max_margin.py                 # n=300, T=16, V=120, d=1024, seeds 0-2
    python benchmarks/max_margin.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import os
import time

import cvxopt
import numpy as np
import torch

from token_selection import CLSAttention, make_synthetic, one_step_embeddings, solve_max_margin
from token_selection.theory.one_step import step_size_threshold


def cvxopt_reference(E: np.ndarray, X: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """The QP of Tarzanagh et al.: P = I, q = 0, G = rows E_t - E_r of every sequence, h = -1."""
    rows, cols = np.nonzero(~relevant)
    chosen = X[np.arange(len(X)), relevant.argmax(axis=1)]
    G = E[X[rows, cols]] - E[chosen[rows]]
    d = E.shape[1]
    cvxopt.solvers.options["show_progress"] = False
    solution = cvxopt.solvers.qp(
        cvxopt.matrix(np.eye(d)), cvxopt.matrix(np.zeros(d)), cvxopt.matrix(G), cvxopt.matrix(-np.ones(len(G)))
    )
    return np.asarray(solution["x"]).ravel()


def smallest_margin(E: np.ndarray, X: np.ndarray, relevant: np.ndarray, p: np.ndarray) -> float:
    """min over sequences and other positions of (E_r - E_t) . p, minus 1."""
    scores = E[X] @ p
    lowest_relevant = np.where(relevant, scores, np.inf).min(axis=1)
    highest_other = np.where(relevant, -np.inf, scores).max(axis=1)
    return float((lowest_relevant - highest_other).min() - 1)


def case(n: int, T: int, V: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = make_synthetic(n, T, V, 0.0, seed=seed)
    model = CLSAttention(V, d, seed=seed, dtype=torch.float64)
    lr = 10 * step_size_threshold(data.X, data.y, V, d)
    E = one_step_embeddings(model, data.X, data.y, lr).numpy()
    return E, data.X.numpy(), data.relevant.numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--T", type=int, default=16)
    parser.add_argument("--V", type=int, default=120)
    parser.add_argument("--d", type=int, default=1024)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    print(
        f"n={args.n} T={args.T} V={args.V} d={args.d}, one relevant token per sequence, float64; "
        f"cvxopt {cvxopt.__version__}, torch {torch.__version__}, {torch.get_num_threads()} threads"
    )
    for seed in args.seeds:
        E, X, relevant = case(args.n, args.T, args.V, args.d, seed)
        start = time.perf_counter()
        reference = cvxopt_reference(E, X, relevant)
        reference_seconds = time.perf_counter() - start
        start = time.perf_counter()
        solution = solve_max_margin(torch.from_numpy(E), torch.from_numpy(X), torch.from_numpy(relevant))
        package_seconds = time.perf_counter() - start
        p = solution.p.numpy()
        cosine = float(p @ reference / (np.linalg.norm(p) * np.linalg.norm(reference)))
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"seed {seed}: package {package_seconds:6.3f} s, cvxopt {reference_seconds:6.3f} s "
            f"({reference_seconds / package_seconds:5.1f}x); 1 - cos = {1 - cosine:.1e}; "
            f"smallest margin - 1: package {smallest_margin(E, X, relevant, p):+.1e}, "
            f"cvxopt {smallest_margin(E, X, relevant, reference):+.1e}; "
            f"{len(solution.pairs)} distinct pairs, {int(solution.active.sum())} tight; load average {load}"
        )


if __name__ == "__main__":
    main()
