"""Every HTML node of the book's extensions in the one-page build that makes the PDF.

Sphinx looks a node's visitors up under the builder's name and falls back to its format
("html") only when no extension registered anything for that name. sphinx-exercise registers
visitors for ``singlehtml``, so the fallback is lost for the nodes of sphinx-proof (theorem
boxes) and myst-nb (folded code cells), and the one-page build stops on the first of them.
This lends the ``singlehtml`` builder every ``html`` visitor it lacks.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def lend_html_visitors(app: Sphinx) -> None:
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node_name, visitors in handlers.get("html", {}).items():
        single.setdefault(node_name, visitors)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", lend_html_visitors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
