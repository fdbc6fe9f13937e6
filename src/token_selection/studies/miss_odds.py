"""How well the size of a seed's initial lean predicts a miss: a logistic fit of P(miss | |lean|) and its ranking score.

Chapter 4b reads the seed sweep's record (one initial lean and one verdict per seed) through ``fit_miss_odds``:
the fitted curve says how the chance of a miss rises with the lean's size, ``half_lean`` where it passes one half,
and ``auc`` how often a seed that misses started from a larger lean than one that reaches p_mm (1: the size alone
sorts the seeds; 0.5: it says nothing). The fit is scikit-learn's unpenalised logistic regression.

``half_lean_interval`` bootstraps the half-way lean over the seeds. Its thousands of refits are one batched Newton
iteration on the (concave) log-likelihood, the same maximum scikit-learn finds (the tests compare them), in a
fraction of a second where as many calls to scikit-learn take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from .intervals import bootstrap_rows, percentile_interval

NEWTON_STEPS = 60
"""Newton steps of the batched fits: from zero the log-likelihood's maximum is reached in about 10 to 25 steps on the
course's leans; the rest only confirm it (the fit is refused unless its gradient has vanished, ``GRADIENT_TOLERANCE``)."""
GRADIENT_TOLERANCE = 1e-8
"""Largest gradient of the mean log-likelihood accepted at a batched fit's end."""


@dataclass(frozen=True)
class MissOdds:
    """A fitted P(miss | size) = 1 / (1 + exp(-(intercept + slope * size)))."""

    intercept: float
    slope: float
    auc: float
    """The probability that a random miss has a larger lean than a random seed that reaches p_mm (ties count half)."""

    @property
    def half_lean(self) -> float:
        """The size of lean at which the fitted chance of a miss is one half."""
        return -self.intercept / self.slope

    def chance(self, size) -> np.ndarray:
        """The fitted chance of a miss at each lean size in ``size`` (any shape)."""
        return 1.0 / (1.0 + np.exp(-(self.intercept + self.slope * np.asarray(size))))


def _checked(sizes, missed) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.asarray(sizes, dtype=np.float64)
    missed = np.asarray(missed)
    if sizes.ndim != 1 or missed.shape != sizes.shape:
        raise ValueError(
            f"sizes and missed must be two 1-D arrays of one length (one entry per seed), got shapes "
            f"{sizes.shape} and {missed.shape}"
        )
    if missed.dtype != bool:
        raise ValueError(f"missed must hold booleans (True: the seed misses p_mm), got dtype {missed.dtype}")
    if not np.isfinite(sizes).all() or (sizes < 0).any():
        raise ValueError("sizes must be finite lean sizes >= 0 (the absolute value of each seed's initial lean)")
    if missed.all() or not missed.any():
        raise ValueError(
            f"the seeds must include both a miss and a seed that reaches p_mm, got {int(missed.sum())} misses "
            f"of {missed.size}: with one outcome there is nothing to fit"
        )
    return sizes, missed


def fit_miss_odds(sizes, missed) -> MissOdds:
    """Fit P(miss | lean size) by logistic regression over seeds.

    sizes: (N,) |initial lean| per seed; missed: (N,) bool, True where the seed's run does not reach p_mm.
    Raises ValueError for mismatched shapes, a negative or non-finite size, or a single outcome. Seeds that a
    size separates (every miss at a lean at least as large as every reach) have no finite fit: the error says so
    rather than returning a huge slope.
    """
    sizes, missed = _checked(sizes, missed)
    if sizes[missed].min() >= sizes[~missed].max():
        raise ValueError(
            "every miss starts from a lean at least as large as every seed that reaches p_mm: the size separates "
            "them, so the logistic fit has no finite slope; report the gap between the two sets instead"
        )
    model = LogisticRegression(C=np.inf, tol=1e-10).fit(sizes[:, None], missed)
    return MissOdds(
        intercept=float(model.intercept_[0]),
        slope=float(model.coef_[0, 0]),
        auc=float(roc_auc_score(missed, sizes)),
    )


def _batched_fits(sizes: np.ndarray, missed: np.ndarray) -> np.ndarray:
    """Logistic maximum-likelihood fits of many samples at once: sizes, missed (B, N) -> (B, 2) (intercept, slope).

    Newton's method from zero on each sample's mean log-likelihood; a sample whose gradient has not vanished after
    ``NEWTON_STEPS`` steps is an error (its fit has no finite maximum, or the steps were too few)."""
    X = np.stack([np.ones_like(sizes), sizes], axis=-1)  # (B, N, 2)
    beta = np.zeros((sizes.shape[0], 2))
    for _ in range(NEWTON_STEPS):
        chance = expit(np.einsum("bnk,bk->bn", X, beta))
        gradient = np.einsum("bn,bnk->bk", missed - chance, X) / sizes.shape[1]
        weight = chance * (1 - chance)
        hessian = np.einsum("bn,bnk,bnl->bkl", weight, X, X) / sizes.shape[1]
        beta += np.linalg.solve(hessian, gradient[..., None])[..., 0]
    chance = expit(np.einsum("bnk,bk->bn", X, beta))
    gradient = np.einsum("bn,bnk->bk", missed - chance, X) / sizes.shape[1]
    unsettled = int((np.abs(gradient).max(axis=1) > GRADIENT_TOLERANCE).sum())
    if unsettled:
        raise ValueError(f"{unsettled} of {sizes.shape[0]} fits did not settle after {NEWTON_STEPS} Newton steps")
    return beta


def half_lean_interval(sizes, missed, *, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of ``MissOdds.half_lean`` over resamples of the seeds (rows drawn with
    replacement by ``intervals.bootstrap_rows``, as ``intervals.bootstrap_interval`` draws them).

    sizes, missed: as ``fit_miss_odds``. A resample whose seeds the size separates (a few of thousands when the misses
    are few) has no finite fit: every threshold in the gap between its largest reach and its smallest miss sorts it,
    and its half-way lean is taken as the gap's midpoint, the max-margin threshold, rather than dropped (which would
    bias the interval). A resample with one outcome only has no half-way lean at all: ValueError.
    """
    sizes, missed = _checked(sizes, missed)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    rows = bootstrap_rows(sizes.size, n_boot=n_boot, seed=seed)
    drawn, outcome = sizes[rows], missed[rows]
    one_outcome = int((outcome.all(axis=1) | ~outcome.any(axis=1)).sum())
    if one_outcome:
        raise ValueError(
            f"{one_outcome} of {n_boot} resamples hold misses only or reaches only: the half-way lean has no "
            "bootstrap interval on these seeds"
        )
    lowest_miss = np.where(outcome, drawn, np.inf).min(axis=1)
    highest_reach = np.where(outcome, -np.inf, drawn).max(axis=1)
    separated = lowest_miss >= highest_reach
    half = (lowest_miss + highest_reach) / 2  # the max-margin threshold of a separated resample
    if (~separated).any():
        beta = _batched_fits(drawn[~separated], outcome[~separated].astype(np.float64))
        half[~separated] = -beta[:, 0] / beta[:, 1]
    return percentile_interval(half, confidence)
