"""Open every page of the built book in headless Chromium and check what a reader sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent

# Console errors that are harmless and expected, each with the reason. Nothing else may appear.
KNOWN_HARMLESS_CONSOLE_ERRORS: dict[str, str] = {
    # Chromium reports every request that the test itself blocked (see `open_page`); those URLs are
    # asserted separately (there must be none), so the console echo of a block adds nothing.
    "net::ERR_FAILED": "echo of a request blocked by the test harness",
    # sphinx-thebe (loaded by Jupyter Book 1 whether or not live code is used) adds its inline
    # configuration script twice; the second `const` declaration fails. Live code (thebe) is not
    # used by this book, so nothing depends on that script.
    "Identifier 'THEBE_JS_URL' has already been declared": "sphinx-thebe config script included twice",
}

RAW_MATH = re.compile(r"\$\$.+?\$\$|(?<![\w$])\$[^$\s][^$\n]{0,200}?[^$\s\\]\$(?![\w$])|\\\(|\\\[")


def toc_pages() -> list[str]:
    """Every page of ``_toc.yml`` as its HTML path, root first."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part.get("chapters", [])]
    return [f"{name}.html" for name in files]


PAGES = toc_pages()


@pytest.mark.parametrize("path", PAGES)
def test_page_renders_offline_with_math_and_figures(open_page, path):
    page = open_page(path)
    assert page.title().strip(), f"{path}: empty <title>"
    article = page.locator("article.bd-article")
    assert article.count() == 1, f"{path}: no article element"
    assert len(article.inner_text().strip()) > 200, f"{path}: the article holds almost no text"
    heading = page.locator("article h1").first.inner_text()
    assert heading.strip(), f"{path}: no h1 heading"

    # math: wait for MathJax, then no math element is left untypeset and no raw TeX shows in prose
    math = page.locator("span.math, div.math")
    if math.count():
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20_000)
        page.evaluate("MathJax.startup.promise")
        untypeset = page.evaluate(
            "[...document.querySelectorAll('span.math, div.math')].filter(e => !e.querySelector('mjx-container')).length"
        )
        assert untypeset == 0, f"{path}: {untypeset} of {math.count()} math elements were not typeset"
    prose = page.evaluate(
        """() => { const a = document.querySelector('article').cloneNode(true);
                   a.querySelectorAll('pre, code, mjx-container, .cell_output, script, style').forEach(e => e.remove());
                   return a.innerText; }"""
    )
    raw = RAW_MATH.findall(prose)
    assert not raw, f"{path}: raw TeX shows on the page: {raw[:3]}"

    # every image loads
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    images = page.evaluate(
        "[...document.querySelectorAll('article img')]"
        ".map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0}))"
    )
    broken = [image["src"] for image in images if not image["ok"]]
    assert not broken, f"{path}: images that did not load: {broken}"
    source = ROOT / path.replace(".html", ".ipynb")
    if source.exists() and "plt.show()" in source.read_text():
        assert images, f"{path}: the chapter calls plt.show() but the page has no figure (is a non-inline backend set?)"

    assert page.external_requests == [], f"{path}: requests tried to leave the machine: {page.external_requests}"
    unexpected = [e for e in page.console_errors if not any(known in e for known in KNOWN_HARMLESS_CONSOLE_ERRORS)]
    assert unexpected == [], f"{path}: console errors: {unexpected}"


def test_every_chapter_has_a_colab_launch_button(built_site):
    for path in PAGES:
        if path.startswith("notebooks/"):
            html = (built_site / path).read_text()
            expected = (
                f"colab.research.google.com/github/token-selection-course/attention-selects-tokens/blob/main/{path[:-5]}.ipynb"
            )
            assert expected in html, f"{path}: no Colab launch button"
