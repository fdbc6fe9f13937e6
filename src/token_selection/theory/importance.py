"""Token importance: signed frequency, label posterior, and binning by importance."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..validation import ArrayLike, as_tensor, check_labels, check_mask, check_positive_int, check_tokens, check_vector


def _flat_occurrences(X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids of the real positions, flattened, and the row each came from."""
    rows = torch.arange(X.shape[0], device=X.device)[:, None].expand_as(X)
    if mask is None:
        return X.reshape(-1), rows.reshape(-1)
    return X[mask], rows[mask]


def signed_frequency(
    X: ArrayLike,
    y: ArrayLike,
    vocab_size: int,
    mask: ArrayLike | None = None,
    sample_weights: ArrayLike | None = None,
) -> torch.Tensor:
    """Average signed frequency ``alpha_s = (1/n) sum_j w_j y_j c_js / T_j``: (V,) float64.

    X: (n, T) token ids; y: (n,) labels in {0,1} or {-1,+1}; mask: (n, T) bool or None.
    ``c_js`` counts token s in sequence j and ``T_j`` is its unpadded length.
    sample_weights: (n,) weights ``w_j`` (default 1); ``one_step_sample_weights``
    gives the ones that make the one-step formula exact.
    """
    X = check_tokens(X, vocab_size)
    mask = check_mask(mask, X)
    y = check_labels(y, X.shape[0]).to(X.device)
    if sample_weights is not None:
        y = y * check_vector(as_tensor(sample_weights, "sample_weights"), X.shape[0], "sample_weights").double().to(X.device)
    lengths = (
        torch.full((X.shape[0],), X.shape[1], dtype=torch.float64, device=X.device) if mask is None else mask.sum(1).double()
    )
    tokens, rows = _flat_occurrences(X, mask)
    weights = (y / lengths)[rows]
    return torch.bincount(tokens, weights=weights, minlength=vocab_size) / X.shape[0]


def token_counts(X: ArrayLike, y: ArrayLike, vocab_size: int, mask: ArrayLike | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Occurrences of every token in positive and in negative sequences: two (V,) int64."""
    X = check_tokens(X, vocab_size)
    mask = check_mask(mask, X)
    y = check_labels(y, X.shape[0], require_both=False).to(X.device)
    tokens, rows = _flat_occurrences(X, mask)
    positive = y[rows] > 0
    return (
        torch.bincount(tokens[positive], minlength=vocab_size),
        torch.bincount(tokens[~positive], minlength=vocab_size),
    )


def posterior_gap(X: ArrayLike, y: ArrayLike, vocab_size: int, mask: ArrayLike | None = None, min_count: int = 1) -> torch.Tensor:
    """``P(1|s) - P(0|s)`` over occurrences: (V,) float64 in [-1, 1].

    NaN for tokens seen fewer than ``min_count`` times.
    """
    min_count = check_positive_int(min_count, "min_count")
    pos, neg = token_counts(X, y, vocab_size, mask)
    total = (pos + neg).double()
    gap = (pos - neg).double() / total.clamp(min=1)
    return torch.where(total >= min_count, gap, torch.full_like(gap, float("nan")))


@dataclass(frozen=True)
class BinnedStats:
    """Per-bin statistics of ``values`` against an importance ``x``; empty bins dropped.

    centres, mean, std: (B,) float64; count: (B,) int64, with B <= bins.
    """

    centres: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    count: np.ndarray


def bin_by_importance(
    x: ArrayLike, values: ArrayLike, bins: int = 20, value_range: tuple[float, float] = (-1.0, 1.0)
) -> BinnedStats:
    """Bin ``values`` by ``x`` into ``bins`` equal-width bins over ``value_range``.

    x, values: (V,) float; entries where either is NaN are ignored. The last
    bin includes its right edge. Returns centres, mean, std (population) and count.
    """
    bins = check_positive_int(bins, "bins")
    x = as_tensor(x, "x").detach().double().cpu().numpy()
    values = as_tensor(values, "values").detach().double().cpu().numpy()
    if x.ndim != 1 or x.shape != values.shape:
        raise ValueError(f"x and values must be 1-D of equal length, got shapes {x.shape} and {values.shape}")
    lo, hi = map(float, value_range)
    if not lo < hi:
        raise ValueError(f"value_range must be (low, high) with low < high, got {value_range}")
    keep = np.isfinite(x) & np.isfinite(values) & (x >= lo) & (x <= hi)
    x, values = x[keep], values[keep]
    edges = np.linspace(lo, hi, bins + 1)
    index = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, bins - 1)
    count = np.bincount(index, minlength=bins)
    total = np.bincount(index, weights=values, minlength=bins)
    square = np.bincount(index, weights=values**2, minlength=bins)
    filled = count > 0
    mean = total[filled] / count[filled]
    std = np.sqrt(np.maximum(square[filled] / count[filled] - mean**2, 0.0))
    centres = 0.5 * (edges[:-1] + edges[1:])
    return BinnedStats(centres=centres[filled], mean=mean, std=std, count=count[filled])
