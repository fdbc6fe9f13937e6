"""Seed intervals: the mean of a metric over seeds and its 95% Student-t interval.

    seed_interval([0.84, 0.85, 0.83])   # {"value": 0.84, "low": ..., "high": ..., "n": 3, "values": [...]}

With one seed there is no spread to estimate: the interval is the value itself and
``n = 1`` says so (a page then prints "one seed", never an interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
"""Coverage of every seed interval in the course."""


def seed_interval(
    values: Sequence[float], confidence: float = CONFIDENCE, *, bounds: tuple[float, float] | None = None
) -> dict[str, float | int | list[float]]:
    """Mean of ``values`` (one per seed) and its two-sided Student-t interval at ``confidence``.

    Returns ``{"value", "low", "high", "n", "values"}``; ``low == high == value`` when n = 1. ``bounds`` (low, high):
    the range the quantity cannot leave (an accuracy in [0, 1], a time or a spread at least 0, a rank correlation in
    [-1, 1]); the interval is clipped to it, so that no end states an impossible value.
    Raises ValueError for no values, a non-finite value, a value outside ``bounds``, bounds not increasing or a
    confidence outside (0, 1).
    """
    array = np.asarray(list(values), dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"values must be a non-empty 1-D sequence of numbers, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"values must all be finite, got {array.tolist()}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    lowest, highest = bounds if bounds is not None else (-math.inf, math.inf)
    if not lowest < highest:
        raise ValueError(f"bounds must be (low, high) with low < high, got {bounds}")
    if bool(np.any(array < lowest)) or bool(np.any(array > highest)):
        raise ValueError(f"values must lie within bounds {bounds}, got {array.tolist()}")
    mean = float(array.mean())
    if array.size == 1:
        half = 0.0
    else:
        sem = float(array.std(ddof=1)) / math.sqrt(array.size)
        half = float(stats.t.ppf(0.5 + confidence / 2, df=array.size - 1)) * sem
    low, high = max(mean - half, lowest), min(mean + half, highest)
    return {"value": mean, "low": low, "high": high, "n": int(array.size), "values": array.tolist()}


def as_interval(value: float | dict) -> dict:
    """A seed interval as is, or a single number as an interval of one seed."""
    if isinstance(value, dict):
        missing = {"value", "low", "high", "n"} - set(value)
        if missing:
            raise ValueError(f"an interval needs keys value, low, high, n; missing {sorted(missing)}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"value must be a number or a seed interval (dict), got {type(value).__name__}: {value!r}")
    return seed_interval([float(value)])


def with_test_set_error(interval: dict, n_test: int | None) -> dict:
    """A test accuracy's seed interval widened by the test set's own sampling error (every seed is scored on the same
    ``n_test`` examples, so that error is common to the seeds and absent from their spread): its 95% half-width,
    1.96 sqrt(a (1 - a) / n_test) at the mean accuracy a, adds to the seeds' half-width in quadrature, the interval
    clipped to [0, 1] and ``n_test`` kept. Without ``n_test`` (None or 0) the seed interval as it is."""
    if not n_test:
        return dict(interval)
    mean = float(interval["value"])
    test_half = float(stats.norm.ppf(0.5 + CONFIDENCE / 2)) * math.sqrt(mean * (1 - mean) / n_test)
    seed_half = max(mean - float(interval["low"]), float(interval["high"]) - mean)
    half = math.hypot(seed_half, test_half)
    return {**interval, "low": max(0.0, mean - half), "high": min(1.0, mean + half), "n_test": int(n_test)}


def show_interval(interval: dict, fmt: str = "{:.3g}", scale: float = 1.0, unit: str = "", *, basis: str | None = None) -> str:
    """The one way the course prints an interval: ``mean [low, high]unit (basis)``, each number times ``scale`` in
    format ``fmt``, the unit written once, after the interval.

    basis None: ``(n seeds)``, and a one-seed interval as ``valueunit (one seed)``; basis "": nothing after the
    interval (a table whose header says what it is over), a one-seed interval as its value alone; any other text: the
    interval whatever ``n`` (a Wilson interval, an interval from a test set's size), followed by ``(basis)``."""
    value = fmt.format(scale * interval["value"])
    if not basis and interval["n"] == 1:
        return f"{value}{unit}" + (" (one seed)" if basis is None else "")
    low, high = fmt.format(scale * interval["low"]), fmt.format(scale * interval["high"])
    after = f" ({interval['n']} seeds)" if basis is None else f" ({basis})" if basis else ""
    return f"{value} [{low}, {high}]{unit}{after}"
