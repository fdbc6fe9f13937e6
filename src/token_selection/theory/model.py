"""One-layer softmax attention with a ``<cls>`` query and a linear head.

    f(X) = sum_i softmax_i(p . E_{x_i}) (E_{x_i} . v)

Computed through the fast exact form: the logit depends on ``E`` only through
the two V-vectors ``E p`` and ``E v``, so a batch gathers the scalars
``(E p)[X]`` and ``(E v)[X]`` and never builds an ``(n, T, d)`` tensor.
"""

from __future__ import annotations

import torch
from torch import nn

from ..validation import ArrayLike, check_mask, check_positive_int, check_tokens


def masked_softmax(
    scores: torch.Tensor,
    mask: torch.Tensor | None,
) -> torch.Tensor:
    """Softmax over the last axis; masked positions get weight exactly 0.

    scores: (n, T) float; mask: (n, T) bool or None, every row with a True.
    Stable at any scale of the scores: the row maximum over real positions
    is subtracted first, so exp never overflows and the largest weight is
    > 0.
    """
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    shifted = scores - scores.amax(dim=-1, keepdim=True).detach()
    weights = torch.exp(shifted)
    return weights / weights.sum(dim=-1, keepdim=True)


class _GatherTokens(torch.autograd.Function):
    """``table[X]`` for a (V,) table, whose backward sums the (n, T) gradient per token with bincount.

    torch's own backward for indexing (``index_put_`` with accumulation) is several
    times slower on the CPU; ``bincount`` is also deterministic there.
    """

    @staticmethod
    def forward(ctx, table: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(X)
        ctx.vocab_size = table.shape[0]
        return table[X]

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (X,) = ctx.saved_tensors
        summed = torch.bincount(X.reshape(-1), weights=grad.reshape(-1), minlength=ctx.vocab_size)
        return summed.to(grad.dtype), None


class _TokenTable(torch.autograd.Function):
    """``(E p, E v)``: two (V,) mat-vecs whose backward writes the (V, d) gradient of E in one buffer.

    Autograd of two separate mat-vecs would allocate two (V, d) outer products and
    add them; a stacked (V, d) x (d, 2) product is slower still on the CPU, where
    skinny matrix products are far from peak speed.
    """

    @staticmethod
    def forward(ctx, E: torch.Tensor, p: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ctx.save_for_backward(E, p, v)
        return E @ p, E @ v

    @staticmethod
    def backward(ctx, grad_scores: torch.Tensor, grad_values: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        E, p, v = ctx.saved_tensors
        grad_E = grad_p = grad_v = None
        if ctx.needs_input_grad[0]:
            grad_E = torch.outer(grad_scores, p).addr_(grad_values, v)
        if ctx.needs_input_grad[1]:
            grad_p = E.T @ grad_scores
        if ctx.needs_input_grad[2]:
            grad_v = E.T @ grad_values
        return grad_E, grad_p, grad_v


def token_table(E: torch.Tensor, p: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(E p, E v)``: the two (V,) vectors through which the logit depends on E. E: (V, d); p, v: (d,)."""
    return _TokenTable.apply(E, p, v)


def gather_tokens(table: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``table[X]``: (n, T) from a (V,) per-token table, with a fast, deterministic backward."""
    return _GatherTokens.apply(table, X)


def gathered_logits(
    token_scores: torch.Tensor,
    token_values: torch.Tensor,
    X: torch.Tensor,
    mask: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The fast exact form: logits (n,) and attention weights (n, T).

    token_scores = E p and token_values = E v: (V,); X: (n, T) checked ids;
    mask: (n, T) checked bool or None. Cost O(n T) after the two mat-vecs.
    """
    weights = masked_softmax(gather_tokens(token_scores, X), mask)
    return (weights * gather_tokens(token_values, X)).sum(dim=-1), weights


def logistic_loss(logits: torch.Tensor, y_signed: torch.Tensor) -> torch.Tensor:
    """Mean of log(1 + exp(-y f)), computed stably. logits, y_signed: (n,)."""
    return nn.functional.softplus(-y_signed * logits).mean()


def draw_normal(shape: tuple[int, ...], generator: torch.Generator, scale: float, dtype: torch.dtype) -> torch.Tensor:
    """A tensor of ``shape`` with N(0, scale^2) entries, drawn in float64 from ``generator``, then cast to ``dtype``.

    Drawing in float64 whatever ``dtype`` is makes a float32 and a float64 model of the same
    seed start from the same numbers (up to rounding).
    """
    return torch.randn(*shape, generator=generator, dtype=torch.float64).mul_(scale).to(dtype)


def init_embeddings(module: nn.Module, vocab_size: int, d: int, *, seed: int, dtype: torch.dtype) -> torch.Generator:
    """The start every model of the course shares: ``E`` (V, d) and ``v`` (d,) with N(0, I/d) entries.

    Checks the sizes and the dtype, sets ``module.vocab_size``, ``module.d``, ``module.E`` and
    ``module.v`` (``nn.Parameter``s of ``dtype``; ``E`` is drawn first, then ``v``, from a
    generator seeded with ``seed``) and returns that generator for the model's further draws.
    """
    module.vocab_size = check_positive_int(vocab_size, "vocab_size")
    module.d = check_positive_int(d, "d")
    if not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point dtype, got {dtype}")
    generator = torch.Generator().manual_seed(int(seed))
    module.E = nn.Parameter(draw_normal((module.vocab_size, module.d), generator, module.d**-0.5, dtype))
    module.v = nn.Parameter(draw_normal((module.d,), generator, module.d**-0.5, dtype))
    return generator


class CLSAttention(nn.Module):
    """Holds ``E`` (V x d), ``p`` (d) and ``v`` (d).

    ``E`` and ``v`` start as N(0, I/d); ``p`` starts at zero (``p_init="zero"``)
    or at N(0, I/d) scaled by 1e-2 (``p_init="random"``). All draws come from a
    generator seeded with ``seed``, so the same seed gives the same model.
    """

    def __init__(
        self,
        vocab_size: int,
        d: int,
        *,
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
        p_init: str = "zero",
    ) -> None:
        super().__init__()
        if p_init not in ("zero", "random"):
            raise ValueError(f"p_init must be 'zero' or 'random', got {p_init!r}")
        gen = init_embeddings(self, vocab_size, d, seed=seed, dtype=dtype)
        p = draw_normal((self.d,), gen, 1e-2 * self.d**-0.5, dtype)
        self.p = nn.Parameter(p if p_init == "random" else torch.zeros(self.d, dtype=dtype))

    def _checked(self, X: ArrayLike, mask: ArrayLike | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        X = check_tokens(X, self.vocab_size).to(self.E.device)
        return X, check_mask(mask, X)

    def token_scores(self) -> torch.Tensor:
        """``E p``: (V,) attention score of every token."""
        return self.E @ self.p

    def token_values(self) -> torch.Tensor:
        """``E v``: (V,) value (logit contribution) of every token."""
        return self.E @ self.v

    def attention(self, X: ArrayLike, mask: ArrayLike | None = None) -> torch.Tensor:
        """Softmax weights ``q``: (n, T); padded positions get exactly 0."""
        X, mask = self._checked(X, mask)
        return masked_softmax(self.token_scores()[X], mask)

    def forward(self, X: ArrayLike, mask: ArrayLike | None = None) -> torch.Tensor:
        """Logits ``f(X)``: (n,). X: (n, T) token ids; mask: (n, T) bool or None."""
        X, mask = self._checked(X, mask)
        return gathered_logits(*token_table(self.E, self.p, self.v), X, mask)[0]
