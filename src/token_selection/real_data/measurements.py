"""What a trained real-data model is measured by: bins at the rebuttal's centres, shape verdicts, spreads.

The authors' rebuttal tables bin tokens by the posterior gap ``P(1|s) - P(0|s)`` and print
20 bin centres, not evenly spaced (``REBUTTAL_BIN_CENTRES``). How the bins were formed
around them is not stated; we take the midpoints between neighbouring centres as edges and
-1, 1 as the outer edges (our inference). Shapes are judged per token by the course's one
shape rule (``theory.shape.classify_shape``), with bootstrap intervals over tokens.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from ..sources import REBUTTAL_BIN_CENTRES
from ..theory.importance import BinnedStats, bin_by_importance, posterior_gap, signed_frequency, token_counts
from ..theory.multiclass import class_importance
from ..theory.shape import MIN_TOKENS, ShapeVerdict, classify_shape
from ..validation import ArrayLike, as_tensor
from .encoding import PAD_ID, UNK_ID, EncodedReviews, EncodedSplit


def token_importance(split: EncodedSplit, vocab_size: int, *, min_count: int = 20) -> tuple[torch.Tensor, torch.Tensor]:
    """Posterior gap ``x`` (V,) float64 and occurrence count (V,) int64 of every token in ``split``.

    ``x`` is NaN for tokens seen fewer than ``min_count`` times and for ``<pad>`` and
    ``<unk>``, which are not words.
    """
    gap = posterior_gap(split.X, split.y, vocab_size, split.mask, min_count=min_count)
    gap[[PAD_ID, UNK_ID]] = float("nan")
    positive, negative = token_counts(split.X, split.y, vocab_size, split.mask)
    return gap, positive + negative


def signed_frequency_accuracy(
    X: torch.Tensor,
    y: torch.Tensor,
    mask: torch.Tensor,
    X_test: torch.Tensor,
    y_test: torch.Tensor,
    mask_test: torch.Tensor,
    vocab_size: int,
) -> float:
    """Test accuracy of the classifier ``sign(sum_i alpha_{x_i})``, ``alpha`` the signed frequency on the training reviews.

    X, mask: (n, T) training ids and mask, y: (n,) in {0, 1}; the same for the test reviews (ties count as positive).
    This is what one step writes into ``E_s . v``, read as a classifier.
    """
    alpha = signed_frequency(X, y, vocab_size, mask)
    total = (alpha[X_test] * mask_test).sum(1)
    return float(((total >= 0) == (y_test > 0)).double().mean())


def rebuttal_edges() -> np.ndarray:
    """Edges of the 20 bins around ``REBUTTAL_BIN_CENTRES``: -1, the midpoints between centres, 1 (21,)."""
    centres = np.asarray(REBUTTAL_BIN_CENTRES, dtype=np.float64)
    return np.concatenate([[-1.0], (centres[:-1] + centres[1:]) / 2, [1.0]])


def rebuttal_bins(x: ArrayLike, values: ArrayLike) -> BinnedStats:
    """Bin ``values`` (V,) by the posterior gap ``x`` (V,) into the rebuttal's 20 bins; NaN entries and empty bins dropped.

    Returns the bins' rebuttal centres, mean, population std and token count.
    """
    x = as_tensor(x, "x").detach().double().cpu().numpy()
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got shape {x.shape}")
    centres = np.asarray(REBUTTAL_BIN_CENTRES, dtype=np.float64)
    # Each token's bin number, then equal-width bins of width 1 around the numbers: the rebuttal's bins, binned once.
    number = np.clip(np.searchsorted(rebuttal_edges(), x, side="right") - 1, 0, len(centres) - 1).astype(np.float64)
    number[~(np.abs(x) <= 1)] = np.nan
    binned = bin_by_importance(number, values, bins=len(centres), value_range=(-0.5, len(centres) - 0.5))
    return BinnedStats(centres[np.rint(binned.centres).astype(int)], binned.mean, binned.std, binned.count)


def mean_bin_std(binned: BinnedStats) -> float:
    """Token-weighted mean of the per-bin standard deviations (the rebuttal's "average standard deviation over the bins")."""
    return float(np.average(binned.std, weights=binned.count))


def token_spread(x: ArrayLike, quantity: ArrayLike) -> dict[str, float]:
    """How much a per-token quantity (V,) varies over the tokens with a finite posterior gap ``x`` (V,).

    Returns ``token_std`` (population std over those tokens) and ``token_range`` (the 1st to 99th
    percentile spread, so a few outlying tokens do not set it). For attention scores, a std well
    below 1 means near-uniform attention: two tokens one std apart get weights within a factor
    ``exp(std)`` of each other.
    """
    x = as_tensor(x, "x").detach().double().cpu().numpy()
    values = as_tensor(quantity, "quantity").detach().double().cpu().numpy()
    if x.shape != values.shape or x.ndim != 1:
        raise ValueError(f"x and quantity must be 1-D of equal length, got shapes {x.shape} and {values.shape}")
    seen = values[np.isfinite(x) & np.isfinite(values)]
    if seen.size < 2:
        raise ValueError(f"need at least 2 tokens with a finite posterior gap and value, got {seen.size}")
    low, high = np.percentile(seen, [1, 99])
    return {"token_std": float(seen.std()), "token_range": float(high - low)}


def _curve(x: torch.Tensor, quantity: torch.Tensor, n_boot: int, seed: int) -> dict[str, Any]:
    """Bins, shape verdicts (over tokens and over the 20 bin means), spread of one per-token quantity (V,)
    against the posterior gap (V,)."""
    quantity = quantity.detach().double().cpu()
    binned = rebuttal_bins(x, quantity)
    verdict = classify_shape(x.numpy(), quantity.numpy(), n_boot=n_boot, seed=seed)
    on_bins = {}
    if np.isfinite(binned.mean).sum() >= MIN_TOKENS:  # fewer bins than the rule needs: no verdict on bins
        bins = classify_shape(binned.centres, binned.mean, n_boot=n_boot, seed=seed)
        on_bins = {"bin_shape": bins.shape, "bin_verdict": bins.as_dict()}
    return {
        "bin_centres": binned.centres.tolist(),
        "bin_count": binned.count.tolist(),
        "bin_mean": binned.mean.tolist(),
        "bin_std": binned.std.tolist(),
        "mean_bin_std": mean_bin_std(binned),
        "shape": verdict.shape,
        "verdict": verdict.as_dict(),
        **on_bins,
        **token_spread(x, quantity),
    }


def _attention_vector(model: nn.Module) -> torch.Tensor | None:
    """The vector that scores tokens (``p``; ``p2``, the second layer's, in the two-layer model), or None."""
    vector = getattr(model, "p", None)
    vector = getattr(model, "p2", None) if vector is None else vector
    return vector if isinstance(vector, torch.Tensor) else None


def p_norm(model: nn.Module) -> float:
    """``||p||`` of the vector that scores tokens (``p``; ``p2``, the second layer's, in the two-layer model).

    It starts at 0 in every model of the course, so it says how far training moved the attention.
    """
    vector = _attention_vector(model)
    if vector is None:
        raise TypeError(f"{type(model).__name__} has no attention vector p (or p2) to measure")
    return float(vector.detach().double().norm())


def binary_metrics(model: nn.Module, data: EncodedReviews, *, min_count: int, n_boot: int, seed: int) -> dict[str, Any]:
    """Per-token curves of a binary model: ``values`` (``E_s . v``) and ``scores`` (the kind's ``token_scores``).

    Each holds bin centres, counts, means and stds at the rebuttal's bins, the mean per-bin
    std, the shape verdict over tokens seen at least ``min_count`` times in training, the
    verdict on the bin means (where at least ``MIN_TOKENS`` bins are filled) and the tokens'
    spread (``token_spread``); ``p_norm`` is ``||p||`` where the model has one.
    """
    x, _ = token_importance(data.train, data.vocab_size, min_count=min_count)
    with torch.no_grad():
        values, scores = model.token_values(), model.token_scores()
    moved = {} if _attention_vector(model) is None else {"p_norm": p_norm(model)}
    return {
        "tokens_with_gap": int(torch.isfinite(x).sum()),
        **moved,
        "values": _curve(x, values, n_boot, seed),
        "scores": _curve(x, scores, n_boot, seed),
    }


def seen_words(split: EncodedSplit, vocab_size: int, min_count: int) -> torch.Tensor:
    """(V,) bool: the words seen at least ``min_count`` times in ``split`` (``<pad>`` and ``<unk>`` never count)."""
    seen = torch.bincount(split.X[split.mask], minlength=vocab_size) >= min_count
    seen[[PAD_ID, UNK_ID]] = False
    return seen


def class_value_verdicts(model: nn.Module, axis: torch.Tensor, *, n_boot: int, seed: int) -> list[ShapeVerdict]:
    """Per class k of a K-class model, the shape verdict of ``E_s . w_k`` against ``axis[:, k]``.

    axis: (V, K) per-token importance of each class; NaN entries (tokens not read) are left out.
    """
    with torch.no_grad():
        values = model.token_class_values().detach().double().cpu()
    axis = axis.detach().double().cpu()
    return [
        classify_shape(axis[:, k].numpy(), values[:, k].numpy(), n_boot=n_boot, seed=seed) for k in range(int(model.num_classes))
    ]


def multiclass_metrics(model: nn.Module, data: EncodedReviews, *, min_count: int, n_boot: int, seed: int) -> dict[str, Any]:
    """Per class k of a K-class model: the shape verdict of ``E_s . w_k`` against the class importance ``P(k|s) - 1/K``.

    Tokens seen fewer than ``min_count`` times in training, ``<pad>`` and ``<unk>`` are left out.
    """
    importance = class_importance(data.train.X, data.train.y, int(model.num_classes), data.vocab_size, data.train.mask)
    seen = seen_words(data.train, data.vocab_size, min_count)
    importance[~seen] = float("nan")
    verdicts = class_value_verdicts(model, importance, n_boot=n_boot, seed=seed)
    classes = [{"class": k, "shape": verdict.shape, "verdict": verdict.as_dict()} for k, verdict in enumerate(verdicts)]
    return {"tokens_with_importance": int(seen.sum()), "classes": classes}


def verdict_of(curve: dict[str, Any]) -> ShapeVerdict:
    """The ``ShapeVerdict`` stored in a record's curve (``metrics["values"]`` or ``metrics["scores"]``)."""
    return ShapeVerdict(**{key: tuple(v) if isinstance(v, list) else v for key, v in curve["verdict"].items()})


def spreads(x: torch.Tensor, quantity: torch.Tensor) -> dict[str, float]:
    """Three readings of a curve's spread: mean per-bin std at the rebuttal's bins (``raw``), at 20 equal bins over
    [-1, 1] (``equal_bins``), and ``raw`` over the std of the quantity over all tokens with a gap (``scale_free``).

    x, quantity: (V,) posterior gap (NaN where undefined) and per-token quantity.
    """
    quantity = quantity.detach().double().cpu()
    raw = mean_bin_std(rebuttal_bins(x, quantity))
    equal = bin_by_importance(x.numpy(), quantity.numpy(), bins=20, value_range=(-1.0, 1.0))
    finite = torch.isfinite(x)
    overall = float(quantity[finite].std())
    return {"raw": raw, "equal_bins": mean_bin_std(equal), "scale_free": raw / overall if overall > 0 else None}
