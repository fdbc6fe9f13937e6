"""`make pdf`: the whole book as one PDF, with every chapter in it."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import build_pdf
import nbformat
import pypdfium2
import pytest
from bs4 import BeautifulSoup

from token_selection.prose import glue_plumbing

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "_build" / "pdf" / "course.pdf"
PRINTED_PAGE = ROOT / "_build" / "singlehtml" / "course.html"


def page_texts(path: Path) -> tuple[str, ...]:
    """The text of each page of ``path`` (PDFium's text layer), extracted once per version of the file.

    The version is the file's size and modification time: a PDF built again is read again.
    """
    stat = path.stat()
    return _page_texts(path.resolve(), stat.st_size, stat.st_mtime_ns)


@functools.cache
def _page_texts(path: Path, size: int, mtime_ns: int) -> tuple[str, ...]:
    document = pypdfium2.PdfDocument(path)
    try:
        return tuple(page.get_textpage().get_text_range().replace("\r\n", "\n") for page in document)
    finally:
        document.close()


def pdf_text(path: Path) -> tuple[int, str]:
    """Number of pages and the text of ``path``, with whitespace collapsed and case folded."""
    pages = page_texts(path)
    return len(pages), normalise(" ".join(pages))


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


def pdf_lines(path: Path) -> list[str]:
    """The text of ``path``, line by line as the PDF sets it (a wrapped code line is two lines here)."""
    return [line for page in page_texts(path) for line in page.split("\n")]


def printed_code(html: str) -> tuple[list[str], list[str]]:
    """The code blocks of the one-page build that the PDF shows, and the sources of its code cells among them.

    A block is a <pre> outside the cells' outputs and outside folded cells (which print closed).
    """
    soup = BeautifulSoup(html, "html.parser")
    blocks = [pre for pre in soup.find_all("pre") if not pre.find_parent(class_="cell_output") and not pre.find_parent("details")]
    cells = [pre.get_text() for pre in blocks if pre.find_parent(class_="cell_input")]
    return [pre.get_text() for pre in blocks], cells


def cut_code_lines(blocks: list[str], lines: list[str]) -> list[str]:
    """Every line of the code ``blocks`` that no line of the PDF holds whole (spaces aside): a line the PDF broke."""
    held = "\n".join(re.sub(r"\s+", "", line) for line in lines)
    whole = set(held.split("\n"))
    cut = []
    for block in blocks:
        for line in block.split("\n"):
            key = re.sub(r"\s+", "", line)
            if key and key not in whole and key not in held:
                cut.append(line.strip())
    return cut


def test_book_pdf_shows_no_test_machinery_no_glue_plumbing_and_cuts_no_code_line():
    if not PDF.is_file() or not PRINTED_PAGE.is_file():
        pytest.fail(f"no {PDF.relative_to(ROOT)} or {PRINTED_PAGE.relative_to(ROOT)}: run `make pdf` (after `make book`)")
    lines = pdf_lines(PDF)
    assert not [line for line in lines if "NBVAL" in line], "test machinery shows in the PDF: the text 'NBVAL'"
    blocks, cells = printed_code(PRINTED_PAGE.read_text())
    glued = [source.strip().splitlines()[0] for source in cells if glue_plumbing(source)]
    assert glued == [], f"cells that only glue values are printed (tag them remove-cell): {glued}"
    cut = cut_code_lines(blocks, lines)
    assert cut == [], f"{len(cut)} code line(s) broken in the PDF (longer than the printed column):\n" + "\n".join(cut[:20])


def unprinted_source_notes(html: str, text: str) -> dict[str, tuple[int, int]]:
    """Each source note's line (its title and tags) that the normalised PDF ``text`` holds fewer times than the
    one-page build ``html`` has notes with it: {line: (notes, printed)}."""
    notes = Counter(normalise(s.get_text()) for s in BeautifulSoup(html, "html.parser").select("details.source-note > summary"))
    printed = {line: text.count(line) for line in notes}
    return {line: (n, printed[line]) for line, n in notes.items() if printed[line] < n}


def test_unprinted_source_notes_are_counted_per_line():
    note = '<aside class="margin"><details class="source-note"><summary>{}</summary><p>x</p></details></aside>'
    html = note.format("Source [ours]") * 2 + note.format("Sources [discussion]")
    assert unprinted_source_notes(html, "text source [ours] more source [ours] sources [discussion]") == {}
    assert unprinted_source_notes(html, "text source [ours] and nothing else") == {
        "source [ours]": (2, 1),
        "sources [discussion]": (1, 0),
    }


def test_book_pdf_prints_every_source_note():
    """The margin notes print in the text column (book/_static/print.css): floated into the margin they fell past the
    page's edge and no source note was in the PDF."""
    if not PDF.is_file() or not PRINTED_PAGE.is_file():
        pytest.fail(f"no {PDF.relative_to(ROOT)} or {PRINTED_PAGE.relative_to(ROOT)}: run `make pdf` (after `make book`)")
    html = PRINTED_PAGE.read_text()
    assert BeautifulSoup(html, "html.parser").select("details.source-note"), "the printed page has no source note"
    missing = unprinted_source_notes(html, pdf_text(PDF)[1])
    assert missing == {}, f"source notes not printed in the PDF ((notes, printed) per line): {missing}"


def unprinted_folded_outputs(html: str, text: str) -> list[str]:
    """The text of each folded output (a hide-output cell) of the one-page build ``html`` that the normalised PDF
    ``text`` does not hold: its words as the page has them, style sheets left out."""
    missing = []
    for output in BeautifulSoup(html, "html.parser").select("div.tag_hide-output div.cell_output"):
        for style in output.find_all("style"):
            style.decompose()
        words = normalise(output.get_text(" "))
        if words and words not in text:
            missing.append(words[:80])
    return missing


def test_unprinted_folded_outputs_are_found_and_printed_ones_pass():
    cell = '<div class="cell tag_hide-output"><details><div class="cell_output"><style>.x {{}}</style>{}</div></details></div>'
    html = cell.format("<table><tr><th>d = 512</th><td>13 (14)</td></tr></table>") + cell.format("<pre>one line</pre>")
    assert unprinted_folded_outputs(html, "text d = 512 13 (14) more one line") == []
    assert unprinted_folded_outputs(html, "text one line") == ["d = 512 13 (14)"]


def test_book_pdf_prints_every_folded_output():
    """A folded output fades in when opened (myst-nb's animation); printed at once it came out blank until
    book/_static/print.css turned the animation off on paper."""
    if not PDF.is_file() or not PRINTED_PAGE.is_file():
        pytest.fail(f"no {PDF.relative_to(ROOT)} or {PRINTED_PAGE.relative_to(ROOT)}: run `make pdf` (after `make book`)")
    html = PRINTED_PAGE.read_text()
    assert BeautifulSoup(html, "html.parser").select("div.tag_hide-output"), "the printed page has no folded output"
    missing = unprinted_folded_outputs(html, pdf_text(PDF)[1])
    assert missing == [], f"folded outputs not printed in the PDF: {missing}"


def machinery_lines(lines: list[str]) -> list[str]:
    """The PDF lines that print a check or a glue call: an ``assert`` statement or ``glue(``."""
    return [line.strip() for line in lines if re.match(r"\s*assert\s", line) or "glue(" in line]


def test_book_pdf_prints_no_assert_line_and_no_glue_call():
    # the two layers on paper: check cells carry hide-input and build_pdf leaves hidden inputs out; glue calls
    # sit in removed or hidden cells (fails until every chapter folds its checks)
    if not PDF.is_file():
        pytest.fail(f"no {PDF.relative_to(ROOT)}: run `make pdf` (after `make book`)")
    found = machinery_lines(pdf_lines(PDF))
    assert found == [], f"{len(found)} assert or glue line(s) printed in the PDF, first: {found[:10]}"


def test_machinery_lines_on_their_boundary():
    lines = ["assert x == 1", "    assert y", "glue('a', 1)", "ts.glue(name, v)", "we assert nothing", "asserted = 2", "glued"]
    assert machinery_lines(lines) == ["assert x == 1", "assert y", "glue('a', 1)", "ts.glue(name, v)"]


def test_cut_code_lines_finds_a_line_the_pdf_broke():
    blocks = ["x = compute(a, b)\n\nprint(f'{x:.2f} is the answer')", "y = 1"]
    assert cut_code_lines(blocks, ["x = compute(a, b)", "print(f'{x:.2f} is the", "answer')", "y = 1"]) == [
        "print(f'{x:.2f} is the answer')"
    ]
    assert cut_code_lines(blocks, ["x  =  compute(a, b)", "1 / 3 print(f'{x:.2f} is the answer')", "y = 1"]) == []


LONG_CODE_LINE = "long_line = " + " + ".join(f"term_{k}" for k in range(16))
"""A code line of 159 characters, about twice what the printed column holds."""


HIDDEN_CHECK = "def glue(name, value):\n    pass\n\n\nglue('x', 1)\nassert 1 == 1\nprint('one check passed')"
"""A check cell tagged hide-input: its output prints, its input (an assert, a glue call) does not."""


def make_tiny_book(root: Path) -> None:
    """Two pages, with math, a figure and a code line too long to print whole; MathJax and the course's print CSS."""
    mathjax = ROOT / "book" / "_static" / "mathjax"
    if not (mathjax / "tex-chtml.js").is_file():
        pytest.fail("book/_static/mathjax is missing: run `make book` once (it fetches MathJax)")
    (root / "_static").mkdir(parents=True)
    os.symlink(mathjax, root / "_static" / "mathjax")
    os.symlink(ROOT / "book" / "_static" / "print.css", root / "_static" / "print.css")
    (root / "_config.yml").write_text(
        "title: Tiny\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: force\n"
        "parse:\n  myst_enable_extensions: [amsmath, dollarmath]\n"
        "sphinx:\n  config:\n    mathjax_path: mathjax/tex-chtml.js\n    html_static_path: ['_static']\n"
        "    html_css_files: ['print.css']\n"
    )
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: chapter\n")
    (root / "intro.md").write_text(
        "# A tiny introduction\n\nInline $a^2 + b^2$ and\n\n$$\nf(X) = \\sum_i q_i u_i\n$$\n\n"
        f"<details><summary>{build_pdf.CHECKS_DROPDOWN}</summary>\n\nTolerance words never printed.\n\n</details>\n"
    )
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# The `second` page\n\nA figure:"),
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"),
        nbformat.v4.new_code_cell(f'globals().update({{f"term_{{k}}": k for k in range(16)}})\nshort_line = 1\n{LONG_CODE_LINE}'),
        nbformat.v4.new_code_cell(HIDDEN_CHECK, metadata={"tags": ["hide-input"]}),
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
    blocks, _ = printed_code((tmp_path / "book" / "_build" / "singlehtml" / "course.html").read_text())
    assert cut_code_lines(blocks, pdf_lines(output)) == [LONG_CODE_LINE]  # broken, not cut off at the margin
    # two layers: the hidden check's output prints, its input does not; the checks dropdown is one line
    assert "one check passed" in text and machinery_lines(pdf_lines(output)) == []
    assert "tolerance words never printed" not in text and "folded in the online edition" in text


def test_page_texts_reads_a_pdf_again_once_it_is_rebuilt(tmp_path):
    def write(path: Path, pages: int) -> None:
        document = pypdfium2.PdfDocument.new()
        for _ in range(pages):
            document.new_page(72, 72)
        document.save(path)
        document.close()

    pdf = tmp_path / "book.pdf"
    write(pdf, 1)
    assert len(page_texts(pdf)) == 1
    write(pdf, 3)
    os.utime(pdf, ns=(pdf.stat().st_atime_ns, pdf.stat().st_mtime_ns + 1_000_000))
    assert len(page_texts(pdf)) == 3, "a rebuilt PDF was answered from the text of the old one"


def test_page_title_strips_markup_and_requires_a_heading(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("Intro line\n\n# Training `p`: *max-margin* $p$\n\n# Second\n")
    assert build_pdf.page_title(page) == "Training p: max-margin p"
    page.write_text("no heading here\n")
    with pytest.raises(ValueError, match="no level-1 heading"):
        build_pdf.page_title(page)
