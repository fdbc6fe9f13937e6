"""One full-batch gradient step on the embeddings (Lemmas 4.1-4.2 of the paper).

At ``p = 0`` every attention weight is ``1/T_j`` and the p-term of the gradient
vanishes, so one step of size ``lr`` on ``E`` alone gives exactly

    E_s(1) = E_s(0) + lr (1/n) sum_j y_j g_j (c_js / T_j) v,   g_j = sigmoid(-y_j f_j(0)).

The initial logit ``f_j(0)`` (the mean of ``E_x . v`` over the sequence) is of
size 1/sqrt(d T_j), so ``g_j = 1/2`` to leading order and the step reads
``E_s(1) = E_s(0) + (lr/2) alpha_s v``. ``one_step_sample_weights`` returns
``w_j = 2 g_j``; with them ``signed_frequency`` makes the formula exact.
"""

from __future__ import annotations

import torch

from ..validation import ArrayLike, check_labels, check_mask, check_tokens, check_vector
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


def predicted_one_step(E0: torch.Tensor, v: torch.Tensor, alpha: torch.Tensor, lr: float) -> torch.Tensor:
    """Closed form ``E0 + (lr/2) alpha v^T``: (V, d). E0: (V, d); v: (d,); alpha: (V,)."""
    if E0.dim() != 2:
        raise ValueError(f"E0 must have shape (V, d), got {tuple(E0.shape)}")
    v = check_vector(v, E0.shape[1], "v")
    alpha = check_vector(alpha, E0.shape[0], "alpha")
    return E0 + (lr / 2) * alpha.to(E0.dtype)[:, None] * v.to(E0.dtype)[None, :]


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
