"""The precomputed grid behind the static explorer, and its checksummed cache.

The static explorer of chapter 5 runs without a kernel, so every setting its
sliders reach is computed in advance: ``explore`` at each point of
``GRID_AXES`` (delta x d x T), with the other settings at the live explorer's
defaults. Per point the file keeps what the three panels draw, rounded to
``DIGITS`` significant digits.

The cache ships with the package (``GRID_PATH``: ``explorer/grid.json`` plus ``grid.json.sha256``),
so a chapter opened alone, in Colab for instance, shows the book's figure without recomputing:

- the ``.sha256`` file holds the sha256 of the JSON file's bytes (``sha256sum -c``
  format), so a damaged or hand-edited file is detected;
- the JSON holds ``config_sha256``, the hash of the grid axes, the fixed
  settings, the package version and the source of every module that produces
  the numbers, named by its path in the package (``code_sha256``). A cache is *current* when both hashes match.
  (The chapter also recomputes the default point and compares it with the cache.)

``python scripts/build_explorer_grid.py`` regenerates it.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
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

from ..theory.synthetic import make_synthetic
from .compute import explore
from .config import DEFAULT_CONFIG
from .result import ExplorerResult

GRID_AXES: dict[str, tuple] = {
    "delta": (0.0, 0.1, 0.3, 0.5),
    "d": (16, 64, 256, 512, 1024),
    "T": (4, 8, 16, 32, 64),
}
"""The settings the static sliders reach; the live explorer's defaults are a grid point."""

GRID_PATH = Path(__file__).resolve().parent / "grid.json"
"""The cached grid, package data: read with the package wherever it is installed."""

GRID_FORMAT = 2
DIGITS = 4
"""Significant digits kept per stored number (the file stays a few hundred kB)."""


class GridCacheError(ValueError):
    """The cached grid is missing, damaged or stale; the message says which and what to run."""


REGENERATE = "python scripts/build_explorer_grid.py"


def fixed_settings() -> dict:
    """The non-slider settings of every grid point: the live explorer's defaults."""
    return {k: v for k, v in asdict(DEFAULT_CONFIG).items() if k not in GRID_AXES}


def source_modules() -> tuple[str, ...]:
    """The package modules the grid's numbers come from: this one and everything it imports, transitively.

    Read from the modules' relative imports, so a module the theory code starts to use is
    covered without a change here.
    """
    package = __name__.split(".")[0]
    found, todo = set(), [__name__]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        module = importlib.import_module(name)
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), module.__package__)
                candidates = [base] if node.module else [f"{base}.{alias.name}" for alias in node.names]
                todo += [c for c in candidates if c.startswith(package) and importlib.util.find_spec(c)]
    return tuple(sorted(found))


def code_sha256() -> str:
    """sha256 of the source of ``source_modules()``, each file named by its path inside the package.

    Any edit to one of them (the theory modules the explorer calls included) makes the
    cached grid stale; so does moving a module, since its path is part of the key.
    """
    package = __name__.split(".")[0]
    digest = hashlib.sha256()
    for name in source_modules():
        module = importlib.import_module(name)
        path = Path(module.__file__).relative_to(Path(importlib.import_module(package).__file__).parent).as_posix()
        digest.update(f"{path}\n{inspect.getsource(module)}\n".encode())
    return digest.hexdigest()


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
    token_class = make_synthetic(2, 2, config["settings"]["vocab_size"], 0.0).token_class
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


def read_grid(path: Path = GRID_PATH, *, axes: dict[str, Iterable] | None = None, require_current: bool = True) -> dict:
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


def load_or_compute_grid(path: Path = GRID_PATH, *, jobs: int = 1, progress: bool = True) -> tuple[dict, str]:
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
