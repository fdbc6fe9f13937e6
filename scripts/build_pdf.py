"""Build the whole book as one PDF, offline: one HTML page, printed by headless Chromium.

1. ``jupyter-book build ROOT --builder singlehtml`` writes every page of ``_toc.yml`` into one
   HTML file. It executes the chapters as the ``execute:`` block of ``_config.yml`` says (with
   ``cache`` it reuses the executed notebooks of the HTML build).
2. Debian's Chromium (``make browser``), driven by Playwright, opens that page from a local
   server, waits until MathJax has typeset every equation, and prints it to PDF with page
   numbers, after folding the page to its reading path (:data:`FOLD_FOR_PRINT`). Nothing is
   downloaded: Jupyter Book's own PDF builders need either a Chromium
   download (pyppeteer) or a TeX installation.

The PDF follows the book's two layers: it prints the reading path, not the audit trail.
Hidden cell inputs (``hide-input``, ``hide-cell``: the check cells) are not printed, only their
outputs (a line such as "✓ 4 checks passed"); removed cells (glue plumbing) are not in the page at
all. Each chapter's "How this page checks itself" dropdown is left out and replaced by one line
saying where it is (the online page and the notebook hold it): its tolerance reasoning reads only
beside the checks it explains, which the PDF does not print. Other dropdowns (exercise solutions,
sources) print open, and margin notes print beside or below their paragraph, so every claim keeps
its source on paper. ``book/_static/print.css`` does the same for a reader who prints a page.

    python scripts/build_pdf.py                 # -> _build/pdf/course.pdf
    python scripts/build_pdf.py --root /tmp/book --output /tmp/book.pdf
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHECKS_DROPDOWN = "How this page checks itself"
PRINT_SCALE = 0.75
"""The page printed at three quarters of its screen size: the text column and its code at the size they had when the
margin notes, floated past the page's edge, made Chromium shrink every page to fit; the notes now print in the column
(``book/_static/print.css``)."""
# Run in the page before printing: hidden inputs out, the checks dropdown down to one line, other <details> open.
FOLD_FOR_PRINT = """(title) => {
  let inputs = 0, dropdowns = 0;
  document.querySelectorAll('details.above-input, details.below-input, .tag_hide-input .cell_input,'
      + ' .tag_hide-cell .cell_input, .tag_remove-input .cell_input').forEach(e => { e.remove(); inputs++; });
  document.querySelectorAll('details').forEach(d => {
    const summary = d.querySelector('summary');
    if (summary && summary.textContent.includes(title)) {
      const note = document.createElement('p');
      note.className = 'printed-fold-note';
      note.innerHTML = '<em>' + title + ':</em> folded in the online edition and the notebook.';
      d.replaceWith(note);
      dropdowns++;
    } else {
      d.open = true;
    }
  });
  return [inputs, dropdowns];
}"""
FOOTER = (
    '<div style="font-size:8px;width:100%;text-align:center;">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


def toc_files(root: Path) -> list[Path]:
    """The source file of every page of ``root/_toc.yml``, in book order (root page first)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    names = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        names += [chapter["file"] for chapter in part.get("chapters", [])]
    files = []
    for name in names:
        candidates = [root / f"{name}{suffix}" for suffix in ("", ".md", ".ipynb")]
        found = next((path for path in candidates if path.is_file()), None)
        if found is None:
            raise ValueError(f"_toc.yml names {name!r}, but none of {[str(c) for c in candidates]} exists")
        files.append(found)
    return files


def page_title(path: Path) -> str:
    """The first level-1 heading of a Markdown page or notebook, as plain text (no Markdown markup)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        text = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    else:
        text = path.read_text()
    match = re.search(r"^# +(.+?)\s*$", text, flags=re.MULTILINE)
    if match is None:
        raise ValueError(f"{path}: no level-1 heading ('# Title')")
    return re.sub(r"[`*_]|\$", "", match.group(1)).strip()


def chromium_path() -> str:
    """Debian's Chromium (installed by ``make browser``), or $CHROMIUM."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise FileNotFoundError("Chromium is missing: run `make browser` (apt-get install chromium) or set CHROMIUM")
    return path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        pass


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """A local HTTP server over ``directory``; yields its base URL."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()


def build_single_html(root: Path) -> Path:
    """Run Jupyter Book's singlehtml builder on ``root``; return the page that holds the book."""
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    subprocess.run([str(jupyter_book), "build", str(root), "--builder", "singlehtml"], check=True)
    # The whole book is in the root page's file (index.html only redirects to it). Its links to
    # _static/ and _images/ are relative to the output folder even when the root page sits in a
    # subfolder (book/intro), so it is printed from a copy at the folder's top.
    out = root / "_build" / "singlehtml"
    page = out / f"{yaml.safe_load((root / '_toc.yml').read_text())['root']}.html"
    if not page.is_file():
        raise FileNotFoundError(f"the singlehtml build wrote no {page}")
    return Path(shutil.copy(page, out / "course.html"))


def print_to_pdf(page: Path, output: Path) -> None:
    """Open ``page`` in headless Chromium, wait for MathJax, print it to ``output`` (A4)."""
    from playwright.sync_api import sync_playwright

    output.parent.mkdir(parents=True, exist_ok=True)
    with serve(page.parent) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            tab = browser.new_page()
            # Anything that would leave the machine is blocked: the book serves all it needs itself.
            tab.route("**/*", lambda route, request: route.continue_() if request.url.startswith(base) else route.abort())
            tab.goto(base + page.name, wait_until="load", timeout=120_000)
            if tab.locator("span.math, div.math").count():
                tab.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=60_000)
                tab.evaluate("MathJax.startup.promise")
            inputs, dropdowns = tab.evaluate(FOLD_FOR_PRINT, CHECKS_DROPDOWN)
            print(f"folded for print: {inputs} hidden cell input(s) left out, {dropdowns} checks dropdown(s) to one line")
            tab.pdf(
                path=str(output),
                format="A4",
                scale=PRINT_SCALE,
                print_background=True,
                margin={"top": "15mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
                display_header_footer=True,
                header_template="<span></span>",
                footer_template=FOOTER,
            )
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's root (holds _config.yml and _toc.yml)")
    parser.add_argument("--output", type=Path, help="the PDF to write (default: ROOT/_build/pdf/course.pdf)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    output = (args.output or root / "_build" / "pdf" / "course.pdf").resolve()
    toc_files(root)  # fails early, before the build, when _toc.yml names a missing page
    print_to_pdf(build_single_html(root), output)
    print(f"wrote {output} ({output.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
