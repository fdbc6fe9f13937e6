"""Reference implementations of the one-layer model, written the slow and obvious way.

They exist to check the fast exact form of :mod:`token_selection.model` and to
time it against the textbook route; the course never trains with them.

- ``loop_logits``: a plain Python loop over sequences and tokens that follows
  ``f(X) = sum_i softmax_i(p . E_{x_i}) (E_{x_i} . v)`` term by term.
- ``gather_then_attend``: gathers the embeddings ``E[X]`` into an ``(n, T, d)``
  tensor and attends over it, as a generic attention layer would. Its memory
  and time grow like ``n T d``.
"""

from __future__ import annotations

import torch

from ..validation import ArrayLike, check_mask, check_matrix, check_tokens, check_vector
from .model import masked_softmax


def _check_parameters(E: ArrayLike, p: ArrayLike, v: ArrayLike) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """E: (V, d) float; p, v: (d,) float of E's dtype."""
    E = check_matrix(E, "E")
    p = check_vector(p, E.shape[1], "p")
    v = check_vector(v, E.shape[1], "v")
    if p.dtype != E.dtype or v.dtype != E.dtype:
        raise ValueError(f"E, p and v must share one dtype, got {E.dtype}, {p.dtype} and {v.dtype}")
    return E, p, v


def loop_logits(E: ArrayLike, p: ArrayLike, v: ArrayLike, X: ArrayLike, mask: ArrayLike | None = None) -> torch.Tensor:
    """Logits ``f(X)``: (n,), one sequence and one token at a time.

    E: (V, d); p, v: (d,); X: (n, T) token ids; mask: (n, T) bool (True = real
    token) or None. Padded positions are skipped entirely. The softmax
    subtracts the largest score first, so it is finite at any |p|.
    Differentiable; meant for small inputs (it runs n T Python iterations).
    """
    E, p, v = _check_parameters(E, p, v)
    X = check_tokens(X, E.shape[0])
    mask = check_mask(mask, X)
    logits = []
    for j in range(X.shape[0]):
        scores, values = [], []
        for i in range(X.shape[1]):
            if mask is not None and not bool(mask[j, i]):
                continue
            embedding = E[int(X[j, i])]
            scores.append(torch.dot(p, embedding))
            values.append(torch.dot(embedding, v))
        top = max(float(s) for s in scores)
        exps = [torch.exp(s - top) for s in scores]
        total = sum(exps)
        logits.append(sum(e / total * u for e, u in zip(exps, values, strict=True)))
    return torch.stack(logits)


def gather_then_attend(
    E: ArrayLike, p: ArrayLike, v: ArrayLike, X: ArrayLike, mask: ArrayLike | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits (n,) and attention weights (n, T) through the gathered embeddings ``E[X]``.

    E: (V, d); p, v: (d,); X: (n, T) token ids; mask: (n, T) bool or None.
    Builds the (n, T, d) tensor ``E[X]`` on purpose: this is the route whose
    cost the fast form avoids.
    """
    E, p, v = _check_parameters(E, p, v)
    X = check_tokens(X, E.shape[0]).to(E.device)
    mask = check_mask(mask, X)
    gathered = E[X]
    weights = masked_softmax(gathered @ p, mask)
    return (weights * (gathered @ v)).sum(dim=-1), weights
