"""Tokens in the plane of the value direction and the score direction, at a few steps of training p.

Chapter 4 draws each token s at ``(E_s . v_hat, E_s . p_hat)``, with ``v_hat = v / |v|`` and
``p_hat = p / |p|`` the direction of the ``<cls>`` vector after a few steps of normalised GD from
``p = 0``. The x-coordinate is the value (monotone in the signed frequency), the y-coordinate the score
per unit ``|p|``. A hollow marker shows where the token sits at the max-margin direction,
``(E_s . v_hat, E_s . p_mm_hat)``, where the scores take two levels; an inset shows the projection of
``p_hat`` on the plane of ``v_hat`` (right) and ``p_mm_hat`` (up), an arrow that turns up as p trains.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..validation import ArrayLike, as_tensor, check_labels, check_matrix, check_tokens, check_vector
from .model import gathered_logits, token_table
from .plots import CLASS_COLORS
from .token_plane import plane_coordinates, plot_token_plane
from .training import train_cls

if TYPE_CHECKING:  # matplotlib is imported only by the code that draws
    from matplotlib.axes import Axes

    from .model import CLSAttention

LABEL_OFFSETS = {"the": (4, -12), "boring": (4, -12)}
"""Where a word's label goes from its point, in typographic points, where the default would sit on other tokens."""
ARRIVED = 0.02
"""A token closer to its place at p_mm than this share of the panel's height gets no arrow: it has arrived."""


@dataclass(frozen=True)
class Frame:
    """The ``<cls>`` vector after ``step`` steps of training: p (d,) float64."""

    step: int
    p: torch.Tensor


def p_at_steps(model: CLSAttention, X: ArrayLike, y: ArrayLike, steps: Sequence[int], *, lr: float = 1.0) -> list[Frame]:
    """``model.p`` after each of ``steps`` (strictly increasing, the first >= 0) steps of normalised GD.

    X: (n, T) ids; y: (n,) labels. Trains ``model.p`` in place from where it is, with ``train_cls``.
    A run that stops at the float64 floor keeps its last ``p``: a later frame records the step it
    actually reached, so ``Frame.step`` can be smaller than asked.
    """
    marks = [int(s) for s in steps]
    if not marks or marks[0] < 0 or any(b <= a for a, b in zip(marks, marks[1:], strict=False)):
        raise ValueError(f"steps must be strictly increasing counts >= 0, got {list(steps)}")
    frames, done = [], 0
    for mark in marks:
        if mark > done:
            history = train_cls(model, X, y, steps=mark - done, lr=lr, method="normalized", log_points=2)
            done += int(history.step[-1])
        frames.append(Frame(step=done, p=model.p.detach().double().clone()))
    return frames


def class_race(
    E: ArrayLike, v: ArrayLike, X: ArrayLike, y: ArrayLike, relevant: ArrayLike, frames: Sequence[Frame]
) -> dict[str, np.ndarray]:
    """How the two classes fare along ``frames`` (from ``p_at_steps``): the race a lean of p along v starts.

    E: (V, d); v: (d,) non-zero; X: (n, T) ids; y: (n,) labels in {-1, +1} or {0, 1}, both classes present;
    relevant: (n, T) bool, one or more relevant positions per sequence. Returns (F,) float64 arrays: ``step`` (each
    frame's step), ``lean`` (cos(p, v); 0 at p = 0) and ``worst +1`` / ``worst -1`` (the smallest attention a
    sequence of that class puts on its relevant tokens, summed over them).
    """
    E = check_matrix(E, "E").double()
    V, d = E.shape
    X = check_tokens(X, V)
    labels = check_labels(y, X.shape[0])
    v = check_vector(v, d, "v").double()
    relevant = as_tensor(relevant, "relevant")
    if relevant.shape != X.shape or relevant.dtype != torch.bool:
        raise ValueError(f"relevant must be a bool mask of the shape of X {tuple(X.shape)}, got {tuple(relevant.shape)}")
    if not relevant.any(dim=1).all():
        missing = int((~relevant.any(dim=1)).nonzero()[0])
        raise ValueError(f"every sequence needs a relevant position; sequence {missing} has none")
    if not frames:
        raise ValueError("frames must hold at least one Frame")
    for frame in frames:
        check_vector(frame.p, d, f"the p of the frame at step {frame.step}")
    if not float(v.norm()) > 0:
        raise ValueError("v must be non-zero: the lean is a cosine with v")
    v_hat = v / v.norm()
    race: dict[str, list[float]] = {"step": [], "lean": [], "worst +1": [], "worst -1": []}
    for frame in frames:
        weights = gathered_logits(*token_table(E, frame.p.double(), v), X, None)[1]
        mass = (weights * relevant).sum(dim=1)
        race["step"].append(frame.step)
        race["lean"].append(float(_unit(frame.p, "p") @ v_hat))  # p = 0 has no direction: no lean
        race["worst +1"].append(float(mass[labels == 1].min()))
        race["worst -1"].append(float(mass[labels == -1].min()))
    return {key: np.asarray(values, dtype=np.float64) for key, values in race.items()}


def lost_class(race: Mapping[str, np.ndarray]) -> str:
    """The class, ``"+1"`` or ``"-1"``, whose worst attention ends lower in ``race`` (from ``class_race``): the class a
    run that ends one-sided has lost. A tie at the last frame names neither and raises."""
    missing = [key for key in ("worst +1", "worst -1") if key not in race]
    if missing:
        raise ValueError(f"race must be a result of class_race; it lacks {missing}")
    ends = {label: float(np.asarray(race[f"worst {label}"])[-1]) for label in ("+1", "-1")}
    if ends["+1"] == ends["-1"]:
        raise ValueError(f"both classes end with the same worst attention {ends['+1']:.3g}: neither is lost")
    return min(ends, key=ends.__getitem__)


RACE_LINES = {
    "lean": ("k", "-", r"lean of $p$, $\cos(p, v)$"),
    "worst +1": ("tab:red", "-", "worst attention, class +1"),
    "worst -1": ("tab:blue", "--", "worst attention, class -1"),
}
"""How ``plot_class_race`` draws each series of ``class_race``: (colour, line style, legend label)."""


def plot_class_race(ax: Axes, race: Mapping[str, np.ndarray], title: str) -> None:
    """The three series of ``class_race`` against ``step + 1`` on a log axis (step 0 shows), titled ``title``; the
    y-axis is named on a panel in the first column only (or on an axes that is not a subplot). The lean is not drawn
    at a step-0 frame where it is 0: a run from p = 0 has no direction there."""
    missing = [key for key in ("step", *RACE_LINES) if key not in race]
    if missing:
        raise ValueError(f"race must be a result of class_race; it lacks {missing}")
    steps = np.asarray(race["step"])
    for key, (color, style, label) in RACE_LINES.items():
        values = np.asarray(race[key], dtype=float)
        # a run from p = 0 has no direction at step 0: its lean there is a placeholder 0, not drawn
        drawn = ~((steps == 0) & (values == 0)) if key == "lean" else np.ones(len(steps), dtype=bool)
        ax.plot(steps[drawn] + 1, values[drawn], color=color, ls=style, label=label)
    ax.axhline(0, color="gray", lw=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("step + 1 (log scale)")
    spec = ax.get_subplotspec()
    if spec is None or spec.is_first_col():  # one label per row of panels, clear of the titles beside it
        ax.set_ylabel("cosine (black), attention (red, blue)")
    ax.set_title(title, fontsize=10)


def _unit(vector: ArrayLike, name: str) -> torch.Tensor:
    """``vector / |vector|``, or zeros for the zero vector (p = 0 has no direction: every score is 0)."""
    vector = as_tensor(vector, name).double()
    if vector.dim() != 1:
        raise ValueError(f"{name} must be a vector, got shape {tuple(vector.shape)}")
    norm = float(vector.norm())
    return vector / norm if norm > 0 else torch.zeros_like(vector)


def frame_coordinates(E: ArrayLike, v: ArrayLike, p: ArrayLike) -> np.ndarray:
    """(V, 2) float64: ``(E_s . v_hat, E_s . p_hat)`` for every row of ``E`` (V, d); y = 0 when ``p = 0``."""
    v_hat = _unit(v, "v")
    if not float(v_hat.norm()) > 0:
        raise ValueError("v must be non-zero")
    return plane_coordinates(E, torch.stack([v_hat, _unit(p, "p")]))


def direction_in_plane(p: ArrayLike, v: ArrayLike, p_mm: ArrayLike) -> np.ndarray:
    """(2,) float64: ``(p_hat . v_hat, p_hat . p_mm_hat)``, the projection of p's direction; zeros when p = 0."""
    p_hat = _unit(p, "p")
    return np.array([float(p_hat @ _unit(v, "v")), float(p_hat @ _unit(p_mm, "p_mm"))])


def plot_selection_frames(
    axes: Sequence[Axes],
    E: ArrayLike,
    v: ArrayLike,
    p_mm: ArrayLike,
    frames: Sequence[Frame],
    token_class: ArrayLike,
    words: Mapping[str, int],
    *,
    compass: str = "upper right",
    span: float | None = None,
) -> list[np.ndarray]:
    """One panel per frame; returns each frame's (V, 2) token coordinates, as drawn.

    E: (V, d) frozen embeddings; v: (d,); p_mm: (d,) the max-margin direction; token_class: (V,) in
    {-1, 0, +1}; words: name -> token id, the tokens labelled; compass: a key of ``COMPASS_PLACES``, the
    corner of each panel where the inset goes; span: the height against which a token counts as arrived
    (``ARRIVED`` of it), by default the panels' own range of scores; a figure that sets these panels to one
    scale with others passes the tallest range, so that no arrow too short to see there is drawn. Every panel
    shares its axes' limits.
    """
    if len(axes) != len(frames):
        raise ValueError(f"need one axis per frame: got {len(axes)} axes for {len(frames)} frames")
    if compass not in COMPASS_PLACES:
        raise ValueError(f"compass must be one of {sorted(COMPASS_PLACES)}, got {compass!r}")
    if span is not None and not (np.isfinite(span) and span > 0):
        raise ValueError(f"span must be a positive finite height, got {span!r}")
    classes = as_tensor(token_class, "token_class").tolist()
    colors = [CLASS_COLORS[int(c)] for c in classes]
    limit = frame_coordinates(E, v, p_mm)
    if len(classes) != len(limit):
        raise ValueError(f"token_class has {len(classes)} entries for {len(limit)} tokens")
    named = list(words.values())
    drawn = [frame_coordinates(E, v, frame.p) for frame in frames]
    y_all = np.concatenate([limit[:, 1]] + [points[:, 1] for points in drawn])
    pad = 0.08 * (y_all.max() - y_all.min() + 1e-12)
    height = y_all.max() - y_all.min() if span is None else span
    for ax, frame, points in zip(axes, frames, drawn, strict=True):
        ax.axhline(0, color="gray", lw=0.5)
        ax.axvline(0, color="gray", lw=0.5)
        far = np.abs(limit[:, 1] - points[:, 1]) > ARRIVED * height
        if far.any():
            far_colors = [c for c, f in zip(colors, far, strict=True) if f]
            plot_token_plane(ax, points[far], colors=far_colors, moved_to=limit[far], size=16)
        if not far.all():
            plot_token_plane(ax, points[~far], colors=[c for c, f in zip(colors, far, strict=True) if not f], size=16)
        plot_token_plane(ax, points[named], labels=list(words), colors=[colors[i] for i in named], size=16, offsets=LABEL_OFFSETS)
        ax.set_ylim(y_all.min() - pad, y_all.max() + 2 * pad)
        ax.set_xlabel(r"value $E_s\cdot\hat v$")
        ax.set_ylabel(r"score $E_s\cdot p/\|p\|$")
        ax.set_title(f"step {frame.step}" + (": $p = 0$" if not float(frame.p.norm()) > 0 else ""))
        _draw_compass(ax, direction_in_plane(frame.p, v, p_mm), COMPASS_PLACES[compass])
    return drawn


COMPASS_PLACES = {"upper right": (0.66, 0.6, 0.33, 0.38), "lower right": (0.66, 0.02, 0.33, 0.38)}
"""Where the compass inset goes in its panel: (left, bottom, width, height) in axes fractions. A run whose
high-value tokens score high (one-sided, p along v) fills the upper right, so its panel takes the lower right."""
COMPASS_FONT = 10
"""Font size of the compass's two axis names, in points: legible where the figure is shrunk to the page's column."""


def _draw_compass(ax: Axes, direction: np.ndarray, place: tuple[float, float, float, float]) -> None:
    """An inset at ``place`` (axes fractions, from ``COMPASS_PLACES``): the unit circle of the (v_hat, p_mm_hat)
    plane, its two axes, and p_hat's
    projection on it."""
    inset = ax.inset_axes(list(place))
    circle = np.linspace(0, 2 * np.pi, 100)
    inset.plot(np.cos(circle), np.sin(circle), color="lightgray", lw=0.8)
    inset.plot([0, 0], [0, 1], ":", color="black", lw=1)
    inset.plot([0, 1], [0, 0], ":", color="black", lw=1)  # the v_hat axis, which the label names
    inset.annotate(r"$\hat p_{\mathrm{mm}}$", (0, 1), xytext=(4, -12), textcoords="offset points", fontsize=COMPASS_FONT)
    inset.annotate(r"$\hat v$", (1, 0), xytext=(-14, 4), textcoords="offset points", fontsize=COMPASS_FONT)
    if float(np.linalg.norm(direction)) > 0:
        inset.annotate("", xy=tuple(direction), xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color="black", lw=1.5))
    inset.set_xlim(-1.15, 1.15)
    inset.set_ylim(-1.15, 1.15)
    inset.set_aspect("equal")
    inset.set_xticks([])
    inset.set_yticks([])
