"""The course's one shape rule: is a token quantity monotone, U-shaped or flat in the token importance?

The paper's discussion describes the curves of ``E_s . v`` and ``E_s . p`` against token
importance in words (increasing, U-shaped). ``classify_shape`` turns the words into a
test with uncertainty over tokens (the rule and its thresholds are the course's choices):

- **U-shaped**: the least-squares quadratic ``score ~ a + b x + c x^2`` is convex
  (``c > 0``); its minimum ``x0 = -b / (2c)`` is interior (each side holds at least
  ``MIN_ARM_SHARE`` of the tokens and at least ``MIN_ARM_TOKENS`` of them); and on each
  side the Spearman rank correlation of score with importance is significant with the
  right sign: the bootstrap interval of the left arm lies below 0, that of the right arm
  above 0. In every bootstrap resample the split point is refitted, so the arms'
  intervals include the uncertainty of the minimum.
- otherwise **increasing** (or **decreasing**): the bootstrap interval of the Spearman
  correlation over all tokens lies above (below) 0;
- otherwise **flat**.

Intervals are percentile bootstrap intervals at level ``1 - alpha`` from ``n_boot``
resamples of the tokens (pairs drawn with replacement), seeded: the verdict is a
deterministic function of the inputs and ``seed``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import rankdata

from ..validation import ArrayLike, check_positive_int
from .importance import BinnedStats

MIN_TOKENS = 10
"""Fewest points (tokens with a finite importance and score) on which a shape is judged."""
MIN_ARM_SHARE = 0.1
"""Share of the points each side of the quadratic's minimum must hold for the minimum to count as interior."""
MIN_ARM_TOKENS = 5
"""Fewest points each side of the minimum must hold (a rank correlation of fewer says little)."""
SHAPES = ("U-shaped", "increasing", "decreasing", "flat")


@dataclass(frozen=True)
class ShapeVerdict:
    """The shape of one token quantity against importance, with bootstrap intervals (level ``1 - alpha``).

    shape: one of ``SHAPES``; n_points: points used; spearman, spearman_ci: rank correlation
    over all points and its interval; minimum, minimum_ci: the convex quadratic's minimum
    and its interval (NaN when the fit is not convex); interior: whether each side of the
    minimum holds enough points (``MIN_ARM_SHARE``, ``MIN_ARM_TOKENS``); left_share: share of
    points left of the minimum; left_spearman, left_ci, right_spearman, right_ci: the arms' rank
    correlations and intervals (NaN when the minimum is not interior).
    """

    shape: str
    n_points: int
    spearman: float
    spearman_ci: tuple[float, float]
    minimum: float
    minimum_ci: tuple[float, float]
    interior: bool
    left_share: float
    left_spearman: float
    left_ci: tuple[float, float]
    right_spearman: float
    right_ci: tuple[float, float]
    alpha: float
    n_boot: int

    @property
    def u_shaped(self) -> bool:
        return self.shape == "U-shaped"

    @property
    def monotone(self) -> bool:
        return self.shape in ("increasing", "decreasing")

    def describe(self) -> str:
        """One line: the verdict and the numbers behind it."""
        level = f"{1 - self.alpha:.0%}"
        line = f"{self.shape}: Spearman {self.spearman:+.2f} [{self.spearman_ci[0]:+.2f}, {self.spearman_ci[1]:+.2f}]"
        if math.isfinite(self.left_spearman):
            line += (
                f"; minimum at {self.minimum:+.2f} [{self.minimum_ci[0]:+.2f}, {self.minimum_ci[1]:+.2f}], "
                f"left arm {self.left_spearman:+.2f} [{self.left_ci[0]:+.2f}, {self.left_ci[1]:+.2f}], "
                f"right arm {self.right_spearman:+.2f} [{self.right_ci[0]:+.2f}, {self.right_ci[1]:+.2f}]"
            )
        return f"{line} ({self.n_points:,} points, {level} bootstrap intervals)"

    def as_dict(self) -> dict:
        """JSON-ready dict (for a results record)."""
        return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(self).items()}


def _spearman_rows(x: np.ndarray, y: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Spearman correlation of each row pair of (B, N) arrays over the points ``keep`` (B, N) bool (default all).

    Average ranks for ties. Returns (B,); 0 where a row keeps fewer than 3 points or is constant.
    """
    keep = np.ones(x.shape, dtype=bool) if keep is None else keep
    # dropped points go to +inf, so the kept ones hold ranks 1..m among themselves
    rx, ry = rankdata(np.where(keep, x, np.inf), axis=-1), rankdata(np.where(keep, y, np.inf), axis=-1)
    m = keep.sum(-1, keepdims=True)
    rx = np.where(keep, rx - (m + 1) / 2, 0.0)
    ry = np.where(keep, ry - (m + 1) / 2, 0.0)
    denominator = np.sqrt((rx**2).sum(-1) * (ry**2).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (rx * ry).sum(-1) / denominator
    return np.where((denominator > 0) & (m[:, 0] >= 3), rho, 0.0)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation of two (N,) arrays; 0 when either is constant or N < 3."""
    return float(_spearman_rows(x[None, :], y[None, :])[0])


def _quadratic_minima(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Minimum ``-b / (2c)`` of the least-squares quadratic ``y ~ a + b x + c x^2`` for each row of (B, N) arrays.

    Returns (B,); NaN where the fit is not convex (``c <= 0``) or is degenerate.
    """
    x0 = x - x.mean(-1, keepdims=True)  # centring keeps the normal equations well conditioned
    powers = np.stack([np.ones_like(x0), x0, x0**2], axis=-1)  # (B, N, 3)
    gram = np.einsum("bni,bnj->bij", powers, powers)
    moment = np.einsum("bni,bn->bi", powers, y)
    with np.errstate(invalid="ignore"):
        # det(gram) against the product of its diagonal (Hadamard's bound): a ratio that does not
        # depend on the scale of x, so importance on the signed-frequency scale (|x| ~ 0.01) fits too
        solvable = np.abs(np.linalg.det(gram)) > 1e-12 * np.einsum("bii->bi", gram).prod(-1)
    coef = np.full(moment.shape, np.nan)
    coef[solvable] = np.linalg.solve(gram[solvable], moment[solvable][..., None])[..., 0]
    b, c = coef[:, 1], coef[:, 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c > 0, -b / (2 * c) + x.mean(-1), np.nan)


def quadratic_minimum(x: np.ndarray, y: np.ndarray) -> float:
    """Minimum ``-b / (2c)`` of the least-squares quadratic ``y ~ a + b x + c x^2`` over (N,) points; NaN when ``c <= 0``."""
    return float(_quadratic_minima(x[None, :], y[None, :])[0])


def _interval(samples: np.ndarray, alpha: float) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return (math.nan, math.nan)
    return (float(np.quantile(finite, alpha / 2)), float(np.quantile(finite, 1 - alpha / 2)))


def _arms(x: np.ndarray, y: np.ndarray, split: np.ndarray) -> np.ndarray:
    """Spearman left and right of ``split`` (B,) in each row of (B, N) arrays: (B, 2); 0 for a side of < 3 points."""
    return np.stack([_spearman_rows(x, y, x < split[:, None]), _spearman_rows(x, y, x > split[:, None])], axis=-1)


def _check(importance: ArrayLike, score: ArrayLike, n_boot: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(importance, dtype=np.float64)
    y = np.asarray(score, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"importance and score must be 1-D of equal length, got shapes {x.shape} and {y.shape}")
    check_positive_int(n_boot, "n_boot")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < MIN_TOKENS:
        raise ValueError(f"need at least {MIN_TOKENS} points with finite importance and score, got {int(keep.sum())}")
    return x[keep], y[keep]


def classify_shape(
    importance: ArrayLike, score: ArrayLike, *, n_boot: int = 1000, seed: int = 0, alpha: float = 0.05
) -> ShapeVerdict:
    """The shape of ``score`` against ``importance`` by the module's rule.

    importance: (N,) per-token importance (posterior gap or signed frequency); score: (N,)
    per-token quantity (``E_s . v`` or ``E_s . p``). Points where either is NaN or inf are
    dropped (tokens not seen). Bin means can be passed too (then the points are bins).
    """
    x, y = _check(importance, score, n_boot, alpha)
    n = x.size
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(n_boot, n))
    rho_boot = np.concatenate([_spearman_rows(x[rows], y[rows]) for rows in np.array_split(draws, max(1, n_boot // 100))])
    rho, rho_ci = spearman(x, y), _interval(rho_boot, alpha)

    minimum = quadratic_minimum(x, y)
    left_share = float((x < minimum).mean()) if math.isfinite(minimum) else math.nan
    least = max(MIN_ARM_TOKENS, MIN_ARM_SHARE * n)
    interior = math.isfinite(minimum) and min((x < minimum).sum(), (x > minimum).sum()) >= least
    nan_pair = (math.nan, math.nan)
    minimum_ci, left_ci, right_ci, arms = nan_pair, nan_pair, nan_pair, (math.nan, math.nan)
    if math.isfinite(minimum):
        minima = np.concatenate([_quadratic_minima(x[rows], y[rows]) for rows in np.array_split(draws, max(1, n_boot // 100))])
        minimum_ci = _interval(minima, alpha)
    if interior:
        arms = tuple(_arms(x[None, :], y[None, :], np.array([minimum]))[0].tolist())
        splits = np.where(np.isfinite(minima), minima, minimum)  # a resample without a convex fit splits at the estimate
        chunks = np.array_split(np.arange(n_boot), max(1, n_boot // 100))
        arm_boot = np.concatenate([_arms(x[draws[c]], y[draws[c]], splits[c]) for c in chunks])
        left_ci, right_ci = _interval(arm_boot[:, 0], alpha), _interval(arm_boot[:, 1], alpha)

    if interior and left_ci[1] < 0 < right_ci[0]:
        shape = "U-shaped"
    elif rho_ci[0] > 0:
        shape = "increasing"
    elif rho_ci[1] < 0:
        shape = "decreasing"
    else:
        shape = "flat"
    return ShapeVerdict(
        shape=shape,
        n_points=n,
        spearman=rho,
        spearman_ci=rho_ci,
        minimum=minimum,
        minimum_ci=minimum_ci,
        interior=bool(interior),
        left_share=left_share,
        left_spearman=arms[0],
        left_ci=left_ci,
        right_spearman=arms[1],
        right_ci=right_ci,
        alpha=alpha,
        n_boot=n_boot,
    )


def classify_binned(binned: BinnedStats, **options) -> ShapeVerdict:
    """``classify_shape`` of bin means against bin centres (the points are bins, not tokens).

    For tables that give only bin means, such as the rebuttal's; ``options`` as in ``classify_shape``.
    """
    return classify_shape(binned.centres, binned.mean, **options)
