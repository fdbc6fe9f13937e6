"""Execute chapter notebooks at the fast scale and strip their outputs.

Only cells whose output nbval compares keep it: they carry the cell tag
``nbval-check-output`` (which nbval reads, and readers do not see) and the cell
metadata ``keep_output: true`` (which this script sets, and nbstripout keeps outputs
by). Everything else is stripped by nbstripout, so the committed notebooks stay small.
A ``# NBVAL_CHECK_OUTPUT`` comment left in a cell is turned into the tag first
(``tidy_notebooks.marker_tags``).

    python scripts/refresh_notebooks.py notebooks/03_one_step.ipynb [...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import nbformat
from execute_notebooks import execute
from tidy_notebooks import marker_tags


def refresh(path: Path, limit: float | None) -> float:
    """Execute ``path`` in place, mark compared cells, strip the rest; return seconds taken.

    The run is the book's (``execute_notebooks.execute``): same executor, under the chapter's time limit.
    """
    nb, seconds = execute(path, limit)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.metadata.pop("keep_output", None)
            marker_tags(cell)  # sets keep_output on the cells tagged nbval-check-output
    nbformat.write(nb, path)
    subprocess.run([sys.executable, "-m", "nbstripout", "--keep-id", str(path)], check=True)
    # nbstripout drops every execution count, but nbval treats a cell with outputs and no
    # count as an unrun cell: number the kept cells again.
    nb = nbformat.read(path, as_version=4)
    kept = [cell for cell in nb.cells if cell.cell_type == "code" and cell.metadata.get("keep_output")]
    for count, cell in enumerate(kept, start=1):
        cell.execution_count = count
    nbformat.write(nb, path)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--limit", type=float, default=None, help="seconds allowed (default: notebooks/execution_limits.json)")
    args = parser.parse_args()
    os.environ.setdefault("TOKEN_SELECTION_SCALE", "fast")
    for path in args.notebooks:
        print(f"{path}: {refresh(path, args.limit):.1f} s", flush=True)


if __name__ == "__main__":
    main()
