"""Powers of ten: a number in E notation becomes a power of ten in running text, nowhere else."""

from __future__ import annotations

import pytest
from docutils import nodes
from docutils.utils import new_document
from exponents import set_powers_of_ten, typeset_powers
from minus_signs import MINUS, set_minus_signs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a gap of 6.0e-14, far below", "a gap of 6.0 × 10⁻¹⁴, far below"),
        ("a tolerance of 1e-08.", "a tolerance of 10⁻⁸."),
        ("1.0e-8", "1.0 × 10⁻⁸"),  # a written 1.0 keeps its precision
        ("2.5e+03 steps", "2.5 × 10³ steps"),
        ("3E5", "3 × 10⁵"),
        ("7e0", "7 × 10⁰"),
        ("(4e-10)", "(4 × 10⁻¹⁰)"),
        ("1e-5 and 2e-6", "10⁻⁵ and 2 × 10⁻⁶"),
    ],
)
def test_a_number_in_e_notation_is_a_power_of_ten(text, expected):
    assert typeset_powers(text) == expected


@pytest.mark.parametrize(
    "text",
    ["rtol1e-8", "x1e5", "v2.1e3", "1e-5x", "1.5e3.2", "e-5", "1e", "2025-11-28", "3.1e-", "step 1e_5"],
)
def test_e_inside_a_word_or_without_an_exponent_stays(text):
    assert typeset_powers(text) == text


def test_code_and_mathematics_keep_their_notation_and_a_minus_before_the_mantissa_stays():
    document = new_document("page")
    paragraph = nodes.paragraph()
    paragraph += nodes.Text("a lean of -2.0e-3 and ")
    paragraph += nodes.literal(text="rtol=1e-8")
    paragraph += nodes.math(text="10^{-8}")
    document += paragraph
    document += nodes.literal_block(text="print(1e-8)")
    set_minus_signs(None, document, "page")
    set_powers_of_ten(None, document, "page")
    assert paragraph[0].astext() == f"a lean of {MINUS}2.0 × 10⁻³ and "
    assert paragraph[1].astext() == "rtol=1e-8"
    assert paragraph[2].astext() == "10^{-8}"
    assert document[1].astext() == "print(1e-8)"
