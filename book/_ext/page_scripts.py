"""Each script once on a page.

sphinx-thebe adds its configuration script (``const THEBE_JS_URL = ...``) and its loader each time the build
environment is about to read documents, and a Jupyter Book build reads them more than once. A page that declares the
same ``const`` twice logs a JavaScript error in every browser console. This drops a script that is, attribute for
attribute, one the page already has (an inline script's missing file is None in one copy and "" in the other), and
keeps the first.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def script_key(script: Any) -> tuple:
    """What makes two scripts the same: the file and every attribute, the inline body included. An inline script has
    no file, which Sphinx writes as None or as "" depending on who added it: both count as none."""
    attributes = getattr(script, "attributes", {})
    filename = getattr(script, "filename", script) or ""
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def unique_scripts(scripts: list) -> list:
    """``scripts`` without repeats, in their order."""
    seen, kept = set(), []
    for script in scripts:
        key = script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def drop_repeated_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if "script_files" in context:
        context["script_files"] = unique_scripts(context["script_files"])


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", drop_repeated_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
