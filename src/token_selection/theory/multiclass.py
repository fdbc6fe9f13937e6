"""The one-step result for K classes: K output vectors and softmax cross-entropy.

The model keeps one ``<cls>`` vector ``p`` and replaces ``v`` by K output
vectors, the rows of ``W`` (K x d):

    f_k(X) = sum_i softmax_i(p . E_{x_i}) (E_{x_i} . w_k),   L = mean_j -log softmax_{y_j}(f(X_j)).

At ``p = 0`` every attention weight is ``1/T_j`` and the p-term of the gradient
vanishes, so one GD step of size ``lr`` on ``E`` alone gives exactly

    E_s(1) = E_s(0) + lr sum_k beta_sk w_k,
    beta_sk = (1/n) sum_j (1{y_j = k} - pi_jk) c_js / T_j,

with ``pi_j = softmax(f(X_j))`` at the start. The initial logits are
O(1/sqrt(d T_j)), so ``pi_jk = 1/K`` to leading order, which gives the class-k
signed frequency ``(1/n) sum_j ((K-1)/K 1{y_j=k} - 1/K 1{y_j!=k}) c_js / T_j``.
For K = 2 it reduces to the binary step with ``v = w_1 - w_0``.
"""

from __future__ import annotations

import torch

from ..validation import ArrayLike, as_tensor, check_mask, check_matrix, check_positive_int, check_tokens, check_vector
from .model import masked_softmax


def check_class_labels(y: ArrayLike, n: int, num_classes: int, name: str = "y") -> torch.Tensor:
    """Validate class labels: (n,) integers in [0, num_classes). Returns int64."""
    y = as_tensor(y, name)
    if y.dim() != 1 or y.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},), one label per sequence, got shape {tuple(y.shape)}")
    if y.dtype.is_floating_point or y.dtype.is_complex or y.dtype == torch.bool:
        raise ValueError(f"{name} must hold integer class labels in [0, {num_classes}), got dtype {y.dtype}")
    lo, hi = int(y.min()), int(y.max())
    if lo < 0 or hi >= num_classes:
        raise ValueError(f"{name} holds labels in [{lo}, {hi}], but labels must lie in [0, {num_classes})")
    return y.long()


def _check_parameters(E: ArrayLike, p: ArrayLike, W: ArrayLike) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Validate E: (V, d), p: (d,), W: (K, d) with K >= 2 (tensors or numpy arrays); return them as tensors."""
    E = check_matrix(E, "E")
    p = check_vector(p, E.shape[1], "p")
    W = as_tensor(W, "W")
    if W.dim() != 2 or W.shape[1] != E.shape[1] or W.shape[0] < 2:
        raise ValueError(f"W must have shape (K, d) with K >= 2 and d = {E.shape[1]}, got {tuple(W.shape)}")
    return E, p, W


def multiclass_logits(
    E: ArrayLike, p: ArrayLike, W: ArrayLike, X: ArrayLike, mask: ArrayLike | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits ``f(X)``: (n, K) and attention weights: (n, T).

    E: (V, d); p: (d,); W: (K, d), row k is the output vector ``w_k``;
    X: (n, T) token ids; mask: (n, T) bool or None. Uses the gathered scalars
    ``(E p)[X]`` and ``(E W^T)[X]``, never an (n, T, d) tensor.
    """
    E, p, W = _check_parameters(E, p, W)
    X = check_tokens(X, E.shape[0]).to(E.device)
    mask = check_mask(mask, X)
    weights = masked_softmax((E @ p)[X], mask)
    values = (E @ W.T)[X]  # (n, T, K): one scalar per position and class
    return torch.einsum("nt,ntk->nk", weights, values), weights


def class_probabilities(E: ArrayLike, p: ArrayLike, W: ArrayLike, X: ArrayLike, mask: ArrayLike | None = None) -> torch.Tensor:
    """``pi_j = softmax(f(X_j))`` at the given parameters: (n, K) float64."""
    with torch.no_grad():
        logits = multiclass_logits(E, p, W, X, mask)[0]
    return torch.softmax(logits.double(), dim=-1)


def multiclass_one_step_embeddings(
    E: ArrayLike,
    p: ArrayLike,
    W: ArrayLike,
    X: ArrayLike,
    y: ArrayLike,
    lr: float,
    mask: ArrayLike | None = None,
) -> torch.Tensor:
    """``E`` after one full-batch GD step of size ``lr`` on ``E`` alone, by autograd: (V, d).

    Cross-entropy loss; y: (n,) labels in [0, K). The inputs are not changed.
    """
    E, p, W = _check_parameters(E, p, W)
    K = int(W.shape[0])
    X = check_tokens(X, E.shape[0]).to(E.device)
    y = check_class_labels(y, X.shape[0], K).to(E.device)
    E = E.detach().clone().requires_grad_(True)
    logits = multiclass_logits(E, p.detach(), W.detach(), X, mask)[0]
    (grad,) = torch.autograd.grad(torch.nn.functional.cross_entropy(logits, y), E)
    return (E - lr * grad).detach()


def class_signed_frequency(
    X: ArrayLike,
    y: ArrayLike,
    num_classes: int,
    vocab_size: int,
    mask: ArrayLike | None = None,
    probabilities: ArrayLike | None = None,
) -> torch.Tensor:
    """``beta_sk = (1/n) sum_j (1{y_j = k} - pi_jk) c_js / T_j``: (V, K) float64.

    X: (n, T) token ids; y: (n,) labels in [0, K); mask: (n, T) bool or None;
    probabilities: (n, K) ``pi_jk`` (default 1/K, the leading order; pass
    ``class_probabilities`` at the start to make the one-step formula exact).
    """
    K = check_positive_int(num_classes, "num_classes", minimum=2)
    X = check_tokens(X, vocab_size)
    mask = check_mask(mask, X)
    n = X.shape[0]
    y = check_class_labels(y, n, K).to(X.device)
    if probabilities is None:
        pi = torch.full((n, K), 1.0 / K, dtype=torch.float64, device=X.device)
    else:
        pi = as_tensor(probabilities, "probabilities").double().to(X.device)
        if tuple(pi.shape) != (n, K):
            raise ValueError(f"probabilities must have shape ({n}, {K}), got {tuple(pi.shape)}")
    residual = torch.nn.functional.one_hot(y, K).double() - pi  # (n, K)
    real = torch.ones_like(X, dtype=torch.bool) if mask is None else mask
    lengths = real.sum(1).double()
    share = real.double() / lengths[:, None]  # (n, T): 1/T_j on real positions
    beta = torch.zeros(vocab_size, K, dtype=torch.float64, device=X.device)
    beta.index_add_(0, X[real], (share[:, :, None] * residual[:, None, :])[real])
    return beta / n


def class_importance(
    X: ArrayLike, y: ArrayLike, num_classes: int, vocab_size: int, mask: ArrayLike | None = None
) -> torch.Tensor:
    """``P(k|s) - 1/K`` over the occurrences of each token: (V, K) float64; NaN for unseen tokens.

    The K-class analogue of the posterior gap (which for K = 2 is twice this for k = 1).
    """
    X = check_tokens(X, vocab_size)
    mask = check_mask(mask, X)
    y = check_class_labels(y, X.shape[0], num_classes).to(X.device)
    real = torch.ones_like(X, dtype=torch.bool) if mask is None else mask
    counts = torch.zeros(vocab_size, num_classes, dtype=torch.float64, device=X.device)
    counts.index_put_((X[real], y[:, None].expand_as(X)[real]), torch.ones(int(real.sum()), dtype=torch.float64), accumulate=True)
    total = counts.sum(1, keepdim=True)
    return torch.where(total > 0, counts / total.clamp(min=1) - 1.0 / num_classes, torch.full_like(counts, float("nan")))


def predicted_multiclass_one_step(E0: ArrayLike, W: ArrayLike, beta: ArrayLike, lr: float) -> torch.Tensor:
    """Closed form ``E0 + lr beta W``: (V, d). E0: (V, d); W: (K, d); beta: (V, K) (tensors or numpy arrays)."""
    E0, W, beta = check_matrix(E0, "E0"), check_matrix(W, "W", "(K, d)"), check_matrix(beta, "beta", "(V, K)")
    if W.shape[1] != E0.shape[1]:
        raise ValueError(f"E0 must be (V, d) and W (K, d) with the same d, got {tuple(E0.shape)} and {tuple(W.shape)}")
    if tuple(beta.shape) != (E0.shape[0], W.shape[0]):
        raise ValueError(f"beta must have shape ({E0.shape[0]}, {W.shape[0]}), got {tuple(beta.shape)}")
    return E0 + lr * beta.to(E0.dtype) @ W.to(E0.dtype)
