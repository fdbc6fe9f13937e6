"""Launch buttons on notebooks only.

sphinx-book-theme gives every page with a kernel a launch button, and the front page and the closing page are
Markdown with code cells. Colab opens a ``.ipynb`` from the repository, not a ``.md``, so on those pages the rocket
would open a file Colab cannot run. This removes the launch group from the header of a page whose source is
Markdown; the chapters, which are notebooks, keep theirs.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

LAUNCH_GROUP = "launch-buttons"
"""The ``label`` sphinx-book-theme gives its group of launch buttons in ``context["header_buttons"]``."""


def drop_launch_on_markdown(app: Sphinx | None, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    source = context.get("sourcename", "")
    if source.endswith((".md", ".md.txt")) and "header_buttons" in context:
        context["header_buttons"] = [b for b in context["header_buttons"] if b.get("label") != LAUNCH_GROUP]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", drop_launch_on_markdown, priority=502)  # after the theme's (501)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
