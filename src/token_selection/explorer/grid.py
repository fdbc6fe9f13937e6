"""The precomputed grid behind the static explorer, and its checksummed cache.

The static explorer of chapter 5 runs without a kernel, so every setting its
sliders reach is computed in advance: ``explore`` at each point of
``GRID_AXES`` (delta x d x T), with the other settings at the live explorer's
defaults. Per point the file keeps what the three panels draw, rounded to
``DIGITS`` significant digits.

The cache is ``book/_static/explorer/grid.json`` plus ``grid.json.sha256``:

- the ``.sha256`` file holds the sha256 of the JSON file's bytes (``sha256sum -c``
  format), so a damaged or hand-edited file is detected;
- the JSON holds ``config_sha256``, the hash of the grid axes, the fixed
  settings, the package version and the source of every function that produces
  the numbers (``code_sha256``). A cache is *current* when both hashes match.
  (The chapter also recomputes the default point and compares it with the cache.)

``python scripts/build_explorer_grid.py`` regenerates it.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import math
import multiprocessing
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ..theory import importance, max_margin, model, one_step, synthetic, training
from . import explorer
from .explorer import DEFAULT_CONFIG, ExplorerResult, explore

GRID_AXES: dict[str, tuple] = {
    "delta": (0.0, 0.1, 0.3, 0.5),
    "d": (16, 64, 256, 512, 1024),
    "T": (4, 8, 16, 32, 64),
}
"""The settings the static sliders reach; the live explorer's defaults are a grid point."""

GRID_FORMAT = 1
DIGITS = 4
"""Significant digits kept per stored number (the file stays a few hundred kB)."""


class GridCacheError(ValueError):
    """The cached grid is missing, damaged or stale; the message says which and what to run."""


REGENERATE = "python scripts/build_explorer_grid.py"


def fixed_settings() -> dict:
    """The non-slider settings of every grid point: the live explorer's defaults."""
    return {k: v for k, v in asdict(DEFAULT_CONFIG).items() if k not in GRID_AXES}


def code_sha256() -> str:
    """sha256 of the source that produces the grid's numbers.

    The package functions the explorer calls (not whole modules, so that adding
    an unrelated function keeps the cache current), the explorer's computing
    functions and thresholds, and the rounding of this module. Drawing code is
    left out: restyling a panel keeps the cache current.
    """
    used = (
        synthetic.make_synthetic,
        synthetic.zipf_probabilities,
        synthetic.SyntheticData,
        model.CLSAttention,
        model.masked_softmax,
        model.gathered_logits,
        model.logistic_loss,
        one_step.one_step_embeddings,
        importance.signed_frequency,
        importance._flat_occurrences,
        max_margin.selection_pairs,
        max_margin.solve_max_margin,
        training.train_cls,
        training.log_spaced_steps,
        training._record,
        training.TrainingHistory,
        explorer.check_config,
        explorer.explore,
        explorer._explore,
        explorer.selected_positions,
        explorer._selection_stats,
        explorer._correlation,
        explorer._slope,
        explorer.what_to_notice,
        point_payload,
        _rounded,
    )
    parts = [inspect.getsource(function) for function in used]
    parts.append(repr((training.ROUNDING_FACTOR, explorer.SELECTED_MASS, explorer.NOISY_ALIGNMENT, DIGITS, GRID_FORMAT)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def grid_config(axes: dict[str, Iterable] | None = None) -> dict:
    """Everything the grid's numbers depend on: axes, fixed settings, package version, code hash."""
    from .._version import __version__

    axes = GRID_AXES if axes is None else axes
    return {
        "axes": {name: [float(x) if name == "delta" else int(x) for x in axes[name]] for name in ("delta", "d", "T")},
        "settings": fixed_settings(),
        "package_version": __version__,
        "code_sha256": code_sha256(),
    }


def config_sha256(config: dict) -> str:
    """sha256 of a grid config (canonical JSON)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


def _rounded(values, digits: int = DIGITS):
    """Round to ``digits`` significant digits for storage; NaN and inf become None."""
    if isinstance(values, (float, int, np.floating, np.integer)):
        value = float(values)
        return float(f"{value:.{digits}g}") if math.isfinite(value) else None
    return [_rounded(v, digits) for v in np.asarray(values, dtype=np.float64).tolist()]


def point_payload(result: ExplorerResult) -> dict:
    """What the three static panels need for one grid point (rounded, JSON-ready)."""
    history = result.history
    return {
        "delta": result.config.delta,
        "d": result.config.d,
        "T": result.config.T,
        "alpha": _rounded(result.alpha),
        "ev": _rounded(result.values),
        "ep": _rounded(result.scores),
        "step": [int(s) for s in history["step"]],
        "cos": None if result.final_cosine is None else _rounded(history["cosine"]),
        "att_mean": _rounded(history["mean_relevant_attention"]),
        "att_min": _rounded(history["min_relevant_attention"]),
        "corr": _rounded(result.correlation),
        "slope": _rounded(result.slope),
        "pred": _rounded(result.predicted_slope),
        "cos_final": None if result.final_cosine is None else _rounded(result.final_cosine),
        "cos_own": None if result.selection_cosine is None else _rounded(result.selection_cosine),
        "rel": _rounded(result.relevant_per_sequence),
        "sel": _rounded(result.selected_per_sequence),
        "miss": _rounded(result.missed_fraction),
        "msg": result.max_margin_message,
        "notice": result.notice,
    }


def _compute_point(point: tuple[float, int, int]) -> dict:
    delta, d, T = point
    return point_payload(explore(delta, d, T, **fixed_settings()))


def compute_grid(axes: dict[str, Iterable] | None = None, *, jobs: int = 1, progress: bool = True) -> dict:
    """Run ``explore`` at every grid point; return the grid as a JSON-ready dict.

    Points are ordered delta-major, then d, then T: the index of
    (delta[i], d[j], T[k]) is ``(i * len(d) + j) * len(T) + k``. jobs > 1 uses
    that many worker processes (each point is independent and single-threaded).
    """
    config = grid_config(axes)
    points = list(itertools.product(*(config["axes"][name] for name in ("delta", "d", "T"))))
    if jobs > 1:
        # spawn, not fork: a forked copy of a process that already ran torch can deadlock
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            payloads = list(_progress(pool.map(_compute_point, points), len(points), progress))
    else:
        payloads = list(_progress(map(_compute_point, points), len(points), progress))
    token_class = synthetic.make_synthetic(2, 2, config["settings"]["vocab_size"], 0.0).token_class
    return {
        "format": GRID_FORMAT,
        "config": config,
        "config_sha256": config_sha256(config),
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


def read_grid(path: Path, *, axes: dict[str, Iterable] | None = None, require_current: bool = True) -> dict:
    """Load a cached grid after checking its sha256 and, by default, that it is current.

    Current means: computed on ``axes`` (default ``GRID_AXES``) by the present code
    and settings. Raises GridCacheError saying what is wrong and how to regenerate it.
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
        current = config_sha256(grid_config(axes))
        if grid.get("format") != GRID_FORMAT or grid.get("config_sha256") != current:
            raise GridCacheError(
                f"the cached explorer grid {path} is stale: the code or settings that produce it changed since it was "
                f"written; run `{REGENERATE}`"
            )
    return grid


def load_or_compute_grid(path: Path, *, jobs: int = 1, progress: bool = True) -> tuple[dict, str]:
    """The cached grid when it is current, else a fresh computation (not written to disk).

    Returns (grid, a sentence saying which happened). Recomputing takes a few
    minutes on two cores; ``scripts/build_explorer_grid.py`` refreshes the cache.
    """
    try:
        grid = read_grid(path)
        digest = checksum_path(path).read_text().split()[0]
        return grid, f"loaded the cached grid {Path(path).name} ({len(grid['points'])} points, sha256 {digest[:12]}...)"
    except GridCacheError as error:
        start = time.perf_counter()
        grid = compute_grid(jobs=jobs, progress=progress)
        seconds = time.perf_counter() - start
        return grid, f"{error}. Recomputed the {len(grid['points'])} points instead ({seconds:.0f} s)"


def grid_point(grid: dict, delta: float, d: int, T: int) -> dict:
    """The stored payload for (delta, d, T); ValueError when it is not a grid point."""
    axes = grid["config"]["axes"]
    try:
        i = next(k for k, x in enumerate(axes["delta"]) if abs(x - delta) < 1e-12)
        j, k = axes["d"].index(d), axes["T"].index(T)
    except (StopIteration, ValueError):
        raise ValueError(f"(delta={delta}, d={d}, T={T}) is not a grid point; the grid has {axes}") from None
    return grid["points"][(i * len(axes["d"]) + j) * len(axes["T"]) + k]
