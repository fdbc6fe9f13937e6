"""A graded U: the trained scores against the signed frequency when relevance is graded.

Under Assumption 1 the trained scores take two levels (chapter 4). With ``delta > 0`` a sequence holds
several relevant tokens of its class, drawn by a Zipf law, so the relevant tokens are graded: frequent
ones appear in many sequences, rare ones in few. Trained by normalised GD with ``E`` and ``v`` frozen
after the one step, the scores ``E_s . p / |p|`` then rise with ``|alpha_s|`` on both sides of the
irrelevant tokens at ``alpha_s = 0``: a U whose arms are graded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .importance import signed_frequency
from .plots import CLASS_COLORS, plot_against_importance
from .training import train_cls

if TYPE_CHECKING:  # matplotlib is imported only by the code that draws
    from matplotlib.axes import Axes

    from .synthetic import ReferenceCase


@dataclass(frozen=True)
class GradedScores:
    """One trained case: alpha, scores, token_class (V,) float64, float64, int64; steps taken by normalised GD."""

    alpha: np.ndarray
    scores: np.ndarray
    token_class: np.ndarray
    steps: int

    def arm(self, sign: int) -> tuple[np.ndarray, np.ndarray]:
        """(|alpha_s|, score) of the relevant tokens of class ``sign`` (+1 or -1), in increasing ``|alpha_s|``."""
        if sign not in (1, -1):
            raise ValueError(f"sign must be +1 or -1, got {sign}")
        chosen = self.token_class == sign
        order = np.argsort(np.abs(self.alpha[chosen]), kind="stable")
        return np.abs(self.alpha[chosen])[order], self.scores[chosen][order]


def graded_scores(case: ReferenceCase, *, steps: int, lr: float = 1.0) -> GradedScores:
    """Build ``case`` (data and the one step), train p by normalised GD from 0, read the scores ``E . p / |p|``."""
    data, model = case.build()
    history = train_cls(model, data.X, data.y, steps=steps, lr=lr, method="normalized", log_points=2)
    p = model.p.detach().double()
    if not float(p.norm()) > 0:
        raise ValueError("p did not move from 0: no direction to score with")
    return GradedScores(
        alpha=signed_frequency(data.X, data.y, case.vocab_size).double().numpy(),
        scores=(model.E.detach().double() @ (p / p.norm())).numpy(),
        token_class=data.token_class.numpy(),
        steps=int(history.step[-1]),
    )


def plot_graded_u(ax: Axes, result: GradedScores) -> None:
    """The scores against alpha_s, coloured by class, each arm joined in order of alpha_s so the U reads as one."""
    plot_against_importance(ax, result.alpha, result.scores, result.token_class)
    for sign in (1, -1):
        size, score = result.arm(sign)
        ax.plot(sign * size, score, "-", color=CLASS_COLORS[sign], lw=1, alpha=0.6)
    ax.axvline(0, color="gray", lw=0.5)
    ax.set_xlabel(r"signed frequency $\alpha_s$ (importance)")
    ax.set_ylabel(r"trained score $E_s\cdot p/\|p\|$")
