"""Binned curves of a token quantity against importance: the per-bin spread and the band plot.

The authors' rebuttal to reviewer vwUg compares the average per-bin standard deviation
of ``E_s . v`` and ``E_s . p`` between two trainings; ``compare_spread`` measures it the
same way on the same bins, and also relative to the spread of the bin means (noise over
signal), since a standard deviation carries the units of the quantity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..theory.importance import BinnedStats, bin_by_importance
from ..validation import ArrayLike


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
    tiny = np.finfo(np.float64).tiny
    std_a, std_b = mean_within_bin_std(a), mean_within_bin_std(b)
    between_a = max(float(np.sqrt(np.cov(a.mean, aweights=a.count))), tiny)
    between_b = max(float(np.sqrt(np.cov(b.mean, aweights=b.count))), tiny)
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


def binned_from_record(curve: dict) -> BinnedStats:
    """The ``BinnedStats`` of one curve of a real-data record (keys bin_centres, bin_mean, bin_std, bin_count)."""
    return BinnedStats(
        centres=np.asarray(curve["bin_centres"], dtype=np.float64),
        mean=np.asarray(curve["bin_mean"], dtype=np.float64),
        std=np.asarray(curve["bin_std"], dtype=np.float64),
        count=np.asarray(curve["bin_count"], dtype=np.float64),
    )


def relative_spread(binned: BinnedStats) -> float:
    """Mean per-bin std over the count-weighted std of the bin means: the spread of a curve relative to its signal."""
    between = float(np.sqrt(np.cov(binned.mean, aweights=binned.count)))
    return mean_within_bin_std(binned) / max(between, np.finfo(np.float64).tiny)


def scale_free_spread(binned: BinnedStats) -> float:
    """Mean per-bin std over the std of the curve's tokens, the scale-free reading of chapter 9b: the tokens' std is
    recovered from the bins by the law of total variance (count-weighted within-bin variance plus the variance of
    the bin means; a population std, as the bins' own)."""
    centre = np.average(binned.mean, weights=binned.count)
    overall = float(np.sqrt(np.average(binned.std**2 + (binned.mean - centre) ** 2, weights=binned.count)))
    return mean_within_bin_std(binned) / max(overall, np.finfo(np.float64).tiny)
