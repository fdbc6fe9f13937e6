"""The turn to the max-margin direction, as an angle against the step.

Logistic regression run by gradient descent on separable points turns its weight, slowly, towards the
max-margin (SVM) direction; so does ``p`` towards ``p_mm``. On a picture of the directions the turn is a
short smear; as the angle to the max-margin direction against the step on a log axis, it is a curve
falling towards 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from ..validation import ArrayLike
from .geometry_plots import logistic_direction_path, max_margin_2d

if TYPE_CHECKING:  # matplotlib is imported only by the code that draws
    from matplotlib.axes import Axes


def angle_from_cosine(cosine: ArrayLike) -> np.ndarray:
    """Angles in degrees, in [0, 180], of the cosines ``cosine`` (clipped to [-1, 1] against rounding)."""
    cosine = np.asarray(cosine, dtype=np.float64)
    if not np.isfinite(cosine).all():
        raise ValueError("cosines must be finite")
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))


def angle_to(directions: ArrayLike, target: ArrayLike) -> np.ndarray:
    """(M,) degrees between each row of ``directions`` (M, k), non-zero, and ``target`` (k,), non-zero."""
    directions = np.asarray(directions, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    if directions.ndim != 2 or target.shape != (directions.shape[1],):
        raise ValueError(f"directions must be (M, k) and target (k,), got {directions.shape} and {target.shape}")
    norms = np.linalg.norm(directions, axis=1) * np.linalg.norm(target)
    if not (norms > 0).all():
        raise ValueError("directions and target must be non-zero")
    return angle_from_cosine(directions @ target / norms)


def logistic_turn(points: ArrayLike, *, steps: int, lr: float, record: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """The steps (M,) and the angles (M,) in degrees between logistic regression's weight and the SVM direction.

    points: (K, 2) separable points a_k; gradient descent from w = 0 on sum_k log(1 + exp(-w . a_k))
    (``logistic_direction_path``), recorded at about ``record`` log-spaced steps; the SVM direction is
    ``max_margin_2d(points)``.
    """
    path = logistic_direction_path(points, steps=steps, lr=lr, record=record)
    marks = np.unique(np.geomspace(1, steps, record).astype(int))  # the steps logistic_direction_path records
    if len(marks) != len(path):
        raise RuntimeError(f"{len(path)} recorded directions for {len(marks)} steps: the recording rule changed")
    return marks, angle_to(path, max_margin_2d(points))


def plot_angle_against_step(ax: Axes, curves: Mapping[str, tuple[ArrayLike, ArrayLike]]) -> None:
    """One curve per label: (steps (M,) >= 1, angles (M,) in degrees), on a log step axis from 0 degrees up."""
    if not curves:
        raise ValueError("curves must hold at least one (steps, angles) pair")
    for label, (steps, angles) in curves.items():
        steps, angles = np.asarray(steps, dtype=np.float64), np.asarray(angles, dtype=np.float64)
        if steps.shape != angles.shape or steps.ndim != 1 or (steps < 1).any():
            raise ValueError(f"{label}: need equal-length 1-D steps >= 1 and angles, got {steps.shape}, {angles.shape}")
        ax.plot(steps, angles, marker=".", label=label)
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("gradient step (log scale)")
    ax.set_ylabel("angle to the max-margin direction (degrees)")
