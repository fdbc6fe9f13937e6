"""Numbers for the shapes of the paper's token plots: monotone values, U-shaped scores, per-bin spread.

The paper and its rebuttal describe the curves of binned ``E_s . v`` and ``E_s . p``
against token importance in words (monotone, U-shaped) and report per-bin standard
deviations. The course turns these words into numbers with stated thresholds (our
choices), so that a chapter can assert what it finds and the reproduction report can
compute a verdict from it:

- monotone: Spearman rank correlation of bin means with bin centres >= ``MONOTONE_RHO``;
- U-shaped: the lowest bin mean sits strictly inside (not in the outer ``EDGE_BINS``
  bins at either end), and the mean of the outer bins at *each* end rises above that
  minimum by at least ``U_RISE`` times the range of the bin means.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from ..validation import ArrayLike
from .importance import BinnedStats, bin_by_importance

MONOTONE_RHO = 0.9
"""Spearman correlation of bin means with bin centres at or above which a curve counts as monotone."""
U_RISE = 0.2
"""Minimum rise of each end above the minimum, as a share of the range of the bin means, for a U-shape."""
EDGE_BINS = 2
"""Bins at each end whose mean is an 'end' of the curve."""


@dataclass(frozen=True)
class ShapeSummary:
    """Shape of one binned curve.

    spearman: rank correlation of bin means with bin centres, in [-1, 1];
    left_rise, right_rise: mean of the ``EDGE_BINS`` outer bins at each end minus the
    lowest bin mean, divided by the range of the bin means (in [0, 1]);
    argmin_centre: centre of the lowest bin; monotone, u_shaped: the verdicts of the
    module's rules.
    """

    spearman: float
    left_rise: float
    right_rise: float
    argmin_centre: float
    monotone: bool
    u_shaped: bool

    def describe(self) -> str:
        """One line: the numbers and both verdicts."""
        return (
            f"Spearman {self.spearman:+.2f} ({'monotone' if self.monotone else 'not monotone'}); "
            f"ends rise {self.left_rise:.2f} / {self.right_rise:.2f} of the range above the minimum at "
            f"{self.argmin_centre:+.2f} ({'U-shaped' if self.u_shaped else 'not U-shaped'})"
        )


def shape_of_means(centres: ArrayLike, means: ArrayLike) -> ShapeSummary:
    """Shape of the curve ``means`` against ``centres``: (B,) each, B >= 2 * EDGE_BINS + 1, sorted by centre."""
    centres = np.asarray(centres, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    if centres.ndim != 1 or centres.shape != means.shape:
        raise ValueError(f"centres and means must be 1-D of equal length, got shapes {centres.shape} and {means.shape}")
    if centres.size < 2 * EDGE_BINS + 1:
        raise ValueError(f"need at least {2 * EDGE_BINS + 1} non-empty bins to judge a shape, got {centres.size}")
    if not (np.isfinite(centres).all() and np.isfinite(means).all()):
        raise ValueError("centres and means must be finite (no NaN or inf)")
    if np.any(np.diff(centres) <= 0):
        raise ValueError("centres must be strictly increasing")
    spread = float(np.ptp(means))
    rho = float(spearmanr(centres, means)[0]) if spread > 0 else 0.0
    lowest = int(np.argmin(means))
    scale = spread if spread > 0 else 1.0
    left = float((means[:EDGE_BINS].mean() - means[lowest]) / scale)
    right = float((means[-EDGE_BINS:].mean() - means[lowest]) / scale)
    inside = EDGE_BINS <= lowest < centres.size - EDGE_BINS
    return ShapeSummary(
        spearman=rho,
        left_rise=left,
        right_rise=right,
        argmin_centre=float(centres[lowest]),
        monotone=rho >= MONOTONE_RHO,
        u_shaped=bool(inside and min(left, right) >= U_RISE),
    )


def shape_of(binned: BinnedStats) -> ShapeSummary:
    """``shape_of_means`` of a ``BinnedStats`` (from ``bin_by_importance``)."""
    return shape_of_means(binned.centres, binned.mean)


def mean_within_bin_std(binned: BinnedStats) -> float:
    """Count-weighted mean of the per-bin standard deviations (bins with one token count with std 0)."""
    return float(np.average(binned.std, weights=binned.count))


@dataclass(frozen=True)
class SpreadComparison:
    """Per-bin spread of one token quantity under two trainings, on the same bins.

    std_a, std_b: count-weighted mean per-bin std; ratio = std_b / std_a (how many times
    smaller ``a`` is); relative_a, relative_b: the same std divided by the std of the bin
    means (a scale-free spread: noise over signal); relative_ratio = relative_b / relative_a.
    """

    std_a: float
    std_b: float
    ratio: float
    relative_a: float
    relative_b: float
    relative_ratio: float


def compare_spread(x: ArrayLike, values_a: ArrayLike, values_b: ArrayLike, bins: int = 20) -> SpreadComparison:
    """Compare the per-bin spread of ``values_a`` and ``values_b`` (V,) binned by importance ``x`` (V,).

    Tokens where ``x`` is NaN are ignored (as in ``bin_by_importance``).
    """
    a, b = bin_by_importance(x, values_a, bins), bin_by_importance(x, values_b, bins)
    if a.count.size < 2:
        raise ValueError("need at least two non-empty bins to compare spreads")
    std_a, std_b = mean_within_bin_std(a), mean_within_bin_std(b)
    between_a = float(np.sqrt(np.cov(a.mean, aweights=a.count))) or np.finfo(np.float64).tiny
    between_b = float(np.sqrt(np.cov(b.mean, aweights=b.count))) or np.finfo(np.float64).tiny
    tiny = np.finfo(np.float64).tiny
    return SpreadComparison(
        std_a=std_a,
        std_b=std_b,
        ratio=std_b / max(std_a, tiny),
        relative_a=std_a / between_a,
        relative_b=std_b / between_b,
        relative_ratio=(std_b / between_b) / max(std_a / between_a, tiny),
    )


def plot_binned(
    ax,
    binned: BinnedStats,
    *,
    label: str,
    color: str = "tab:blue",
    reference: tuple[ArrayLike, ArrayLike] | None = None,
    reference_label: str = "rebuttal table (right axis)",
) -> None:
    """Bin means with a +/- one std band on ``ax``; optionally a reference curve (centres, means) on a twin axis.

    The reference is drawn on its own y axis because its scale belongs to another model and
    dataset: only its shape is comparable.
    """
    ax.fill_between(binned.centres, binned.mean - binned.std, binned.mean + binned.std, color=color, alpha=0.2)
    ax.plot(binned.centres, binned.mean, "o-", color=color, ms=4, label=f"{label}: bin mean (band: ± std)")
    ax.axhline(0.0, color="grey", lw=0.6)
    ax.set_xlabel(r"posterior gap $P(1\mid s) - P(0\mid s)$")
    ax.set_ylabel(label)
    handles, labels = ax.get_legend_handles_labels()
    if reference is not None:
        twin = ax.twinx()
        (line,) = twin.plot(*(np.asarray(r, dtype=np.float64) for r in reference), "s--", color="black", ms=3, lw=1)
        twin.set_ylabel(reference_label)
        handles, labels = handles + [line], labels + [reference_label]
    ax.legend(handles, labels, fontsize=7, loc="upper center")
