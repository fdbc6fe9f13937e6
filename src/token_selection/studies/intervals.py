"""Confidence intervals for the studies: Wilson intervals for fractions, percentile bootstrap for statistics."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.stats import binomtest


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial fraction ``successes / trials`` (``scipy.stats.binomtest``'s
    ``proportion_ci(method="wilson")``).

    Preferred to the normal interval because the studies' fractions sit at or near 0 and 1,
    where the normal interval collapses to a point.
    """
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got successes={successes}, trials={trials}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    found = binomtest(int(successes), int(trials)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(max(0.0, found.low)), float(min(1.0, found.high))


def bootstrap_interval(
    samples: np.ndarray,
    statistic: Callable[[np.ndarray], float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over resamples of the rows of ``samples`` (N, ...)."""
    samples = np.asarray(samples)
    draws = bootstrap_rows(samples.shape[0], n_boot=n_boot, seed=seed)
    values = np.array([statistic(samples[rows]) for rows in draws])
    return percentile_interval(values, confidence)


def bootstrap_rows(n_samples: int, *, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """(n_boot, n_samples) row indices drawn with replacement from ``numpy.random.default_rng(seed)``: the resamples
    of a percentile bootstrap (for a statistic computed on all resamples at once)."""
    if n_samples < 2:
        raise ValueError(f"need at least 2 samples to bootstrap, got {n_samples}")
    if n_boot < 100:
        raise ValueError(f"n_boot must be at least 100 for a percentile interval, got {n_boot}")
    return np.random.default_rng(seed).integers(0, n_samples, size=(n_boot, n_samples))


def percentile_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The central ``confidence`` interval of bootstrap ``values`` (B,): their two tail quantiles."""
    tail = (1 - confidence) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))
