"""Integrators of the gradient flow of ``p`` with ``E`` and ``v`` frozen: normalised GD (Euler steps of fixed length)
and adaptive Runge-Kutta solvers of the normalised flow ``dp/ds = -grad L / |grad L|``.

Normalised gradient flow traces the same curve as gradient flow ``dp/dt = -grad L`` (only the clock differs: ``s``
is the arc length). Every integrator computes the gradient exactly as ``theory.training.train_cls`` does (float64,
the fast form, vectorised over sequences and tokens) and stops a run where that function stops it, at the float64
floor, so Euler steps of length 1 repeat the chapters' runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..theory.training import ROUNDING_FACTOR

SOLVERS = ("RK45", "DOP853")
"""The adaptive solvers ``flow_ode`` accepts: scipy's Dormand-Prince pairs of order 5(4) and 8(5,3)."""


def flow_batch(
    E: torch.Tensor,
    v: torch.Tensor,
    X: torch.Tensor,
    y: torch.Tensor,
    p0: torch.Tensor,
    *,
    steps: int,
    lr: float,
    rounding_factor: float = ROUNDING_FACTOR,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalised GD on ``p`` for a batch of B independent problems (E, v frozen), in float64.

    E: (B, V, d) embeddings; v: (B, d); X: (B, n, T) token ids in [0, V); y: (B, n) labels in {-1, +1};
    p0: (B, d) starts. Each problem takes up to ``steps`` steps of length ``lr`` and stops on its own
    when its gradient falls below ``rounding_factor`` times its float64 rounding error (the rule of
    ``train_cls``). Returns the end points (B, d) and the steps each took (B,) int64.
    """
    if E.dim() != 3:
        raise ValueError(f"E must have shape (B, V, d), got {tuple(E.shape)}")
    B, V, d = E.shape
    if v.shape != (B, d) or p0.shape != (B, d):
        raise ValueError(f"v and p0 must have shape {(B, d)}, got {tuple(v.shape)} and {tuple(p0.shape)}")
    if X.dim() != 3 or X.shape[0] != B or y.shape != X.shape[:2]:
        raise ValueError(f"X must have shape (B, n, T) and y (B, n) with B = {B}, got {tuple(X.shape)}, {tuple(y.shape)}")
    if X.dtype != torch.long or int(X.min()) < 0 or int(X.max()) >= V:
        raise ValueError(f"X must hold int64 token ids in [0, {V}), got {X.dtype} in [{int(X.min())}, {int(X.max())}]")
    if not bool(((y == 1) | (y == -1)).all()):
        raise ValueError("y must hold labels -1 and +1 only")
    if steps < 0 or int(steps) != steps:
        raise ValueError(f"steps must be an integer >= 0, got {steps}")
    if not lr > 0 or lr == float("inf"):
        raise ValueError(f"lr must be a finite number > 0, got {lr}")
    ends, taken = [], []
    for b in range(B):  # one problem at a time: numpy on (n, T) arrays is faster here than torch on (B, n, T)
        end, count = _euler(E[b].double().numpy(), v[b].double().numpy(), X[b].numpy(), y[b].double().numpy(),
                            p0[b].double().numpy(), int(steps), lr, rounding_factor)  # fmt: skip
        ends.append(torch.from_numpy(end))
        taken.append(count)
    return torch.stack(ends), torch.tensor(taken, dtype=torch.long)


def _euler(
    E: np.ndarray, v: np.ndarray, X: np.ndarray, y: np.ndarray, p: np.ndarray, steps: int, lr: float, factor: float
) -> tuple[np.ndarray, int]:
    """Normalised GD of ``train_cls`` for one problem: the end point and the number of steps taken."""
    values, E_norms, p = (E @ v)[X], np.linalg.norm(E, axis=1), p.copy()
    for t in range(steps + 1):
        grad, noise = _gradient(E, values, E_norms, X, y, p)
        norm = float(np.linalg.norm(grad))
        if norm < factor * noise or t == steps:
            return p, t
        p -= lr * grad / norm
    return p, steps


def _gradient(E: np.ndarray, values: np.ndarray, E_norms: np.ndarray, X: np.ndarray, y: np.ndarray, p: np.ndarray):
    """grad_p L (d,) and its float64 rounding error, exactly as ``train_cls`` computes them (numpy, float64)."""
    n, V = X.shape[0], E.shape[0]
    scores = (E @ p)[X]
    q = np.exp(scores - scores.max(axis=1, keepdims=True))
    q /= q.sum(axis=1, keepdims=True)
    f = (q * values).sum(axis=1)
    dloss_df = -y / (1.0 + np.exp(y * f)) / n
    flat = X.ravel()
    grad = E.T @ np.bincount(flat, weights=(dloss_df[:, None] * q * (values - f[:, None])).ravel(), minlength=V)
    summands = np.abs(dloss_df)[:, None] * q * (np.abs(values) + np.abs(f)[:, None])
    noise = np.finfo(np.float64).eps * float(E_norms @ np.bincount(flat, weights=summands.ravel(), minlength=V))
    return grad, noise


def flow_ode(
    E: torch.Tensor,
    v: torch.Tensor,
    X: torch.Tensor,
    y: torch.Tensor,
    p0: torch.Tensor,
    *,
    length: float,
    rtol: float,
    atol: float,
    rounding_factor: float = ROUNDING_FACTOR,
    max_evaluations: int = 1_000_000,
    method: str = "RK45",
) -> dict[str, Any]:
    """Normalised gradient flow dp/ds = -grad L / |grad L| by an adaptive Runge-Kutta solver of scipy (``method``:
    one of ``SOLVERS``).

    E: (V, d); v: (d,); X: (n, T) ids; y: (n,) in {-1, +1}; p0: (d,). Integrates over the arc length
    s in [0, length], one accepted step of the solver at a time, and stops after the step at which the
    gradient reaches the float64 floor of ``train_cls`` (checked at every accepted point, as ``train_cls``
    checks at every step). Returns "p" (d,) float64 tensor, "arc_length" reached, "evaluations" of the
    field, "median_step": the solver's median step in arc length, and "stop": "floor", "length" or, past
    ``max_evaluations``, "budget".
    """
    from scipy import integrate

    if method not in SOLVERS:
        raise ValueError(f"method must be one of {SOLVERS}, got {method!r}")
    if not (length > 0 and rtol > 0 and atol > 0):
        raise ValueError(f"length, rtol and atol must be > 0, got {length}, {rtol}, {atol}")
    E_, v_ = E.double().numpy(), v.double().numpy()
    if E_.ndim != 2 or v_.shape != (E_.shape[1],) or tuple(p0.shape) != (E_.shape[1],):
        raise ValueError(f"E must be (V, d), v and p0 (d,), got {E_.shape}, {v_.shape}, {tuple(p0.shape)}")
    X_, y_ = X.numpy(), y.double().numpy()
    values, E_norms = (E_ @ v_)[X_], np.linalg.norm(E_, axis=1)
    evaluations = 0

    def field(_s: float, p: np.ndarray) -> np.ndarray:
        nonlocal evaluations
        evaluations += 1
        grad, _ = _gradient(E_, values, E_norms, X_, y_, p)
        return -grad / np.linalg.norm(grad)

    def at_floor(p: np.ndarray) -> bool:
        grad, noise = _gradient(E_, values, E_norms, X_, y_, p)
        return bool(np.linalg.norm(grad) < rounding_factor * noise)

    start = p0.double().numpy().copy()
    if at_floor(start):
        return {"p": p0.double().clone(), "arc_length": 0.0, "evaluations": 0, "median_step": 0.0, "stop": "floor"}
    solver = getattr(integrate, method)(field, 0.0, start, float(length), rtol=rtol, atol=atol)
    times, stop = [0.0], "length"
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            raise RuntimeError(f"the flow solver failed: {message}")
        times.append(solver.t)
        if at_floor(solver.y):
            stop = "floor"
            break
        if evaluations > max_evaluations:
            stop = "budget"
            break
    return {
        "p": torch.from_numpy(solver.y.copy()),
        "arc_length": float(solver.t),
        "evaluations": evaluations,
        "median_step": float(np.median(np.diff(times))),
        "stop": stop,
    }
