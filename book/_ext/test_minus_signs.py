"""Minus signs: a hyphen that starts a number becomes U+2212 in running text, nowhere else."""

from __future__ import annotations

import pytest
from docutils import nodes
from docutils.utils import new_document
from exponents import set_powers_of_ten
from minus_signs import MINUS, set_minus_signs, typeset_minus


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a lean of -0.125", f"a lean of {MINUS}0.125"),
        ("class -1 is lost", f"class {MINUS}1 is lost"),
        ("(-3.5, +2)", f"({MINUS}3.5, +2)"),
        ("[-1, 1]", f"[{MINUS}1, 1]"),
        ("-.5 at the start", f"{MINUS}.5 at the start"),
        ("-2", f"{MINUS}2"),
    ],
)
def test_a_hyphen_that_starts_a_number_is_a_minus(text, expected):
    assert typeset_minus(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "seeds 0-19",
        "a rate of 1e-5",
        "2025-11-28",
        "one-sided",
        "x-1",
        "T-32",
        "pages 3--4",
        "a/-1",
        "a.-1",
        "k:-1",
        "a \u2013-1",
        "no number - here",
    ],
)
def test_a_hyphen_in_a_word_a_range_or_an_exponent_stays(text):
    assert typeset_minus(text) == text


def test_code_and_mathematics_keep_their_characters_and_running_text_beside_them_changes():
    """Both transforms of running text (minus signs, then powers of ten) on one page: code and mathematics keep
    every character, a minus before a mantissa stays a minus."""
    document = new_document("page")
    paragraph = nodes.paragraph()
    paragraph += nodes.Text("a lean of -0.3, a gap of -2.0e-3 and ")
    paragraph += nodes.literal(text="x = -1e-8")
    paragraph += nodes.math(text="-1")
    document += paragraph
    document += nodes.literal_block(text="print(-2e-8)")
    set_minus_signs(None, document, "page")
    set_powers_of_ten(None, document, "page")
    assert paragraph[0].astext() == f"a lean of {MINUS}0.3, a gap of {MINUS}2.0 × 10⁻³ and "
    assert paragraph[1].astext() == "x = -1e-8"
    assert paragraph[2].astext() == "-1"
    assert document[1].astext() == "print(-2e-8)"
