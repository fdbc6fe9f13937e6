"""Check or rewrite each chapter's ``**Time.**`` line from the reading-time formula.

The formula is ``token_selection.reading_time`` (words, display equations, visible code lines,
coding and pen-and-paper exercises; CONTRIBUTING.md, "Reading times").

    python scripts/reading_times.py            # print each chapter's counts and time
    python scripts/reading_times.py --check    # exit 1 naming each chapter whose line differs
    python scripts/reading_times.py --write    # rewrite the lines
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from token_selection import reading_time as rt

ROOT = Path(__file__).resolve().parent.parent
TIME_LINE = re.compile(r"^\*\*Time\.\*\*[^\n]*(?:\n(?!\s*\n)[^\n]*)*", re.MULTILINE)
# The time sentence: from the bold word to the end of the first sentence that names minutes; what
# follows in the paragraph (how long the code runs) is kept by --write.
TIME_SENTENCE = re.compile(r"\*\*Time\.\*\*.*?minutes(?: \(formula:.*?\))?[^.(]*\.(?=\s|$)", re.DOTALL)
STATED = re.compile(r"about (\d+) minutes", re.IGNORECASE)


def time_line(minutes: int) -> str:
    """The chapter's time paragraph for ``minutes``."""
    return (
        f"**Time.** Reading and every exercise, pen-and-paper ones included: about {minutes} minutes "
        f"(formula: {rt.FORMULA_TEXT}; see {{doc}}`the Notation page <../book/notation>`)."
    )


def stated(source: str) -> int | None:
    """The minutes a chapter's time paragraph states (the first ``about N minutes``), or None."""
    match = TIME_LINE.search(source)
    if match is None:
        return None
    number = STATED.search(match.group(0))
    return int(number.group(1)) if number else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when a Time line differs from the formula")
    mode.add_argument("--write", action="store_true", help="rewrite the Time lines")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    status = 0
    for path in paths:
        notebook = json.loads(path.read_text())
        want = rt.rounded(rt.minutes(rt.count(notebook)))
        cells = [c for c in notebook["cells"] if c["cell_type"] == "markdown"]
        holder = next((c for c in cells if TIME_LINE.search("".join(c["source"]))), None)
        if holder is None:
            print(f"{path.name}: no **Time.** paragraph")
            status = 1
            continue
        source = "".join(holder["source"])
        have = stated(source)
        if args.write:
            if have != want or time_line(want) not in source:
                line = time_line(want)
                new = TIME_SENTENCE.sub(line.replace("\\", "\\\\"), source, count=1)
                holder["source"] = new.splitlines(keepends=True)
                path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
                print(f"{path.name}: Time line now {want} minutes (was {have})")
        elif args.check:
            if have != want:
                print(f"{path.name}: Time line states {have} minutes, the formula gives {want}")
                status = 1
        else:
            print(f"{path.name}: {rt.count(notebook)} -> {want} minutes (stated {have})")
    return status


if __name__ == "__main__":
    sys.exit(main())
