"""An equation reference renders with its own parentheses, "(5)": written inside parentheses it shows "((5))"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md"))
DOUBLED = re.compile(r"\(\{eq\}`")


def markdown(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_no_equation_reference_opens_a_parenthesis(path):
    text = markdown(path)
    found = [text[max(0, m.start() - 40) : m.end() + 30].replace("\n", " ") for m in DOUBLED.finditer(text)]
    assert not found, f"{path.name}: an equation reference inside parentheses renders as ((n)): {found}"


def test_the_check_finds_a_reference_in_parentheses():
    assert DOUBLED.search("leans along $v$ ({eq}`ch4b-eq-lean`)")
    assert not DOUBLED.search("leans along $v$, {eq}`ch4b-eq-lean`")
