"""Every figure a chapter draws gets a number.

A chapter draws a figure in a code cell and writes its caption in the Markdown cell after it, as one italic
paragraph that begins "Figure:" (Colab shows the caption there, under the plot). Only figures written as a
``{figure}`` directive (the chapters' opening figures) are numbered by Sphinx, so the text had to cite the others by
position ("the figure under the count table"). This wraps each drawn figure and its caption into a figure node while
the page is read, before Sphinx collects labels and numbers figures: the plot and its caption become "Fig. N", and a
target written just before the caption, ``(label)=``, names the figure for ``{numref}``. The notebooks are unchanged.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from nb_cells import cell_output, is_code_cell, parents_of
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

FULL_WIDTH = "tag_full-width"
"""The class of a drawing cell tagged ``full-width``: its figure spreads into the margin (book/_static/figures.css)."""
PREFIX = "Figure: "
"""How a caption paragraph begins: its whole text in italics, starting with these words."""
FIGURE_ROLE = 'role="figure"'
"""How an HTML output says it is a figure: the interactive figures (chapter 3's slider, chapter 5's explorer) wrap
themselves in a ``div`` with this role and their text alternative (``token_selection.explorer.static.static_html``)."""


def draws_figure(cell: nodes.Element) -> bool:
    """Whether a code cell's output is a figure: an image (a mime bundle with an ``image/...`` entry), or HTML that
    declares itself one (``FIGURE_ROLE``); other HTML, a table say, is not."""
    output = cell_output(cell)
    if output is None:
        return False
    for node in output.findall(nodes.container):
        mime = str(node.get("mime_type", ""))
        if mime.startswith("image/") or (mime == "text/html" and FIGURE_ROLE in node.astext()):
            return True
    return False


def caption_paragraph(node: nodes.Node) -> bool:
    """Whether ``node`` is a caption: a paragraph that opens with an emphasis whose text begins with ``PREFIX`` (the
    whole caption in italics, or its first sentence with the rest in roman)."""
    if not isinstance(node, nodes.paragraph) or not node.children:
        return False
    first = node.children[0]
    return isinstance(first, nodes.emphasis) and first.astext().startswith(PREFIX)


def figure_pairs(parent: nodes.Element) -> list[tuple[nodes.Element, nodes.paragraph]]:
    """Each drawing cell among ``parent``'s children with the caption that follows it: directly, or after code cells
    that show nothing (their checks)."""
    children = list(parent.children)
    pairs = []
    for k, child in enumerate(children):
        if not (is_code_cell(child) and draws_figure(child)):
            continue
        for later in children[k + 1 :]:
            if caption_paragraph(later):
                pairs.append((child, later))
                break
            if isinstance(later, nodes.target):  # what a (label)= before the caption leaves once docutils moves its name
                continue
            if not (is_code_cell(later) and cell_output(later) is None):
                break
    return pairs


def caption_from(paragraph: nodes.paragraph) -> nodes.caption:
    """The caption node made from a caption paragraph: its text without ``PREFIX``, first letter capitalised. A caption
    wholly in italics loses them (the figure's caption style is its own); one whose first sentence alone is in italics
    keeps that sentence in italics, as a title."""
    opening, *rest = paragraph.children
    caption = nodes.caption()
    head = [child.deepcopy() for child in opening.children]
    if isinstance(head[0], nodes.Text):
        text = str(head[0])[len(PREFIX) :]
        head[0] = nodes.Text(text[:1].upper() + text[1:])
    if rest:
        title = nodes.emphasis()
        title.extend(head)
        caption += title
        caption.extend(child.deepcopy() for child in rest)
    else:
        caption.extend(head)
    return caption


def wrap(document: nodes.document, cell: nodes.Element, paragraph: nodes.paragraph, number: int, docname: str) -> nodes.figure:
    """Move ``cell``'s output and ``paragraph``'s text into a figure placed right after ``cell``; the paragraph goes.
    The figure takes the paragraph's label when a ``(label)=`` names it, and an id of its own otherwise."""
    figure = nodes.figure(classes=["drawn-figure"])
    if FULL_WIDTH in cell["classes"]:
        figure["classes"].append("full-width")
    output = cell_output(cell)
    cell.remove(output)
    figure += output
    figure += caption_from(paragraph)
    if paragraph["names"]:  # a (label)= before the caption: docutils has moved its name and id onto the paragraph
        figure["ids"], figure["names"] = list(paragraph["ids"]), list(paragraph["names"])
        for name in figure["names"]:
            document.nameids[name] = figure["ids"][0]
        document.ids.update({node_id: figure for node_id in figure["ids"]})
    else:
        figure_id = nodes.make_id(f"figure {docname} {number}")
        if figure_id in document.ids:
            raise ValueError(f"the page already has an element with the id {figure_id!r}")
        figure["ids"] = [figure_id]
        document.ids[figure_id] = figure
    parent = cell.parent
    parent.insert(parent.index(cell) + 1, figure)
    parent.remove(paragraph)
    return figure


class NumberDrawnFigures(SphinxTransform):
    """Wrap each drawing cell's output and its caption into a figure, before Sphinx collects labels (priority 850)."""

    default_priority = 800

    def apply(self, **kwargs: Any) -> None:
        number = 0
        for parent in parents_of(self.document, is_code_cell):
            for cell, paragraph in figure_pairs(parent):
                number += 1
                wrap(self.document, cell, paragraph, number, self.env.docname.rsplit("/", 1)[-1])


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(NumberDrawnFigures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
