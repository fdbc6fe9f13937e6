"""How long a chapter takes a learner: its reading time plus the minutes each exercise states.

Each exercise states its own difficulty and time on its first line, ``*Difficulty ★★☆, about 20
minutes.*``: the minutes to do it and read its solution, judged exercise by exercise (a one-line
numeric check 5-10, a derivation 15-30, a coding exercise with a stub 15-25), and for chapters 1-5
set from a learner's measured times (review of 2026-11-28). An exercise without one is an error
naming the chapter and the exercise's label. The reading time is a formula (CONTRIBUTING.md,
"Reading times")::

    reading = words / WORDS_PER_MINUTE
            + MINUTES_PER_EQUATION * display equations
            + MINUTES_PER_CODE_LINE * visible code lines
            + MINUTES_PER_GLUED_VALUE * computed values

and the chapter's time is ``reading + the exercises' stated minutes + the worked proofs' stated
minutes``, rounded to the nearest 5 minutes. A proof the learner is meant to work through with pen
and paper states its minutes on its first line, ``*Pen and paper, about 40 minutes.*``: its words
and equations are then priced by that line, not by the reading formula (which would give the
five-step proof of chapter 4 eleven minutes; learners took 35 to 75). A proof without that
line is read, and counted, as prose. What is counted, on the notebook's cells:

- **words**: the Markdown's words, with solutions and priced proofs (their reading is in the exercise's minutes),
  display mathematics, code blocks, directive option lines (``:label: ...``) and HTML comments
  left out; inline mathematics counts as one word; the ``**Time.**`` paragraph is not counted.
- **display equations**: ``$$ ... $$`` blocks and ``{math}`` directives (an ``align`` of several
  lines counts once), outside solutions and priced proofs.
- **visible code lines**: non-blank lines of the code cells a reader sees, to skim: the first
  code cell (the Colab set-up) and cells tagged ``remove-cell``, ``remove-input``,
  ``hide-input`` or ``hide-cell`` are left out.
- **computed values**: the values the page computes and pastes into its prose (``{glue}`` roles
  and directives, of every kind), outside code blocks: each is a number or a sentence the reader
  checks against the table, figure or output it comes from.

The reading constants were calibrated on a learner's measured times and three later readers'
estimates (2026-11-26 and 27), when exercises were priced at a flat 8 or 10 minutes; with the
exercises' own minutes, chapters 1-5 landed within 15 % of the learner's times of 2026-11-28
(``tests/test_reading_time.py``), and with chapter 4's proof priced, chapters 1-5 and 4b land within
15 % of the mean of six later learners' times of the chapters as they are now
(``scripts/test_reading_times.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WORDS_PER_MINUTE = 85.0
MINUTES_PER_EQUATION = 2.0
MINUTES_PER_CODE_LINE = 0.05
MINUTES_PER_GLUED_VALUE = 1 / 3
ROUND_TO = 5
HIDDEN_TAGS = ("remove-cell", "remove-input", "hide-input", "hide-cell")

_DISPLAY_DOLLARS = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_MATH_DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{math\}.*?^\1\s*$", re.DOTALL | re.MULTILINE)
_FENCE_LINE = re.compile(r"^(`{3,}|:{3,})(.*)$")
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_OPTION = re.compile(r"^:[\w-]+:.*$", re.MULTILINE)
_FENCE = re.compile(r"^(`{3,}|:{3,}).*$", re.MULTILINE)
_EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n((?::[\w-]+:[^\n]*\n)*)\s*([^\n]*)", re.MULTILINE)
_LABEL = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)
STATED_TIME = re.compile(r"^\*Difficulty (★{1,3}☆*), about (\d+) minutes\.\*")
_PRICED_PROOF = re.compile(
    r"^(`{3,}|:{3,})\{prf:proof\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*\s*\*Pen and paper, about (\d+) minutes\.\*.*?^\1[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_SOLUTION_BLOCK = re.compile(r"^(`{3,}|:{3,})\{solution\}.*?^\1\s*$", re.DOTALL | re.MULTILINE)
_SOLUTION_START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}")
_SOLUTION_END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}")
_TIME_PARAGRAPH = re.compile(r"^\*\*Time\.\*\*[^\n]*(?:\n(?!\s*\n)[^\n]*)*", re.MULTILINE)
_GLUE = re.compile(r"\{glue(?::\w+)?\}")
_HEADING = re.compile(r"^(#{1,6}) ")
_OPTIONAL_HEADING = re.compile(r"^#{1,6} +(?:Going further\b.*|.*\(optional\)\s*)$")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")


@dataclass(frozen=True)
class Counts:
    """What a learner gets through in one chapter."""

    words: int
    equations: int
    code_lines: int
    glued_values: int
    exercises: tuple[tuple[str, int], ...] = ()
    """(label, stated minutes) of each exercise, in order."""
    proofs: tuple[int, ...] = ()
    """The stated minutes of each priced proof (``*Pen and paper, about 40 minutes.*``), in order."""


class MissingExerciseTime(ValueError):
    """An exercise whose first line states no ``*Difficulty ★★☆, about N minutes.*``."""


def exercise_times(text: str, chapter: str = "the chapter") -> list[tuple[str, int]]:
    """(label, minutes) of each ``{exercise}`` in one Markdown text; MissingExerciseTime names one that states none."""
    found = []
    for match in _EXERCISE.finditer(text):
        label = _LABEL.search(match.group(2))
        name = label.group(1) if label else "(an exercise without a label)"
        stated = STATED_TIME.match(match.group(3))
        if stated is None:
            raise MissingExerciseTime(
                f"{chapter}: exercise {name} states no time; begin it with '*Difficulty ★★☆, about 20 minutes.*'"
            )
        found.append((name, int(stated.group(2))))
    return found


def _cell_dict(cell: Any) -> tuple[str, str, list[str]]:
    source = cell["source"]
    if isinstance(source, list):
        source = "".join(source)
    return cell["cell_type"], source, list(cell.get("metadata", {}).get("tags", []))


def _without_code_blocks(text: str) -> str:
    """``text`` with every fenced code block (a backtick fence whose info string is not a ``{directive}``) removed.

    Fences are matched as a stack, line by line: a bare fence closes the innermost open block, so the closing fence
    of one directive is never read as the opening of a code block (which would drop the words up to the next fence).
    """
    kept, stack = [], []  # stack: (fence, is_code) of each open block
    for line in text.split("\n"):
        match = _FENCE_LINE.match(line)
        if stack and stack[-1][1]:  # inside a code block only its own closing fence counts
            if match and match.group(1) == stack[-1][0] and not match.group(2).strip():
                stack.pop()
            kept.append("")
            continue
        if match is None:
            kept.append(line)
            continue
        fence, rest = match.group(1), match.group(2).strip()
        if stack and fence == stack[-1][0] and not rest:
            stack.pop()
        else:
            stack.append((fence, fence.startswith("`") and not rest.startswith("{")))
            if stack[-1][1]:
                kept.append("")
                continue
        kept.append(line)
    return "\n".join(kept)


def count_markdown(text: str) -> tuple[int, int]:
    """(words, display equations) of one Markdown text, by the rules of the module docstring."""
    text = _COMMENT.sub(" ", text)
    text = _TIME_PARAGRAPH.sub(" ", text)  # the time line itself: rewriting it must not change the time
    equations = len(_DISPLAY_DOLLARS.findall(text)) + len(_MATH_DIRECTIVE.findall(text))
    text = _DISPLAY_DOLLARS.sub(" ", text)
    text = _MATH_DIRECTIVE.sub(" ", text)
    text = _without_code_blocks(text)
    text = _INLINE_MATH.sub(" x ", text)
    text = _OPTION.sub(" ", text)
    text = _FENCE.sub(" ", text)
    return len(_WORD.findall(text)), equations


def count_glued(text: str) -> int:
    """The computed values pasted into one Markdown text: its ``{glue}`` roles and directives outside comments,
    code blocks and the ``**Time.**`` paragraph."""
    text = _TIME_PARAGRAPH.sub(" ", _COMMENT.sub(" ", text))
    return len(_GLUE.findall(_without_code_blocks(text)))


def _without_solutions(text: str, in_solution: bool) -> tuple[str, bool]:
    """``text`` without its solutions (``{solution}`` blocks, and what lies between a ``{solution-start}`` and its
    ``{solution-end}``, which may be cells apart), and whether a solution is still open at its end."""
    kept, closing = [], None  # closing: the fence that closes a solution-end directive, left out with it
    for line in _SOLUTION_BLOCK.sub(" ", text).split("\n"):
        end = _SOLUTION_END.match(line)
        if _SOLUTION_START.match(line):
            in_solution = True
        elif end:
            in_solution, closing = False, end.group(1)
        elif closing is not None and line.strip() == closing:
            closing = None
        elif not in_solution:
            kept.append(line)
    return "\n".join(kept), in_solution


def priced_proofs(text: str) -> tuple[str, list[int]]:
    """``text`` without its priced proofs, and the minutes each states (see the module docstring)."""
    minutes = [int(match.group(2)) for match in _PRICED_PROOF.finditer(text)]
    return _PRICED_PROOF.sub(" ", text), minutes


def count(notebook: dict[str, Any], chapter: str = "the chapter") -> Counts:
    """The counts of a notebook (a dict as ``json.load`` or ``nbformat.read`` gives it); ``chapter`` names it in errors."""
    cells = [_cell_dict(cell) for cell in notebook["cells"]]
    if not cells:
        raise ValueError("the notebook has no cells: nothing to time")
    setup = next((i for i, (kind, _, _) in enumerate(cells) if kind == "code"), None)
    words = equations = code_lines = glued = 0
    exercises: list[tuple[str, int]] = []
    proofs: list[int] = []
    in_solution = False  # between a solution-start and its solution-end, which may span cells
    for index, (kind, source, tags) in enumerate(cells):
        if kind == "markdown" and "remove-cell" in tags:
            continue  # not in the book (e.g. the Colab copy of an opening figure): no reader reads it twice
        if kind == "markdown":
            exercises += exercise_times(source, chapter)
            read, in_solution = _without_solutions(source, in_solution)
            read, stated = priced_proofs(read)
            proofs += stated
            w, e = count_markdown(read)
            words += w
            equations += e
            glued += count_glued(read)
        elif kind == "code" and index != setup and not any(tag in HIDDEN_TAGS for tag in tags):
            code_lines += sum(1 for line in source.split("\n") if line.strip())
    return Counts(words, equations, code_lines, glued, tuple(exercises), tuple(proofs))


def without_optional(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook without its optional sections, what a first pass reads.

    A section is optional when its heading ends with "(optional)" or begins with "Going further"; it runs to the next
    heading of the same or a higher level. Its Markdown lines and the cells (code too) inside it are left out;
    headings inside fenced code blocks are not headings. Returns a new notebook dict; ``notebook`` is not changed.
    """
    cells, level = [], None  # level: the heading level of the optional section open, if any
    for cell in notebook["cells"]:
        kind, source, _ = _cell_dict(cell)
        if kind != "markdown":
            if level is None:
                cells.append(cell)
            continue
        kept = []
        for line, read in zip(source.split("\n"), _without_code_blocks(source).split("\n"), strict=True):
            heading = _HEADING.match(read)
            if heading and level is not None and len(heading.group(1)) <= level:
                level = None
            if heading and level is None and _OPTIONAL_HEADING.match(read):
                level = len(heading.group(1))
            if level is None:
                kept.append(line)
        if any(line.strip() for line in kept):
            cells.append({**cell, "source": "\n".join(kept)})
    return {**notebook, "cells": cells}


def reading_minutes(counts: Counts) -> float:
    """The reading part of the formula of the module docstring, unrounded."""
    return (
        counts.words / WORDS_PER_MINUTE
        + MINUTES_PER_EQUATION * counts.equations
        + MINUTES_PER_CODE_LINE * counts.code_lines
        + MINUTES_PER_GLUED_VALUE * counts.glued_values
    )


def priced_minutes(counts: Counts) -> int:
    """The minutes a chapter's exercises and priced proofs state, together."""
    return sum(m for _, m in counts.exercises) + sum(counts.proofs)


def minutes(counts: Counts) -> float:
    """Reading plus every exercise's and every priced proof's stated minutes, unrounded."""
    return reading_minutes(counts) + priced_minutes(counts)


def reading_alone(counts: Counts) -> int:
    """A chapter's reading alone: its rounded time less the minutes its exercises and priced proofs state, rounded in
    turn. The front page's reading column and the first part of each chapter's Time line are this number."""
    return rounded(rounded(minutes(counts)) - priced_minutes(counts))


def rounded(value: float, step: int = ROUND_TO) -> int:
    """``value`` to the nearest multiple of ``step`` (halves up), at least ``step``."""
    if step <= 0:
        raise ValueError(f"step must be a positive number of minutes, got {step}")
    return max(step, int((value + step / 2) // step) * step)


def chapter_minutes(path: str | Path) -> int:
    """The rounded time of the notebook at ``path``."""
    import json

    path = Path(path)
    return rounded(minutes(count(json.loads(path.read_text()), path.stem)))


def in_words(total: int) -> str:
    """``total`` minutes as a reader says them: ``45 min``, ``2 h``, ``2 h 30 min``."""
    if total < 60:
        return f"{total} min"
    hours, rest = divmod(total, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


FORMULA_TEXT = (
    f"words / {WORDS_PER_MINUTE:g} + {MINUTES_PER_EQUATION:g} min a display equation"
    f" + {round(60 * MINUTES_PER_CODE_LINE):g} s a visible code line"
    f" + {round(60 * MINUTES_PER_GLUED_VALUE):g} s a computed value"
    " + each exercise's and each worked proof's stated minutes"
)
"""The formula in words, as CONTRIBUTING.md states it (it is no longer printed on the chapters)."""
