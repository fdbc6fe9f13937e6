"""The explorer's settings, declared once: ``ExplorerConfig`` and its validation.

Every other part of the explorer (``explore``, the grid, the live widget, the
static figure) takes or builds an ``ExplorerConfig``; none repeats its fields.
The one step on ``E`` follows the course's one step-size rule: its size is
``eta = step_factor * eta*``, with ``eta*`` computed on the data of the setting
(``theory.one_step.step_size_threshold``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..theory.synthetic import REFERENCE_CASE

STEP_FACTOR = 14.3
"""Default ``eta / eta*``: the reference case's ``eta = 200`` is 14.3 ``eta*`` of its data (to one decimal; chapters
3 and 4 glue that multiple), so the default setting is that case; the predicted alignment at this factor is
14.3 / sqrt(1 + 14.3^2) = 0.998."""


def _number(value: float, name: str, *, low: float, allowed: str, strictly_above: bool = False) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number ({allowed}), got {value!r}") from None
    if not math.isfinite(number) or number < low or (strictly_above and number == low):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return number


def _integer(value: int, name: str, *, minimum: int, allowed: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or int(value) != value:
        raise ValueError(f"{name} must be an integer ({allowed}), got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


@dataclass(frozen=True)
class ExplorerConfig:
    """One setting of the explorer, validated on construction (ValueError says what is allowed).

    delta: rate of relevant tokens; d: embedding dimension; T: sequence length;
    n: sequences (even: the generator makes label-swapped twins); step_factor: the one
    step on ``E`` has size ``step_factor * eta*``; p_steps, p_lr: normalised GD on ``p``;
    seed: data and model; vocab_size, zipf: the generator's vocabulary and Zipf exponent.
    Defaults: the reference case (``theory.synthetic.REFERENCE_CASE``).
    """

    delta: float = REFERENCE_CASE.delta
    d: int = REFERENCE_CASE.d
    T: int = REFERENCE_CASE.T
    n: int = REFERENCE_CASE.n
    step_factor: float = STEP_FACTOR
    p_steps: int = 3000
    seed: int = REFERENCE_CASE.seed
    vocab_size: int = REFERENCE_CASE.vocab_size
    p_lr: float = 1.0
    zipf: float = 1.0

    def __post_init__(self) -> None:
        checked = {
            "delta": _number(self.delta, "delta", low=0.0, allowed="a probability in [0, 1]"),
            "d": _integer(self.d, "d", minimum=1, allowed="an embedding dimension >= 1"),
            "T": _integer(self.T, "T", minimum=1, allowed="a sequence length >= 2"),
            "n": _integer(self.n, "n", minimum=2, allowed="an even number of sequences >= 2"),
            "step_factor": _number(
                self.step_factor, "step_factor", low=0.0, strictly_above=True, allowed="a finite multiple of eta* > 0"
            ),
            "p_steps": _integer(self.p_steps, "p_steps", minimum=1, allowed="a number of steps >= 1"),
            "seed": _integer(self.seed, "seed", minimum=0, allowed="an integer >= 0"),
            "vocab_size": _integer(self.vocab_size, "vocab_size", minimum=3, allowed="a vocabulary size >= 3"),
            "p_lr": _number(self.p_lr, "p_lr", low=0.0, strictly_above=True, allowed="a finite learning rate > 0 for p"),
            "zipf": _number(self.zipf, "zipf", low=0.0, allowed="a finite Zipf exponent >= 0"),
        }
        if checked["delta"] > 1:
            raise ValueError(f"delta must be a probability in [0, 1], got {self.delta!r}")
        if checked["T"] < 2:
            raise ValueError(
                f"T={checked['T']} leaves no room for selection: the generator forces at least one relevant token into "
                "every sequence, so with T=1 there is no irrelevant token for attention to choose against; use T >= 2"
            )
        if checked["n"] % 2:
            raise ValueError(f"n={checked['n']} is odd: sequences come in label-swapped twins, so n must be even")
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_settings(cls, **settings) -> ExplorerConfig:
        """``ExplorerConfig(**settings)``, with a ValueError naming the allowed keys for an unknown one."""
        unknown = sorted(set(settings) - set(FIELD_NAMES))
        if unknown:
            raise ValueError(f"unknown explorer setting(s) {unknown}; the settings are {FIELD_NAMES}")
        return cls(**settings)

    def label(self) -> str:
        """Short text for a figure title."""
        return (
            f"delta={self.delta:g}, d={self.d}, T={self.T}, n={self.n}, one step eta={self.step_factor:g} eta*, "
            f"p-steps={self.p_steps}, seed={self.seed}"
        )


FIELD_NAMES = tuple(field.name for field in fields(ExplorerConfig))
"""The settings' names, in declaration order."""

DEFAULT_CONFIG = ExplorerConfig()
"""The reference case: n=200, T=8, V=50, d=512, delta=0, one step of 14.3 eta*."""


def factor_for_alignment(target: float) -> float:
    """The ``eta / eta*`` at which the course's law ``r / sqrt(1 + r^2)`` predicts alignment ``target`` in [0, 1)."""
    target = _number(target, "target", low=0.0, allowed="an alignment in [0, 1)")
    if target >= 1:
        raise ValueError(f"target must be an alignment in [0, 1), got {target}: alignment 1 needs an infinite step")
    return target / math.sqrt(1.0 - target**2)
