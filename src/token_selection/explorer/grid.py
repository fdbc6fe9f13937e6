"""The precomputed grid behind the static explorer, and its checksummed cache.

The static explorer of chapter 5 runs without a kernel, so every setting its
sliders reach is computed in advance: ``explore`` at each point of
``GRID_AXES`` (delta x d x T x seed), with the other settings at the live explorer's
defaults. The seed axis is optional: a grid without one holds seed 0 (the live
explorer's default) only. Per point the file keeps what the three panels draw, rounded to
``DIGITS`` significant digits.

The cache ships with the package (``GRID_PATH``: ``explorer/grid.json`` plus ``grid.json.sha256``),
so a chapter opened alone, in Colab for instance, shows the book's figure without recomputing:

- the ``.sha256`` file holds the sha256 of the JSON file's bytes (``sha256sum -c``
  format), so a damaged or hand-edited file is detected;
- the JSON holds the grid's configuration (axes and fixed settings); a cache computed on
  other axes or settings is *stale* (``read_grid``);
- whether the present code still computes the stored numbers is checked on the numbers
  themselves: ``check_grid_points`` recomputes a few points (``SPOT_CHECK_POINTS``, a couple of
  seconds) and compares them with the stored ones within ``SPOT_CHECK_RTOL``. An edit that
  changes no number (a comment, a refactoring) leaves the grid current; one that changes the
  numbers is reported, point by point, and has to be understood before the grid is regenerated.
  (The chapter also recomputes the default point and compares it with the cache.)

``python scripts/build_explorer_grid.py --check`` runs both checks; ``--force`` regenerates.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from ..theory.synthetic import make_synthetic
from .compute import explore
from .config import DEFAULT_CONFIG
from .notice import what_to_notice
from .result import ExplorerResult

GRID_AXES: dict[str, tuple] = {
    "delta": (0.0, 0.1, 0.3, 0.5),
    "d": (16, 64, 256, 512, 1024),
    "T": (4, 8, 16, 32, 64),
    "seed": (0, 1, 2),
}
"""The settings the static sliders reach; the live explorer's defaults are a grid point. At the reference setting
seeds 0 and 2 reach p_mm and seed 1 ends one-sided, so the seed slider shows both outcomes of chapter 4b."""

AXIS_NAMES = ("delta", "d", "T", "seed")
"""The axes a grid can have, in the order of its points; ``seed`` may be left out (seed 0 only)."""

GRID_PATH = Path(__file__).resolve().parent / "grid.json"
"""The cached grid, package data: read with the package wherever it is installed."""

GRID_FORMAT = 4
DIGITS = 4
"""Significant digits kept per stored number (the file stays a few hundred kB)."""


class GridCacheError(ValueError):
    """The cached grid is missing, damaged or stale; the message says which and what to run."""


REGENERATE = "python scripts/build_explorer_grid.py"


def fixed_settings() -> dict:
    """The non-slider settings of every grid point: the live explorer's defaults."""
    return {k: v for k, v in asdict(DEFAULT_CONFIG).items() if k not in GRID_AXES}


def grid_config(axes: dict[str, Iterable] | None = None) -> dict:
    """The settings the grid's numbers depend on: axes and fixed settings (the code is checked on the numbers,
    ``check_grid_points``)."""
    axes = GRID_AXES if axes is None else axes
    names = [name for name in AXIS_NAMES if name != "seed" or name in axes]
    return {
        "axes": {name: [float(x) if name == "delta" else int(x) for x in axes[name]] for name in names},
        "settings": fixed_settings(),
    }


def _settings_part(config: dict) -> dict:
    """The part of a stored grid's config that ``grid_config`` compares (older grids also stored a code hash)."""
    return {key: config.get(key) for key in ("axes", "settings")}


def config_sha256(config: dict) -> str:
    """sha256 of a grid config (canonical JSON)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


def _rounded(values, digits: int = DIGITS):
    """Round to ``digits`` significant digits for storage; NaN and inf become None."""
    if isinstance(values, (float, int, np.floating, np.integer)):
        value = float(values)
        return float(f"{value:.{digits}g}") if math.isfinite(value) else None
    return [_rounded(v, digits) for v in np.asarray(values, dtype=np.float64).tolist()]


SHOWN_NUMBERS = (
    "correlation",
    "predicted_correlation",
    "final_cosine",
    "selection_cosine",
    "relevant_per_sequence",
    "selected_per_sequence",
    "lost_fraction",
    "final_mean_attention",
    "final_min_attention",
)
"""The scalar numbers the sentence prints; the stored sentence reads them as the file stores them."""


def stored_notice(result: ExplorerResult) -> str:
    """``what_to_notice`` of ``result`` with its printed numbers rounded as the grid stores them: the readout under
    the static panels formats the stored numbers, so the two print the same digits (rounding the unrounded number
    and the stored one can differ in the last digit, 0.99846 -> 0.998 against 0.9985 -> 0.999)."""
    rounded = {name: _rounded(getattr(result, name)) for name in SHOWN_NUMBERS if getattr(result, name) is not None}
    return what_to_notice(replace(result, **rounded))


def point_payload(result: ExplorerResult) -> dict:
    """What the three static panels need for one grid point (rounded, JSON-ready)."""
    history = result.history
    return {
        "delta": result.config.delta,
        "d": result.config.d,
        "T": result.config.T,
        "seed": result.config.seed,
        "eta_star": _rounded(result.eta_star),
        "eta": _rounded(result.step_size),
        "alpha": _rounded(result.alpha),
        "ev": _rounded(result.values),
        "ep": _rounded(result.scores),
        "step": [int(s) for s in history["step"]],
        "cos": None if result.final_cosine is None else _rounded(history["cosine"]),
        "att_mean": _rounded(history["mean_relevant_attention"]),
        "att_min": _rounded(history["min_relevant_attention"]),
        "corr": _rounded(result.correlation),
        "corr_pred": _rounded(result.predicted_correlation),
        "slope": _rounded(result.slope),
        "pred": _rounded(result.predicted_slope),
        "cos_final": None if result.final_cosine is None else _rounded(result.final_cosine),
        "cos_own": None if result.selection_cosine is None else _rounded(result.selection_cosine),
        "rel": _rounded(result.relevant_per_sequence),
        "sel": _rounded(result.selected_per_sequence),
        "lost": _rounded(result.lost_fraction),
        "opt": _rounded(result.optimal_fraction),
        "msg": result.max_margin_message,
        "notice": stored_notice(result),
    }


def _compute_point(point: tuple) -> dict:
    """The payload of (delta, d, T) or (delta, d, T, seed); seed 0 when it is left out."""
    delta, d, T, *seed = point
    return point_payload(explore(delta, d, T, **fixed_settings(), seed=seed[0] if seed else 0))


def compute_grid(axes: dict[str, Iterable] | None = None, *, jobs: int = 1, progress: bool = True) -> dict:
    """Run ``explore`` at every grid point; return the grid as a JSON-ready dict.

    Points are ordered delta-major, then d, then T, then seed (when the axes have one): the index of
    (delta[i], d[j], T[k], seed[l]) is ``((i * len(d) + j) * len(T) + k) * len(seed) + l``. jobs > 1 uses
    that many worker processes (each point is independent and single-threaded).
    """
    from .._version import __version__

    config = {**grid_config(axes), "package_version": __version__}
    points = list(itertools.product(*config["axes"].values()))
    if jobs > 1:
        # spawn, not fork: a forked copy of a process that already ran torch can deadlock
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            payloads = list(_progress(pool.map(_compute_point, points), len(points), progress))
    else:
        payloads = list(_progress(map(_compute_point, points), len(points), progress))
    token_class = make_synthetic(2, 2, config["settings"]["vocab_size"], 0.0).token_class
    return {
        "format": GRID_FORMAT,
        "config": config,
        "config_sha256": config_sha256(grid_config(axes)),
        "token_class": [int(c) for c in token_class],
        "points": payloads,
    }


def _progress(iterable, total: int, enabled: bool):
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc="explorer grid", unit="point")


def checksum_path(path: Path) -> Path:
    """The sidecar file holding the sha256 of ``path``: ``<name>.sha256``."""
    path = Path(path)
    return path.with_name(path.name + ".sha256")


def write_grid(grid: dict, path: Path) -> str:
    """Write ``grid`` as compact JSON to ``path`` and its sha256 next to it; return the sha256."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(grid, separators=(",", ":"), sort_keys=True).encode()
    digest = hashlib.sha256(data).hexdigest()
    path.write_bytes(data)
    checksum_path(path).write_text(f"{digest}  {path.name}\n")
    return digest


def read_grid(path: Path = GRID_PATH, *, axes: dict[str, Iterable] | None = None, require_current: bool = True) -> dict:
    """Load a cached grid after checking its sha256 and, by default, that it is current.

    Current means: computed on ``axes`` (default ``GRID_AXES``) with the present fixed settings.
    Whether the present code computes the same numbers is ``check_grid_points``'s question.
    Raises GridCacheError saying what is wrong and how to regenerate it.
    """
    path = Path(path)
    sidecar = checksum_path(path)
    if not path.is_file() or not sidecar.is_file():
        missing = path if not path.is_file() else sidecar
        raise GridCacheError(f"no cached explorer grid: {missing} is missing; run `{REGENERATE}`")
    data = path.read_bytes()
    expected = sidecar.read_text().split()[0] if sidecar.read_text().strip() else ""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise GridCacheError(
            f"the cached explorer grid {path} fails its checksum (sha256 {actual[:12]}..., expected {expected[:12]}...); "
            f"run `{REGENERATE}`"
        )
    grid = json.loads(data)
    if require_current:
        stored = _settings_part(grid.get("config", {}))
        if grid.get("format") != GRID_FORMAT or stored != grid_config(axes):
            raise GridCacheError(
                f"the cached explorer grid {path} is stale: it was computed on other axes or fixed settings "
                f"(or in another file format) than the present ones; run `{REGENERATE}`"
            )
    return grid


def load_or_compute_grid(path: Path = GRID_PATH, *, jobs: int = 1, progress: bool = True) -> tuple[dict, str]:
    """The cached grid when it is current, else a fresh computation (not written to disk).

    Returns (grid, a sentence saying which happened). Recomputing takes a few
    minutes on two cores; ``scripts/build_explorer_grid.py`` refreshes the cache.
    """
    try:
        grid = read_grid(path)
        digest = checksum_path(path).read_text().split()[0]
        return grid, f"loaded the cached grid ({Path(path).name}, {len(grid['points'])} points, sha256 {digest[:12]}...)"
    except GridCacheError as error:
        start = time.perf_counter()
        grid = compute_grid(jobs=jobs, progress=progress)
        seconds = time.perf_counter() - start
        return grid, f"{error}. Recomputed the {len(grid['points'])} points instead ({seconds:.0f} s)"


def grid_point(grid: dict, delta: float, d: int, T: int, seed: int = 0) -> dict:
    """The stored payload for (delta, d, T, seed); ValueError when it is not a grid point.

    A grid without a seed axis holds seed 0 only."""
    axes = grid["config"]["axes"]
    seeds = axes.get("seed", [0])
    try:
        i = next(k for k, x in enumerate(axes["delta"]) if abs(x - delta) < 1e-12)
        j, k, m = axes["d"].index(d), axes["T"].index(T), seeds.index(seed)
    except (StopIteration, ValueError):
        raise ValueError(f"(delta={delta}, d={d}, T={T}, seed={seed}) is not a grid point; the grid has {axes}") from None
    return grid["points"][((i * len(axes["d"]) + j) * len(axes["T"]) + k) * len(seeds) + m]


SPOT_CHECK_POINTS: tuple[tuple, ...] = (
    (0.0, 512, 8),  # the live explorer's default: p converges to p_mm
    (0.0, 512, 8, 1),  # the same setting on another seed: p ends one-sided
    (0.0, 256, 4),  # every sequence puts more than 0.99 of its attention on its relevant token
    (0.0, 64, 32),  # p loses half of the sequences
    (0.3, 256, 16),  # several relevant tokens per sequence, p selects fewer
    (0.5, 1024, 32),  # the same at the largest d
    (0.0, 16, 16),  # no max-margin direction
    (0.0, 64, 64),  # the law predicts a good alignment; the weights g_j spoil it
)
"""Grid points ``check_grid_points`` recomputes: one per sentence the explorer can show that the grid reaches, each
well conditioned (recomputed on other machines it gives the stored numbers) and fast (a couple of seconds in all)."""

SPOT_CHECK_RTOL = 2e-3
"""Relative tolerance of the spot check: stored and recomputed numbers are both rounded to ``DIGITS`` significant
digits, so the same number can differ by one unit in the fourth digit (1e-3 relative); two units are allowed."""
SPOT_CHECK_ATOL = 1e-6
"""Absolute tolerance of the spot check, relative to the largest magnitude of the compared field (an attention mass
of 1e-200 and one of 0 are the same number on a panel)."""


def payload_differences(stored: dict, fresh: dict, *, rtol: float = SPOT_CHECK_RTOL, atol: float = SPOT_CHECK_ATOL) -> list[str]:
    """Where two payloads of one grid point differ beyond the tolerances: one line per field, empty when they agree.

    Texts (the sentence, the max-margin message) and step counts must be equal; numbers (single or
    lists) must agree to ``rtol`` relative plus ``atol`` times the field's largest magnitude, with
    non-finite entries (stored as None) in the same places.
    """
    lines = []
    for key in sorted(set(stored) | set(fresh)):
        a, b = stored.get(key), fresh.get(key)
        if isinstance(a, str) or isinstance(b, str) or key == "step" or a is None or b is None:
            if a != b:
                lines.append(f"{key}: stored {_short(a)}, recomputed {_short(b)}")
            continue
        old, new = (np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (a, b))  # None -> NaN
        if old.shape != new.shape:
            lines.append(f"{key}: stored {old.size} values, recomputed {new.size}")
            continue
        finite = np.isfinite(old)
        if not np.array_equal(finite, np.isfinite(new)):
            lines.append(f"{key}: non-finite values at other positions (stored {_short(a)}, recomputed {_short(b)})")
            continue
        scale = float(np.abs(old[finite]).max()) if finite.any() else 0.0
        gap = np.abs(new[finite] - old[finite])
        allowed = rtol * np.abs(old[finite]) + atol * scale
        if (gap > allowed).any():
            worst = int(np.argmax(gap - allowed))
            relative = float(gap[worst] / max(abs(old[finite][worst]), np.finfo(np.float64).tiny))
            where = "" if old.size == 1 else f" (worst of {int((gap > allowed).sum())} entries)"
            lines.append(
                f"{key}: stored {old[finite][worst]:.6g}, recomputed {new[finite][worst]:.6g}{where}, "
                f"relative difference {relative:.2g} > {rtol:g}"
            )
    return lines


def _short(value, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_grid_points(
    grid: dict,
    points: Iterable[tuple] = SPOT_CHECK_POINTS,
    *,
    rtol: float = SPOT_CHECK_RTOL,
    atol: float = SPOT_CHECK_ATOL,
) -> list[str]:
    """Recompute ``points`` of ``grid`` with the present code and compare them with the stored payloads.

    points: (delta, d, T) or (delta, d, T, seed); seed 0 when it is left out.
    Returns one line per difference ("(delta, d, T[, seed]) field: stored ..., recomputed ..."); empty when
    every recomputed number agrees with the stored one within the tolerances (see ``payload_differences``).
    """
    lines = []
    for point in points:
        delta, d, T, *seed = point
        fresh = _compute_point(tuple(point))
        where = f"delta={delta:g}, d={d}, T={T}" + (f", seed={seed[0]}" if seed else "")
        lines += [f"({where}) {line}" for line in payload_differences(grid_point(grid, *point), fresh, rtol=rtol, atol=atol)]
    return lines


def mismatch_message(path: Path, differences: list[str], points: int) -> str:
    """What to tell a developer whose code no longer computes the shipped grid's numbers (never: regenerate first)."""
    return "\n".join(
        [
            f"the explorer grid {path} no longer matches what the present code computes: recomputing {points} of its "
            f"points gives other numbers (tolerance: {SPOT_CHECK_RTOL:g} relative, {SPOT_CHECK_ATOL:g} of each field's "
            "largest magnitude):",
            *(f"  {line}" for line in differences),
            "An edit to the code the grid's numbers come from (explore and the theory modules it calls) changed them.",
            "Find out which edit and why before regenerating the grid: if the change was not meant, it is a bug, and",
            "regenerating would ship it in the book's static explorer. Only when the new numbers are understood and",
            f"intended, run `{REGENERATE} --force` and say in the commit why the numbers changed.",
        ]
    )
