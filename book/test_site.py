"""Open every page of the built book in headless Chromium and check what a reader sees."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from token_selection.prose import glue_plumbing

ROOT = Path(__file__).resolve().parent.parent

# Console errors that are harmless and expected, each with the reason. Nothing else may appear.
KNOWN_HARMLESS_CONSOLE_ERRORS: dict[str, str] = {
    # Chromium reports every request that the test itself blocked (see `open_page`); those URLs are
    # asserted separately (there must be none), so the console echo of a block adds nothing.
    "net::ERR_FAILED": "echo of a request blocked by the test harness",
}

RAW_MATH = re.compile(r"\$\$.+?\$\$|(?<![\w$])\$[^$\s][^$\n]{0,200}?[^$\s\\]\$(?![\w$])|\\\(|\\\[")

# MyST that did not render shows up as text. Each pattern is searched in the article's visible prose:
# without code (blocks and inline spans), outputs and typeset math. A fence broken by backticks in its
# info string becomes a paragraph whose plain text still holds the fence and its options.
UNRENDERED_MYST: dict[str, re.Pattern] = {
    "a directive fence left as text": re.compile(r"(?:```|~~~|:::)\s*\{[\w:.-]+\}"),
    "a directive option left as text": re.compile(r"(?<![\w:]):(?:label|name|class|nonumber|enumerated|figwidth|align):(?=\s)"),
    "a role left as text": re.compile(r"\{(?:glue|glue:\w+|eq|ref|numref|doc|cite|cite:\w+|prf:ref|math|download|term)\}"),
    "a glue reference left as text": re.compile(r"\{glue"),
    "display math left as text": re.compile(r"\$\$"),
}

VISIBLE_PROSE = """() => { const a = document.querySelector('article').cloneNode(true);
  a.querySelectorAll('pre, code, div.highlight, mjx-container, .cell_output, .cell_input, script, style')
    .forEach(e => e.remove());
  return a.innerText; }"""

# Every Plotly figure's labels (title, annotations such as subplot titles, axis titles, legend) and the
# plot areas of its subplots, as page-pixel boxes. An axis title belongs to the subplots whose id names its axis.
PLOTLY_LABEL_BOXES = """() => [...document.querySelectorAll('.js-plotly-plot')].map((plot, figure) => {
  const box = (element, kind, axis) => {
    const r = element.getBoundingClientRect();
    const text = element.textContent.trim().slice(0, 60);
    return {kind, axis, text, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  };
  const labels = [];
  plot.querySelectorAll('.gtitle').forEach(e => labels.push(box(e, 'title', '')));
  plot.querySelectorAll('g.annotation').forEach(e => labels.push(box(e, 'annotation', '')));
  plot.querySelectorAll('g.legend').forEach(e => labels.push(box(e, 'legend', '')));
  plot.querySelectorAll('g.slider-group').forEach(e => labels.push(box(e, 'slider', '')));
  plot.querySelectorAll('[class^="g-x"][class$="title"], [class^="g-y"][class$="title"]').forEach(e =>
    labels.push(box(e, 'axis title', e.getAttribute('class').slice(2, -5))));
  const areas = [...plot.querySelectorAll('.draglayer > g')].map(g => {
    const drag = g.querySelector('.nsewdrag');
    return drag ? box(drag, 'plot area', g.getAttribute('class').split(' ')[0]) : null;
  }).filter(Boolean);
  const visible = b => b.right - b.left > 0 && b.bottom - b.top > 0 && (b.kind === 'plot area' || b.text);
  return {figure, id: plot.id || '', labels: labels.filter(visible), areas: areas.filter(visible)};
})"""

# Glued values (myst-nb's pasted text) set in another font weight than the element around them: the first 60 characters.
BOLD_GLUE = """[...document.querySelectorAll('article span.pasted-text')]
  .filter(s => getComputedStyle(s).fontWeight !== getComputedStyle(s.parentElement).fontWeight)
  .map(s => s.textContent.trim().slice(0, 60))"""

# The window the code column is measured at: the chapters' code is formatted to the characters a code
# cell shows there (notebooks/ruff.toml, CONTRIBUTING.md), so no code block may scroll sideways.
READING_VIEWPORT = {"width": 1300, "height": 900}

# Opens everything a reader can open in the article: folded cells (<details>) and toggled dropdowns (an exercise's
# solution: sphinx-togglebutton's .toggle-hidden), so that what they hold can be measured.
OPEN_EVERY_FOLD = """
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
  document.querySelectorAll('article .toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
"""

# Code and printed output the reader can open on the page: every <pre> of the article, every fold opened first. For
# each that scrolls sideways: by how many pixels, and its longest line.
SCROLLING_CODE = (
    "() => {"
    + OPEN_EVERY_FOLD
    + """  return [...document.querySelectorAll('article pre')]
    .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
    .map(pre => ({overflow: pre.scrollWidth - pre.clientWidth,
                  line: pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '')}));
}"""
)

# Printed output that the stylesheet wraps (white-space: pre-wrap) where wrapping breaks its layout: a line laid out
# in columns (two runs of text with three or more spaces between them) or indented as code (four spaces) that is
# longer than the block shows on one row. A sentence may wrap; a table row or a line of code may not.
WRAPPED_COLUMNS = (
    "() => {"
    + OPEN_EVERY_FOLD
    + r"""  const ruler = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('article .cell_output pre')].flatMap(pre => {
    const style = getComputedStyle(pre);
    if (!style.whiteSpace.includes('wrap')) return [];
    ruler.font = style.font;
    const room = Math.floor((pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight))
                            / ruler.measureText('0').width);
    return pre.textContent.split('\n').filter(line => line.length > room && /^ {4}|\S {3,}\S/.test(line))
      .map(line => ({room, line}));
  });
}"""
)

# Tables and display equations of the text column (margins left out) that do not fit it: a table whose right edge
# passes the column's, an equation that MathJax lets scroll sideways (its end is cut off until the reader scrolls).
WIDE_BLOCKS = """() => {
  const column = document.querySelector('article').getBoundingClientRect().right;
  const inText = el => !el.closest('aside, .margin, .sidebar');
  const tables = [...document.querySelectorAll('article table')].filter(inText)
    .filter(t => t.getBoundingClientRect().width > 0 && t.getBoundingClientRect().right > column + 1)
    .map(t => ({kind: 'table', overflow: Math.round(t.getBoundingClientRect().right - column),
                text: t.textContent.trim().slice(0, 60)}));
  const equations = [...document.querySelectorAll('article mjx-container[display="true"]')].filter(inText)
    .filter(m => m.scrollWidth > m.clientWidth + 1)
    .map(m => ({kind: 'equation', overflow: m.scrollWidth - m.clientWidth, text: m.textContent.slice(0, 60)}));
  return [...tables, ...equations];
}"""

# Margin and side notes of the article that scroll sideways (the theme lets them: what does not fit is cut off).
WIDE_MARGINS = """() => [...document.querySelectorAll('article aside, article .margin, article .sidebar')]
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => ({overflow: e.scrollWidth - e.clientWidth, text: e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 60)}))"""

# Words of the text column's table headers that break across two lines ("see / ds"; a break at a hyphen is a break
# between words): each word's range has one line box per line it spans.
BROKEN_HEADER_WORDS = """() => [...document.querySelectorAll('article table th')]
  .filter(th => !th.closest('aside, .margin, .sidebar'))
  .flatMap(th => {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    const broken = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/[A-Za-z][A-Za-z']+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  })"""

# The cells of pandas tables that pandas cut short (display.max_colwidth ends them with "...").
TRUNCATED_CELLS = (
    "[...document.querySelectorAll('article table.dataframe td')]"
    ".map(td => td.textContent.trim()).filter(text => text.endsWith('...'))"
)
# The source of every code cell on the page (folded ones included; removed ones are not on the page).
CELL_SOURCES = "[...document.querySelectorAll('article .cell_input pre')].map(pre => pre.textContent)"


def reader_defects(page) -> list[str]:
    """What a reader should not see on ``page``: test markers, cells that only glue values, table cells that pandas
    cut short, code that scrolls sideways, tables and equations wider than the text column.

    Sets the viewport to ``READING_VIEWPORT`` and opens every folded cell.
    """
    problems = []
    if "NBVAL" in page.evaluate("document.querySelector('article').textContent"):
        problems.append("test machinery shows: the text 'NBVAL' is on the page (use the nbval-check-output tag)")
    for source in page.evaluate(CELL_SOURCES):
        if glue_plumbing(source):
            first = source.strip().splitlines()[0]
            problems.append(f"a cell that only glues values is shown (tag it remove-cell): {first[:60]!r}")
    for cell in page.evaluate(TRUNCATED_CELLS):
        problems.append(f"a table cell is cut short (pandas display.max_colwidth): {cell[:70]!r}")
    page.set_viewport_size(READING_VIEWPORT)
    for block in page.evaluate(SCROLLING_CODE):
        problems.append(
            f"a code block scrolls sideways by {block['overflow']} px at {READING_VIEWPORT['width']} px: "
            f"{block['line'].strip()[:70]!r} ({len(block['line'])} characters)"
        )
    for wrapped in page.evaluate(WRAPPED_COLUMNS):
        problems.append(
            f"a printed table row or code line wraps at {READING_VIEWPORT['width']} px "
            f"({len(wrapped['line'])} characters, {wrapped['room']} fit): {wrapped['line'].strip()[:70]!r}"
        )
    for note in page.evaluate(WIDE_MARGINS):
        problems.append(
            f"a margin note is {note['overflow']} px wider than its box at {READING_VIEWPORT['width']} px (cut off): "
            f"{note['text']!r}"
        )
    for word in page.evaluate(BROKEN_HEADER_WORDS):
        problems.append(f"a table header breaks the word {word!r} across two lines at {READING_VIEWPORT['width']} px")
    for block in page.evaluate(WIDE_BLOCKS):
        problems.append(
            f"{'an' if block['kind'] == 'equation' else 'a'} {block['kind']} is {block['overflow']} px wider than the "
            f"text column at {READING_VIEWPORT['width']} px: "
            f"{block['text']!r}"
        )
    return problems


def unrendered_myst(text: str) -> list[str]:
    """What looks like MyST markup left as text in ``text``: 'kind: excerpt' for each find."""
    found = []
    for kind, pattern in UNRENDERED_MYST.items():
        for match in pattern.finditer(text):
            excerpt = text[max(0, match.start() - 30) : match.end() + 30].replace("\n", " ")
            found.append(f"{kind}: ...{excerpt}...")
    return found


def _overlap(a: dict, b: dict, tolerance_px: float) -> bool:
    width = min(a["right"], b["right"]) - max(a["left"], b["left"])
    height = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return width > tolerance_px and height > tolerance_px


def _own_area(axis_title: dict, area: dict) -> bool:
    """Whether ``area`` is a subplot of the axis the title names (subplot "x2y2" owns axes "x2" and "y2")."""
    match = re.fullmatch(r"(x\d*)(y\d*)", area["axis"])
    return bool(match) and axis_title["axis"] in match.groups()


def overlapping_labels(figures: list[dict], tolerance_px: float = 1.0) -> list[str]:
    """Figure labels that overlap one another, or an axis title that reaches into another subplot's plot area."""
    found = []
    for figure in figures:
        name = figure["id"] or f"#{figure['figure']}"
        labels = figure["labels"]
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                if _overlap(a, b, tolerance_px):
                    found.append(f"figure {name}: {a['kind']} {a['text']!r} overlaps {b['kind']} {b['text']!r}")
        for title in (label for label in labels if label["kind"] == "axis title"):
            for area in figure["areas"]:
                if not _own_area(title, area) and _overlap(title, area, tolerance_px):
                    found.append(f"figure {name}: axis title {title['text']!r} reaches into the plot area of {area['axis']}")
    return found


def check_rendered(page) -> list[str]:
    """Every rendering defect the browser can see on ``page``: raw MyST, overlapping figure labels, glued values set
    bold, images that did not load or have no alt text."""
    problems = unrendered_myst(page.evaluate(VISIBLE_PROSE))
    problems += overlapping_labels(page.evaluate(PLOTLY_LABEL_BOXES))
    problems += [f"a glued value is set in another weight than its sentence: {text!r}" for text in page.evaluate(BOLD_GLUE)]
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    images = page.evaluate(
        "[...document.querySelectorAll('article img')]"
        ".map(i => ({src: i.getAttribute('src'), alt: i.getAttribute('alt'), ok: i.complete && i.naturalWidth > 0}))"
    )
    problems += [f"image that did not load: {image['src']}" for image in images if not image["ok"]]
    problems += [
        f"a figure without alt text (a cell's figure takes it from the cell's metadata, mystnb.image.alt): {image['src']}"
        for image in images
        if missing_alt(image["alt"])
    ]
    return problems


FILE_NAME = re.compile(r"\S*(?:\.(?:png|svg|jpe?g|gif)|/\S*)", re.IGNORECASE)
"""An alt text that is a path or a file name: one word holding a slash or ending in an image extension."""


def missing_alt(alt: str | None) -> bool:
    """Whether an image's alt text is missing, blank or a file name (what myst-nb writes for a cell's figure unless the
    cell's metadata gives ``mystnb.image.alt``): a screen reader would read the path."""
    return not (alt or "").strip() or FILE_NAME.fullmatch(alt.strip()) is not None


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

    # no MyST left as text, no overlapping figure labels, every image loads
    if page.locator(".js-plotly-plot").count():
        page.wait_for_function("[...document.querySelectorAll('.js-plotly-plot')].every(p => p._fullLayout)", timeout=20_000)
    problems = check_rendered(page)
    assert not problems, f"{path}: rendering defects:\n" + "\n".join(problems)
    source = ROOT / path.replace(".html", ".ipynb")
    if source.exists() and "plt.show()" in source.read_text():
        assert page.locator("article img").count(), (
            f"{path}: the chapter calls plt.show() but the page has no figure (is a non-inline backend set?)"
        )

    assert page.external_requests == [], f"{path}: requests tried to leave the machine: {page.external_requests}"
    unexpected = [e for e in page.console_errors if not any(known in e for known in KNOWN_HARMLESS_CONSOLE_ERRORS)]
    assert unexpected == [], f"{path}: console errors: {unexpected}"

    # the folded layer of a chapter (clicks its checks dropdown and one hidden input open)
    if path in CHAPTER_PAGES and path not in NO_CHECKS_DROPDOWN:
        folded = folded_parts_defects(page)
        assert not folded, f"{path}: the folded parts do not open or hold what they should:\n" + "\n".join(folded)

    # last, as it resizes the window and opens the folded cells
    defects = reader_defects(page)
    assert not defects, f"{path}: what the reader should not see:\n" + "\n".join(defects)


def test_every_chapter_has_a_colab_launch_button(built_site):
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    github = repository["url"].removeprefix("https://github.com/")
    for path in PAGES:
        if path.startswith("notebooks/"):
            html = (built_site / path).read_text()
            expected = f"colab.research.google.com/github/{github}/blob/{repository['branch']}/{path[:-5]}.ipynb"
            assert expected in html, f"{path}: no Colab launch button"
            assert f"{repository['url']}/issues/new" in html, f"{path}: no issues button"
    # a Markdown page (the front page, the closing page) has no launch button: Colab cannot open its .md source
    for path in ("book/intro.html", "book/closing.html"):
        assert "colab.research.google.com" not in (built_site / path).read_text(), f"{path}: a Colab launch button"


# The checker itself, on pages fed to the browser: it must catch each kind of defect and pass a clean page.

BROKEN_DIRECTIVE = """<article class="bd-article"><section><h1>Two layers</h1>
<p>```{prf:definition} Two-layer <code class="docutils literal notranslate"><span class="pre">&lt;cls&gt;</span></code>
attention (ours)
:label: ch6-def-two-layer</p>
<p>With embeddings E and two vectors the first layer attends with a fixed query.</p></section></article>"""
"""What MyST makes of a directive whose title holds backticks (they end a backtick fence's info string)."""

RENDERED_DIRECTIVE = """<article class="bd-article"><section><h1>Two layers</h1>
<div class="proof definition admonition" id="ch6-def-two-layer"><p class="admonition-title">
<span class="caption-number">Definition 1 </span> (Two-layer <code>&lt;cls&gt;</code> attention (ours))</p>
<section class="definition-content"><p>With embeddings E and two vectors the first layer attends.</p></section></div>
<p>See <a href="#ch6-def-two-layer">Definition 1</a>; the accuracy is 88.1%.</p></section></article>"""


@pytest.fixture
def feed(browser):
    """``feed(article)`` -> a page whose body is ``article``. The test's pages share one browser context, closed
    (with every page in it) when the test ends: a page left open would keep its renderer busy for the session."""
    context = browser.new_context()

    def opener(article: str):
        page = context.new_page()
        page.set_content(f"<html><body>{article}</body></html>")
        return page

    yield opener
    context.close()


def test_checker_catches_a_directive_left_as_text(feed):
    problems = check_rendered(feed(BROKEN_DIRECTIVE))
    assert any(p.startswith("a directive fence left as text") and "prf:definition" in p for p in problems), problems
    assert any(p.startswith("a directive option left as text") for p in problems), problems
    assert check_rendered(feed(RENDERED_DIRECTIVE)) == []


@pytest.mark.parametrize(
    "markup, kind",
    [
        ("the accuracy is {glue:text}`acc_trained:.1%`", "a role left as text"),
        ("the accuracy is {glue}`acc`", "a glue reference left as text"),
        ("$$ a = b $$", "display math left as text"),
        (":::{note} text", "a directive fence left as text"),
    ],
)
def test_checker_catches_other_markup_left_as_text(markup, kind):
    assert any(p.startswith(kind) for p in unrendered_myst(f"Some prose, then {markup}, then more prose.")), kind


def test_checker_ignores_markup_inside_code_blocks(feed):
    code = "```{prf:definition} x\n:label: y\n$$"
    article = f'<article class="bd-article"><p>Prose.</p><div class="highlight"><pre>{code}</pre></div></article>'
    assert check_rendered(feed(article)) == []


def _draw_figure(page, titles: list[str], width_px: int):
    """Draw a three-panel Plotly figure with ``titles`` into the page's ``div#figure``, in place of what it held."""
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=3, subplot_titles=titles)
    for column in (1, 2, 3):
        figure.add_scatter(x=[0, 1], y=[0, 1], row=1, col=column, name=f"trace {column}")
    figure.update_layout(title="Three panels", width=width_px, height=300, showlegend=True)
    page.evaluate("(spec) => Plotly.newPlot('figure', spec.data, spec.layout)", json.loads(figure.to_json()))
    return page


def test_checker_catches_overlapping_subplot_titles(feed):
    import plotly

    page = feed('<article class="bd-article"><div id="figure"></div></article>')
    page.add_script_tag(path=str(Path(plotly.__file__).parent / "package_data" / "plotly.min.js"))  # once: 4.7 MB
    long_titles = [f"panel {k}: a subplot title far too long for a third of the figure's width" for k in (1, 2, 3)]
    problems = check_rendered(_draw_figure(page, long_titles, width_px=700))
    assert any("overlaps" in p and "panel 1" in p for p in problems), problems
    assert check_rendered(_draw_figure(page, ["alignment", "selection", "training"], width_px=900)) == []
    assert page.evaluate("document.querySelectorAll('.gtitle').length") == 1  # the second figure replaced the first


def test_checker_catches_a_glued_value_set_bold_in_plain_prose(feed):
    style = "<style>span.pasted-text { font-weight: bold; }</style>"  # myst-nb's own rule, without the book's
    sentence = '<article class="bd-article"><p>{}The accuracy is <span class="pasted-text">88.1%</span>.</p></article>'
    assert check_rendered(feed(sentence.format(style))) == ["a glued value is set in another weight than its sentence: '88.1%'"]
    assert check_rendered(feed(sentence.format(""))) == []
    emphasised = sentence.format(style).replace("<p>", "<p><strong>").replace(".</p>", "</strong>.</p>")
    assert check_rendered(feed(emphasised)) == []  # bold inside bold prose is the prose's weight


def test_missing_alt_reads_a_missing_blank_or_file_name_alt():
    assert not missing_alt("Line plot of the loss against the epoch")
    assert not missing_alt("Accuracy against d/V, one line per arm")  # a slash in prose
    for alt in (None, "", "  ", "../_images/f.png", "f.PNG", "figures/opening", " opening.svg "):
        assert missing_alt(alt), alt


PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def test_checker_catches_a_figure_without_alt_text(feed):
    figure = '<article class="bd-article"><p>A figure:</p><img {} src="' + PIXEL + '"></article><img src="' + PIXEL + '">'
    assert check_rendered(feed(figure.format('alt="Line plot of the loss against the epoch"'))) == []
    for attribute in ('alt="../_images/f.png"', 'alt=" "', ""):  # a file name, blank, none; the image outside is not read
        problems = check_rendered(feed(figure.format(attribute)))
        assert problems == [
            f"a figure without alt text (a cell's figure takes it from the cell's metadata, mystnb.image.alt): {PIXEL}"
        ], attribute


def test_checker_catches_a_missing_image(feed):
    page = feed('<article class="bd-article"><p>A figure:</p><img src="data:image/png;base64,AAAA"></article>')
    assert any(p.startswith("image that did not load") for p in check_rendered(page))


def _code_page(feed, code: str, cell_class: str = "cell_input"):
    """A fed page whose article, 700 px wide as the book's code column at 1300 px, holds one cell with ``code``."""
    article = (
        '<article class="bd-article" style="width: 700px"><p>Prose.</p>'
        f'<div class="cell"><div class="{cell_class}"><div class="highlight">'
        f'<pre style="overflow-x: auto; font: 14px monospace; padding: 16px">{code}</pre></div></div></div></article>'
    )
    return feed(article)


def test_reader_checker_opens_a_solution_before_measuring_its_code(feed):
    # sphinx-togglebutton hides a solution's body under .toggle-hidden; hidden, its code has no width to measure
    long_line = "x = " + " + ".join(["value"] * 20)
    article = (
        "<style>.toggle-hidden { display: none; }</style>"
        '<article class="bd-article" style="width: 700px"><div class="solution dropdown"><div class="toggle-hidden">'
        '<div class="cell"><div class="cell_input"><div class="highlight">'
        f'<pre style="overflow-x: auto; font: 14px monospace; padding: 16px">{long_line}</pre>'
        "</div></div></div></div></div></article>"
    )
    problems = reader_defects(feed(article))
    assert len(problems) == 1 and problems[0].startswith("a code block scrolls sideways"), problems


def test_reader_checker_catches_a_code_block_that_scrolls(feed):
    long_line = "x = " + " + ".join(["value"] * 20)
    problems = reader_defects(_code_page(feed, long_line))
    assert len(problems) == 1 and problems[0].startswith("a code block scrolls sideways"), problems
    assert reader_defects(_code_page(feed, "x = 1\ny = x + 1")) == []
    # a printed output that scrolls hides text as well (the book's stylesheet wraps outputs; this fed page has none)
    output = reader_defects(_code_page(feed, long_line, cell_class="cell_output"))
    assert len(output) == 1 and output[0].startswith("a code block scrolls sideways"), output
    wrapped = long_line.replace(" + value + value", " + value\n+ value", 9)
    assert reader_defects(_code_page(feed, wrapped, cell_class="cell_output")) == []


def _output_page(feed, text: str):
    """A fed page whose article, 700 px wide, holds one printed output wrapped as the book's stylesheet wraps it."""
    return feed(
        '<article class="bd-article" style="width: 700px"><div class="cell"><div class="cell_output">'
        f'<pre style="white-space: pre-wrap; font: 14px monospace; padding: 16px">{text}</pre></div></div></article>'
    )


def test_reader_checker_catches_a_printed_table_row_or_code_line_that_wraps(feed):
    room = _output_page(feed, "x").evaluate(
        "(() => { const pre = document.querySelector('pre'); const c = document.createElement('canvas').getContext('2d');"
        " c.font = getComputedStyle(pre).font; return Math.floor((pre.clientWidth - 32) / c.measureText('0').width); })()"
    )
    row = "delta" + " " * 3 + "x" * (room - 8)  # exactly the room: fits on one row
    assert len(row) == room and reader_defects(_output_page(feed, row)) == []
    wraps = reader_defects(_output_page(feed, row + "y"))
    assert len(wraps) == 1 and wraps[0].startswith("a printed table row or code line wraps"), wraps
    assert f"({room + 1} characters, {room} fit)" in wraps[0], wraps
    code = "    " + "z" * (room - 3)
    assert len(reader_defects(_output_page(feed, code))) == 1  # indented as code
    assert reader_defects(_output_page(feed, code[:-1])) == []
    # a sentence may wrap: no column gap, no code indentation
    assert reader_defects(_output_page(feed, " ".join(["word"] * room))) == []
    assert reader_defects(_output_page(feed, "   " + "w" * room)) == []  # three spaces are not code


def _wide_page(feed, inner: str):
    """A fed page whose article, 700 px wide, holds ``inner``."""
    return feed(f'<article class="bd-article" style="width: 700px"><p>Prose.</p>{inner}</article>')


def test_reader_checker_catches_a_table_or_an_equation_wider_than_the_column(feed):
    wide = '<table style="width: 760px"><tr><td>model</td><td>record</td></tr></table>'
    problems = reader_defects(_wide_page(feed, wide))
    assert len(problems) == 1 and problems[0].startswith("a table is 60 px wider than the text column"), problems
    assert reader_defects(_wide_page(feed, wide.replace("760px", "700px"))) == []  # flush with the column
    # beside the text: a table in a margin note wide enough for it is not measured against the text column
    assert reader_defects(_wide_page(feed, f'<aside class="margin" style="width: 800px">{wide}</aside>')) == []
    equation = (
        '<mjx-container display="true" style="display: block; overflow-x: auto; width: 500px">'
        '<span style="display: inline-block; width: {w}px">x</span></mjx-container>'
    )
    cut = reader_defects(_wide_page(feed, equation.format(w=620)))
    assert len(cut) == 1 and cut[0].startswith("an equation is 120 px wider than the text column"), cut
    assert reader_defects(_wide_page(feed, equation.format(w=500))) == []
    inline = equation.replace('display="true"', 'display="false"').format(w=620)
    assert reader_defects(_wide_page(feed, inline)) == []  # only display equations are read


def test_reader_checker_catches_a_table_header_that_breaks_a_word(feed):
    header = (
        '<table style="width: 300px"><tr><th style="overflow-wrap: {wrap}; width: 28px">seeds</th>'
        "<th>how p is trained, at length</th></tr><tr><td>0 to 19</td><td>unit steps</td></tr></table>"
    )
    broken = reader_defects(_wide_page(feed, header.format(wrap="anywhere")))
    assert broken == [f"a table header breaks the word 'seeds' across two lines at {READING_VIEWPORT['width']} px"]
    assert reader_defects(_wide_page(feed, header.format(wrap="break-word"))) == []  # the column widens to the word
    two_lines = header.format(wrap="break-word").replace("seeds", "seeds per d")
    assert reader_defects(_wide_page(feed, two_lines)) == []  # a header on two lines, broken between words


def test_reader_checker_catches_a_margin_note_wider_than_its_box(feed):
    note = '<aside class="margin sidebar" style="width: 200px; overflow-x: auto"><p>The files</p><p>{}</p></aside>'
    path = "<code style='white-space: nowrap'>yelp_review_full/{train,test}.parquet_and_more</code>"
    cut = reader_defects(_wide_page(feed, note.format(path)))
    assert len(cut) == 1 and cut[0].startswith("a margin note is ") and "wider than its box" in cut[0], cut
    assert "'The files yelp_review_full/" in cut[0], "the note's text, its white space collapsed"
    assert reader_defects(_wide_page(feed, note.format(path.replace("nowrap", "normal; overflow-wrap: anywhere")))) == []
    assert reader_defects(_wide_page(feed, note.format("a short note"))) == []


def test_reader_checker_catches_a_table_cell_that_pandas_cut_short(feed):
    table = '<table class="dataframe"><tr><td>{}</td><td>about 8</td></tr></table>'
    cut = reader_defects(_wide_page(feed, table.format("9.73 [9.16, 10.30] (5 seeds), 80 epochs, at th...")))
    assert cut == ["a table cell is cut short (pandas display.max_colwidth): '9.73 [9.16, 10.30] (5 seeds), 80 epochs, at th...'"]
    assert reader_defects(_wide_page(feed, table.format("9.73 [9.16, 10.30] (5 seeds)"))) == []
    assert reader_defects(_wide_page(feed, "<table><tr><td>and so on...</td></tr></table>")) == []  # not pandas'


def test_reader_checker_catches_test_markers_and_glue_plumbing(feed):
    marked = reader_defects(_code_page(feed, "# NBVAL_CHECK_OUTPUT\nprint(1)"))
    assert [p.split(":")[0] for p in marked] == ["test machinery shows"], marked
    glued = reader_defects(_code_page(feed, 'glue("ch9-a", 1)\nglue("ch9-b", 2)'))
    assert len(glued) == 1 and glued[0].startswith("a cell that only glues values"), glued
    assert reader_defects(_code_page(feed, 'a = 1\nglue("ch9-a", a)')) == []


# --- two layers: the reading path holds no check, little machinery; the folded parts hold it -------------------
# The reading path of a page is what shows when it opens (token_selection.reading_path: <details>, margin and
# side notes, dropdowns and toggled solutions left out). These tests read the built HTML; they run on any build
# (BOOK_HTML points them at one) and need no browser, except the last one, which opens the folded parts.

FRONT_PAGE = PAGES[0]
CHAPTER_PAGES = [path for path in PAGES if path.startswith("notebooks/")]
READING_PAGES = [FRONT_PAGE, *CHAPTER_PAGES]
# Share of machinery sentences allowed on the reading path: the front page and chapters 1-5 are read by every
# learner; chapters 9 and 9b are the referee's reference pages (a learner may skip them) and have no limit.
MACHINERY_LIMITS = {FRONT_PAGE: 0.10, **{p: 0.10 for p in CHAPTER_PAGES if p[10:12] in {"01", "02", "03", "04", "05"}}}
MACHINERY_EXCEPTED = {p for p in CHAPTER_PAGES if p[10:12] == "09"}
MACHINERY_DEFAULT_LIMIT = 0.15
# Pages whose prose is not yet rewritten for the two layers (their checks are folded, their sentences not yet moved
# into margins and dropdowns): each may not go above the share measured on its last build (a ceiling that only
# comes down); a page that meets its limit leaves this list (test_a_page_leaves_the_ceilings_when_it_meets_its_limit).
MACHINERY_CEILINGS: dict[str, float] = {}
# Chapters that need no "How this page checks itself" dropdown, each with the reason. None today.
NO_CHECKS_DROPDOWN: dict[str, str] = {}
CHECKS_DROPDOWN = "How this page checks itself"


def _reading_path(built_site: Path, path: str):
    from token_selection.reading_path import reading_path

    return reading_path((built_site / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", READING_PAGES)
def test_the_reading_path_shows_no_assert_line(built_site, path):
    from token_selection.reading_path import assert_lines

    found = assert_lines(_reading_path(built_site, path).code)
    assert not found, f"{path}: {len(found)} assert line(s) on the reading path, first: {found[:3]}"


NAMED_TARGETS = r"exercise|chapter|figure|section|equation|theorem|observation|definition|proposition|lemma|remark"
DOUBLED_NAME = re.compile(rf"\b({NAMED_TARGETS})\s+\1\b|\bfigure\s+fig\.", re.IGNORECASE)
"""A kind named twice in a row, as prose before a reference that names its kind itself: "the exercise Exercise 20",
"the figure Fig. 4", "chapter chapter"."""


def doubled_names(text: str) -> list[str]:
    """Each place in ``text`` where a kind of target is named twice in a row, with a little context."""
    return [text[max(0, m.start() - 30) : m.end() + 10].replace("\n", " ") for m in DOUBLED_NAME.finditer(text)]


def test_doubled_names_are_found_with_any_case_and_spacing_and_only_when_doubled():
    assert len(doubled_names("twins; the exercise Exercise 20 shows")) == 1
    assert len(doubled_names("read chapter\nChapter 4 and the figure Fig. 4")) == 2
    assert doubled_names("Exercise 20 and chapter 4; the figure (Fig. 4); an exercise, exercises") == []


@pytest.mark.parametrize("path", PAGES)
def test_no_page_names_a_reference_twice(built_site, path):
    from bs4 import BeautifulSoup

    article = BeautifulSoup((built_site / path).read_text(), "html.parser").find("article")
    found = doubled_names(" ".join(article.get_text(" ").split()))
    assert not found, f"{path}: a kind named twice before a reference: {found}"


def untagged_source_notes(html: str) -> list[str]:
    """The start of each folded source note in ``html`` whose one line names no tag (book/_ext/source_notes.py writes
    the tags it finds after the title, each in brackets)."""
    from bs4 import BeautifulSoup

    notes = BeautifulSoup(html, "html.parser").select("details.source-note")
    return [" ".join(note.get_text(" ").split())[:80] for note in notes if "[" not in note.summary.get_text()]


def test_an_untagged_source_note_is_found_and_a_tagged_one_passes():
    note = '<aside class="margin"><details class="source-note"><summary>{}</summary><p>{}</p></details></aside>'
    assert untagged_source_notes(note.format("Source", "The tables are the authors'.")) == ["Source The tables are the authors'."]
    tagged = note.format("Sources [discussion] [ours]", "[discussion: q6jg] ... [ours] ...")
    assert untagged_source_notes(tagged) == []


@pytest.mark.parametrize("path", PAGES)
def test_every_source_note_names_its_tag(built_site, path):
    found = untagged_source_notes((built_site / path).read_text())
    assert not found, f"{path}: a source note with none of the five tags ([abstract] ... [ours]): {found}"


def machinery_shares(built_site: Path) -> dict[str, tuple[float, int, int]]:
    """Every reading page's (share, machinery sentences, sentences) on its reading path."""
    from token_selection.reading_path import machinery_share

    return {path: machinery_share(_reading_path(built_site, path).prose) for path in READING_PAGES}


def test_a_page_leaves_the_ceilings_when_it_meets_its_limit(built_site):
    shares = machinery_shares(built_site)
    met = [p for p in MACHINERY_CEILINGS if shares[p][0] <= MACHINERY_LIMITS.get(p, MACHINERY_DEFAULT_LIMIT)]
    assert not met, f"these pages now meet their limit: drop them from MACHINERY_CEILINGS: {met}"
    assert all(ceiling > MACHINERY_DEFAULT_LIMIT for ceiling in MACHINERY_CEILINGS.values())
    assert not set(MACHINERY_CEILINGS) & (set(MACHINERY_LIMITS) | MACHINERY_EXCEPTED)


def test_machinery_share_of_the_reading_path(built_site):
    shares = machinery_shares(built_site)
    report, over = [], []
    for path, (share, machinery, total) in shares.items():
        limit = None if path in MACHINERY_EXCEPTED else MACHINERY_LIMITS.get(path, MACHINERY_DEFAULT_LIMIT)
        limit = MACHINERY_CEILINGS.get(path, limit)
        line = f"{path}: {share:.0%} ({machinery}/{total} sentences), limit {'none' if limit is None else f'{limit:.0%}'}"
        report.append(line)
        if limit is not None and share > limit:
            over.append(path)
    print("\n".join(report))
    assert not over, "machinery share over the limit:\n" + "\n".join(report)


def checks_dropdown_misplaced(html: str) -> list[str]:
    """The section headings of ``html``'s article that come after its "How this page checks itself" dropdown: the
    dropdown sits at the foot of the page, after the summary, out of the reading path (empty when it does, or when
    the page has none, which ``folded_parts_defects`` reports)."""
    from bs4 import BeautifulSoup

    article = BeautifulSoup(html, "html.parser").find("article")
    summaries = [s for s in article.find_all("summary") if CHECKS_DROPDOWN in s.get_text()]
    if not summaries:
        return []
    return [" ".join(h.get_text(" ").split()).rstrip("#").strip() for h in summaries[0].find_all_next(["h2", "h3"])]


def test_a_checks_dropdown_before_a_section_is_found_and_one_at_the_foot_passes():
    dropdown = f"<details><summary>{CHECKS_DROPDOWN}</summary><p>tolerances</p></details>"
    foot = f"<article><h2>Exercises</h2><h2>Summary</h2><p>Remember.</p>{dropdown}</article>"
    assert checks_dropdown_misplaced(foot) == []
    middle = f"<article><h2>Training</h2>{dropdown}<h2>Exercises</h2><h3>Hints</h3><h2>Summary</h2></article>"
    assert checks_dropdown_misplaced(middle) == ["Exercises", "Hints", "Summary"]
    assert checks_dropdown_misplaced("<article><h2>Summary</h2></article>") == []


@pytest.mark.parametrize("path", CHAPTER_PAGES)
def test_the_checks_dropdown_sits_at_the_foot_of_each_chapter(built_site, path):
    after = checks_dropdown_misplaced((built_site / path).read_text(encoding="utf-8"))
    assert not after, f"{path}: the '{CHECKS_DROPDOWN}' dropdown comes before these sections: {after}"


def folded_parts_defects(page) -> list[str]:
    """What is wrong with the folded layer of a chapter ``page``: its one "How this page checks itself" dropdown is
    closed when the page opens, opens on a click and holds text; its check cells' inputs are hidden, open on a click,
    and hold the asserts. Clicks the dropdown and the first hidden input open."""
    dropdown = page.locator("article details", has=page.locator("summary", has_text=CHECKS_DROPDOWN))
    if dropdown.count() != 1:
        return [f"{dropdown.count()} '{CHECKS_DROPDOWN}' dropdowns (one expected)"]
    problems = []
    if dropdown.evaluate("d => d.open"):
        problems.append("the checks dropdown is open when the page opens")
    dropdown.locator("summary").first.click()
    if not dropdown.evaluate("d => d.open"):
        problems.append("the checks dropdown does not open")
    body = dropdown.inner_text().replace(CHECKS_DROPDOWN, "").strip()
    if len(body.split()) < 20 or not dropdown.locator("p").first.is_visible():
        problems.append("the opened checks dropdown is empty")

    hidden = page.locator("article div.cell details.above-input, article div.tag_hide-input details")
    if not hidden.count():
        return [*problems, "no hidden cell input (check cells carry hide-input)"]
    first = hidden.first
    code = first.locator("pre").first
    if code.is_visible():
        problems.append("a hidden input shows before it is opened")
    first.locator("summary").first.click()
    if not code.is_visible():
        problems.append("a hidden input does not open")
    # the text of every folded input, opened or not (inner_text leaves out what a closed <details> does not show)
    texts = [hidden.nth(i).text_content() or "" for i in range(hidden.count())]
    if not any("assert" in text for text in texts):
        problems.append("no hidden input holds an assert: the checks are not folded")
    return problems


FOLDED_CHAPTER = f"""<article class="bd-article"><h1>A chapter</h1>
<details class="dropdown"><summary>{CHECKS_DROPDOWN}</summary>
<p>{" ".join(["Every check of this page runs under nbval and prints one line."] * 3)}</p></details>
<div class="cell tag_hide-input"><details class="above-input"><summary>Show code</summary>
<pre>{{check}}</pre></details><div class="cell_output"><pre>ok</pre></div></div></article>"""


def test_folded_parts_checker_passes_a_folded_chapter_and_catches_each_defect(feed):
    assert folded_parts_defects(feed(FOLDED_CHAPTER.format(check="assert x == 1"))) == []
    unfolded = folded_parts_defects(feed(FOLDED_CHAPTER.format(check="print(x)")))
    assert unfolded == ["no hidden input holds an assert: the checks are not folded"], unfolded
    opened = FOLDED_CHAPTER.format(check="assert x").replace('<details class="dropdown">', '<details class="dropdown" open>')
    assert folded_parts_defects(feed(opened))[0] == "the checks dropdown is open when the page opens"
    bare = FOLDED_CHAPTER.format(check="assert x").replace('<details class="above-input">', "<div>")
    assert "no hidden cell input" in folded_parts_defects(feed(bare.replace("</pre></details>", "</pre></div>")))[-1]
    assert folded_parts_defects(feed("<article><h1>No dropdown</h1></article>")) == [
        f"0 '{CHECKS_DROPDOWN}' dropdowns (one expected)"
    ]


# Every closed toggle of a check cell: whether its cell carries the class tag_checks, and its width and font size
# against the article's text (the audit trail recedes beside the reading path: book/_static/audit.css).
CHECK_TOGGLES = """() => {
  const text = parseFloat(getComputedStyle(document.querySelector('article p')).fontSize);
  const column = document.querySelector('article').getBoundingClientRect().width;
  return [...document.querySelectorAll('article div.cell > details.hide:not([open])')]
    .filter(d => d.querySelector('summary p.collapsed').textContent.trim() === 'Show the checks')
    .map(d => ({tagged: d.parentElement.classList.contains('tag_checks'),
                share: d.getBoundingClientRect().width / column,
                size: parseFloat(getComputedStyle(d.querySelector('summary p.collapsed')).fontSize) / text}));
}"""


@pytest.mark.parametrize("path", ["notebooks/03_one_step.html", "notebooks/04b_numerics.html"])
def test_a_check_cell_s_toggle_is_small_and_narrow(open_page, path):
    toggles = open_page(path).evaluate(CHECK_TOGGLES)
    assert len(toggles) >= 3, f"{path}: {len(toggles)} closed check toggles; the chapter folds its checks"
    untagged = sum(not t["tagged"] for t in toggles)
    assert not untagged, f"{path}: {untagged} check cells lack the tag 'checks' (run scripts/tidy_notebooks.py)"
    wide = [round(t["share"], 2) for t in toggles if t["share"] >= 0.4]
    assert not wide, f"{path}: check toggles as wide as {wide} of the column (audit.css not applied)"
    large = [round(t["size"], 2) for t in toggles if t["size"] >= 0.9]
    assert not large, f"{path}: check toggles in text of {large} times the prose's size"
