"""Attention models beyond the paper's one-layer form, for the reviewers' questions (our own designs).

The authors' rebuttal describes these models only in words; the exact forms below
are the course's choices.

``KeyQueryTwoLayerAttention``: two attention layers with a key-query matrix in each,
and one ``<cls>`` vector ``p`` that is the query of both (a residual stream):

    q1 = softmax_i(p . W1 E_{x_i}),          c = p + sum_i q1_i E_{x_i}
    q2 = softmax_i(c . W2 E_{x_i}),          f(X) = sum_i q2_i (E_{x_i} . v)

``p . W2 E_s`` is the sequence-independent part of a token's layer-2 score (the
quantity of the rebuttal's table). ``W1 = W2 = I`` at initialisation.

``AttentionMLP``: the one-layer attention followed by a residual MLP of hidden width
``hidden`` (default d) before the linear head:

    z = sum_i q_i E_{x_i},   q = softmax_i(p . E_{x_i}),   f(X) = v . (z + W_out relu(W_in z + b))

``W_out = 0`` at initialisation, so training starts from the one-layer model.

``MultiClassCLSAttention``: the one-layer model with K output vectors (rows of ``W``),
``f_k(X) = sum_i q_i (E_{x_i} . w_k)``, for softmax cross-entropy.

Cost: scores are gathered scalars ``(E u)[X]`` for a (d,) vector ``u`` wherever the
query does not depend on the sequence; the attended embedding ``sum_i q_i E_{x_i}``
goes through ``embedding_bag`` (no (n, T, d) tensor). Only the layer-2 scores of the
two-layer model depend on the sequence: they are gathered from a (B, V) table of every
token's score, so ``forward`` works in chunks of sequences.

Every model has ``logits_and_attention(X, mask)`` for already checked inputs, the
interface the trainer (``trainer.train_model``) calls.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ..theory.model import draw_normal, gather_tokens, init_embeddings, masked_softmax
from ..validation import ArrayLike, check_mask, check_positive_int, check_tokens

DEFAULT_CHUNK = 1024
"""Sequences per chunk in ``forward``/``attention`` of models that build (B, T, d) tensors."""


class _AttendedEmbeddings(torch.autograd.Function):
    """``sum_i w_i E_{x_i}`` per sequence, with a backward through dense (B, V) tables.

    torch's own backward of ``embedding_bag`` sorts the (B T) indices, several times
    slower on the CPU than the two matrix products used here:
    grad_E = H^T grad_z with H the (B, V) histogram of the weights, and
    grad_w = (grad_z E^T)[b, x_{bi}].
    """

    @staticmethod
    def forward(ctx, E: torch.Tensor, X: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(E, X, weights)
        return F.embedding_bag(X, E, per_sample_weights=weights, mode="sum")

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor | None, None, torch.Tensor | None]:
        E, X, weights = ctx.saved_tensors
        grad_E = grad_weights = None
        if ctx.needs_input_grad[0]:
            histogram = torch.zeros(X.shape[0], E.shape[0], dtype=E.dtype, device=E.device).scatter_add_(1, X, weights)
            grad_E = histogram.T @ grad
        if ctx.needs_input_grad[2]:
            grad_weights = (grad @ E.T).gather(1, X)
        return grad_E, None, grad_weights


def attended_embeddings(E: torch.Tensor, X: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """``sum_i weights_i E_{x_i}`` per sequence: (n, d), without gathering E[X].

    E: (V, d); X: (n, T) checked ids; weights: (n, T), 0 on padding.
    """
    return _AttendedEmbeddings.apply(E, X, weights.to(E.dtype))


class _VariantBase(nn.Module):
    """Shared set-up: ``E`` (V, d) and ``v`` (d,) ~ N(0, I/d), ``p`` = 0, input checks, chunked evaluation."""

    def _init_common(self, vocab_size: int, d: int, seed: int, dtype: torch.dtype) -> torch.Generator:
        """Set ``E``, ``v``, ``p``; return the seeded generator for the subclass's further draws."""
        gen = init_embeddings(self, vocab_size, d, seed=seed, dtype=dtype)
        self.p = nn.Parameter(torch.zeros(self.d, dtype=dtype))
        return gen

    def _checked(self, X: ArrayLike, mask: ArrayLike | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        X = check_tokens(X, self.vocab_size).to(self.E.device)
        return X, check_mask(mask, X)

    def logits_and_attention(self, X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        raise NotImplementedError

    def _chunked(self, X: ArrayLike, mask: ArrayLike | None, index: int, chunk: int) -> torch.Tensor:
        X, mask = self._checked(X, mask)
        chunk = check_positive_int(chunk, "chunk")
        parts = []
        for first in range(0, X.shape[0], chunk):
            rows = slice(first, first + chunk)
            parts.append(self.logits_and_attention(X[rows], None if mask is None else mask[rows])[index])
        return torch.cat(parts)

    def forward(self, X: ArrayLike, mask: ArrayLike | None = None, *, chunk: int = DEFAULT_CHUNK) -> torch.Tensor:
        """Logits: (n,) (or (n, K) for K classes). X: (n, T) token ids; mask: (n, T) bool or None."""
        return self._chunked(X, mask, 0, chunk)

    def token_values(self) -> torch.Tensor:
        """``E v``: (V,) every token's direct contribution to the logit."""
        return self.E @ self.v


class KeyQueryTwoLayerAttention(_VariantBase):
    """Two attention layers with key-query matrices ``W1``, ``W2`` (d, d) and one ``<cls>`` vector ``p``.

    See the module docstring for the equations. ``E``, ``v`` ~ N(0, I/d), ``p = 0``,
    ``W1 = W2 = I``; draws from a generator seeded with ``seed``.
    """

    def __init__(self, vocab_size: int, d: int, *, seed: int = 0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self._init_common(vocab_size, d, seed, dtype)
        self.W1 = nn.Parameter(torch.eye(d, dtype=dtype))
        self.W2 = nn.Parameter(torch.eye(d, dtype=dtype))

    def token_scores(self) -> torch.Tensor:
        """``p . W2 E_s``: (V,) the sequence-independent part of every token's layer-2 score."""
        return self.E @ (self.W2.T @ self.p)

    def first_layer_scores(self) -> torch.Tensor:
        """``p . W1 E_s``: (V,) every token's layer-1 score."""
        return self.E @ (self.W1.T @ self.p)

    def logits_and_attention(self, X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Logits (B,), layer-1 and layer-2 weights (B, T) for checked X: (B, T) and mask.

        Builds a (B, V) table of layer-2 scores: pass chunks.
        """
        q1 = masked_softmax(gather_tokens(self.first_layer_scores(), X), mask)
        h = attended_embeddings(self.E, X, q1)  # (B, d): what layer 1 adds to the <cls> stream
        # (p + h) . W2 E_x = (E W2^T p)[x] + E_x . (W2^T h): a gathered scalar plus, per sequence, a score for
        # every token of the vocabulary, (B, V), from which the (B, T) positions are gathered. For T << V this costs
        # more arithmetic than gathering E[X], but it is one dense matrix product instead of a (B, T, d) tensor
        # and its slow scatter backward.
        scores2 = gather_tokens(self.token_scores(), X) + ((h @ self.W2) @ self.E.T).gather(1, X)
        q2 = masked_softmax(scores2, mask)
        return (q2 * gather_tokens(self.token_values(), X)).sum(-1), q1, q2

    def layer2_scores(self, X: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """Full layer-2 scores ``(p + h) . W2 E_{x_i}``: (B, T) for checked X: (B, T) and mask."""
        q1 = masked_softmax(gather_tokens(self.first_layer_scores(), X), mask)
        h = attended_embeddings(self.E, X, q1)
        return gather_tokens(self.token_scores(), X) + ((h @ self.W2) @ self.E.T).gather(1, X)

    def mean_layer2_scores(self, X: ArrayLike, mask: ArrayLike | None = None, *, chunk: int = DEFAULT_CHUNK) -> torch.Tensor:
        """Every token's full layer-2 score averaged over its occurrences in X: (V,) float64, NaN if unseen.

        The sequence-independent part ``p . W2 E_s`` plus the mean of the part that the
        layer-1 output ``h`` adds in the sequences that hold the token.
        """
        X, mask = self._checked(X, mask)
        chunk = check_positive_int(chunk, "chunk")
        total = torch.zeros(self.vocab_size, dtype=torch.float64, device=X.device)
        count = torch.zeros(self.vocab_size, dtype=torch.float64, device=X.device)
        with torch.no_grad():
            for first in range(0, X.shape[0], chunk):
                rows = slice(first, first + chunk)
                part_mask = None if mask is None else mask[rows]
                real = torch.ones_like(X[rows], dtype=torch.bool) if part_mask is None else part_mask
                scores = self.layer2_scores(X[rows], part_mask).double()
                total.index_add_(0, X[rows][real], scores[real])
                count.index_add_(0, X[rows][real], torch.ones_like(scores[real]))
        return torch.where(count > 0, total / count.clamp(min=1), torch.full_like(total, float("nan")))

    def attention(
        self, X: ArrayLike, mask: ArrayLike | None = None, *, layer: int = 2, chunk: int = DEFAULT_CHUNK
    ) -> torch.Tensor:
        """Softmax weights of ``layer`` (1 or 2): (n, T); padded positions get exactly 0."""
        if layer not in (1, 2):
            raise ValueError(f"layer must be 1 or 2, got {layer!r}")
        return self._chunked(X, mask, layer, chunk)


class AttentionMLP(_VariantBase):
    """One-layer ``<cls>`` attention, then a residual ReLU MLP of width ``hidden``, then the head ``v``.

    ``W_in`` (hidden, d) ~ N(0, 2/d) (He), ``b = 0``, ``W_out`` (d, hidden) = 0, so the
    model equals ``CLSAttention`` at initialisation. See the module docstring.
    """

    def __init__(
        self,
        vocab_size: int,
        d: int,
        *,
        hidden: int | None = None,
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        gen = self._init_common(vocab_size, d, seed, dtype)
        self.hidden = d if hidden is None else check_positive_int(hidden, "hidden")
        self.W_in = nn.Parameter(draw_normal((self.hidden, d), gen, (2 / d) ** 0.5, dtype))
        self.b = nn.Parameter(torch.zeros(self.hidden, dtype=dtype))
        self.W_out = nn.Parameter(torch.zeros(d, self.hidden, dtype=dtype))

    def token_scores(self) -> torch.Tensor:
        """``E p``: (V,) every token's attention score."""
        return self.E @ self.p

    def logits_and_attention(self, X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits (B,) and attention weights (B, T) for checked X: (B, T) and mask."""
        q = masked_softmax(gather_tokens(self.token_scores(), X), mask)
        z = attended_embeddings(self.E, X, q)
        out = z + F.relu(z @ self.W_in.T + self.b) @ self.W_out.T
        return out @ self.v, q

    def mlp_share(self, X: ArrayLike, mask: ArrayLike | None = None) -> float:
        """Share of the logits' mean square carried by the MLP branch ``v . W_out relu(...)`` (0 at initialisation)."""
        X, mask = self._checked(X, mask)
        with torch.no_grad():
            q = masked_softmax(self.token_scores()[X], mask)
            z = attended_embeddings(self.E, X, q)
            mlp = (F.relu(z @ self.W_in.T + self.b) @ self.W_out.T) @ self.v
            total = (z @ self.v) + mlp
        return float(mlp.pow(2).mean() / total.pow(2).mean().clamp_min(torch.finfo(total.dtype).tiny))

    def attention(self, X: ArrayLike, mask: ArrayLike | None = None, *, chunk: int = DEFAULT_CHUNK) -> torch.Tensor:
        """Softmax weights: (n, T); padded positions get exactly 0."""
        return self._chunked(X, mask, 1, chunk)


class MultiClassCLSAttention(_VariantBase):
    """The one-layer model with K output vectors: ``E`` (V, d), ``p`` (d,), ``W`` (K, d) ~ N(0, I/d).

    ``v`` is not used (it is kept at its draw so that ``E`` and ``p`` match a binary
    model with the same seed). Logits (n, K) for softmax cross-entropy.
    """

    def __init__(self, vocab_size: int, d: int, num_classes: int, *, seed: int = 0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        gen = self._init_common(vocab_size, d, seed, dtype)
        self.num_classes = check_positive_int(num_classes, "num_classes", minimum=2)
        self.v.requires_grad_(False)
        self.W = nn.Parameter(draw_normal((self.num_classes, d), gen, d**-0.5, dtype))

    def token_scores(self) -> torch.Tensor:
        """``E p``: (V,) every token's attention score."""
        return self.E @ self.p

    def token_class_values(self) -> torch.Tensor:
        """``E W^T``: (V, K) every token's contribution to each class logit."""
        return self.E @ self.W.T

    def logits_and_attention(self, X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits (B, K) and attention weights (B, T) for checked X: (B, T) and mask."""
        q = masked_softmax(gather_tokens(self.token_scores(), X), mask)
        table = self.token_class_values()
        values = torch.stack([gather_tokens(table[:, k], X) for k in range(self.num_classes)], dim=-1)  # (B, T, K)
        return torch.einsum("bt,btk->bk", q, values), q

    def attention(self, X: ArrayLike, mask: ArrayLike | None = None, *, chunk: int = DEFAULT_CHUNK) -> torch.Tensor:
        """Softmax weights: (n, T); padded positions get exactly 0."""
        return self._chunked(X, mask, 1, chunk)
