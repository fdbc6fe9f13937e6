"""token_selection.reading_time: the counts, each exercise's stated minutes, the times against a learner's."""

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


def test_a_markdown_cell_the_book_removes_is_not_read():
    removed = {"cell_type": "markdown", "source": "five words are not read", "metadata": {"tags": ["remove-cell"]}}
    folded = {"cell_type": "markdown", "source": "three words read", "metadata": {"tags": ["hide-input"]}}
    counts = rt.count({"cells": [md("one two"), removed, folded]})
    assert counts.words == 5 and counts.equations == 0


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
    assert rt.count(nb) == rt.Counts(4, 0, 0, 0)
    nb = {"cells": [md("Text"), code("c = 3\nd = 4"), {"cell_type": "code", "source": ["a = 1\n", "\n", "  \n", "b = 2"]}]}
    assert rt.count(nb).code_lines == 2  # the first code cell is the set-up, even after Markdown; blank lines left out


@pytest.mark.parametrize("tag", rt.HIDDEN_TAGS)
def test_each_hidden_tag_hides_a_code_cell(tag):
    nb = {"cells": [code("setup"), code("a = 1\nb = 2", tag), code("c = 3", "other-tag")]}
    assert rt.count(nb).code_lines == 1


def test_hidden_tags_are_the_four_of_the_docstring():
    assert set(rt.HIDDEN_TAGS) == {"remove-cell", "remove-input", "hide-input", "hide-cell"}


def test_the_chapter_minutes_of_a_notebook_file(tmp_path):
    import json

    nb = {"cells": [code("setup"), md(" ".join(["word"] * 1000)), md("$$\na\n$$"), code("x = 1\n" * 20)]}
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(nb))
    assert rt.chapter_minutes(path) == 15  # 10 + 2 + 1 = 13 minutes, to the nearest 5
    assert rt.chapter_minutes(str(path)) == 15


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


def exercise(label: str, minutes: int | None, body: str = "Write it.") -> str:
    first = f"*Difficulty ★★☆, about {minutes} minutes.* " if minutes is not None else ""
    return f"```{{exercise}} Title\n:label: {label}\n\n{first}{body}\n```"


def test_each_exercise_adds_the_minutes_its_first_line_states():
    nb = {
        "cells": [
            code("setup"),
            md(exercise("ex-a", 15) + "\n" + exercise("ex-b", 40)),
            code("stub = 1"),
            md(exercise("ex-c", 5)),
        ]
    }
    counts = rt.count(nb)
    assert counts.exercises == (("ex-a", 15), ("ex-b", 40), ("ex-c", 5))
    assert rt.minutes(counts) == pytest.approx(rt.reading_minutes(counts) + 60)


def test_an_exercise_without_a_stated_time_names_the_chapter_and_the_label():
    nb = {"cells": [code("setup"), md(exercise("ex-fine", 10)), md(exercise("ex-unpriced", None))]}
    with pytest.raises(rt.MissingExerciseTime, match=r"03_one_step\.ipynb.*ex-unpriced"):
        rt.count(nb, "03_one_step.ipynb")
    later = md(exercise("ex-late", None, body="Write it.\n\n*Difficulty ★☆☆, about 5 minutes.*"))
    with pytest.raises(rt.MissingExerciseTime, match="ex-late"):  # the time must open the exercise
        rt.count({"cells": [later]})


def test_solutions_are_left_out_of_the_reading_their_exercise_prices_them():
    solved_apart = [
        md(exercise("ex-a", 10)),
        md("```{solution-start} ex-a\n:class: dropdown\n```\n\nSix words of the solution here."),
        code("shown = 1"),
        md("More solution words.\n$$\nx\n$$\n```{solution-end}\n```\n\nTwo after."),
    ]
    counts = rt.count({"cells": [code("setup"), *solved_apart]})
    assert counts.words == rt.count({"cells": [md(exercise("ex-a", 10)), md("Two after.")]}).words
    assert counts.equations == 0 and counts.code_lines == 1
    inline = md(exercise("ex-b", 10) + "\n```{solution} ex-b\nHidden words.\n```\nKept.")
    assert rt.count({"cells": [inline]}).words == rt.count({"cells": [md(exercise("ex-b", 10) + "\nKept.")]}).words


def test_the_reading_formula_counts_each_quantity_at_its_documented_price():
    # CONTRIBUTING.md, "Reading times": words / 85 + 2 min an equation + 3 s a code line + 20 s a computed value
    assert rt.reading_minutes(rt.Counts(255, 1, 20, 6)) == pytest.approx(3 + 2 + 1 + 2)
    assert rt.minutes(rt.Counts(0, 0, 0, 0)) == 0.0
    assert "stated minutes" in rt.FORMULA_TEXT


def test_the_reading_alone_is_the_rounded_time_less_the_priced_minutes_rounded_in_turn():
    # 255 words, an equation, 20 code lines, 6 values: 8 min of reading; exercises 20 + 12 and a 15-minute proof
    counts = rt.Counts(255, 1, 20, 6, (("a", 20), ("b", 12)), (15,))
    assert rt.priced_minutes(counts) == 47 and rt.rounded(rt.minutes(counts)) == 55
    assert rt.reading_alone(counts) == 10, "55 - 47 = 8, rounded to the nearest 5 as the total is"
    assert rt.reading_alone(rt.Counts(0, 0, 0, 0)) == 5, "never below one step, as the total"
    assert rt.reading_alone(rt.Counts(255, 1, 20, 6, (("a", 20),))) == 10, "30 - 20"


@pytest.mark.parametrize(("total", "words"), [(40, "40 min"), (60, "1 h"), (65, "1 h 5 min"), (150, "2 h 30 min")])
def test_a_time_in_hours_and_minutes(total, words):
    assert rt.in_words(total) == words


# The learner of 2026-11-28 (section 1 of each chapter): measured time of reading plus every exercise, and the
# chapter's counts once its exercises state their own minutes (words without solutions, display equations, visible
# code lines, computed values; the stated minutes in order).
LEARNER_2026_11_28 = {
    "01": (rt.Counts(2619, 6, 113, 0, tuple(zip("abcdef", (15, 15, 10, 20, 10, 15), strict=True))), 130),
    "02": (rt.Counts(3191, 5, 232, 11, tuple(zip("abcdef", (15, 15, 15, 25, 15, 10), strict=True))), 145),
    "03": (rt.Counts(3985, 12, 209, 54, tuple(zip("abcde", (15, 10, 15, 30, 15), strict=True))), 165),
    "04": (rt.Counts(4812, 10, 115, 54, tuple(zip("abcde", (20, 15, 25, 20, 15), strict=True))), 190),
    "05": (rt.Counts(3715, 1, 117, 25, tuple(zip("abcd", (10, 20, 10, 20), strict=True))), 120),
}


@pytest.mark.parametrize("chapter", sorted(LEARNER_2026_11_28))
def test_reading_plus_stated_minutes_lands_within_15_percent_of_the_learners_time(chapter):
    counts, measured = LEARNER_2026_11_28[chapter]
    assert abs(rt.rounded(rt.minutes(counts)) / measured - 1) <= 0.15


def test_flat_exercise_prices_would_miss_the_learners_longest_chapters():
    # the old price, 8 minutes an exercise, puts chapters 3 and 4 more than 15 % below the learner's times
    for chapter in ("03", "04"):
        counts, measured = LEARNER_2026_11_28[chapter]
        flat = rt.reading_minutes(counts) + 8 * len(counts.exercises)
        assert flat / measured - 1 < -0.15


def proof(first_line: str, fence: str = "```") -> str:
    return f"{fence}{{prf:proof}}\n:class: dropdown\n{first_line}\n\nFive words of the proof.\n\n$$\na = b\n$$\n{fence}"


def test_a_proof_priced_on_its_first_line_counts_its_minutes_not_its_words():
    before, after = md("Three words before."), md("Two after.")
    priced = rt.count({"cells": [before, md(proof("*Pen and paper, about 40 minutes.*") + "\n\nTwo after.")]})
    plain = rt.count({"cells": [before, after]})
    assert priced.proofs == (40,) and (priced.words, priced.equations) == (plain.words, plain.equations)
    assert rt.minutes(priced) == pytest.approx(rt.minutes(plain) + 40)
    # ::: fences, and two proofs in one cell, each with its own minutes
    two = md(proof("*Pen and paper, about 35 minutes.*", ":::") + "\n\n" + proof("*Pen and paper, about 5 minutes.*"))
    assert rt.count({"cells": [two]}) == rt.Counts(0, 0, 0, 0, (), (35, 5))


def test_a_proof_without_a_price_or_with_the_price_later_is_read_as_prose():
    for first in ("*Step 1.*", "Read it. *Pen and paper, about 40 minutes.*"):
        counts = rt.count({"cells": [md(proof(first))]})
        assert counts.proofs == () and counts.equations == 1 and counts.words >= 5, first
    # the priced block ends at its own closing fence: the prose after it is read
    after = rt.count(
        {"cells": [md(proof("*Pen and paper, about 40 minutes.*") + "\n\nNine more words are read here after the proof.")]}
    )
    assert after.words == 9 and after.proofs == (40,)


def test_every_count_adds_up_over_the_cells_of_a_chapter():
    cells = [
        code("setup = 1"),
        md("One.\n$$\na\n$$"),
        code("a = 1\nb = 2"),
        md(proof("*Pen and paper, about 30 minutes.*")),
        md("Two three.\n$$\nb\n$$\n$$\nc\n$$"),
        code("c = 3"),
        md(proof("*Pen and paper, about 5 minutes.*")),
    ]
    assert rt.count({"cells": cells}) == rt.Counts(3, 3, 3, 0, (), (30, 5))
    assert rt.count({"cells": cells[1:]}).code_lines == 1  # the first code cell is the set-up, wherever it is


def test_errors_name_the_chapter_the_exercise_or_its_absence(tmp_path):
    import json

    with pytest.raises(ValueError, match="^the notebook has no cells: nothing to time$"):
        rt.count({"cells": []})
    with pytest.raises(rt.MissingExerciseTime, match="^the chapter: exercise ex-x states no time"):
        rt.count({"cells": [md(exercise("ex-x", None))]})
    with pytest.raises(rt.MissingExerciseTime, match="^the chapter: exercise ex-y states no time"):
        rt.exercise_times(exercise("ex-y", None))
    unlabelled = "```{exercise} Title\n\nWrite it.\n```"
    with pytest.raises(rt.MissingExerciseTime, match=r"exercise \(an exercise without a label\) states no time"):
        rt.exercise_times(unlabelled, "04b")
    path = tmp_path / "07_yelp.ipynb"
    path.write_text(json.dumps({"cells": [md(exercise("ex-z", None))]}))
    with pytest.raises(rt.MissingExerciseTime, match="^07_yelp: exercise ex-z"):
        rt.chapter_minutes(path)


def test_a_zero_step_is_refused():
    with pytest.raises(ValueError, match="step must be a positive number of minutes, got 0"):
        rt.rounded(10, 0)


def test_a_solution_ended_by_a_directive_leaves_its_closing_fence_and_nothing_after_it_out():
    # the solution-end directive's own closing fence is dropped with it; a later fence of the same kind is read
    cells = [
        md(exercise("ex-a", 10)),
        md("```{solution-start} ex-a\n```\nHidden."),
        md("```{solution-end}\n```\n\nTwo after.\n\n```\ncode here\n```\n\nThree more here."),
    ]
    assert rt.count({"cells": cells}).words == rt.count({"cells": [md(exercise("ex-a", 10))]}).words + 5
    blank_then_fence = md("```{solution-start} ex-a\n```\nHidden.\n```{solution-end}\n\n```\nKept words.")
    assert rt.count({"cells": [blank_then_fence]}).words == 2


def test_after_a_solution_ends_blank_lines_still_end_a_time_paragraph():
    # the blank line after the Time paragraph ends it; were blank lines dropped, the words after it would be left out
    after = md("```{solution-start} ex-a\n```\nHidden.\n```{solution-end}\n```\n**Time.** about 5 min\n\nCounted words.")
    assert rt.count({"cells": [after]}).words == 2


def test_a_first_pass_leaves_out_each_optional_section_up_to_the_next_heading_of_its_level():
    notebook = {
        "cells": [
            code("setup()"),
            md("# Chapter\n\nintro words\n\n## Core\n\ncore one\n\n### Detail (optional)\n\nskip a\n\n#### Deeper\n\nskip b"),
            code("x = 1"),
            md(["### Back\n", "\n", "kept c\n", "\n", "## Going further: the grid\n", "\n", "skip d\n",
                "\n```python\n## A comment (optional)\n```\n"]),
            code("y = 2", "hide-input"),
            md("## Exercises\n\nkept e\n\n### Going furthermore\n\nkept f\n\n### Optional (optional) aside\n\nkept g"),
            code("z = 3"),
        ]
    }  # fmt: skip
    first = rt.without_optional(notebook)
    text = " ".join(c["source"] for c in first["cells"] if c["cell_type"] == "markdown")
    assert all(word in text for word in ("intro", "core", "kept c", "kept e", "kept f", "kept g"))
    assert "skip" not in text and "Deeper" not in text and "A comment" not in text
    assert [c["source"] for c in first["cells"] if c["cell_type"] == "code"] == ["setup()", "z = 3"]
    assert len(notebook["cells"]) == 7 and isinstance(notebook["cells"][3]["source"], list)  # the input is unchanged
    counts = rt.count(first)
    assert counts.code_lines == 1  # z = 3: the set-up cell is still the first code cell, and is not counted
    # Chapter intro words Core core one Back kept c Exercises kept e Going furthermore kept f Optional (optional) aside kept g
    assert counts.words == 21


def test_a_cell_wholly_inside_an_optional_section_or_blank_is_left_out_and_a_section_ends_at_a_higher_heading():
    notebook = {"cells": [md("## A (optional)\n\nskip"), md("more skip"), md("# Next part\n\nkept"), md("\n\n")]}
    first = rt.without_optional(notebook)
    assert [c["source"] for c in first["cells"]] == ["# Next part\n\nkept"]  # a cell left blank is left out too
