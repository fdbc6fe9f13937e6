"""The geometry of max-margin token selection, in two pictures.

Left: logistic regression on separable points, run by gradient descent, turns its weight towards the
max-margin (SVM) direction; for token selection the points are the differences E_r - E_x. Right: the
path of p during training, in the plane spanned by v and the max-margin direction p_mm.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.patches import Circle
from numpy.typing import ArrayLike


def _points_2d(points: ArrayLike) -> np.ndarray:
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 2 or len(array) == 0:
        raise ValueError(f"points must have shape (K, 2) with K >= 1, got {array.shape}")
    return array


def logistic_direction_path(points: ArrayLike, *, steps: int, lr: float, record: int = 40) -> np.ndarray:
    """Directions w/|w| of plain gradient descent on sum_k log(1 + exp(-w . a_k)), from w = 0.

    points: (K, 2) float64, the a_k (all on the positive side of the separator sought).
    Returns (M, 2) float64 unit vectors at about ``record`` log-spaced steps (M <= record).
    """
    a = _points_2d(points)
    if steps < 1 or lr <= 0 or record < 1:
        raise ValueError(f"need steps >= 1, lr > 0, record >= 1; got {steps}, {lr}, {record}")
    marks = set(np.unique(np.geomspace(1, steps, record).astype(int)).tolist())
    w, path = np.zeros(2), []
    for step in range(1, steps + 1):
        margins = a @ w
        w = w + lr * (a * (1.0 / (1.0 + np.exp(margins)))[:, None]).sum(0)  # minus the gradient
        if step in marks:
            path.append(w / np.linalg.norm(w))
    return np.asarray(path)


def max_margin_2d(points: ArrayLike) -> np.ndarray:
    """(2,) float64: the shortest w with w . a_k >= 1 for every point, by the package's program.

    Each point a_k is posed as one sequence (a_k relevant, the origin irrelevant), so the constraint
    of ``solve_max_margin`` is exactly w . a_k >= 1.
    """
    from token_selection.theory.max_margin import solve_max_margin

    a = _points_2d(points)
    E = torch.tensor(np.vstack([np.zeros(2), a]), dtype=torch.float64)
    X = torch.stack([torch.arange(1, len(a) + 1), torch.zeros(len(a), dtype=torch.int64)], dim=1)
    relevant = torch.zeros_like(X, dtype=torch.bool)
    relevant[:, 0] = True
    return solve_max_margin(E, X, relevant).p.numpy()


def plot_selection_geometry(
    ax_svm: Axes,
    ax_path: Axes,
    points: ArrayLike,
    w_path: ArrayLike,
    w_mm: ArrayLike,
    p_path: ArrayLike,
) -> None:
    """Draw both pictures.

    points: (K, 2) the separable points; w_path: (M, 2) unit directions of logistic regression;
    w_mm: (2,) the max-margin solution; p_path: (N, 2) the coordinates (p . v_hat, p . p_mm_hat)
    of p during training.
    """
    a, path = _points_2d(points), _points_2d(w_path)
    w_mm = np.asarray(w_mm, dtype=np.float64)
    p_xy = _points_2d(p_path)
    if w_mm.shape != (2,):
        raise ValueError(f"w_mm must have shape (2,), got {w_mm.shape}")
    ax_svm.scatter(a[:, 0], a[:, 1], s=18, color="tab:gray", label=r"toy points $a$ (as $E_r - E_x$)")
    scale = np.abs(a).max()
    unit = w_mm / np.linalg.norm(w_mm)
    tip = scale * unit
    # a direction, drawn as an arrow from the origin; the dotted line is the margin boundary {a : w_mm . a = 1}
    ax_svm.plot([0, tip[0]], [0, tip[1]], "k-", lw=2, label="max-margin direction")
    ax_svm.annotate("", xy=tuple(tip), xytext=tuple(0.85 * tip), arrowprops=dict(arrowstyle="-|>", color="k", lw=2))
    foot, across = w_mm / (w_mm @ w_mm), np.array([-unit[1], unit[0]])
    boundary = np.array([foot - scale * across, foot + scale * across])
    ax_svm.plot(
        boundary[:, 0], boundary[:, 1], ":", color="tab:gray", lw=1.2, label=r"margin boundary $\theta_{\mathrm{mm}}\cdot a = 1$"
    )
    # the directions theta/|theta| on a circle of radius 0.6 * scale (dotted), among the points but read as directions
    ax_svm.add_patch(Circle((0.0, 0.0), 0.6 * scale, fill=False, ls=":", lw=0.8, color="silver"))
    colors = np.linspace(0.2, 1.0, len(path))
    ax_svm.scatter(
        0.6 * scale * path[:, 0],
        0.6 * scale * path[:, 1],
        c=colors,
        cmap="Reds",
        s=14,
        label=r"direction of $\theta$ during GD (on the circle)",
    )
    support = np.isclose(a @ w_mm, 1.0, atol=1e-6)
    ax_svm.scatter(a[support, 0], a[support, 1], s=80, facecolors="none", edgecolors="k", label="support")
    ax_svm.scatter([0], [0], marker="+", color="k")
    ax_svm.set_aspect("equal")
    ax_svm.set_title("Logistic regression turns to the max-margin direction")
    # below the plot, where no point or line lies; the trail's key in the trail's darker end (its first colour is pale)
    legend = ax_svm.legend(fontsize=9.5, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    legend.legend_handles[3].set_color(colormaps["Reds"](0.8))
    ax_path.plot(p_xy[:, 0], p_xy[:, 1], "o-", color="tab:red", ms=3)
    ax_path.axvline(0, color="k", lw=0.8)
    # the across axis stretched to the path's own range, so that the small lean along v shows; the tick labels
    # say how small it is next to the growth along p_mm
    wide = max(np.abs(p_xy[:, 0]).max(), 1e-12)
    tall = max(np.abs(p_xy[:, 1]).max(), 1e-12)
    ax_path.set_xlim(-1.2 * wide, 1.2 * wide)
    ax_path.set_ylim(-0.05 * tall, 1.05 * tall)
    ax_path.set_xlabel(r"$p\cdot\hat v$ (stretched: see its scale)")
    ax_path.set_ylabel(r"$p\cdot\hat p_{\mathrm{mm}}$")
    ax_path.set_title(r"p during training: along $p_{\mathrm{mm}}$, nearly orthogonal to $v$")
