"""Check or rewrite each chapter's ``**Time.**`` line: reading time plus each exercise's stated minutes.

The time is ``token_selection.reading_time`` (the reading formula of CONTRIBUTING.md, "Reading
times", plus the minutes each exercise states on its first line). The page shows the total only,
``**Time.** About 2 h 30 min: reading 50 min, exercises 1 h 40 min.`` (with the proof's minutes where a chapter
prices one); what follows in the paragraph (how long the code runs) is kept.

    python scripts/reading_times.py            # print each chapter's counts and time
    python scripts/reading_times.py --check    # exit 1 naming each chapter whose line differs or an exercise without a time
    python scripts/reading_times.py --write    # rewrite the lines
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from token_selection import reading_time as rt

ROOT = Path(__file__).resolve().parent.parent
TIME_LINE = re.compile(r"^\*\*Time\.\*\*[^\n]*(?:\n(?!\s*\n)[^\n]*)*", re.MULTILINE)
# The time sentence: from the bold word to the first full stop outside parentheses (an older line's
# formula sat in parentheses); what follows in the paragraph is kept by --write.
TIME_SENTENCE = re.compile(r"\*\*Time\.\*\*(?:[^.(]|\([^)]*\))*\.(?=\s|$)")
STATED = re.compile(r"about (?:(\d+) h(?: (\d+) min)?|(\d+) min(?:utes)?)\b", re.IGNORECASE)


def time_line(minutes: int, reading: int, exercises: Sequence[int] = (), proofs: Sequence[int] = ()) -> str:
    """The chapter's time sentence: ``minutes`` in all, split into its ``reading`` (``reading_time.reading_alone``,
    the front page's reading column), its priced proofs (``proofs``, each one's stated minutes) and its exercises
    (``exercises``, likewise)."""
    if not exercises and not proofs:
        return f"**Time.** About {rt.in_words(minutes)}."
    parts = [f"reading {rt.in_words(reading)}"]
    if proofs:
        parts.append(f"{'the proof' if len(proofs) == 1 else f'{len(proofs)} proofs'} {rt.in_words(sum(proofs))}")
    if exercises:
        parts.append(f"exercises {rt.in_words(sum(exercises))}")
    return f"**Time.** About {rt.in_words(minutes)}: {', '.join(parts)}."


def stated(source: str) -> int | None:
    """The minutes a chapter's time paragraph states (its first ``about 2 h 30 min``), or None."""
    match = TIME_LINE.search(source)
    if match is None:
        return None
    number = STATED.search(match.group(0))
    if number is None:
        return None
    hours, rest, only = number.groups()
    return int(only) if only else 60 * int(hours) + int(rest or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when a Time line differs or an exercise states no time")
    mode.add_argument("--write", action="store_true", help="rewrite the Time lines")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    status = 0
    for path in paths:
        notebook = json.loads(path.read_text())
        try:
            counts = rt.count(notebook, path.name)
        except rt.MissingExerciseTime as error:
            print(error)
            status = 1
            continue
        want = rt.rounded(rt.minutes(counts))
        cells = [c for c in notebook["cells"] if c["cell_type"] == "markdown"]
        holder = next((c for c in cells if TIME_LINE.search("".join(c["source"]))), None)
        if holder is None:
            print(f"{path.name}: no **Time.** paragraph")
            status = 1
            continue
        source = "".join(holder["source"])
        have, line = stated(source), time_line(want, rt.reading_alone(counts), [m for _, m in counts.exercises], counts.proofs)
        if args.write:
            if line not in source:
                new = TIME_SENTENCE.sub(line.replace("\\", "\\\\"), source, count=1)
                holder["source"] = new.splitlines(keepends=True)
                path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
                print(f"{path.name}: Time line now {rt.in_words(want)} (was {have} minutes)")
        elif args.check:
            if line not in source:
                print(f"{path.name}: Time line states {have} minutes, reading and exercises give {want} ({line!r})")
                status = 1
        else:
            reading = rt.reading_minutes(counts)
            stated_minutes = [m for _, m in counts.exercises]
            proofs = f" + proofs {list(counts.proofs)}" if counts.proofs else ""
            print(
                f"{path.name}: reading {reading:.0f} min + exercises {stated_minutes}{proofs} -> {want} minutes (stated {have})"
            )
    return status


if __name__ == "__main__":
    sys.exit(main())
