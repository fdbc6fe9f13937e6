"""Draw the front page's figure (book/figures/hero.png) from the package, and record what it was drawn from.

The figure is the explorer's three panels for one run at the explorer's default setting (the reference case of
the theory chapters), drawn by ``token_selection.explorer.panels.draw_hero``. Beside it, ``hero.json`` records the
run's settings, its key numbers, panel 3's words, the hash of the drawing code and the sha256 of the PNG.
``--check`` (run by scripts/test_draw_hero_figure.py) recomputes the run and fails when the image is stale: other
settings, other numbers, other drawing code, or a PNG that is not the one drawn.

    python scripts/draw_hero_figure.py            # draw the image and its record
    python scripts/draw_hero_figure.py --check    # exit 1 when the committed image is not current
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from token_selection.explorer.compute import explore
from token_selection.explorer.config import DEFAULT_CONFIG
from token_selection.explorer.panels import draw_hero, hero_record, stale_parts

FIGURE = Path(__file__).resolve().parent.parent / "book" / "figures" / "hero.png"
DPI = 160


def record_path(figure: Path) -> Path:
    """The record beside an image: ``hero.png`` -> ``hero.json``."""
    return figure.with_suffix(".json")


def fresh_record() -> tuple[dict, object]:
    """The record of a fresh run at the explorer's defaults, and the run."""
    result = explore(DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T)
    return hero_record(result), result


def problems(figure: Path = FIGURE) -> list[str]:
    """Why the committed image at ``figure`` is not current (empty when it is)."""
    record = record_path(figure)
    if not figure.exists() or not record.exists():
        return [f"{figure} or {record} is missing"]
    recorded = json.loads(record.read_text())
    found = []
    if hashlib.sha256(figure.read_bytes()).hexdigest() != recorded.get("png_sha256"):
        found.append("the PNG is not the one its record describes (edited or replaced by hand)")
    fresh, _ = fresh_record()
    found += [f"{part} differs from a fresh run" for part in stale_parts(recorded, fresh)]
    return found


def draw(figure: Path = FIGURE) -> dict:
    """Draw the image and write its record; return the record."""
    record, result = fresh_record()
    figure.parent.mkdir(parents=True, exist_ok=True)
    draw_hero(result).savefig(figure, dpi=DPI, metadata={"Software": None})
    record["png_sha256"] = hashlib.sha256(figure.read_bytes()).hexdigest()
    record["drawn_by"] = "scripts/draw_hero_figure.py"
    record_path(figure).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the committed image is current")
    parser.add_argument("--figure", type=Path, default=FIGURE, help="the image (default: %(default)s)")
    args = parser.parse_args()
    if args.check:
        found = problems(args.figure)
        for problem in found:
            print(problem)
        if found:
            print(f"the front page's figure is stale: run `python {Path(__file__).name}` from scripts/ and commit both files")
            return 1
        print(f"{args.figure} is current")
        return 0
    record = draw(args.figure)
    print(f"wrote {args.figure} and {record_path(args.figure).name}: panel 3 shows {record['score_pattern']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
