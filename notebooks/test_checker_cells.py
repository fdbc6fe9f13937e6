"""Every checker cell of a chapter names a stub the checkers know, and that stub is defined above it.

A coding exercise shows a stub (``def my_masked_softmax(...)``) and a checker cell of one line, ``check(stub)``:
the checker knows the exercise by the stub's name (``STUBS`` of ``theory.exercise_cases`` for chapters 1-4 and
appendix A1, of ``explorer.exercises`` for chapter 5). A stub renamed in a chapter, or a checker cell that names
a function no stub defines, would fail only when a reader runs it; these checks fail first, naming the cell.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from token_selection.explorer.exercises import STUBS as CHAPTER_5_STUBS
from token_selection.theory.exercise_cases import STUBS as THEORY_STUBS

ROOT = Path(__file__).resolve().parent.parent
CHECK = re.compile(r"^check\((?P<name>\w+)(?P<label>, [^)]*)?\)$", re.MULTILINE)
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def checker_calls(path: Path) -> list[tuple[int, str, bool, str]]:
    """Each ``check(...)`` line of the chapter's code cells: (cell index, the name it checks, whether it passes a
    label, the code of the cells before it)."""
    cells = nbformat.read(path, as_version=4).cells
    calls = []
    for k, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        for match in CHECK.finditer(cell.source):
            before = "\n".join(c.source for c in cells[:k] if c.cell_type == "code")
            calls.append((k, match.group("name"), match.group("label") is not None, before))
    return calls


def known_stubs(path: Path) -> dict[str, str]:
    """The stubs a chapter's ``check`` knows: chapter 5's own checker, or the theory chapters' one."""
    return CHAPTER_5_STUBS if path.name.startswith("05_") else THEORY_STUBS


def test_the_chapters_have_checker_cells():
    with_checks = {path.name for path in CHAPTERS if checker_calls(path)}
    assert {"01_model.ipynb", "03_one_step.ipynb", "05_explorer.ipynb", "A1_fast_form.ipynb"} <= with_checks


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_each_checker_cell_names_a_known_stub_defined_above_it(path):
    stubs = known_stubs(path)
    problems = []
    for k, name, labelled, before in checker_calls(path):
        if labelled:
            problems.append(f"cell {k}: check({name}, ...) passes a label; the stub's name says which exercise")
        elif name not in stubs:
            problems.append(f"cell {k}: check({name}) names no stub the checker knows ({sorted(stubs)})")
        elif not re.search(rf"^def {name}\(", before, re.MULTILINE):
            problems.append(f"cell {k}: check({name}) comes before any cell that defines {name}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_every_stub_the_checkers_know_has_its_checker_cell():
    checked = {name for path in CHAPTERS for _, name, _, _ in checker_calls(path)}
    assert set(THEORY_STUBS) | set(CHAPTER_5_STUBS) <= checked
