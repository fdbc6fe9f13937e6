"""Exact full-batch gradient descent on the logistic loss, fused into in-place updates of E, p, v.

With ``a = E p``, ``b = E v`` (V-vectors), ``q_ji = softmax_i(a[x_ji])`` and
``c_j = -y_j sigmoid(-y_j f_j) / n`` (the derivative of the mean loss in ``f_j``):

    grad_b[s] = sum_j c_j sum_{i: x_ji = s} q_ji
    grad_a[s] = sum_j c_j sum_{i: x_ji = s} q_ji (b_s - f_j)
    grad_E = grad_a p^T + grad_b v^T,   grad_p = E^T grad_a,   grad_v = E^T grad_b

The softmax is taken through one per-token table ``e_s = exp(a_s - A)``, ``A`` the largest score of a token in X,
so a sequence needs ``Z_j = sum_i e[x_ji]`` and ``F_j = sum_i e[x_ji] b[x_ji]``
and no exp per position; then ``grad_b = e U`` and ``grad_a = e (b U - W)`` with
``U_s = sum_j (c_j / Z_j) count_js`` and ``W_s = sum_j (c_j f_j / Z_j) count_js``.
The pair (e, e b) is stored as one complex number per token and the pair
(c_j / Z_j, c_j f_j / Z_j) as one per sequence, so the gather and the scatter
each read X once. A sequence whose scores all lie so far below ``A`` that
``Z_j`` nears underflow is recomputed with its own maximum.

E is read once by the forward product, once by the backward mat-vecs, and read
and written by the rank-2 update (``addr_``, in place); no (V, d) gradient is built.
"""

from __future__ import annotations

import torch

from ..validation import ArrayLike, check_labels, check_mask, check_tokens
from .model import CLSAttention, masked_softmax

_COMPLEX = {torch.float32: torch.complex64, torch.float64: torch.complex128}


def id_dtype(vocab_size: int) -> torch.dtype:
    """The dtype ``FullBatchGD`` stores token ids in: int32 when every id, the padding id ``vocab_size`` included, fits.

    int32 halves the memory the gather and the scatter read; int64 beyond ``2**31 - 1``.
    """
    return torch.int32 if vocab_size <= torch.iinfo(torch.int32).max else torch.int64


class FullBatchGD:
    """Plain gradient descent on the whole batch, exact, updating the model in place.

    model: a ``CLSAttention`` in float32 or float64; X: (n, T) token ids;
    y: (n,) labels in {0, 1} or {-1, +1}; mask: (n, T) bool or None.
    The data are checked once and kept on the model's device as (T, n) int32
    ids, padded positions replaced by the id V of an extra, zero table entry:
    the gather and the scatter then loop over positions, each reading one
    contiguous row of ids, and need no (n, T) buffer.
    """

    def __init__(self, model: CLSAttention, X: ArrayLike, y: ArrayLike, mask: ArrayLike | None = None) -> None:
        if not isinstance(model, CLSAttention):
            raise ValueError(f"model must be a CLSAttention, got {type(model).__name__}")
        if model.E.dtype not in _COMPLEX:
            raise ValueError(f"the model must be float32 or float64, got {model.E.dtype}")
        device, dtype = model.E.device, model.E.dtype
        X = check_tokens(X, model.vocab_size).to(device)
        mask = check_mask(mask, X)
        self.model = model
        self.y = check_labels(y, X.shape[0]).to(device=device, dtype=dtype)
        V = model.vocab_size
        ids = X if mask is None else X.masked_fill(~mask, V)
        self.ids = ids.T.to(id_dtype(V)).contiguous()  # (T, n)
        self.absent = torch.bincount(ids.reshape(-1), minlength=V + 1)[:V] == 0
        self.tiny = torch.finfo(dtype).tiny
        self.complex = _COMPLEX[dtype]

    @torch.no_grad()
    def step_(self, lr: float) -> torch.Tensor:
        """One step of size ``lr`` on E, p and v together. Returns the loss before the step (0-dim)."""
        E, p, v = self.model.E, self.model.p, self.model.v
        T, n = self.ids.shape
        # one (V, d) x (d, 2) product reads E once; two mat-vecs would read it twice
        scores, values = (E @ torch.stack([p, v], dim=1)).unbind(dim=1)
        e = torch.exp(scores - scores.masked_fill(self.absent, -torch.inf).max())
        # subnormals would only slow the sums down; a token absent from X gets no gradient, and its exp, which may
        # overflow when its score lies far above every present one, must not make that gradient inf * 0 = NaN
        e.masked_fill_((e < self.tiny) | self.absent, 0.0)
        table = torch.zeros(len(e) + 1, 2, dtype=e.dtype, device=e.device)
        table[:-1, 0], table[:-1, 1] = e, e * values
        table = torch.view_as_complex(table)
        sums = torch.zeros(n, dtype=self.complex, device=e.device)
        row = torch.empty_like(sums)
        for position in self.ids:
            sums += torch.index_select(table, 0, position, out=row)
        Z, F = sums.real, sums.imag
        # Z_j >= sqrt(tiny) keeps every weight dropped by the flush below T sqrt(tiny) of the row's largest
        fallback = Z < self.tiny**0.5
        f = F / Z.clamp_min(self.tiny)
        rows = fallback.nonzero().flatten()
        if len(rows):
            f[rows] = self._stable_logits(scores, values, rows)
        margin = self.y * f
        loss = torch.nn.functional.softplus(-margin).mean()
        c = -self.y * torch.sigmoid(-margin) / n
        u = torch.where(fallback, 0.0, c / Z.clamp_min(self.tiny))
        weights = torch.complex(u, u * f)
        scattered = torch.zeros_like(table)
        for position in self.ids:
            scattered.index_add_(0, position, weights)
        U, W = scattered.real[:-1], scattered.imag[:-1]
        grad_values = e * U
        grad_scores = grad_values * values - e * W
        if len(rows):
            self._add_fallback_gradients(scores, values, rows, c, f, grad_scores, grad_values)
        grad_p, grad_v = E.T.mv(grad_scores), E.T.mv(grad_values)
        E.addr_(grad_scores, p, alpha=-lr).addr_(grad_values, v, alpha=-lr)
        p.sub_(grad_p, alpha=lr)
        v.sub_(grad_v, alpha=lr)
        return loss

    def _rows(self, rows: torch.Tensor, scores: torch.Tensor, values: torch.Tensor):
        """Scores, values and mask of the given sequences: (k, T) each."""
        ids = self.ids[:, rows].T.long()
        real = ids < len(scores)
        ids = ids.where(real, 0)
        return scores[ids], values[ids], real

    def _stable_logits(self, scores: torch.Tensor, values: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        row_scores, row_values, real = self._rows(rows, scores, values)
        return (masked_softmax(row_scores, real) * row_values).sum(dim=1)

    def _add_fallback_gradients(
        self,
        scores: torch.Tensor,
        values: torch.Tensor,
        rows: torch.Tensor,
        c: torch.Tensor,
        f: torch.Tensor,
        grad_scores: torch.Tensor,
        grad_values: torch.Tensor,
    ) -> None:
        row_scores, row_values, real = self._rows(rows, scores, values)
        weighted = masked_softmax(row_scores, real) * c[rows][:, None]
        ids, V = self.ids[:, rows].T.reshape(-1).long(), len(scores)
        keep = ids < V  # padded positions carry weight 0 but the id V, outside the bincount
        grad_values += torch.bincount(ids[keep], weights=weighted.reshape(-1)[keep], minlength=V).to(scores.dtype)
        spread = (weighted * (row_values - f[rows][:, None])).reshape(-1)[keep]
        grad_scores += torch.bincount(ids[keep], weights=spread, minlength=V).to(scores.dtype)


def full_batch_gd_step_(
    model: CLSAttention, X: ArrayLike, y: ArrayLike, lr: float, mask: ArrayLike | None = None
) -> torch.Tensor:
    """One exact full-batch GD step of size ``lr`` on E, p, v, in place. Returns the loss before it.

    X: (n, T) ids; y: (n,) labels; mask: (n, T) bool or None. For many steps on
    the same data build a ``FullBatchGD`` once and call ``step_``.
    """
    return FullBatchGD(model, X, y, mask).step_(lr)
