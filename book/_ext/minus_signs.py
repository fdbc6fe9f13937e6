"""Minus signs in running text.

A glued number such as ``-0.125`` or a class label such as ``-1`` reaches the page as text with a hyphen, while the
mathematics beside it sets a true minus sign (U+2212). After every glue value is in place, this sets a hyphen that
stands for a minus (one that starts a number, not one inside a word, a range or an exponent) as U+2212. Code, literal
blocks, raw outputs and mathematics keep their characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

MINUS = "\u2212"
_HYPHEN_MINUS = re.compile(r"(?<![\w.\-\u2013\u2014/:])-(?=\.?\d)")
_KEEP = (nodes.literal, nodes.literal_block, nodes.raw, nodes.math, nodes.math_block, nodes.FixedTextElement)


def typeset_minus(text: str) -> str:
    """``text`` with each hyphen that starts a number set as a minus sign; hyphens after a letter, a digit, a dot, a
    colon, a slash or another dash (words, ranges such as 0-19, exponents such as 1e-5, dates) stay."""
    return _HYPHEN_MINUS.sub(MINUS, text)


def kept(node: nodes.Node) -> bool:
    """Whether ``node`` sits in code, a literal block, a raw output or mathematics, which keep their characters."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, _KEEP):
            return True
        parent = parent.parent
    return False


def retypeset(doctree: nodes.document, typeset: Callable[[str], str]) -> None:
    """Replace each text node of running text in ``doctree`` (not ``kept``) by ``typeset`` of its text."""
    for text in list(doctree.findall(nodes.Text)):
        if kept(text):
            continue
        new = typeset(str(text))
        if new != str(text):
            text.parent.replace(text, nodes.Text(new))


def set_minus_signs(app: Sphinx | None, doctree: nodes.document, docname: str) -> None:
    retypeset(doctree, typeset_minus)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", set_minus_signs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
