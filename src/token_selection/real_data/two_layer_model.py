"""The course's two-layer ``<cls>`` attention model (our own design; the paper's exact form is not public).

Layer 1 attends with a fixed query ``p1`` and writes the attended embedding into
the ``<cls>`` representation, which starts at ``p2`` (a residual connection);
layer 2 attends with that representation as its query; the head reads ``v``:

    q1 = softmax_i(p1 . E_{x_i}),            h = sum_i q1_i E_{x_i}
    q2 = softmax_i((p2 + h) . E_{x_i}),      f(X) = sum_i q2_i (E_{x_i} . v)

Like the one-layer model it has no key, query or value matrices, so ``E_s . v``
is still a token's contribution to the logit and ``E_s . p2`` its sequence-
independent part of the layer-2 score. With ``p1 = 0`` the first layer averages
the sequence. Because the layer-2 query depends on the sequence, its scores cannot
be gathered from per-token scalars alone. The model shares the W_KQ model's two
primitives (``attention_variants``), which never store a (B, T, d) tensor: ``h`` is
``attended_embeddings`` (a weighted sum of rows of ``E`` with a dense backward), and the
scores ``E_{x_i} . h`` are gathered from a (B, V) table ``h E^T`` of every token's
score. For T much smaller than V that is more arithmetic than gathering ``E[X]``, but one
dense matrix product is several times faster on the CPU than a (B, T, d) gather.
"""

from __future__ import annotations

import torch
from torch import nn

from ..theory.model import gather_tokens, init_embeddings, masked_softmax, token_table
from ..validation import ArrayLike, check_mask, check_tokens
from .attention_variants import attended_embeddings


class TwoLayerCLSAttention(nn.Module):
    """Holds ``E`` (V, d), ``p1``, ``p2`` and ``v`` (d,).

    Initialisation as in ``CLSAttention``: ``E``, ``v`` ~ N(0, I/d) and ``p1 = p2 = 0``,
    from a generator seeded with ``seed``.
    """

    def __init__(self, vocab_size: int, d: int, *, seed: int = 0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        init_embeddings(self, vocab_size, d, seed=seed, dtype=dtype)
        self.p1 = nn.Parameter(torch.zeros(d, dtype=dtype))
        self.p2 = nn.Parameter(torch.zeros(d, dtype=dtype))

    def token_scores(self) -> torch.Tensor:
        """``E p2``: (V,) the sequence-independent part of every token's layer-2 score."""
        return self.E @ self.p2

    def first_layer_scores(self) -> torch.Tensor:
        """``E p1``: (V,) every token's layer-1 score."""
        return self.E @ self.p1

    def token_values(self) -> torch.Tensor:
        """``E v``: (V,) value (logit contribution) of every token."""
        return self.E @ self.v

    def logits_and_attention(self, X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Logits (B,), layer-1 and layer-2 weights (B, T) for checked X: (B, T), mask: (B, T) or None.

        The forward pass holds a transient (B, V) table of scores; callers batch large inputs.
        """
        scores1, values = token_table(self.E, self.p1, self.v)
        q1 = masked_softmax(gather_tokens(scores1, X), mask)
        h = attended_embeddings(self.E, X, q1)
        scores2 = gather_tokens(self.E @ self.p2, X) + (h @ self.E.T).gather(1, X)
        q2 = masked_softmax(scores2, mask)
        return (q2 * gather_tokens(values, X)).sum(-1), q1, q2

    def _checked(self, X: ArrayLike, mask: ArrayLike | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        X = check_tokens(X, self.vocab_size).to(self.E.device)
        return X, check_mask(mask, X)

    def attention(self, X: ArrayLike, mask: ArrayLike | None = None, *, layer: int = 2, batch_size: int = 1024) -> torch.Tensor:
        """Softmax weights of ``layer`` (1 or 2): (n, T); padded positions get exactly 0."""
        if layer not in (1, 2):
            raise ValueError(f"layer must be 1 or 2, got {layer!r}")
        X, mask = self._checked(X, mask)
        parts = []
        for first in range(0, X.shape[0], batch_size):
            rows = slice(first, first + batch_size)
            parts.append(self.logits_and_attention(X[rows], None if mask is None else mask[rows])[layer])
        return torch.cat(parts)

    def forward(self, X: ArrayLike, mask: ArrayLike | None = None, *, batch_size: int = 1024) -> torch.Tensor:
        """Logits ``f(X)``: (n,). X: (n, T) token ids; mask: (n, T) bool or None."""
        X, mask = self._checked(X, mask)
        parts = []
        for first in range(0, X.shape[0], batch_size):
            rows = slice(first, first + batch_size)
            parts.append(self.logits_and_attention(X[rows], None if mask is None else mask[rows])[0])
        return torch.cat(parts)
