"""The real-data chapters' coding exercises: for each, the package's reference and the cases a reader's function is checked on.

    check_real_data_exercise("ch6-gap", my_posterior_gap)   # True, None (not attempted) or AssertionError

Cases are small seeded inputs that exercise padding, rare tokens and empty bins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ..exercises import check_exercise
from ..theory.importance import posterior_gap
from ..theory.multiclass import class_importance
from .measurements import rebuttal_bins, signed_frequency_accuracy


def _token_cases(num_classes: int = 2, offset: int = 0) -> list[tuple[torch.Tensor, torch.Tensor, int, torch.Tensor]]:
    """Three seeded (X, y, vocab_size, mask) inputs: ids (n, T), labels (n,) in [0, num_classes), padded rows."""
    cases = []
    for seed, (n, T, V) in enumerate([(6, 4, 5), (40, 9, 20), (200, 16, 60)]):
        gen = torch.Generator().manual_seed(seed + offset)
        X = torch.randint(0, V, (n, T), generator=gen)
        y = torch.arange(n) % num_classes
        lengths = torch.randint(1, T + 1, (n,), generator=gen)
        mask = torch.arange(T)[None, :] < lengths[:, None]
        cases.append((torch.where(mask, X, 0), y, V, mask))
    return cases


def _gap_cases() -> list:
    return [((X, y, V, mask), {}) for X, y, V, mask in _token_cases()]


def _bin_cases() -> list:
    cases = []
    for seed, n in enumerate([50, 400, 5000]):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-1, 1, n)
        cases.append(((x, np.sin(3 * x) + rng.normal(0, 0.1, n)), {}))
    return cases


def _accuracy_cases() -> list:
    pairs = zip(_token_cases(), _token_cases(offset=10), strict=True)
    return [((X, y, mask, X_test, y_test, mask_test, V), {}) for (X, y, V, mask), (X_test, y_test, _, mask_test) in pairs]


def _class_cases() -> list:
    return [((X, y, 4, V, mask), {}) for X, y, V, mask in _token_cases(num_classes=4)]


EXERCISES: dict[str, tuple[Callable[..., Any], Callable[[], list]]] = {
    "ch6-gap": (lambda X, y, V, mask: posterior_gap(X, y, V, mask), _gap_cases),
    "ch6-bins": (lambda x, values: rebuttal_bins(x, values).mean, _bin_cases),
    "ch7-alpha-classifier": (signed_frequency_accuracy, _accuracy_cases),
    "ch7-class-importance": (class_importance, _class_cases),
}
"""Exercise name -> (reference, cases). The reference's signature is the one the chapter asks for."""


def check_real_data_exercise(name: str, candidate: Callable[..., Any]) -> bool | None:
    """``check_exercise`` of ``candidate`` against the reference of exercise ``name`` on its cases."""
    if name not in EXERCISES:
        raise ValueError(f"name must be one of {sorted(EXERCISES)}, got {name!r}")
    reference, cases = EXERCISES[name]
    return check_exercise(candidate, reference, cases(), name=name)
