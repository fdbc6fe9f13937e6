"""Powers of ten in running text.

A glued number formatted with ``:.1e`` reaches the page as ``6.0e-14``, the way a program prints it, while the
mathematics beside it writes powers of ten. After every glue value is in place, this sets a number in E notation that
stands alone in running text (``6.0e-14``, ``1e-08``, ``-2.5e+03``) as ``6.0 × 10⁻¹⁴``, ``10⁻⁸``, ``-2.5 × 10³``: a
mantissa of exactly 1 is left out, an exponent's plus sign and leading zeros go. Code, literal blocks, raw outputs and
mathematics keep their characters, as for the minus signs (``minus_signs.retypeset``).
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from minus_signs import retypeset
from sphinx.application import Sphinx

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
# a number in E notation not inside a word, an identifier or a longer number
_E_NOTATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+\-]?)(\d+)(?!\w|\.\d)")


def _power(match: re.Match[str]) -> str:
    mantissa, sign, digits = match.groups()
    exponent = ("-" if sign == "-" else "") + (digits.lstrip("0") or "0")
    power = "10" + exponent.translate(_SUPERSCRIPTS)
    return power if float(mantissa) == 1.0 and "." not in mantissa else f"{mantissa} \u00d7 {power}"


def typeset_powers(text: str) -> str:
    """``text`` with each number in E notation written as a power of ten (``6.0e-14`` -> ``6.0 × 10⁻¹⁴``)."""
    return _E_NOTATION.sub(_power, text)


def set_powers_of_ten(app: Sphinx | None, doctree: nodes.document, docname: str) -> None:
    retypeset(doctree, typeset_powers)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", set_powers_of_ten)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
