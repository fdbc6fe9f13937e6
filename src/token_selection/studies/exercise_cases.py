"""Reference functions and test cases for the coding exercises of the studies' chapters.

``EXERCISES[name]`` is ``(reference, cases)``: a chapter's checker cell calls
``check_exercise(candidate, *EXERCISES[name])`` and the unit tests feed it a wrong solution.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..exercises import Cases, Registry, lookup_exercise
from ..theory.importance import signed_frequency
from ..theory.one_step import step_size_from_alpha
from ..theory.synthetic import make_synthetic
from .asymmetric import arm_heights, make_asymmetric
from .capacity import predicted_dimension
from .interactions import make_negation_data
from .intervals import wilson_interval
from .local_optima import one_sided_selection


def _selection_cases() -> Cases:
    data = make_synthetic(40, 6, 20, 0.0, seed=3)
    values = torch.linspace(-1.0, 1.0, 20, dtype=torch.float64)[torch.randperm(20, generator=torch.Generator().manual_seed(0))]
    return [((data.X, data.y, data.relevant, values, keep), {}) for keep in (1, -1)]


def _signed_frequency_cases() -> Cases:
    negation = make_negation_data(10, 6, 20, seed=0)
    plain = make_synthetic(30, 5, 15, 0.2, balanced=False, seed=1)
    return [((negation.X, negation.y, 20), {}), ((negation.X, negation.sentiment, 20), {}), ((plain.X, plain.y, 15), {})]


def _arm_cases() -> Cases:
    data = make_asymmetric(60, 5, 30, m_pos=2, m_neg=5, positive_share=0.7, seed=0)
    scores = torch.randn(30, generator=torch.Generator().manual_seed(1), dtype=torch.float64).numpy()
    return [((scores, data.token_class.numpy()), {})]


EXERCISES: Registry = {
    "one_sided_selection": (one_sided_selection, _selection_cases),
    "wilson_interval": (wilson_interval, lambda: [((k, 20), {}) for k in (0, 3, 10, 20)] + [((7, 9), {"confidence": 0.9})]),
    "predicted_dimension": (
        predicted_dimension,
        lambda: [((V, 0.5, 5, 200, 8), {}) for V in (20, 80, 640)] + [((40, 0.3, 2, 50, 4), {"failure": 0.1})],
    ),
    "eta_star": (
        step_size_from_alpha,
        lambda: [((torch.linspace(-0.1, 0.2, 30, dtype=torch.float64), d), {}) for d in (16, 512)],
    ),
    "signed_frequency": (signed_frequency, _signed_frequency_cases),
    "arm_heights": (arm_heights, _arm_cases),
}


def exercise(name: str) -> tuple[Callable[..., Any], Cases]:
    """``(reference, cases)`` of the exercise ``name`` (a key of ``EXERCISES``)."""
    return lookup_exercise(EXERCISES, name)
