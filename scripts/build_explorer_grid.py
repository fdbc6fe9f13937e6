"""Regenerate the precomputed grid of the static explorer (chapter 5).

Writes the package data ``src/token_selection/explorer/grid.json`` and its checksum
``grid.json.sha256``. Chapter 5 uses this cache when it is current, that is when its
checksum matches and it was computed on the present axes and settings; otherwise the
chapter recomputes the grid itself, which takes minutes. Whether the present code still
computes the stored numbers is checked on the numbers: a few grid points are recomputed
and compared (``check_grid_points``).

    python scripts/build_explorer_grid.py            # recompute when missing, damaged or on other settings
    python scripts/build_explorer_grid.py --force    # recompute anyway (after a change of numbers is understood)
    python scripts/build_explorer_grid.py --check    # only check: exit 1 when missing, damaged, stale, or when
                                                     # recomputed points differ from the stored ones
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from token_selection.explorer.grid import (
    GRID_AXES,
    GRID_PATH,
    SPOT_CHECK_POINTS,
    GridCacheError,
    check_grid_points,
    compute_grid,
    mismatch_message,
    read_grid,
    write_grid,
)

SOURCE_PATH = Path(__file__).resolve().parent.parent / "src" / "token_selection" / "explorer" / "grid.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=SOURCE_PATH, help="where the grid is cached (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default: %(default)s)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="recompute even when the cache is current (once a change of its numbers is understood)",
    )
    parser.add_argument("--check", action="store_true", help="only report whether the cache is current")
    args = parser.parse_args()
    if args.path.resolve() == SOURCE_PATH and GRID_PATH != SOURCE_PATH:
        # a non-editable install reads its own copy: the one written here would not be the one used
        print(f"note: the installed package reads {GRID_PATH}, not {SOURCE_PATH}; reinstall after regenerating")

    try:
        grid = read_grid(args.path)
        print(f"{args.path}: checksum, axes and settings current ({len(grid['points'])} points)")
        if args.check or not args.force:
            start = time.perf_counter()
            differences = check_grid_points(grid)
            if differences:
                print(mismatch_message(args.path, differences, len(SPOT_CHECK_POINTS)))
                return 1
            seconds = time.perf_counter() - start
            print(f"{len(SPOT_CHECK_POINTS)} points recomputed in {seconds:.1f} s: the stored numbers are what the code computes")
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
