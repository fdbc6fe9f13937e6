"""Synthetic data and a full-batch trainer for the reviewers' variants: K classes, co-occurrence ("shielding").

The K-class generator (one relevant token per sequence, ours), a full-batch Adam trainer
for any of the course's models, and data on which a token's role shows only through what it
co-occurs with. The per-class importance ``P(k|s) - 1/K`` (``class_importance``) lives in
``theory.multiclass``; it is importable from here too, where chapter 8 imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..real_data.attention_variants import MultiClassCLSAttention
from ..theory.model import CLSAttention, logistic_loss
from ..theory.multiclass import check_class_labels
from ..theory.multiclass import class_importance as class_importance  # re-exported
from ..theory.synthetic import zipf_probabilities
from ..validation import ArrayLike, check_labels, check_mask, check_positive_int, check_tokens


@dataclass(frozen=True)
class MultiClassData:
    """K-class synthetic data: X (n, T) int64; y (n,) int64 in [0, K); token_class (V,) int64, k for a
    token relevant to class k, -1 for an irrelevant one; relevant (n, T) bool."""

    X: torch.Tensor
    y: torch.Tensor
    token_class: torch.Tensor
    relevant: torch.Tensor


def make_multiclass_synthetic(
    n: int, T: int, vocab_size: int, num_classes: int, *, n_relevant: int = 5, zipf: float = 1.0, seed: int = 0
) -> MultiClassData:
    """K-class version of the course's generator (ours): one relevant token per sequence.

    Tokens ``k * n_relevant .. (k + 1) * n_relevant - 1`` are relevant to class k, the rest
    irrelevant; labels are uniform; each sequence holds ``T - 1`` irrelevant tokens and one
    relevant token of its class at a random position; Zipf law within each group.
    """
    n, T = check_positive_int(n, "n"), check_positive_int(T, "T")
    K = check_positive_int(num_classes, "num_classes", minimum=2)
    m = check_positive_int(n_relevant, "n_relevant")
    if K * m >= vocab_size:
        raise ValueError(f"num_classes * n_relevant = {K * m} leaves no irrelevant token in vocab_size = {vocab_size}")
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    irrelevant = K * m + rng.choice(vocab_size - K * m, size=(n, T), p=zipf_probabilities(vocab_size - K * m, zipf))
    position = rng.integers(0, T, n)
    X = irrelevant.copy()
    X[np.arange(n), position] = y * m + rng.choice(m, size=n, p=zipf_probabilities(m, zipf))
    relevant = np.zeros((n, T), dtype=bool)
    relevant[np.arange(n), position] = True
    token_class = np.full(vocab_size, -1, dtype=np.int64)
    token_class[: K * m] = np.repeat(np.arange(K), m)
    return MultiClassData(torch.from_numpy(X), torch.from_numpy(y), torch.from_numpy(token_class), torch.from_numpy(relevant))


def train_full_batch(
    model: nn.Module,
    X: ArrayLike,
    y: ArrayLike,
    *,
    steps: int,
    lr: float,
    parameters: tuple[str, ...] = ("E", "p", "v"),
    mask: ArrayLike | None = None,
) -> list[float]:
    """Full-batch Adam on the named parameters of ``model`` only; returns the loss before each step and at the end.

    Binary models (logits (n,)) use the logistic loss with y in {0, 1} or {-1, +1};
    ``MultiClassCLSAttention`` uses softmax cross-entropy with y in [0, K).
    Works for ``CLSAttention`` and the models of ``attention_variants``.
    """
    steps = check_positive_int(steps, "steps", minimum=0)
    if not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr}")
    named = dict(model.named_parameters())
    unknown = [name for name in parameters if name not in named]
    if unknown or not parameters:
        raise ValueError(f"parameters must name some of {sorted(named)}, got {list(parameters)}")
    X = check_tokens(X, model.vocab_size).to(model.E.device)
    mask = check_mask(mask, X)
    multiclass = isinstance(model, MultiClassCLSAttention)
    if multiclass:
        target = check_class_labels(y, X.shape[0], model.num_classes).to(model.E.device)
    else:
        target = check_labels(y, X.shape[0]).to(device=model.E.device, dtype=model.E.dtype)
    chosen = [named[name] for name in parameters]
    optimiser = torch.optim.Adam(chosen, lr=lr)

    def loss_now() -> torch.Tensor:
        logits = model(X, mask) if isinstance(model, CLSAttention) else model.logits_and_attention(X, mask)[0]
        return nn.functional.cross_entropy(logits, target) if multiclass else logistic_loss(logits, target)

    losses = []
    for _ in range(steps):
        loss = loss_now()
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    with torch.no_grad():
        losses.append(float(loss_now()))
    model.zero_grad(set_to_none=True)
    return losses


@dataclass(frozen=True)
class ShieldingData:
    """Synthetic data on which a token's role shows only through what it co-occurs with (ours).

    X (n, T) int64, y (n,) in {-1, +1}. Tokens: ``A`` (0) positive, alone; ``C`` (1) in positive
    sequences alone *and* in negative sequences next to ``N`` (2), a negative token; ``B`` (3)
    negative, alone; ids 4.. irrelevant. ``C`` occurs equally often in both classes, so its
    signed frequency and its posterior gap are 0, yet it is the only evidence in the positive
    sequences that hold it.
    """

    X: torch.Tensor
    y: torch.Tensor
    A: int = 0
    C: int = 1
    N: int = 2
    B: int = 3


def make_shielding_data(n: int = 400, T: int = 6, vocab_size: int = 40, *, seed: int = 0) -> ShieldingData:
    """``n`` sequences (a multiple of 4) of length ``T`` >= 3: four equal groups (A | C) positive, (B | C + N) negative."""
    n = check_positive_int(n, "n")
    if n % 4:
        raise ValueError(f"n must be a multiple of 4 (four equal groups), got {n}")
    if check_positive_int(T, "T") < 3:
        raise ValueError(f"T must be at least 3 (two marked tokens and an irrelevant one), got {T}")
    if check_positive_int(vocab_size, "vocab_size") < 6:
        raise ValueError(f"vocab_size must be at least 6 (4 marked tokens and irrelevant ones), got {vocab_size}")
    rng = np.random.default_rng(seed)
    X = rng.integers(4, vocab_size, size=(n, T))
    quarter = n // 4
    group = np.repeat(np.arange(4), quarter)
    slots = np.stack([rng.permutation(T)[:2] for _ in range(n)])
    first, second = slots[:, 0], slots[:, 1]
    rows = np.arange(n)
    X[rows, first] = np.array([0, 1, 3, 1])[group]  # A, C, B, C
    shielded = group == 3
    X[rows[shielded], second[shielded]] = 2  # N next to C in the last group
    y = np.where(group < 2, 1, -1)
    order = rng.permutation(n)
    return ShieldingData(torch.from_numpy(X[order]), torch.from_numpy(y[order]))
