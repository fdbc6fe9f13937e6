"""One full-batch gradient step on the embeddings, and the course's step-size rule.

At ``p = 0`` every attention weight is ``1/T_j`` and the p-term of the gradient
vanishes, so one step of size ``lr`` on ``E`` alone gives exactly

    E_s(1) = E_s(0) + lr (1/n) sum_j y_j g_j (c_js / T_j) v,   g_j = sigmoid(-y_j f_j(0)).

The initial logit ``f_j(0)`` (the mean of ``E_x . v`` over the sequence) is of
size 1/sqrt(d T_j), so ``g_j = 1/2`` to leading order and the step reads
``E_s(1) = E_s(0) + (lr/2) alpha_s v``. ``one_step_sample_weights`` returns
``w_j = 2 g_j``; with them ``signed_frequency`` makes the formula exact.

The step must be large: ``step_size_threshold`` gives ``eta*``, the step at which the
aligned signal equals the random initial value, and ``predicted_correlation`` the
alignment ``corr(E.v, alpha) ~ r / sqrt(1 + r^2)`` at ``r = eta / eta*``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..validation import (
    ArrayLike,
    as_tensor,
    check_labels,
    check_mask,
    check_matrix,
    check_positive_int,
    check_tokens,
    check_vector,
)
from .importance import signed_frequency
from .model import CLSAttention, gathered_logits, logistic_loss


def one_step_embeddings(
    model: CLSAttention, X: ArrayLike, y: ArrayLike, lr: float, mask: ArrayLike | None = None
) -> torch.Tensor:
    """``E`` after one full-batch GD step of size ``lr`` on ``E`` alone, by autograd.

    X: (n, T) token ids; y: (n,) labels; mask: (n, T) bool or None.
    Returns a new (V, d) tensor in the model's dtype; the model is not changed.
    """
    X = check_tokens(X, model.vocab_size).to(model.E.device)
    mask = check_mask(mask, X)
    y = check_labels(y, X.shape[0]).to(device=model.E.device, dtype=model.E.dtype)
    E = model.E.detach().clone().requires_grad_(True)
    p, v = model.p.detach(), model.v.detach()
    loss = logistic_loss(gathered_logits(E @ p, E @ v, X, mask)[0], y)
    (grad,) = torch.autograd.grad(loss, E)
    return (E - lr * grad).detach()


def predicted_one_step(
    E0: ArrayLike,
    v: ArrayLike,
    alpha: ArrayLike,
    lr: float,
) -> torch.Tensor:
    """Closed form ``E0 + (lr/2) alpha v^T``: (V, d).

    E0: (V, d); v: (d,); alpha: (V,) (tensors or numpy arrays).
    """
    E0 = check_matrix(E0, "E0")
    v = check_vector(v, E0.shape[1], "v")
    alpha = check_vector(alpha, E0.shape[0], "alpha")
    alpha, v = alpha.to(E0.dtype), v.to(E0.dtype)
    return E0 + (lr / 2) * alpha[:, None] * v[None, :]


def one_step_sample_weights(model: CLSAttention, X: ArrayLike, y: ArrayLike, mask: ArrayLike | None = None) -> torch.Tensor:
    """``w_j = 2 sigmoid(-y_j f_j)`` at the model's current parameters: (n,) float64.

    Equal to 1 up to O(|f_j|); passing them to ``signed_frequency`` turns the
    leading-order one-step formula into the exact one (at ``p = 0``).
    """
    X = check_tokens(X, model.vocab_size).to(model.E.device)
    y = check_labels(y, X.shape[0]).to(model.E.device)
    with torch.no_grad():
        logits = model(X, mask).double()
    return 2.0 * torch.sigmoid(-y * logits)


def step_size_threshold(X: ArrayLike, y: ArrayLike, vocab_size: int, d: int, mask: ArrayLike | None = None) -> float:
    """The course's one step-size rule, ``eta* = 2 / (sqrt(d) std_s(alpha_s))``, for the data ``X``, ``y``.

    X: (n, T) token ids; y: (n,) labels; mask: (n, T) bool or None; ``alpha`` is
    ``signed_frequency`` over the ``vocab_size`` tokens (see ``step_size_from_alpha``).
    """
    return step_size_from_alpha(signed_frequency(X, y, vocab_size, mask), d)


def step_size_from_alpha(alpha: ArrayLike, d: int) -> float:
    """``eta* = 2 / (sqrt(d) std_s(alpha_s))`` for signed frequencies ``alpha``: (V,) float.

    ``std_s`` is the population standard deviation over the V tokens. At ``eta = eta*`` the
    signal ``(eta/2) alpha_s |v|^2`` of ``E_s(1).v`` and the noise ``E_s(0).v`` (standard
    deviation ``|v|/sqrt(d)``, ``|v| ~ 1``) have equal spread over tokens. Raises ValueError
    when ``alpha`` is not a 1-D vector of at least two values or when every ``alpha_s`` is equal.
    """
    d = check_positive_int(d, "d")
    alpha = as_tensor(alpha, "alpha").double()
    if alpha.dim() != 1 or alpha.numel() < 2:
        raise ValueError(f"alpha must be a 1-D vector of at least 2 signed frequencies, got shape {tuple(alpha.shape)}")
    spread = float(alpha.std(unbiased=False))
    if not spread > 0:
        raise ValueError("every token has the same signed frequency, so no step size aligns E.v with it (eta* is infinite)")
    return 2.0 / (math.sqrt(d) * spread)


def predicted_correlation(r: float | np.ndarray) -> float | np.ndarray:
    """``corr(E(1).v, alpha) ~ r / sqrt(1 + r^2)`` at ``r = eta / eta*`` (r >= 0, float or array)."""
    r_array = np.asarray(r, dtype=np.float64)
    if not np.all(np.isfinite(r_array)) or np.any(r_array < 0):
        raise ValueError(f"r = eta / eta* must be finite and >= 0, got {r}")
    result = r_array / np.sqrt(1.0 + r_array**2)
    return float(result) if result.ndim == 0 else result
