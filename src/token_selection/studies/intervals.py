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
    if samples.shape[0] < 2:
        raise ValueError(f"need at least 2 samples to bootstrap, got {samples.shape[0]}")
    if n_boot < 100:
        raise ValueError(f"n_boot must be at least 100 for a percentile interval, got {n_boot}")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, samples.shape[0], size=(n_boot, samples.shape[0]))
    values = np.array([statistic(samples[rows]) for rows in draws])
    tail = (1 - confidence) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))
