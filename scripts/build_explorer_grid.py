"""Regenerate the precomputed grid of the static explorer (chapter 5).

Writes the package data ``src/token_selection/explorer/grid.json`` and its checksum
``grid.json.sha256``. Chapter 5 uses this cache when it is current, that is when its
checksum matches and it was computed by the present code and settings; otherwise the
chapter recomputes the grid itself, which takes minutes.

    python scripts/build_explorer_grid.py            # recompute when the cache is not current
    python scripts/build_explorer_grid.py --force    # recompute anyway
    python scripts/build_explorer_grid.py --check    # only check: exit 1 when missing, damaged or stale
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from token_selection.explorer.grid import GRID_AXES, GRID_PATH, GridCacheError, compute_grid, read_grid, write_grid

SOURCE_PATH = Path(__file__).resolve().parent.parent / "src" / "token_selection" / "explorer" / "grid.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=SOURCE_PATH, help="where the grid is cached (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="recompute even when the cache is current")
    parser.add_argument("--check", action="store_true", help="only report whether the cache is current")
    args = parser.parse_args()
    if args.path.resolve() == SOURCE_PATH and GRID_PATH != SOURCE_PATH:
        # a non-editable install reads its own copy: the one written here would not be the one used
        print(f"note: the installed package reads {GRID_PATH}, not {SOURCE_PATH}; reinstall after regenerating")

    try:
        grid = read_grid(args.path)
        print(f"{args.path}: current ({len(grid['points'])} points)")
        if args.check or not args.force:
            return 0
    except GridCacheError as error:
        print(error)
        if args.check:
            return 1

    shape = " x ".join(f"{len(values)} {name}" for name, values in GRID_AXES.items())
    print(f"computing the explorer grid: {shape} with {args.jobs} worker(s)", flush=True)
    start = time.perf_counter()
    grid = compute_grid(jobs=args.jobs)
    seconds = time.perf_counter() - start
    digest = write_grid(grid, args.path)
    size = args.path.stat().st_size
    print(f"wrote {args.path} ({len(grid['points'])} points, {size / 1024:.0f} kB, sha256 {digest[:12]}...) in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
