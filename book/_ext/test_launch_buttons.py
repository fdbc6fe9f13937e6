"""Launch buttons stay on notebook pages and leave Markdown pages, whose source Colab cannot open."""

from __future__ import annotations

import pytest
from launch_buttons import LAUNCH_GROUP, drop_launch_on_markdown


def _context(source: str) -> dict:
    return {
        "sourcename": source,
        "header_buttons": [
            {"label": "download-buttons", "type": "group"},
            {"label": LAUNCH_GROUP, "type": "group"},
            {"type": "link", "url": "issues"},
        ],
    }


@pytest.mark.parametrize("source", ["book/intro.md", "book/closing.md.txt"])
def test_a_markdown_page_loses_only_its_launch_group(source):
    context = _context(source)
    drop_launch_on_markdown(None, "page", "page.html", context, None)
    assert [b.get("label") for b in context["header_buttons"]] == ["download-buttons", None]


@pytest.mark.parametrize("source", ["notebooks/01_model.ipynb", "notebooks/01_model.ipynb.txt", "book/intro.mdx"])
def test_a_notebook_page_keeps_every_button(source):
    context = _context(source)
    drop_launch_on_markdown(None, "page", "page.html", context, None)
    assert len(context["header_buttons"]) == 3


def test_a_page_without_buttons_is_left_alone():
    context = {"sourcename": "book/intro.md"}
    drop_launch_on_markdown(None, "page", "page.html", context, None)
    assert context == {"sourcename": "book/intro.md"}
