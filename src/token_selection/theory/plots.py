"""Plots shared by the theory chapters: token quantities against importance,
log-log fits, and training curves against the (log) step.

Every function draws on a matplotlib ``Axes`` it is given and returns the
numbers it fitted, so a chapter can assert on exactly what the figure shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..validation import ArrayLike
from .training import PTrainingHistory

if TYPE_CHECKING:  # matplotlib is imported only by the code that draws
    from matplotlib.axes import Axes

CLASS_COLORS = {1: "tab:red", -1: "tab:blue", 0: "tab:gray"}
CLASS_LABELS = {1: "positive-relevant", -1: "negative-relevant", 0: "irrelevant"}
TRAINING_QUANTITIES = {
    "cosine": r"$\cos(p, p_{\mathrm{mm}})$",
    "min_relevant_attention": "min over sequences of attention on relevant tokens",
    "mean_relevant_attention": "mean over sequences of attention on relevant tokens",
    "p_norm": r"$\|p\|$",
    "loss": "logistic loss",
    "grad_norm": r"$\|\nabla_p L\|$",
}


def _as_numpy(x: ArrayLike, name: str) -> np.ndarray:
    """A 1-D float64 numpy copy of ``x``."""
    array = x.detach().double().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {array.shape}")
    return array


def _paired(x: ArrayLike, y: ArrayLike, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    x, y = _as_numpy(x, names[0]), _as_numpy(y, names[1])
    if x.shape != y.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have equal length, got {x.size} and {y.size}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"{names[0]} and {names[1]} must be finite (no NaN or inf)")
    return x, y


def fit_line(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """Least-squares line ``y = slope x + intercept``. x, y: (N,) with N >= 2 and x not constant."""
    x, y = _paired(x, y, ("x", "y"))
    if x.size < 2 or np.ptp(x) == 0:
        raise ValueError("fit_line needs at least two distinct x values")
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def loglog_slope(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """Exponent ``a`` and prefactor ``c`` of the power law ``y = c x^a`` fitted in log-log space.

    x, y: (N,) strictly positive, N >= 2.
    """
    x, y = _paired(x, y, ("x", "y"))
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("loglog_slope needs strictly positive x and y")
    slope, intercept = fit_line(np.log(x), np.log(y))
    return slope, float(np.exp(intercept))


def plot_loglog_fit(ax: Axes, x: ArrayLike, y: ArrayLike, *, label: str, color: str | None = None) -> float:
    """Points ``(x, y)`` on log-log axes with the fitted power law; returns the exponent."""
    x, y = _as_numpy(x, "x"), _as_numpy(y, "y")
    slope, prefactor = loglog_slope(x, y)
    (points,) = ax.loglog(x, y, "o", color=color, label=label)
    grid = np.geomspace(x.min(), x.max(), 50)
    ax.loglog(grid, prefactor * grid**slope, "--", color=points.get_color(), label=f"fit: slope {slope:.2f}")
    return slope


def plot_against_importance(
    ax: Axes,
    importance: ArrayLike,
    values: ArrayLike,
    token_class: ArrayLike,
    *,
    sizes: ArrayLike | None = None,
    fit: bool = False,
) -> tuple[float, float] | None:
    """Scatter one value per token against its importance, coloured by token class.

    importance, values: (V,) float; token_class: (V,) in {-1, 0, +1} (see ``make_synthetic``);
    sizes: (V,) marker areas (e.g. raw token counts) or None. With ``fit=True`` the
    least-squares line over all tokens is drawn and ``(slope, intercept)`` returned.
    """
    importance, values = _paired(importance, values, ("importance", "values"))
    classes = _as_numpy(token_class, "token_class")  # float64: a class such as 0.5 is rejected, not rounded
    if classes.shape != importance.shape or not set(np.unique(classes)) <= {-1, 0, 1}:
        raise ValueError(f"token_class must have length {importance.size} and values in {{-1, 0, +1}}")
    area = np.full(importance.shape, 30.0) if sizes is None else _as_numpy(sizes, "sizes")
    if area.shape != importance.shape or (area < 0).any():
        raise ValueError(f"sizes must be {importance.size} non-negative marker areas")
    for cls in (1, -1, 0):
        chosen = classes == cls
        if chosen.any():
            ax.scatter(
                importance[chosen], values[chosen], s=area[chosen], c=CLASS_COLORS[cls], label=CLASS_LABELS[cls], alpha=0.75
            )
    if not fit:
        return None
    slope, intercept = fit_line(importance, values)
    grid = np.linspace(importance.min(), importance.max(), 2)
    ax.plot(grid, slope * grid + intercept, "k--", lw=1, label=f"least-squares line, slope {slope:.3g}")
    return slope, intercept


def plot_lean_ends(
    ax: Axes,
    leans: Mapping[int, ArrayLike],
    ends: Mapping[tuple[int, str], ArrayLike],
    *,
    size: float = 40.0,
    kept: Mapping[tuple[int, str], ArrayLike] | None = None,
) -> None:
    """One row per ``(d, way)`` of ``ends``, the first on top: each seed at its initial lean (``leans[d]``, (seeds,)),
    a green dot where its run selects every relevant token (``ends[d, way]``, (seeds,) bool), a cross where it ends
    one-sided. size: the dots' marker area (the crosses' is twice it). kept: for each row of ``ends``, (seeds,) the
    class each run keeps (+1, -1, or 0 for neither, as ``flow_seed_sweep.kept_class`` gives it); with it the crosses
    take the colour of the kept class (``CLASS_COLORS``), without it they are red. An empty ``ends`` is refused: it
    would draw an empty panel."""
    if not ends:
        raise ValueError("ends is empty: give at least one (d, way) row of reached flags to draw")
    if kept is not None and set(kept) != set(ends):
        raise ValueError(f"kept must have the rows of ends, {sorted(ends)}; got {sorted(kept)}")
    labelled = set()
    for row, ((d, way), reached) in enumerate(ends.items()):
        lean, ok = np.asarray(leans[d], dtype=float), np.asarray(reached, dtype=bool)
        ax.scatter(lean[ok], np.full(ok.sum(), row), s=size, color="tab:green", alpha=0.7,
                   label="selects every relevant token" if row == 0 else None)  # fmt: skip
        for missed, label, colour in _crosses(ok, None if kept is None else kept[d, way], (d, way)):
            ax.scatter(lean[missed], np.full(missed.sum(), row), s=2 * size, marker="x", color=colour,
                       label=label if label not in labelled else None)  # fmt: skip
            labelled.add(label)
    ax.set_yticks(range(len(ends)), [f"d = {d}, {way}" for d, way in ends])
    ax.axvline(0, color="gray", lw=0.8)
    ax.set_xlabel(r"initial lean $\cos(-\nabla_p L, v)$ at $p = 0$")


def _crosses(ok: np.ndarray, kept: ArrayLike | None, row: tuple[int, str]) -> list[tuple[np.ndarray, str, str]]:
    """``plot_lean_ends``' crosses of one row: (mask, label, colour) per group of runs that miss. Without ``kept`` one
    red group of every miss (drawn even when empty, so every row has its crosses); with it one group per kept class
    that has a miss, in the class's colour."""
    if kept is None:
        return [(~ok, "ends one-sided", "tab:red")]
    classes = np.asarray(kept, dtype=int)
    if classes.shape != ok.shape:
        raise ValueError(f"kept[{row[0]}, {row[1]!r}] has shape {classes.shape}; ends has {ok.shape}")
    groups = []
    for kept_class in (1, -1, 0):
        missed = ~ok & (classes == kept_class)
        label = f"ends one-sided, keeps class {kept_class:+d}" if kept_class else "ends with neither class"
        if missed.any():
            groups.append((missed, label, CLASS_COLORS[kept_class]))
    return groups


def plot_training_curves(
    axes: Sequence[Axes],
    histories: Mapping[str, PTrainingHistory],
    quantities: Sequence[str] = ("cosine", "min_relevant_attention"),
    *,
    log_y: Sequence[str] = ("p_norm", "grad_norm"),
) -> None:
    """One panel per quantity, one curve per history, against the step on a log axis.

    histories: label -> ``PTrainingHistory`` from ``train_cls``; quantities: names of its
    series (keys of ``TRAINING_QUANTITIES``). The x axis is ``step + 1`` so that step 0
    shows on the log axis. Quantities named in ``log_y`` get a log y axis. The cosine is drawn only where
    ``p`` is non-zero: at ``p = 0`` (the usual start) it has no direction, and the history's 0 there is a placeholder.
    """
    if len(axes) != len(quantities):
        raise ValueError(f"need one axis per quantity: got {len(axes)} axes for {len(quantities)} quantities")
    unknown = [q for q in quantities if q not in TRAINING_QUANTITIES]
    if unknown:
        raise ValueError(f"unknown quantities {unknown}; allowed: {sorted(TRAINING_QUANTITIES)}")
    if not histories:
        raise ValueError("histories must hold at least one PTrainingHistory")
    for ax, quantity in zip(axes, quantities, strict=True):
        for label, history in histories.items():
            series = history.as_arrays()
            drawn = series["p_norm"] > 0 if quantity == "cosine" else np.ones(len(series["step"]), dtype=bool)
            ax.plot(series["step"][drawn] + 1, series[quantity][drawn], marker=".", label=label)
        ax.set_xscale("log")
        if quantity in log_y:
            ax.set_yscale("log")
        ax.set_xlabel("step + 1 (log scale)")
        ax.set_ylabel(TRAINING_QUANTITIES[quantity])


def plot_share_by_dimension(ax: Axes, lines: Mapping[str, Mapping[int, tuple[float, float, float]]]) -> None:
    """One line per label of ``lines``: the share of seeds whose run reaches the max-margin direction against the
    dimension d on a log2 axis, with its interval as an error bar. ``lines[label][d]`` is ``(share, low, high)``;
    the dimensions are drawn in increasing order whatever the mapping's order (a record read back from JSON sorts
    its keys as strings)."""
    every_d: set[int] = set()
    for label, by_d in lines.items():
        dims = sorted(by_d)
        every_d.update(dims)
        share, low, high = (np.array([by_d[d][k] for d in dims], dtype=float) for k in range(3))
        if np.any(low > share + 1e-12) or np.any(share > high + 1e-12):  # rounding at 0 and 1
            raise ValueError(
                f"plot_share_by_dimension: the interval of '{label}' does not hold its share (need low <= share <= high)"
            )
        below, above = np.clip(share - low, 0, None), np.clip(high - share, 0, None)  # no negative bar from rounding
        ax.errorbar(dims, share, yerr=[below, above], marker="o", capsize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(every_d), [str(d) for d in sorted(every_d)])
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("embedding dimension d")
    ax.set_ylabel("share of seeds reaching $p_{\\mathrm{mm}}$")
