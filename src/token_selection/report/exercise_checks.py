"""Checkers for the coding exercises of chapters 8 and 9: a reader's function against the package's.

Each ``check_*`` calls ``exercises.check_exercise`` on fixed, seeded cases: it returns True
when the reader's function agrees, None (after one plain line) when it still raises NotImplementedError, and
raises AssertionError naming the first case that differs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from ..exercises import check_exercise
from ..theory.multiclass import class_signed_frequency
from ..theory.shape import quadratic_minimum
from .binned import compare_spread
from .measures import accuracy_gap


def check_accuracy_gap(candidate: Callable[[float, int, float, int], np.ndarray]) -> bool | None:
    """Chapter 9: ``candidate(acc_a, n_a, acc_b, n_b)`` -> (gap, low, high) in points, as ``accuracy_gap``."""
    cases = [((0.95, 1000, 0.72, 1000), {}), ((0.87, 25000, 0.61, 25000), {}), ((0.5, 40, 0.55, 60), {})]
    return check_exercise(candidate, accuracy_gap, cases, name="accuracy_gap")


def check_quadratic_minimum(candidate: Callable[[np.ndarray, np.ndarray], float]) -> bool | None:
    """Chapter 9: ``candidate(x, y)`` -> the minimum of the least-squares quadratic, NaN when it is not convex."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 200)
    noise = rng.normal(size=x.size)
    cases = [
        ((x, (x - 0.3) ** 2 + 0.1 * noise), {}),
        ((x, 2 * x**2 - x + 0.5 * noise), {}),
        ((x, -(x**2) + 0.1 * noise), {}),  # concave: no minimum
    ]
    return check_exercise(candidate, quadratic_minimum, cases, name="quadratic_minimum", rtol=1e-6, atol=1e-9)


def _spread_ratio(x: np.ndarray, values_a: np.ndarray, values_b: np.ndarray) -> float:
    return compare_spread(x, values_a, values_b).ratio


def check_spread_ratio(candidate: Callable[[np.ndarray, np.ndarray, np.ndarray], float]) -> bool | None:
    """Chapter 8: ``candidate(x, a, b)`` -> mean per-bin std of b over that of a, 20 equal bins on [-1, 1]."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, 1000)
    a = x + 0.1 * rng.normal(size=x.size)
    b = 3 * x + rng.normal(size=x.size) * (1 + x**2)
    cases = [((x, a, b), {}), ((x, b, a), {}), ((x[:300], a[:300], np.abs(b[:300])), {})]
    return check_exercise(candidate, _spread_ratio, cases, name="spread_ratio")


def check_class_signed_frequency(candidate: Callable[[torch.Tensor, torch.Tensor, int, int], torch.Tensor]) -> bool | None:
    """Chapter 8: ``candidate(X, y, K, V)`` -> (V, K) leading-order class signed frequency (pi = 1/K)."""
    gen = torch.Generator().manual_seed(0)
    cases = []
    for n, T, V, K in ((50, 6, 12, 3), (80, 4, 20, 4), (30, 5, 8, 2)):
        X = torch.randint(0, V, (n, T), generator=gen)
        y = torch.randint(0, K, (n,), generator=gen)
        cases.append(((X, y, K, V), {}))
    return check_exercise(candidate, class_signed_frequency, cases, name="class_signed_frequency")
