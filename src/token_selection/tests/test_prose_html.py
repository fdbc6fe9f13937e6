"""html_of: Markdown (tables included) rendered to HTML that another page can paste, or the text where it cannot be."""

from __future__ import annotations

import builtins

import pytest

from token_selection import prose


def test_a_markdown_table_becomes_an_html_table():
    pytest.importorskip("IPython")
    pytest.importorskip("markdown_it")
    html = prose.html_of("| a | b |\n|---|---|\n| 1 | **2** |\n")
    assert type(html).__name__ == "HTML"
    assert "<table>" in html.data and "<th>a</th>" in html.data and "<td><strong>2</strong></td>" in html.data


def test_commonmark_rules_apply():
    pytest.importorskip("markdown_it")
    html = prose.html_of("www.example.com and *emphasis*")
    # CommonMark links no bare addresses (GFM's 'linkify' would): the text stays text
    assert "<a " not in html.data and "<em>emphasis</em>" in html.data


def test_without_ipython_or_markdown_it_the_markdown_comes_back(monkeypatch):
    real_import = builtins.__import__

    def no_markdown_it(name, *args, **kwargs):
        if name.startswith("markdown_it"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_markdown_it)
    assert prose.html_of("| a |\n|---|\n| 1 |") == "| a |\n|---|\n| 1 |"
