"""``ExplorerResult``: the numbers of one explorer run, read by the panels, the sentence and the grid.

It sits below ``compute`` (which fills it) and ``notice`` (which reads it), so neither of
those imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import ExplorerConfig

SELECTED_MASS = 0.01
"""A relevant token counts as attended (selected, in the code's names) in a sequence when it holds at least this
attention mass."""

LOST_MASS = 0.5
"""A sequence is lost when its relevant tokens hold less than this share of its attention together."""


@dataclass(frozen=True)
class ExplorerResult:
    """Everything the three panels show, for one ``ExplorerConfig``.

    token_class: (V,) int64 in {-1, 0, +1}; alpha: (V,) signed frequency;
    values: (V,) ``E_s . v`` after the one step; scores: (V,) ``E_s . p / |p|`` after training p.
    eta_star, step_size: ``eta*`` of the data and the step taken (``step_factor * eta*``).
    correlation, slope: corr(values, alpha) and the least-squares slope of values on alpha;
    predicted_correlation: ``r / sqrt(1 + r^2)`` at ``r = step_factor``;
    predicted_slope: ``step_size |v|^2 / 2`` (the one-step formula).
    history: arrays ``step``, ``cosine``, ``mean_relevant_attention``, ``min_relevant_attention``,
    ``p_norm``, ``loss`` from ``train_cls`` (cosine is all NaN when there is no p_mm).
    final_cosine: cos(p, p_mm) at the end, or None without p_mm; max_margin_message says why not.
    relevant_per_sequence: mean number of distinct relevant tokens per sequence;
    irrelevant_share: share of positions holding an irrelevant token.
    selected_fraction: share of (sequence, relevant token) pairs holding >= ``SELECTED_MASS``;
    selected_per_sequence: mean number of relevant tokens attended (>= ``SELECTED_MASS``) per sequence;
    lost_fraction: share of sequences whose relevant mass is below ``LOST_MASS`` (1/2);
    optimal_fraction: share of sequences whose best token after the step (the largest label-signed value
    ``y_j E_s . v``) is a relevant one: hypothesis 1 of chapter 4 holds in those sequences;
    selection_cosine: cos(p, max-margin direction of p's own selection), None when undefined.
    notice: one sentence saying what to see, computed from these numbers.
    """

    config: ExplorerConfig
    token_class: np.ndarray
    alpha: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    eta_star: float
    step_size: float
    correlation: float
    predicted_correlation: float
    slope: float
    predicted_slope: float
    history: dict[str, np.ndarray]
    final_cosine: float | None
    max_margin_message: str
    stop_reason: str
    relevant_per_sequence: float
    irrelevant_share: float
    selected_fraction: float
    selected_per_sequence: float
    selection_cosine: float | None
    lost_fraction: float
    optimal_fraction: float
    final_min_attention: float
    final_mean_attention: float
    notice: str
