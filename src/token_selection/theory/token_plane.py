"""Tokens drawn as points in a plane of embedding space, with arrows.

Chapter 1 draws the toy vocabulary in its (strength, polarity) plane with ``p`` and ``v`` as
arrows from the origin: a score is the projection on ``p``, a value the projection on ``v``.
Chapter 3 draws the rows ``E_s`` in the plane of ``v`` and one random direction orthogonal to
it, before and after the one step, each joined to where it moved.
"""

from __future__ import annotations

import numpy as np
import torch

from ..validation import ArrayLike, as_tensor

LABEL_OFFSET = (4, 4)
"""Offset of a point's label from the point, in typographic points (up and to the right)."""
SHORTEST_ARROW = 0.03
"""A move shorter than this share of the longest is drawn without an arrow (a head on a stub hides the point)."""


def plane_basis(v: ArrayLike, seed: int = 0) -> torch.Tensor:
    """(2, d) float64 orthonormal rows: ``v / |v|``, then a seeded Gaussian direction made orthogonal to ``v``.

    v: (d,) with d >= 2 and ``v != 0``. The second row is drawn from ``N(0, I)`` with ``seed`` and
    Gram-Schmidt against ``v``; it is independent of any embedding, so coordinates on it are random.
    """
    v = as_tensor(v, "v").double()
    if v.dim() != 1 or v.numel() < 2 or not float(v.norm()) > 0:
        raise ValueError(f"v must be a non-zero vector of at least 2 entries, got shape {tuple(v.shape)}")
    first = v / v.norm()
    draw = torch.randn(v.numel(), generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    second = draw - (draw @ first) * first
    if not float(second.norm()) > 1e-8 * float(draw.norm()):
        raise ValueError(f"the direction drawn with seed {seed} is parallel to v: take another seed")
    return torch.stack([first, second / second.norm()])


def plane_coordinates(E: ArrayLike, basis: torch.Tensor) -> np.ndarray:
    """(V, 2) coordinates of the rows of ``E`` (V, d) on the two rows of ``basis`` (2, d)."""
    E = as_tensor(E, "E").double()
    if E.dim() != 2 or E.shape[1] != basis.shape[1]:
        raise ValueError(f"E must be (V, {basis.shape[1]}), got shape {tuple(E.shape)}")
    return (E @ basis.T).numpy()


def _merged_labels(points: np.ndarray, labels: list[str]) -> list[tuple[np.ndarray, str]]:
    """One label per distinct point: the labels of points that coincide joined by ', ', in first-seen order."""
    merged: dict[tuple[float, float], list[str]] = {}
    for point, label in zip(points, labels, strict=True):
        merged.setdefault((round(float(point[0]), 12), round(float(point[1]), 12)), []).append(label)
    return [(np.array(key), ", ".join(names)) for key, names in merged.items()]


def plot_token_plane(
    ax,
    points: ArrayLike,
    *,
    labels: list[str] | None = None,
    colors: list | None = None,
    moved_to: ArrayLike | None = None,
    directions: dict[str, ArrayLike] | None = None,
    offsets: dict[str, tuple[float, float]] | None = None,
    size: float = 30.0,
) -> None:
    """Draw tokens as points of a plane on the matplotlib axes ``ax``.

    points: (k, 2) coordinates; labels: k names written beside the points (points that coincide
    share one label); colors: k matplotlib colours (default black); moved_to: (k, 2) where each
    point went, drawn as a hollow marker and, unless shorter than ``SHORTEST_ARROW`` of the longest move, an
    arrow from the point; directions: name ->
    (2,) vectors drawn as thick arrows from the origin and labelled at their tip; offsets: label -> where
    it goes from its point in typographic points, for labels that would collide (default ``LABEL_OFFSET``).
    """
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"points must be (k, 2), got shape {points.shape}")
    colors = ["black"] * len(points) if colors is None else list(colors)
    if len(colors) != len(points):
        raise ValueError(f"{len(colors)} colours for {len(points)} points")
    ax.scatter(points[:, 0], points[:, 1], s=size, c=colors, zorder=3)
    if moved_to is not None:
        moved_to = np.asarray(moved_to, dtype=np.float64)
        if moved_to.shape != points.shape:
            raise ValueError(f"moved_to must have the shape of points {points.shape}, got {moved_to.shape}")
        lengths = np.linalg.norm(moved_to - points, axis=1)
        for start, end, color, length in zip(points, moved_to, colors, lengths, strict=True):
            if length > SHORTEST_ARROW * lengths.max():
                ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color=color, lw=1.0, alpha=0.8))
        ax.scatter(moved_to[:, 0], moved_to[:, 1], s=size, facecolors="none", edgecolors=colors, zorder=3)
    if labels is not None:
        if len(labels) != len(points):
            raise ValueError(f"{len(labels)} labels for {len(points)} points")
        for point, label in _merged_labels(points, labels):
            offset = (offsets or {}).get(label, LABEL_OFFSET)
            ax.annotate(label, point, xytext=offset, textcoords="offset points", fontsize=9)
    for name, vector in (directions or {}).items():
        tip = np.asarray(vector, dtype=np.float64)
        ax.annotate("", xy=tip, xytext=(0.0, 0.0), arrowprops=dict(arrowstyle="-|>", color="black", lw=2.0))
        ax.annotate(name, tip, xytext=LABEL_OFFSET, textcoords="offset points", fontsize=12, fontweight="bold")
