"""Gradient descent on the ``<cls>`` vector ``p`` with ``E`` and ``v`` frozen.

Runs in float64 with the exact gradient of the fast form

    -grad_p L = mean_j y_j g_j sum_i q_i (E_{x_i}.v - f_j) E_{x_i},

accumulated per token with ``bincount`` and mapped back through ``E^T``, so a
step costs O(V d + n T). As |p| grows the attention on irrelevant tokens decays
exponentially and so does the gradient. Once the gradient is as small as the
rounding error of the sums it is made of, further steps follow rounding noise
(the direction drifts away from p_mm); training stops there and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..validation import ArrayLike, as_tensor, check_labels, check_mask, check_positive_int, check_tokens, check_vector
from .model import CLSAttention, masked_softmax

ROUNDING_FACTOR = 100.0
"""Stop when |grad| < ROUNDING_FACTOR * eps(float64) * (sum of |summands|)."""


@dataclass
class PTrainingHistory:
    """Diagnostics of ``train_cls`` at log-spaced steps (arrays of equal length).

    step: steps completed; p_norm: |p|; loss: logistic loss; cosine: cos(p, reference)
    (0 while p = 0, NaN-free); min_relevant_attention / mean_relevant_attention: attention
    mass on relevant positions, minimum and mean over sequences (NaN without ``relevant``).
    stop_reason says why training ended.
    """

    step: list[int] = field(default_factory=list)
    p_norm: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    cosine: list[float] = field(default_factory=list)
    min_relevant_attention: list[float] = field(default_factory=list)
    mean_relevant_attention: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)
    stop_reason: str = ""

    def as_arrays(self) -> dict[str, np.ndarray]:
        """Every recorded series as a float64 numpy array."""
        names = ("step", "p_norm", "loss", "cosine", "min_relevant_attention", "mean_relevant_attention", "grad_norm")
        return {k: np.asarray(getattr(self, k), dtype=np.float64) for k in names}


def log_spaced_steps(steps: int, points: int = 60) -> set[int]:
    """Step counts 0, 1, ..., steps at which to record: about ``points`` of them, log-spaced."""
    return {0, steps} | set(np.unique(np.round(np.geomspace(1, max(steps, 1), points))).astype(int).tolist())


def train_cls(
    model: CLSAttention,
    X: ArrayLike,
    y: ArrayLike,
    *,
    steps: int,
    lr: float,
    method: str = "gd",
    mask: ArrayLike | None = None,
    reference: torch.Tensor | None = None,
    relevant: ArrayLike | None = None,
    log_points: int = 60,
    rounding_factor: float | None = None,
) -> PTrainingHistory:
    """Train ``model.p`` by full-batch GD (``"gd"``) or normalised GD (``"normalized"``).

    X: (n, T) ids; y: (n,) labels; mask, relevant: (n, T) bool or None;
    reference: (d,) direction for the cosine (e.g. p_mm). ``model.p`` is
    updated in place; ``E`` and ``v`` are not touched. rounding_factor: stop when
    |grad| is below this multiple of its float64 rounding error (default
    ``ROUNDING_FACTOR``; 0 never stops, to show what happens past the floor).
    """
    steps = check_positive_int(steps, "steps", minimum=0)
    if method not in ("gd", "normalized"):
        raise ValueError(f"method must be 'gd' or 'normalized', got {method!r}")
    if not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr}")
    rounding_factor = ROUNDING_FACTOR if rounding_factor is None else float(rounding_factor)
    if not np.isfinite(rounding_factor) or rounding_factor < 0:
        raise ValueError(f"rounding_factor must be a finite number >= 0, got {rounding_factor}")
    X = check_tokens(X, model.vocab_size).to(model.E.device)
    mask = check_mask(mask, X)
    y = check_labels(y, X.shape[0]).to(model.E.device)
    if relevant is not None:
        relevant = as_tensor(relevant, "relevant").to(model.E.device)
        if relevant.dtype != torch.bool or relevant.shape != X.shape:
            raise ValueError(
                f"relevant must be a bool tensor of shape {tuple(X.shape)}, got {relevant.dtype} {tuple(relevant.shape)}"
            )
    if reference is not None:
        reference = check_vector(reference, model.d, "reference").double().to(model.E.device)
        reference = reference / reference.norm()

    E = model.E.detach().double()
    E_norms = E.norm(dim=1)
    values = (E @ model.v.detach().double())[X]
    p = model.p.detach().double().clone()
    flat_X, n, V = X.reshape(-1), X.shape[0], model.vocab_size
    record = log_spaced_steps(steps, log_points)
    history = PTrainingHistory()
    eps = torch.finfo(torch.float64).eps

    def per_token(weights: torch.Tensor) -> torch.Tensor:
        """(n, T) weights -> (V,): each token's sum over its positions."""
        return torch.bincount(flat_X, weights=weights.reshape(-1), minlength=V)

    for t in range(steps + 1):
        q = masked_softmax((E @ p)[X], mask)
        f = (q * values).sum(-1)
        margin = y * f
        dloss_df = -y * torch.sigmoid(-margin) / n
        grad = E.T @ per_token(dloss_df[:, None] * q * (values - f[:, None]))
        # the float64 rounding error of that sum, from the sizes of its terms
        sizes = values.abs() + f.abs()[:, None]  # (n, T): |u_i| + |f_j|
        summands = dloss_df.abs()[:, None] * q * sizes
        noise = eps * float(E_norms @ per_token(summands))
        grad_norm = float(grad.norm())
        saturated = grad_norm < rounding_factor * noise
        if t in record or saturated or t == steps:
            _record(history, t, p, q, margin, grad_norm, reference, relevant)
        if saturated:
            history.stop_reason = _stopped(t, grad_norm, rounding_factor, noise)
            break
        if t == steps:
            history.stop_reason = f"ran all {steps} steps"
            break
        step = grad / grad_norm if method == "normalized" else grad
        p = p - lr * step
    model.p.data.copy_(p.to(model.p.dtype))
    return history


def _stopped(t: int, grad_norm: float, rounding_factor: float, noise: float) -> str:
    """Why training stopped at step ``t``: the gradient fell below ``rounding_factor`` times its rounding error."""
    return (
        f"stopped at step {t}, at the float64 floor: |grad| = {grad_norm:.2e} < {rounding_factor:.0f} x its "
        f"rounding error {noise:.2e}"
    )


def _record(
    history: PTrainingHistory,
    t: int,
    p: torch.Tensor,
    q: torch.Tensor,
    margin: torch.Tensor,
    grad_norm: float,
    reference: torch.Tensor | None,
    relevant: torch.Tensor | None,
) -> None:
    if history.step and history.step[-1] == t:
        return
    norm = float(p.norm())
    history.step.append(t)
    history.p_norm.append(norm)
    history.loss.append(float(torch.nn.functional.softplus(-margin).mean()))
    history.cosine.append(float(p @ reference) / norm if reference is not None and norm > 0 else 0.0)
    mass = (q * relevant).sum(-1) if relevant is not None else torch.full((1,), float("nan"), dtype=q.dtype)
    history.min_relevant_attention.append(float(mass.min()))
    history.mean_relevant_attention.append(float(mass.mean()))
    history.grad_norm.append(grad_norm)
