"""A Markdown table row is one line: a row whose text runs on to the next line ends the table there, and the rest of
the row renders as a new row of its own (its words in the first column). Every row of every table in the chapters'
Markdown cells and in the pages of ``book/`` starts and ends with ``|``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md"))


def markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text()


def broken_rows(text: str) -> list[str]:
    """The table rows of ``text`` that do not end with ``|`` (a row cut by a line break), outside code fences."""
    broken, fence = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") and not stripped.startswith("```{"):
            fence = not fence
        if not fence and stripped.startswith("|") and not stripped.endswith("|"):
            broken.append(stripped[:80])
    return broken


def test_the_checker_catches_a_row_cut_by_a_line_break():
    table = "| a | b |\n|---|---|\n| one | two words\nand more |\n"
    assert broken_rows(table) == ["| one | two words"]
    assert broken_rows("| a | b |\n|---|---|\n| one | two |\n") == []
    assert broken_rows("```\n| a code line\n```\n") == []


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_every_table_row_is_one_line(path):
    assert broken_rows(markdown_of(path)) == [], f"{path.name}: a table row runs on to the next line"
