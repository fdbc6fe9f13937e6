"""Source notes: a margin note titled Source or Sources folds to one line naming its tags; nothing else changes."""

from __future__ import annotations

from docutils import nodes
from docutils.utils import new_document
from source_notes import fold_source_notes, note_tags, summary_line


def _page(title: str, body: str, classes: tuple[str, ...] = ("margin",)) -> nodes.document:
    document = new_document("page")
    sidebar = nodes.sidebar(classes=list(classes))
    sidebar += nodes.title(text=title)
    paragraph = nodes.paragraph()
    paragraph += nodes.emphasis(text="[ours]")
    paragraph += nodes.Text(f" {body}")
    sidebar += paragraph
    document += sidebar
    return document


def test_tags_are_named_once_each_in_the_order_they_appear():
    text = "[discussion] the rebuttal; [ours] measured; [discussion] again; [invented] is no tag"
    assert note_tags(text) == ["discussion", "ours"]
    assert note_tags("no tag at all") == []
    qualified = "[discussion: rebuttal to q6jg, W3] and [derived, from (28)] and [ours: the measure]"
    assert note_tags(qualified) == ["discussion", "derived", "ours"]
    assert note_tags("[oursx] [derivedness] [ours ]") == []


def test_the_summary_is_the_title_then_the_tags():
    assert summary_line("Sources", "[inferred] x [derived] y") == "Sources [inferred] [derived]"
    assert summary_line("Source", "plain") == "Source"


def test_a_source_note_folds_and_keeps_its_text():
    page = _page("Source", "Measured [derived] on this page.")
    fold_source_notes(None, page, "page")
    sidebar = next(iter(page.findall(nodes.sidebar)))
    raws = [node.astext() for node in sidebar.findall(nodes.raw)]
    assert raws[0] == '<details class="source-note"><summary>Source [ours] [derived]</summary>'
    assert raws[-1] == "</details>"
    assert not list(sidebar.findall(nodes.title))
    assert "Measured [derived] on this page." in sidebar.astext()
    assert "source-note-margin" in sidebar["classes"]


def test_other_notes_stay_open():
    for title, classes in (("Records", ("margin",)), ("Source", ("sidebar",)), ("Sourced", ("margin",))):
        page = _page(title, "text", classes)
        fold_source_notes(None, page, "page")
        assert not list(page.findall(nodes.raw)), title
        assert [t.astext() for t in page.findall(nodes.title)] == [title]
