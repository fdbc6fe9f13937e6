"""token_selection.reading_time: the counts, the formula, its calibration on a learner's times."""

from __future__ import annotations

import dataclasses

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
    counts = rt.Counts(words=1000, equations=2, code_lines=100, coding_exercises=1, pen_exercises=1, glued_values=7)
    expected = 1000 / rt.WORDS_PER_MINUTE + 2 * rt.MINUTES_PER_EQUATION + 100 * rt.MINUTES_PER_CODE_LINE
    expected += rt.MINUTES_PER_CODING_EXERCISE + rt.MINUTES_PER_PEN_EXERCISE + 7 * rt.MINUTES_PER_GLUED_VALUE
    assert rt.minutes(counts) == pytest.approx(expected)
    assert rt.rounded(12.4) == 10 and rt.rounded(12.5) == 15 and rt.rounded(0.0) == 5
    with pytest.raises(ValueError, match="step must be a positive"):
        rt.rounded(10, 0)
    with pytest.raises(ValueError, match="^the notebook has no cells: nothing to time$"):
        rt.count({"cells": []})


# The learner's counts (review of 2026-11-26, section 0: words with solutions, display equations,
# visible code lines, coding and pen-and-paper exercises; computed values counted on the chapters of a9dbdf7, the
# commit whose pages the review's counts match) and measured minutes. Chapters 9 and 10 were skimmed.
LEARNER = {
    "01": (rt.Counts(2948, 7, 337, 2, 4, 0), 100),
    "02": (rt.Counts(3267, 5, 465, 2, 4, 3), 120),
    "03": (rt.Counts(3138, 12, 310, 2, 3, 27), 135),
    "04": (rt.Counts(5737, 9, 677, 2, 3, 71), 180),
    "05": (rt.Counts(3571, 1, 340, 2, 2, 12), 95),
}
SKIMMED = {
    "09": (rt.Counts(1063, 0, 98, 2, 0, 14), 40),
    "10": (rt.Counts(2823, 2, 454, 2, 0, 51), 65),
}


# Two later readers who had not seen the course (2026-11-27): their estimates of reading plus every exercise, on
# the chapters' counts (``rt.count``) when they read them (computed values counted on c9c665d, the commit that
# recorded them).
READERS = {
    "01": (rt.Counts(3026, 7, 170, 2, 4, 0), 115),
    "02": (rt.Counts(3561, 5, 256, 2, 4, 11), 130),
    "03": (rt.Counts(3639, 13, 202, 2, 3, 43), 150),
    "04": (rt.Counts(4851, 10, 167, 2, 3, 51), 170),
    "04b": (rt.Counts(2356, 2, 97, 0, 0, 50), 45),
    "05": (rt.Counts(3820, 1, 116, 2, 2, 19), 100),
    "06": (rt.Counts(4069, 3, 130, 2, 2, 32), 120),
    "07": (rt.Counts(2157, 0, 101, 2, 1, 21), 75),
    "08": (rt.Counts(3142, 3, 94, 1, 0, 47), 75),
    "08b": (rt.Counts(3473, 4, 201, 1, 3, 6), 110),
}


# A third reader who had not seen the course (stop of 2026-11-27, commit 8445c6f): estimates for chapters 6 and 7 and,
# for chapter 10, "2 to 2.5 hours", taken as its middle.
THIRD_READER = {
    "06": (rt.Counts(4082, 3, 130, 2, 2, 32), 130),
    "07": (rt.Counts(2157, 0, 101, 2, 1, 21), 75),
    "10": (rt.Counts(3640, 2, 219, 2, 0, 73), 135),
}


CALIBRATION = (
    {f"learner {k}": v for k, v in LEARNER.items()}
    | {f"reader {k}": v for k, v in READERS.items()}
    | {f"third reader {k}": v for k, v in THIRD_READER.items()}
)


@pytest.mark.parametrize("point", sorted(CALIBRATION))
def test_the_formula_lands_within_a_quarter_of_every_measured_or_estimated_time(point):
    counts, minutes = CALIBRATION[point]
    assert abs(rt.minutes(counts) / minutes - 1) <= 0.25


def test_the_calibration_holds_every_full_reading_and_no_skim():
    assert len(CALIBRATION) == 18 and not set(SKIMMED) & {k.split()[-1] for k in CALIBRATION if k.startswith("learner")}


@pytest.mark.parametrize("chapter", sorted(SKIMMED))
def test_a_full_reading_takes_at_least_as_long_as_the_learners_skim(chapter):
    counts, skim = SKIMMED[chapter]
    assert rt.minutes(counts) >= skim


def test_computed_values_make_the_difference_for_the_densest_chapter():
    # without them the third reader's chapter 10 (73 computed values) falls 42 % short of the estimate
    counts, estimate = THIRD_READER["10"]
    without = rt.minutes(rt.Counts(*dataclasses.astuple(counts)[:-1], 0))
    assert without / estimate - 1 < -0.25 <= rt.minutes(counts) / estimate - 1


def test_the_constants_are_the_documented_formula():
    # CONTRIBUTING.md, "Reading times": words / 85 + 2 x equations + 3 s x code lines + 10 x coding + 8 x pen + 20 s x computed
    assert rt.FORMULA_TEXT == (
        "words / 85 + 2 min a display equation + 3 s a visible code line"
        " + 10 min a coding exercise + 8 min a pen-and-paper exercise + 20 s a computed value"
    )
    assert "." not in rt.FORMULA_TEXT.replace("...", "")  # no full stop inside the Time line's sentence
    assert rt.minutes(rt.Counts(255, 1, 20, 1, 1, 6)) == pytest.approx(3 + 2 + 1 + 10 + 8 + 2)
    assert rt.minutes(rt.Counts(0, 0, 0, 0, 0, 0)) == 0.0
    ones = {"words": 1 / 85, "equations": 2, "code_lines": 0.05, "coding_exercises": 10, "pen_exercises": 8}
    ones["glued_values"] = 1 / 3
    for field, one in ones.items():
        counts = dict.fromkeys(ones, 0)
        counts[field] = 1
        assert rt.minutes(rt.Counts(**counts)) == pytest.approx(one), field


@pytest.mark.parametrize(
    ("value", "step", "expected"),
    [(7.49, 5, 5), (7.5, 5, 10), (2.4, 5, 5), (-3.0, 5, 5), (14.99, 10, 10), (15.0, 10, 20), (1.0, 1, 1), (1.5, 1, 2)],
)
def test_rounding_to_the_nearest_step_halves_up_and_never_below_one_step(value, step, expected):
    assert rt.rounded(value, step) == expected and isinstance(rt.rounded(value, step), int)


def test_a_negative_step_is_refused():
    with pytest.raises(ValueError, match="step must be a positive number of minutes, got -5"):
        rt.rounded(10, -5)


def test_the_time_paragraph_and_every_kind_of_block_are_left_out_of_the_words():
    text = (
        "**Time.** about 100 minutes\ncontinued on a second line.\n\nCounted words here.\n\n"
        ":::{math}\nx = y\n:::\n\n````{math}\nz\n````\n\n~~~\nnot a fence\n~~~\n"
        ":::{note}\n:class: dropdown\nInside a note.\n:::\n"
    )
    # words: "Counted words here" (3), "not a fence" and "~~~" lines: 3, "Inside a note" 3
    assert rt.count_markdown(text) == (9, 2)
    assert rt.count_markdown("An inline $a + b = c$ sum and $$x$$ display.") == (6, 1)  # inline math: one word
    assert rt.count_markdown("```{exercise} Title\nBody words\n```") == (2, 0)  # a directive is not a code block
    assert rt.count_markdown("Don't split e.g. 3.5 or well-known words") == (7, 0)
    assert rt.count_markdown("$$\na\n$$ and $$\nb\n$$") == (1, 2)
    assert rt.count_markdown("<!--\nmany hidden\nwords\n--> one") == (1, 0)
    assert rt.count_markdown("A line\n**Time.** here\n\nafter") == (3, 0)  # the Time paragraph starts a line
    assert rt.count_markdown("Say **Time.** inline") == (3, 0)  # not at a line's start: counted


def test_cells_as_lists_of_lines_without_metadata_and_without_a_code_cell():
    nb = {"cells": [{"cell_type": "markdown", "source": ["One two\n", "three four."]}]}
    assert rt.count(nb) == rt.Counts(4, 0, 0, 0, 0, 0)
    nb = {"cells": [md("Text"), code("c = 3\nd = 4"), {"cell_type": "code", "source": ["a = 1\n", "\n", "  \n", "b = 2"]}]}
    assert rt.count(nb).code_lines == 2  # the first code cell is the set-up, even after Markdown; blank lines left out


@pytest.mark.parametrize("tag", rt.HIDDEN_TAGS)
def test_each_hidden_tag_hides_a_code_cell(tag):
    nb = {"cells": [code("setup"), code("a = 1\nb = 2", tag), code("c = 3", "other-tag")]}
    assert rt.count(nb).code_lines == 1


def test_hidden_tags_are_the_four_of_the_docstring():
    assert set(rt.HIDDEN_TAGS) == {"remove-cell", "remove-input", "hide-input", "hide-cell"}


def test_exercises_at_the_end_of_a_notebook_and_several_in_one_cell():
    nb = {"cells": [code("setup"), md("```{exercise} A\nWrite.\n```\n:::{exercise} B\nWrite.\n:::"), code("stub")]}
    counts = rt.count(nb)
    assert (counts.coding_exercises, counts.pen_exercises) == (1, 1)  # only the last of the cell has the stub
    nb = {"cells": [code("setup"), md("```{exercise} Last\nWrite.\n```")]}
    assert (rt.count(nb).coding_exercises, rt.count(nb).pen_exercises) == (0, 1)  # no cell after it
    nb = {"cells": [code("setup"), md("````{exercise} A\nWrite.\n````\n```{solution-start} a\n```"), code("s")]}
    assert (rt.count(nb).coding_exercises, rt.count(nb).pen_exercises) == (0, 1)  # solved in its own cell
    nb = {"cells": [code("setup"), md("```{solution} x\nDone.\n```\n```{exercise} After\nW.\n```"), code("stub")]}
    assert (rt.count(nb).coding_exercises, rt.count(nb).pen_exercises) == (1, 0)  # a solution before it does not count
    nb = {"cells": [code("setup"), md("```{exercise} A\nW.\n```"), md("next"), code("x")]}
    assert (rt.count(nb).coding_exercises, rt.count(nb).pen_exercises) == (0, 1)  # Markdown follows: pen and paper
    nb = {"cells": [code("setup"), md("Text with {exercise} inline"), code("x")]}
    assert (rt.count(nb).coding_exercises, rt.count(nb).pen_exercises) == (0, 0)


def test_the_chapter_minutes_of_a_notebook_file(tmp_path):
    import json

    nb = {"cells": [code("setup"), md(" ".join(["word"] * 1000)), md("$$\na\n$$"), code("x = 1\n" * 20)]}
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(nb))
    assert rt.chapter_minutes(path) == 15  # 10 + 2 + 1 = 13 minutes, to the nearest 5
    assert rt.chapter_minutes(str(path)) == 15


def test_counts_add_up_over_cells():
    nb = {
        "cells": [
            code("setup"),
            md("One two.\n\n$$\na\n$$\n\n```{exercise} A\nW.\n```"),
            code("stub = 1"),
            md("Three.\n\n$$\nb\n$$\n$$\nc\n$$\n\n```{exercise} B\nW.\n```"),
            code("stub = 2\nmore = 3"),
            md("```{exercise} C\nW.\n```\n:::{solution} C\nDone.\n:::"),
            md("```{exercise} D\nW.\n```"),
        ]
    }
    expected = rt.Counts(words=3 + 2 + 2 + 1, equations=3, code_lines=3, coding_exercises=2, pen_exercises=2, glued_values=0)
    assert rt.count(nb) == expected


def test_words_between_two_backtick_directives_of_one_cell_are_counted():
    text = "```{exercise} A\nWrite it.\n```\nWords between.\n```{solution} A\nDone here.\n```"
    assert rt.count_markdown(text) == (6, 0)
    nested = "````{dropdown} D\nOne.\n```python\nskipped code\n```\nTwo three.\n````\nFour."
    assert rt.count_markdown(nested) == (4, 0), "a code block inside a directive is dropped, the words around it kept"
    unclosed = "```python\nx = 1\n```{note}\nstill code\n"
    assert rt.count_markdown(unclosed) == (0, 0), "inside a code block a directive-looking line is code"


def test_computed_values_are_glue_roles_and_directives_outside_code_comments_and_the_time_line():
    text = (
        "**Time.** about {glue:text}`t` minutes.\n\nThe accuracy is {glue:text}`acc:.1%` and {glue}`n` seeds;"
        " {glue:md}`sentence`.\n\n```{glue:figure} fig\n:name: f\nA caption.\n```\n\n"
        "```python\nglue('x', 1)  # {glue}`not a role in code`\n```\n<!-- {glue}`commented` -->\n"
    )
    assert rt.count_glued(text) == 4  # the three roles and the figure directive
    assert rt.count_glued("A {glue:text}`a`{glue:text}`b` pair, not {glued} or {glue:}.") == 2


def test_count_adds_the_computed_values_of_the_cells_a_reader_sees():
    nb = {
        "cells": [
            md("Reads {glue:text}`a` and {glue:text}`b`."),
            {"cell_type": "markdown", "source": "{glue:text}`c`", "metadata": {"tags": ["remove-cell"]}},
            code("glue('a', 1)"),
            md("And {glue}`d`."),
        ]
    }
    assert rt.count(nb).glued_values == 3
