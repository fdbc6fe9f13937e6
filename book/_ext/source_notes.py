"""Source notes folded to one line.

A margin note titled "Source" or "Sources" is the audit trail beside the text: where a claim comes from, under one of
the course's five tags. Open, a page's notes stood as a column of small paragraphs beside the reading path. Each is
now folded into a ``<details>`` whose one-line summary names its tags ("Source [ours]", "Sources [discussion]
[inferred]"); a click opens the note. Other margin notes, and every note in a build that is not HTML, stay as they
were. The one-page build behind the PDF folds them too (``scripts/build_pdf.py`` opens every fold before it prints).
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from token_selection.sources import SOURCE_TAGS

SOURCE_TITLES = ("Source", "Sources")
_TAG = re.compile(r"\[(" + "|".join(SOURCE_TAGS) + r")[\]:,]")
"""A tag as the pages write it: "[ours]", or with what it names, "[discussion: rebuttal to q6jg, W3]", "[derived, from
(28)]"."""


def note_tags(text: str) -> list[str]:
    """The course's tags that ``text`` names, each once, in the order they first appear (a qualifier after the tag, as
    in "[discussion: ...]", is left out)."""
    found: list[str] = []
    for tag in _TAG.findall(text):
        if tag not in found:
            found.append(tag)
    return found


def summary_line(title: str, text: str) -> str:
    """The folded note's one line: its title, then its tags ("Sources [discussion] [ours]")."""
    return " ".join([title, *(f"[{tag}]" for tag in note_tags(text))])


def _source_title(sidebar: nodes.sidebar) -> nodes.title | None:
    if "margin" not in sidebar["classes"]:
        return None
    title = next((child for child in sidebar.children if isinstance(child, nodes.title)), None)
    return title if title is not None and title.astext().strip() in SOURCE_TITLES else None


def fold_source_notes(app: Sphinx | None, doctree: nodes.document, docname: str) -> None:
    if app is not None and app.builder.format != "html":
        return
    for sidebar in list(doctree.findall(nodes.sidebar)):
        title = _source_title(sidebar)
        if title is None:
            continue
        line = summary_line(title.astext().strip(), sidebar.astext())
        sidebar.replace(
            title,
            nodes.raw(
                "",
                f'<details class="source-note"><summary>{line}</summary>',
                format="html",
            ),
        )
        sidebar.append(nodes.raw("", "</details>", format="html"))
        sidebar["classes"].append("source-note-margin")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", fold_source_notes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
