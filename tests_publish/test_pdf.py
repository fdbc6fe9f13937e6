"""`make pdf`: the whole book as one PDF, with every chapter in it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import build_pdf
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "_build" / "pdf" / "course.pdf"


def pdf_text(path: Path) -> tuple[int, str]:
    """Number of pages and the text of ``path``, with whitespace collapsed and case folded."""
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(path)
    text = " ".join(page.extract_text() or "" for page in reader.pages)
    return len(reader.pages), normalise(text)


def normalise(text: str) -> str:
    # ligatures, and the curly quotes Sphinx's smart quotes put in titles
    text = text.replace("\ufb01", "fi").replace("\ufb02", "fl").replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"\s+", " ", text).casefold()


def test_book_pdf_has_every_chapter_title_and_a_sane_page_count():
    if not PDF.is_file():
        pytest.fail(f"no {PDF.relative_to(ROOT)}: run `make pdf` (after `make book`)")
    pages, text = pdf_text(PDF)
    files = build_pdf.toc_files(ROOT)
    # at least a page per page of the book; a runaway layout (one line per page) would pass 2,000
    assert len(files) <= pages <= 2000, f"{pages} pages for {len(files)} pages of the book"
    missing = [
        f"{path.relative_to(ROOT)}: {title!r}" for path in files if normalise(title := build_pdf.page_title(path)) not in text
    ]
    assert missing == [], f"chapter titles not found in the PDF: {missing}"


def make_tiny_book(root: Path) -> None:
    """Two pages, with math and a figure; MathJax served from the site as the course does."""
    mathjax = ROOT / "book" / "_static" / "mathjax"
    if not (mathjax / "tex-chtml.js").is_file():
        pytest.fail("book/_static/mathjax is missing: run `make book` once (it fetches MathJax)")
    (root / "_static").mkdir(parents=True)
    os.symlink(mathjax, root / "_static" / "mathjax")
    (root / "_config.yml").write_text(
        "title: Tiny\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: force\n"
        "parse:\n  myst_enable_extensions: [amsmath, dollarmath]\n"
        "sphinx:\n  config:\n    mathjax_path: mathjax/tex-chtml.js\n    html_static_path: ['_static']\n"
    )
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: chapter\n")
    (root / "intro.md").write_text("# A tiny introduction\n\nInline $a^2 + b^2$ and\n\n$$\nf(X) = \\sum_i q_i u_i\n$$\n")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# The `second` page\n\nA figure:"),
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"),
    ]
    nbformat.write(notebook, root / "chapter.ipynb")


def test_build_pdf_prints_a_small_book_with_its_titles_math_and_figure(tmp_path):
    make_tiny_book(tmp_path / "book")
    output = tmp_path / "tiny.pdf"
    # in its own process: Playwright's sync API refuses to start inside another test's browser session
    script = Path(build_pdf.__file__)
    subprocess.run([sys.executable, str(script), "--root", str(tmp_path / "book"), "--output", str(output)], check=True)
    pages, text = pdf_text(output)
    assert pages >= 1
    assert "a tiny introduction" in text and "the second page" in text
    assert "$" not in text, "raw TeX left in the PDF: MathJax did not typeset before printing"
    assert "∑" in text, "the display equation is missing"
    assert len(list((tmp_path / "book" / "_build" / "singlehtml" / "_images").glob("*.png"))) == 1


def test_page_title_strips_markup_and_requires_a_heading(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("Intro line\n\n# Training `p`: *max-margin* $p$\n\n# Second\n")
    assert build_pdf.page_title(page) == "Training p: max-margin p"
    page.write_text("no heading here\n")
    with pytest.raises(ValueError, match="no level-1 heading"):
        build_pdf.page_title(page)
