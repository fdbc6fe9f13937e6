"""token_selection.reading_time: the counts, the formula, its calibration on a learner's times."""

from __future__ import annotations

import pytest

from token_selection import reading_time as rt


def md(text: str) -> dict:
    return {"cell_type": "markdown", "source": text, "metadata": {}}


def code(text: str, *tags: str) -> dict:
    return {"cell_type": "code", "source": text, "metadata": {"tags": list(tags)}}


def test_words_leave_out_display_math_code_blocks_options_and_comments():
    text = (
        "One two $x$ three.\n\n$$\na = b\n$$\n\n```python\nnot counted here\n```\n"
        "```{math}\n:label: eq\nc = d\n```\n<!-- hidden words -->\n"
    )
    assert rt.count_markdown(text) == (4, 2)


def test_an_exercise_is_coding_only_when_a_stub_cell_follows_it_unsolved():
    nb = {
        "cells": [
            code("# setup\nimport x\nimport y"),
            md("```{exercise} Write it\nWrite `f`.\n```"),
            code("def f():\n    pass\n\n"),
            md("```{exercise} Prove it\nShow.\n```\n```{solution} a\nDone.\n```"),
            code("print(1)"),
            md("```{exercise} Think\nWhy?\n```"),
            md("text"),
            code("assert True", "hide-input"),
            code("x = 1", "remove-cell"),
        ]
    }
    counts = rt.count(nb)
    assert (counts.coding_exercises, counts.pen_exercises) == (1, 2)
    assert counts.code_lines == 3  # setup, hidden and removed cells and blank lines left out


def test_a_markdown_cell_the_book_removes_is_not_read():
    removed = {"cell_type": "markdown", "source": "five words are not read", "metadata": {"tags": ["remove-cell"]}}
    folded = {"cell_type": "markdown", "source": "three words read", "metadata": {"tags": ["hide-input"]}}
    counts = rt.count({"cells": [md("one two"), removed, folded]})
    assert counts.words == 5 and counts.equations == 0


def test_the_formula_and_its_rounding():
    counts = rt.Counts(words=1000, equations=2, code_lines=100, coding_exercises=1, pen_exercises=1)
    expected = 1000 / rt.WORDS_PER_MINUTE + 2 * rt.MINUTES_PER_EQUATION + 100 * rt.MINUTES_PER_CODE_LINE
    expected += rt.MINUTES_PER_CODING_EXERCISE + rt.MINUTES_PER_PEN_EXERCISE
    assert rt.minutes(counts) == pytest.approx(expected)
    assert rt.rounded(12.4) == 10 and rt.rounded(12.5) == 15 and rt.rounded(0.0) == 5
    with pytest.raises(ValueError, match="step must be a positive"):
        rt.rounded(10, 0)
    with pytest.raises(ValueError, match="no cells"):
        rt.count({"cells": []})


# The learner's counts (review of 2026-11-26, section 0: words with solutions, display equations,
# visible code lines, coding and pen-and-paper exercises) and measured minutes.
LEARNER = {
    "01": (rt.Counts(2948, 7, 337, 2, 4), 100),
    "02": (rt.Counts(3267, 5, 465, 2, 4), 120),
    "03": (rt.Counts(3138, 12, 310, 2, 3), 135),
    "04": (rt.Counts(5737, 9, 677, 2, 3), 180),
    "05": (rt.Counts(3571, 1, 340, 2, 2), 95),
    "09": (rt.Counts(1063, 0, 98, 2, 0), 40),
    "10": (rt.Counts(2823, 2, 454, 2, 0), 65),
}


@pytest.mark.parametrize("chapter", sorted(LEARNER))
def test_the_formula_lands_within_a_quarter_of_the_learners_time(chapter):
    counts, measured = LEARNER[chapter]
    assert abs(rt.minutes(counts) / measured - 1) <= 0.25
