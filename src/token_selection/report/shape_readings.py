"""A record's shape verdicts read per seed with effect sizes, the 20-bin verdict and the random-E control.

A real-data record keeps, for each curve (``values``: E_s . v, ``scores``: E_s . p), seed 0's
full verdict and bins, and per seed the tested shape, the Spearman correlation and, in records
made since the arms were kept, the arms' correlations, the bin verdict and the token-score std.
This module turns them into ``ShapeReading`` s (``theory.shape_effect``) and says when a model's
attention is too uniform for its score shape to mean anything (``MIN_SCORE_STD``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..theory.shape import MIN_TOKENS, classify_shape
from ..theory.shape_effect import ShapeReading, curve_at, read_shape, seed_verdicts

MIN_SCORE_STD = 0.1
"""Token-score spread (std of E_s . p over the tokens read, in nats) below which the attention is near uniform:
two tokens one std apart get weights within a factor exp(0.1) = 1.105 of each other, so the model does not select
and the shape of its scores is not read as a finding."""
BIN_BOOT = 1000
"""Bootstrap resamples of the verdict on a record's 20 bin means when the record did not keep it."""


def seed_readings(metrics: dict[str, Any], quantity: str, control: dict[str, Any] | None = None) -> list[ShapeReading]:
    """Each seed's verdict of ``quantity`` read with its effect and, given ``control`` metrics (the random-E run
    of the same data), against the control's same seed. Seeds beyond the control's have no control."""
    ours = seed_verdicts(metrics, quantity)
    theirs = seed_verdicts(control, quantity) if control is not None else []
    return [read_shape(v, theirs[k] if k < len(theirs) else None) for k, v in enumerate(ours)]


def bin_verdict(metrics: dict[str, Any], quantity: str) -> dict[str, Any] | None:
    """Seed 0's verdict on the 20 bin means (the points are bins, as for the rebuttal's tables): the record's own
    where it kept one, else computed from its bins (``BIN_BOOT`` resamples, seed 0); None where the record has no
    bins or fewer non-empty bins than the shape rule needs (``theory.shape.MIN_TOKENS``)."""
    curve = curve_at(metrics, quantity)
    if "bin_verdict" in curve:
        return curve["bin_verdict"]
    centres = np.asarray(curve.get("bin_centres", []), float)
    means = np.asarray(curve.get("bin_mean", []), float)
    if np.isfinite(means).sum() < MIN_TOKENS:
        return None
    return classify_shape(centres, means, n_boot=BIN_BOOT, seed=0).as_dict()


def bin_shapes(metrics: dict[str, Any], quantity: str) -> list[str]:
    """Per seed, the shape rule's verdict on the 20 bin means where the record kept it; else seed 0's alone
    (``bin_verdict``); empty when the record has no bins to judge."""
    kept = metrics.get("per_seed", {}).get(f"{quantity}.bin_shape")
    if kept is not None:
        return list(kept)
    verdict = bin_verdict(metrics, quantity)
    return [] if verdict is None else [verdict["shape"]]


def score_std(metrics: dict[str, Any]) -> list[float]:
    """Per seed, the std of E_s . p over the tokens read; seed 0's alone, from its bins, in records that did not keep
    it (the pooled std of the bins: exact, since every token read falls in a bin); empty for a record with neither."""
    kept = metrics.get("per_seed", {}).get("scores.token_std")
    if kept is not None:
        return [float(s) for s in kept]
    curve = metrics["scores"]
    if "token_std" in curve:
        return [float(curve["token_std"])]
    if not curve.get("bin_count"):
        return []
    n = np.asarray(curve["bin_count"], float)
    mean, std = np.asarray(curve["bin_mean"], float), np.asarray(curve["bin_std"], float)
    filled = n > 0  # an empty bin has no mean or std (NaN) and no weight: it is left out, not pooled as NaN
    n, mean, std = n[filled], mean[filled], std[filled]
    grand = float(np.average(mean, weights=n))
    return [math.sqrt(float(np.average(std**2 + (mean - grand) ** 2, weights=n)))]


def selects(std: float) -> bool:
    """Whether attention with this token-score spread selects (``MIN_SCORE_STD``)."""
    return std >= MIN_SCORE_STD


def arms_words(verdict: dict[str, Any]) -> str:
    """A U's arms, "arms -0.07 and +0.07", or a monotone curve's "Spearman +0.81"."""
    if verdict["shape"] == "U-shaped" and "left_spearman" in verdict:
        return f"arms {verdict['left_spearman']:+.2f} and {verdict['right_spearman']:+.2f}"
    return f"Spearman {verdict['spearman']:+.2f}"
