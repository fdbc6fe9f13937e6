"""Powers of ten: a number in E notation becomes a power of ten in running text (code and mathematics keep
theirs: test_minus_signs runs both transforms on one page)."""

from __future__ import annotations

import pytest
from exponents import typeset_powers


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
