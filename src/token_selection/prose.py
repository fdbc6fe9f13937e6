"""Numbers for a chapter's prose: ``glue`` records a computed value for the book to insert.

The book build (myst-nb) inserts each glued value where the Markdown names it, so no
number in the prose is typed by hand. Where myst-nb is not installed (Colab, a plain
Jupyter), nothing is recorded and the cells still run.
"""

from __future__ import annotations

import ast
import html
import re
import sys
import textwrap
from typing import Any

import numpy as np

from .sources import SOURCE_TAGS

try:
    from myst_nb import glue as _myst_glue
except ImportError:  # not building the book
    _myst_glue = None


def plain(value: Any) -> Any:
    """``value`` as a plain Python number when it is a numpy or one-element torch scalar, else unchanged."""
    if isinstance(value, np.generic):
        return value.item()
    torch = sys.modules.get("torch")  # a tensor exists only where torch is imported: this module does not import it
    if torch is not None and isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(f"only a single number can be glued into the prose, got a tensor of shape {tuple(value.shape)}")
        return value.item()
    return value


def glue(name: str, value: Any, display: bool = False) -> None:
    """Record ``value`` (a number or a short text) under ``name`` for the prose (``display``: also show it here)."""
    if _myst_glue is not None:
        _myst_glue(name, plain(value), display=display)


def _is_glue_call(node: ast.AST) -> bool:
    """Whether ``node`` is a call of ``glue`` (or of ``something.glue``)."""
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    return (isinstance(function, ast.Name) and function.id == "glue") or (
        isinstance(function, ast.Attribute) and function.attr == "glue"
    )


def _is_plumbing(statement: ast.stmt) -> bool:
    """A ``glue(...)`` call, an import of ``glue`` alone, or a loop whose body is only such statements."""
    if isinstance(statement, ast.Expr):
        return _is_glue_call(statement.value)
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return all(alias.name.rpartition(".")[2] == "glue" for alias in statement.names)
    if isinstance(statement, ast.For) and not statement.orelse:
        return all(_is_plumbing(inner) for inner in statement.body)
    return False


def glue_plumbing(source: str) -> bool:
    """Whether the code ``source`` only hands values to the prose: every statement glues, nothing else.

    True when each statement is a ``glue(...)`` call, an import of ``glue``, or a ``for``
    loop whose body is only ``glue(...)`` calls (comments and blank lines aside), and there
    is at least one call. Such a cell is plumbing for the book, not code a reader needs to
    see; it is removed from the rendered page (``scripts/tidy_notebooks.py``). Source that
    does not parse as Python (an IPython magic) is not plumbing.
    """
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    calls = [node for statement in body for node in ast.walk(statement) if _is_glue_call(node)]
    return bool(calls) and all(_is_plumbing(statement) for statement in body)


def listed(items: Any) -> str:
    """The items of ``items`` (a non-empty sequence) in words: "a", "a and b", "a, b and c"."""
    words = [str(item) for item in items]
    if not words:
        raise ValueError("items must hold at least one item to list")
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" and {words[-1]}"


def folded(markdown: str, summary: str) -> str:
    """``markdown`` folded under a one-line ``summary`` (an HTML ``<details>`` element): closed when the page opens,
    in the book and in Jupyter or Colab alike. The classes are those of the book's own dropdowns (sphinx-design), so
    both look alike in the book; Jupyter ignores them. The blank lines around ``markdown`` let it render as Markdown
    inside. An empty ``markdown`` stays empty (nothing to fold)."""
    if not summary.strip():
        raise ValueError("summary must name what is folded, got an empty string")
    if not markdown.strip():
        return ""
    return (
        f'<details class="{DROPDOWN_CLASSES}">\n<summary class="sd-summary-title sd-card-header">'
        f'<span class="sd-summary-text">{html.escape(summary)}</span>{CHEVRON}</summary>\n'
        f'<div class="sd-summary-content sd-card-body">\n\n{markdown.strip()}\n\n'
        "</div>\n</details>"
    )


DROPDOWN_CLASSES = "sd-sphinx-override sd-dropdown sd-card sd-mb-3"
"""The classes of a dropdown in the built book (sphinx-design's ``{dropdown}``), given to ``folded``'s element."""
CHEVRON = (
    '<span class="sd-summary-state-marker sd-summary-chevron-right"><svg version="1.1" width="1.5em" height="1.5em" '
    'class="sd-octicon sd-octicon-chevron-right" viewBox="0 0 24 24" aria-hidden="true"><path d="M8.72 18.78a.75.75 0 '
    "0 1 0-1.06L14.44 12 8.72 6.28a.751.751 0 0 1 .018-1.042.751.751 0 0 1 1.042-.018l6.25 6.25a.75.75 0 0 1 0 "
    '1.06l-6.25 6.25a.75.75 0 0 1-1.06 0Z"></path></svg></span>'
)
"""The chevron at the right of a sphinx-design dropdown's title (its octicon, as the book's own dropdowns carry it),
which turns when the dropdown opens: ``folded``'s title carries it too."""


TAG_START = re.compile(r" (?=\[(?:" + "|".join(SOURCE_TAGS) + r")[\]:])")
"""A space followed by one of the course's five source tags: where a new tagged sentence begins."""


def tagged_lines(text: str, width: int = 76) -> str:
    """``text`` (a paragraph of tagged sentences, such as a row of the report) for printing: each part that opens
    with a source tag (``[ours]``, ``[inferred]``, ...) starts a line of its own, and every part is wrapped at
    ``width`` characters (default: the 76 of the book's code column), its continuation lines indented by two spaces,
    never between a number and its " %".
    No word is changed or dropped."""
    if width < 20:
        raise ValueError(f"width must be at least 20 characters, got {width}")
    parts = [part.strip() for part in TAG_START.split(text.strip())]
    wrap = textwrap.TextWrapper(width, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False)
    kept = "\N{NO-BREAK SPACE}%"  # a number and its percent sign stay on one line
    return "\n".join(wrap.fill(part.replace(" %", kept)).replace(kept, " %") for part in parts if part)


MATH_NAMES = re.compile(r"(?<![\w$])E_s \. (v_k|v|p)\b")
"""The token quantities as code writes them in plain text ("E_s . v", "E_s . v_k", "E_s . p")."""


GREEK_NAMES = re.compile(r"(?<![\w$\\])(alpha|omega)_s\b")
"""The signed frequency and the posterior gap as code writes them ("alpha_s", "omega_s")."""
KEY_QUERY_NAMES = re.compile(r"(?<![\w$])p \. W([12]) E_s\b")
"""The key-query model's scores as code writes them ("p . W1 E_s", "p . W2 E_s")."""


def math_names(markdown: str) -> str:
    """``markdown`` with each plain-text token quantity ("E_s . v", "E_s . v_k", "E_s . p", "alpha_s", "omega_s",
    "p . W2 E_s") as inline math (``$E_s\\cdot v$``, ``$\\alpha_s$``, ``$p\\cdot W_2E_s$``), for text that is rendered as
    Markdown. Printed text keeps the plain form."""
    markdown = MATH_NAMES.sub(lambda match: f"$E_s\\cdot {match.group(1)}$", markdown)
    markdown = KEY_QUERY_NAMES.sub(lambda match: f"$p\\cdot W_{match.group(1)}E_s$", markdown)
    return GREEK_NAMES.sub(lambda match: f"$\\{match.group(1)}_s$", markdown)
