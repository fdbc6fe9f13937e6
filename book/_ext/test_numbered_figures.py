"""Numbered figures: a drawing cell and the italic "Figure:" paragraph after it become one numbered figure."""

from __future__ import annotations

from docutils import nodes
from docutils.core import publish_doctree
from docutils.utils import new_document
from myst_parser.docutils_ import Parser
from numbered_figures import (
    FIGURE_ROLE,
    FULL_WIDTH,
    PREFIX,
    caption_from,
    caption_paragraph,
    draws_figure,
    figure_pairs,
    wrap,
)


def _cell(name: str, *, image: bool = False, text_output: bool = False, html: str | None = None) -> nodes.container:
    """A code cell as MyST-NB reads it: its source, and an output container with a mime bundle when it shows one
    (an image, plain text, or ``html`` as a raw node)."""
    cell = nodes.container(nb_element="cell_code", names=[])
    cell += nodes.container(nb_element="cell_code_source")
    if image or text_output or html is not None:
        output = nodes.container(nb_element="cell_code_output")
        bundle = nodes.container(nb_element="mime_bundle")
        if html is not None:
            shown = nodes.container(mime_type="text/html")
            shown += nodes.raw("", html, format="html")
        else:
            shown = nodes.container(mime_type="image/png" if image else "text/plain")
        bundle += shown
        output += bundle
        cell += output
    cell["classes"].append(name)
    return cell


def _caption(text: str, roman: str = "") -> nodes.paragraph:
    paragraph = nodes.paragraph()
    paragraph += nodes.emphasis(text=text)
    if roman:
        paragraph += nodes.Text(roman)
    return paragraph


def _section(*children: nodes.Node) -> tuple[nodes.document, nodes.section]:
    document = new_document("page")
    section = nodes.section()
    section.extend(children)
    document += section
    return document, section


def test_a_caption_opens_with_the_italic_prefix():
    assert caption_paragraph(_caption(f"{PREFIX}the run."))
    assert caption_paragraph(_caption(f"{PREFIX}the run.", " More in roman."))
    assert not caption_paragraph(_caption("Figure the run.")), "the colon belongs to the prefix"
    assert not caption_paragraph(nodes.paragraph(text=f"{PREFIX}in roman"))
    assert not caption_paragraph(nodes.paragraph())


def test_an_image_or_html_that_declares_itself_a_figure_draws():
    assert draws_figure(_cell("a", image=True))
    assert draws_figure(_cell("slider", html=f'<div {FIGURE_ROLE} aria-label="a slider"><div id="x"></div></div>'))
    assert not draws_figure(_cell("table", html="<table><tr><td>1</td></tr></table>")), "HTML without the role"
    assert not draws_figure(_cell("a", text_output=True))
    assert not draws_figure(_cell("a"))


def test_a_caption_pairs_with_the_drawing_cell_before_it_across_silent_cells_only():
    drawing, checks, caption = _cell("draw", image=True), _cell("checks"), _caption(f"{PREFIX}one.")
    other, printed, lost = _cell("draw2", image=True), _cell("prints", text_output=True), _caption(f"{PREFIX}two.")
    text, late = nodes.paragraph(text="prose"), _caption(f"{PREFIX}three.")
    _, section = _section(drawing, checks, caption, other, printed, lost, _cell("draw3", image=True), text, late)
    pairs = figure_pairs(section)
    assert [(cell["classes"][0], para.astext()) for cell, para in pairs] == [("draw", f"{PREFIX}one.")]


def test_the_caption_loses_its_prefix_and_keeps_a_title_in_italics():
    whole = caption_from(_caption(f"{PREFIX}the race, by unit steps."))
    assert whole.astext() == "The race, by unit steps."
    assert not list(whole.findall(nodes.emphasis)), "a caption wholly in italics is set in the caption's style"
    titled = caption_from(_caption(f"{PREFIX}how often it fails.", " At delta = 0 never."))
    assert titled.astext() == "How often it fails. At delta = 0 never."
    assert [node.astext() for node in titled.findall(nodes.emphasis)] == ["How often it fails."]


def test_wrapping_moves_the_output_and_caption_into_a_figure_after_the_cell():
    drawing, checks, caption = _cell("draw", image=True), _cell("checks"), _caption(f"{PREFIX}one.")
    document, section = _section(drawing, checks, caption)
    figure = wrap(document, drawing, caption, 1, "04b_numerics")
    assert [type(child).__name__ for child in section.children] == ["container", "figure", "container"]
    assert section.children[1] is figure and section.children[2] is checks, "the checks follow the caption"
    assert not draws_figure(drawing), "the output left the cell"
    assert draws_figure(nodes.container("", figure.children[0], nb_element="cell_code"))
    assert figure["ids"] == ["figure-04b-numerics-1"] and document.ids["figure-04b-numerics-1"] is figure
    assert isinstance(figure.children[-1], nodes.caption)
    assert "full-width" not in figure["classes"]


def test_a_full_width_cell_gives_a_full_width_figure():
    drawing, caption = _cell("draw", image=True), _caption(f"{PREFIX}one.")
    drawing["classes"].append(FULL_WIDTH)
    document, _ = _section(drawing, caption)
    assert "full-width" in wrap(document, drawing, caption, 1, "page")["classes"]


def test_a_label_on_the_caption_names_the_figure():
    drawing, caption = _cell("draw", image=True), _caption(f"{PREFIX}one.")
    document, _ = _section(drawing, caption)
    caption["ids"], caption["names"] = ["ch4b-fig-race"], ["ch4b-fig-race"]
    document.ids["ch4b-fig-race"] = caption
    document.nameids["ch4b-fig-race"] = "ch4b-fig-race"
    figure = wrap(document, drawing, caption, 2, "page")
    assert figure["names"] == ["ch4b-fig-race"] and figure["ids"] == ["ch4b-fig-race"]
    assert document.ids["ch4b-fig-race"] is figure


def test_a_label_written_before_a_caption_reaches_it_as_docutils_leaves_it():
    parsed = publish_doctree("(ch4b-fig-leans)=\n*Figure: one.*\n", parser=Parser(), settings_overrides={"report_level": 5})
    target, caption = parsed.children
    assert isinstance(target, nodes.target) and target["refid"] == "ch4b-fig-leans" and not target["names"]
    assert caption["names"] == ["ch4b-fig-leans"], "docutils moves the label's name onto the caption paragraph"
    parsed.remove(target)
    parsed.remove(caption)
    drawing = _cell("draw", image=True)
    document, section = _section(drawing, target, caption)
    document.ids["ch4b-fig-leans"] = caption
    assert figure_pairs(section) == [(drawing, caption)], "the label's target between cell and caption is skipped"
    figure = wrap(document, drawing, caption, 1, "page")
    assert figure["names"] == ["ch4b-fig-leans"] and document.ids["ch4b-fig-leans"] is figure
