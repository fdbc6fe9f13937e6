"""Checkers for chapter 5's coding exercises: each runs a reader's function against the package's on fixed cases; a
checker cell is one line, ``check(factor, "ch5-ex-factor")``."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..exercises import check_exercise, label_for, registered
from ..theory.synthetic import make_synthetic
from .compute import selected_relevant_per_sequence
from .config import factor_for_alignment

ALIGNMENTS = (0.0, 0.3, 0.5, 2**-0.5, 0.9, 0.99, 0.998)
"""Targets for ``factor_for_alignment``: from no step (0) through eta = eta* (1/sqrt 2) to the default's 0.998."""


def check_factor_for_alignment(candidate: Callable[[float], float]) -> bool | None:
    """Check ``candidate(target) -> eta / eta*`` against ``factor_for_alignment``.

    Tolerance: relative 1e-9, since both sides are the same closed form up to float64 rounding
    (at 0.998 the result is 15.8, and 1 - 0.998^2 loses about 3 of 16 digits).
    """
    cases = [((target,), {}) for target in ALIGNMENTS]
    return check_exercise(candidate, factor_for_alignment, cases, rtol=1e-9, atol=1e-12)


def _selection_cases() -> list[tuple[tuple, dict]]:
    """Attention patterns on generator data where several relevant tokens repeat within a sequence.

    Sharp random scores put some tokens right around the 1% threshold, so counting positions
    instead of distinct tokens, or judging each repeat on its own mass, gives another answer.
    """
    cases = []
    for seed, (T, delta, sharpness) in enumerate(((8, 0.5, 3.0), (32, 0.3, 2.0), (64, 0.5, 1.0))):
        data = make_synthetic(40, T, 50, delta, seed=seed)
        scores = sharpness * torch.randn(40, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
        cases.append(((torch.softmax(scores, dim=1), data.X, data.relevant, 50), {}))
    return cases


def check_selected_per_sequence(candidate: Callable[..., float]) -> bool | None:
    """Check ``candidate(attention, X, relevant, vocab_size) -> float`` against ``selected_relevant_per_sequence``.

    Tolerance: absolute 1e-12, since the answer is a mean of integer counts over 40 sequences
    (a single miscounted token moves it by 0.025).
    """
    return check_exercise(candidate, selected_relevant_per_sequence, _selection_cases(), rtol=0.0, atol=1e-12)


CHECKERS: dict[str, Callable[[Callable[..., float]], bool | None]] = {
    "ch5-ex-factor": check_factor_for_alignment,
    "ch5-ex-selected": check_selected_per_sequence,
}
"""Exercise label in chapter 5 -> its checker."""


STUBS: dict[str, str] = {"factor": "ch5-ex-factor", "selected_per_sequence": "ch5-ex-selected"}
"""The name of each exercise's stub in chapter 5 -> the exercise's label, so that a checker cell is ``check(stub)``."""


def check(candidate: Callable[..., float], label: str | None = None) -> None:
    """Run the checker of chapter 5's exercise ``label`` (a key of ``CHECKERS``; by default the one whose stub bears
    ``candidate``'s name, ``STUBS``) on ``candidate``, as chapters 1-4's ``check`` does: one printed line, None
    returned; ValueError naming the known labels for another, or the stubs for an unknown name and no label."""
    registered(CHECKERS, label_for(candidate, STUBS, label))(candidate)
