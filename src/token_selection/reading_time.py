"""How long a chapter takes a learner: reading plus every exercise, from counts on the notebook.

The formula (documented in CONTRIBUTING.md, "Reading times", and linked from each chapter's
``**Time.**`` line)::

    minutes = words / WORDS_PER_MINUTE
            + MINUTES_PER_EQUATION * display equations
            + MINUTES_PER_CODE_LINE * visible code lines
            + MINUTES_PER_CODING_EXERCISE * coding exercises
            + MINUTES_PER_PEN_EXERCISE * pen-and-paper exercises
            + MINUTES_PER_GLUED_VALUE * computed values

rounded to the nearest 5 minutes. What is counted, on the notebook's cells:

- **words**: the Markdown's words (solutions included: a learner reads them), with display
  mathematics, code blocks, directive option lines (``:label: ...``) and HTML comments left out;
  inline mathematics counts as one word; the ``**Time.**`` paragraph itself is not counted.
- **display equations**: ``$$ ... $$`` blocks and ``{math}`` directives (an ``align`` of several
  lines counts once).
- **visible code lines**: non-blank lines of the code cells a reader sees, to skim: the first
  code cell (the Colab set-up) and cells tagged ``remove-cell``, ``remove-input``,
  ``hide-input`` or ``hide-cell`` are left out.
- **exercises**: ``{exercise}`` directives; an exercise is a *coding* one when the cell right
  after it is a code cell (the stub the reader fills in) and no ``{solution}`` follows it in
  its own cell; every other exercise is *pen-and-paper*.
- **computed values**: the values the page computes and pastes into its prose (``{glue}`` roles
  and directives, of every kind), outside code blocks: each is a number or a sentence the reader
  checks against the table, figure or output it comes from.

The constants are calibrated on a learner's measured times (reading plus every exercise) and
the counts the learner measured on the built pages (2026-11-26): chapters 1-5, read in full
(100, 120, 135, 180, 95 minutes); on two later readers' estimates for chapters 1-5 and 4b (115,
130, 150, 170, 100, 45) and 6, 7, 8, 8b (120, 75, 75, 110), on the chapters' counts when they
read them (2026-11-27); and on a third reader's estimates for chapters 6, 7 and 10 (130, 75, and
2 to 2.5 hours, taken as 135), on the counts of the commit they read. All 18 land within 25 %
(``tests/test_reading_time.py``). Without the computed values the third reader's chapter 10 was
42 % short: its 73 computed values are more than any other chapter's, and each is read against
the table or figure beside it. The learner's skims of chapters 9 and 10 (40 and 65 minutes) are
not a reading with every exercise; the formula only has to give them at least as long.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WORDS_PER_MINUTE = 85.0
MINUTES_PER_EQUATION = 2.0
MINUTES_PER_CODE_LINE = 0.05
MINUTES_PER_CODING_EXERCISE = 10.0
MINUTES_PER_PEN_EXERCISE = 8.0
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
_EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}", re.MULTILINE)
_SOLUTION = re.compile(r"^(`{3,}|:{3,})\{solution(?:-start)?\}", re.MULTILINE)
_TIME_PARAGRAPH = re.compile(r"^\*\*Time\.\*\*[^\n]*(?:\n(?!\s*\n)[^\n]*)*", re.MULTILINE)
_GLUE = re.compile(r"\{glue(?::\w+)?\}")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")


@dataclass(frozen=True)
class Counts:
    """What a learner gets through in one chapter."""

    words: int
    equations: int
    code_lines: int
    coding_exercises: int
    pen_exercises: int
    glued_values: int


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


def count(notebook: dict[str, Any]) -> Counts:
    """The counts of a notebook (a dict as ``json.load`` or ``nbformat.read`` gives it)."""
    cells = [_cell_dict(cell) for cell in notebook["cells"]]
    if not cells:
        raise ValueError("the notebook has no cells: nothing to time")
    setup = next((i for i, (kind, _, _) in enumerate(cells) if kind == "code"), None)
    words = equations = code_lines = coding = pen = glued = 0
    for index, (kind, source, tags) in enumerate(cells):
        if kind == "markdown" and "remove-cell" in tags:
            continue  # not in the book (e.g. the Colab copy of an opening figure): no reader reads it twice
        if kind == "markdown":
            w, e = count_markdown(source)
            words += w
            equations += e
            glued += count_glued(source)
            exercises = list(_EXERCISE.finditer(source))
            for number, match in enumerate(exercises):
                last = number == len(exercises) - 1
                solved_here = _SOLUTION.search(source, match.end()) is not None
                stub_next = index + 1 < len(cells) and cells[index + 1][0] == "code"
                if last and not solved_here and stub_next:
                    coding += 1
                else:
                    pen += 1
        elif kind == "code" and index != setup and not any(tag in HIDDEN_TAGS for tag in tags):
            code_lines += sum(1 for line in source.split("\n") if line.strip())
    return Counts(words, equations, code_lines, coding, pen, glued)


def minutes(counts: Counts) -> float:
    """The formula of the module docstring, unrounded."""
    return (
        counts.words / WORDS_PER_MINUTE
        + MINUTES_PER_EQUATION * counts.equations
        + MINUTES_PER_CODE_LINE * counts.code_lines
        + MINUTES_PER_CODING_EXERCISE * counts.coding_exercises
        + MINUTES_PER_PEN_EXERCISE * counts.pen_exercises
        + MINUTES_PER_GLUED_VALUE * counts.glued_values
    )


def rounded(value: float, step: int = ROUND_TO) -> int:
    """``value`` to the nearest multiple of ``step`` (halves up), at least ``step``."""
    if step <= 0:
        raise ValueError(f"step must be a positive number of minutes, got {step}")
    return max(step, int((value + step / 2) // step) * step)


def chapter_minutes(path: str | Path) -> int:
    """The rounded time of the notebook at ``path``."""
    import json

    return rounded(minutes(count(json.loads(Path(path).read_text()))))


FORMULA_TEXT = (
    f"words / {WORDS_PER_MINUTE:g} + {MINUTES_PER_EQUATION:g} min a display equation"
    f" + {round(60 * MINUTES_PER_CODE_LINE):g} s a visible code line"
    f" + {MINUTES_PER_CODING_EXERCISE:g} min a coding exercise"
    f" + {MINUTES_PER_PEN_EXERCISE:g} min a pen-and-paper exercise"
    f" + {round(60 * MINUTES_PER_GLUED_VALUE):g} s a computed value"
)
"""The formula in words, without a full stop inside (the Time line's sentence ends at its first)."""
