"""scripts/fold_prompts.py: a folded cell's toggle says whether it holds the checks or a figure's code."""

from __future__ import annotations

import fold_prompts as fp
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

PLOT = "fig, ax = plt.subplots()\nax.plot([1, 2])\nplt.show()"
CHECK = "assert x > 0, 'x is not positive'"


def cell(source: str, *tags: str, **mystnb: str):
    made = new_code_cell(source, metadata={"tags": list(tags)})
    if mystnb:
        made.metadata["mystnb"] = dict(mystnb)
    return made


@pytest.mark.parametrize(
    ("source", "asserts", "expected"),
    [
        (PLOT, False, fp.DRAWING),
        (PLOT + "\n" + CHECK, True, fp.DRAWING),  # a figure with its checks: the figure is what it shows
        ("fig.tight_layout()", False, fp.DRAWING),
        ("figure = plt.figure(figsize=(3, 2))", False, fp.DRAWING),
        (CHECK, True, fp.CHECKS),
        ("x = 1", False, fp.CODE),
        ("x = plt.show", False, fp.CODE),  # no call
        ("splt.show()", False, fp.CODE),  # another name that ends in plt
        ("my_fig.tight_layout()", False, fp.CODE),
        ("# Setup. In Colab: install\nimport os\n!pip install -q x", False, fp.SETUP),  # not Python, still set-up
        ("import numpy as np\nfrom token_selection import glue", False, fp.IMPORTS),
        ("import numpy as np\nx = np.ones(3)", False, fp.CODE),  # imports and a computation
        ("# only a comment", False, fp.CODE),
        ("x = 1  # Setup.", False, fp.CODE),  # the set-up line must open the cell
    ],
)
def test_the_prompt_names_what_the_cell_holds(source, asserts, expected):
    assert fp.prompts(source, asserts) == expected


def test_a_folded_check_cell_gets_the_checks_prompt_and_keeps_its_other_settings():
    made = cell(CHECK, "hide-input", image="{'alt': 'a'}")
    assert fp.label_fold(made, asserts=True)
    assert made.metadata["mystnb"] == {
        "image": "{'alt': 'a'}",
        "code_prompt_show": fp.CHECKS[0],
        "code_prompt_hide": fp.CHECKS[1],
    }
    assert not fp.label_fold(made, asserts=True)  # a second pass changes nothing


@pytest.mark.parametrize("tags", [(), ("remove-input",), ("remove-cell",)])
def test_only_a_folded_cell_is_labelled(tags):
    made = cell(PLOT, *tags)
    assert not fp.label_fold(made, asserts=False)
    assert "mystnb" not in made.metadata


def test_a_cell_that_is_no_longer_folded_loses_its_prompts_and_an_emptied_mystnb_goes():
    made = cell(PLOT, code_prompt_show=fp.DRAWING[0], code_prompt_hide=fp.DRAWING[1])
    assert fp.label_fold(made, asserts=False)
    assert "mystnb" not in made.metadata
    kept = cell(PLOT, code_prompt_show="old", image="x")
    assert fp.label_fold(kept, asserts=False)
    assert kept.metadata["mystnb"] == {"image": "x"}


@pytest.mark.parametrize("stale", [("Show", fp.CHECKS[1]), (fp.CHECKS[0], "Hide")])
def test_a_prompt_written_by_hand_is_replaced_by_the_rule(stale):
    made = cell(CHECK, "hide-input", code_prompt_show=stale[0], code_prompt_hide=stale[1])
    assert fp.label_fold(made, asserts=True)
    settings = made.metadata["mystnb"]
    assert (settings["code_prompt_show"], settings["code_prompt_hide"]) == fp.CHECKS


def test_a_markdown_cell_is_left_alone():
    made = new_markdown_cell("plt.show()", metadata={"tags": ["hide-input"]})
    assert not fp.label_fold(made, asserts=False)
    assert "mystnb" not in made.metadata


def test_a_folded_cell_that_neither_draws_nor_checks_says_it_holds_code():
    made = cell("x = 1", "hide-input")
    assert fp.label_fold(made, asserts=False)
    settings = made.metadata["mystnb"]
    assert (settings["code_prompt_show"], settings["code_prompt_hide"]) == fp.CODE


def test_a_drawing_cell_folded_whole_gets_one_prompt_for_the_figure_and_its_code():
    made = cell(PLOT, "hide-cell")
    assert fp.label_fold(made, asserts=False)
    settings = made.metadata["mystnb"]
    assert (settings["code_prompt_show"], settings["code_prompt_hide"]) == fp.FIGURE


@pytest.mark.parametrize(("source", "asserts"), [(CHECK, True), ("x = 1", False)])
def test_a_cell_folded_whole_that_draws_nothing_says_its_output_is_inside(source, asserts):
    # its output is folded too: "Show the checks" would not say that the printed verdict is inside
    made = cell(source, "hide-cell")
    assert fp.label_fold(made, asserts=asserts)
    settings = made.metadata["mystnb"]
    assert (settings["code_prompt_show"], settings["code_prompt_hide"]) == fp.CELL


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = f()\ny = g(x)\nassert y > 0", fp.CHECKS),  # one assert in three statements: a third, the boundary
        ("x = f()\ny = g(x)\nz = h(y)\nassert z > 0", fp.COMPUTING),  # one in four
        ("for s in runs:\n    assert s > 0", fp.CHECKS),  # a loop of asserts: one of two statements
        ("for s in runs:\n    a = s + 1\n    b = a * 2\n    c.append(b)\nassert c", fp.COMPUTING),
        ("assert (", fp.CHECKS),  # does not parse: read as checks
    ],
)
def test_a_cell_that_mostly_computes_says_so(source, expected):
    assert fp.prompts(source, asserts=True) == expected


def test_a_cell_whose_output_alone_is_folded_keeps_the_prompts_written_by_hand():
    made = cell("table", "remove-input", "hide-output", code_prompt_show="Show every count", code_prompt_hide="Hide")
    assert not fp.label_fold(made, asserts=False)
    assert made.metadata["mystnb"] == {"code_prompt_show": "Show every count", "code_prompt_hide": "Hide"}
    folded_too = cell(CHECK, "hide-input", "hide-output", code_prompt_show="mine", code_prompt_hide="mine")
    assert fp.label_fold(folded_too, asserts=True)  # a folded input still follows the rule
    assert folded_too.metadata["mystnb"]["code_prompt_show"] == fp.CHECKS[0]


def test_a_check_cell_is_tagged_checks_and_loses_the_tag_when_it_no_longer_holds_checks():
    made = cell(CHECK, "hide-input", "nbval-ignore-output")
    assert fp.label_fold(made, asserts=True)
    assert made.metadata["tags"] == ["hide-input", "nbval-ignore-output", fp.CHECKS_TAG]
    assert not fp.label_fold(made, asserts=True)  # a second pass changes nothing
    made.source = PLOT + "\n" + CHECK  # now it draws: its toggle is the figure's, not the checks'
    assert fp.label_fold(made, asserts=True)
    assert fp.CHECKS_TAG not in made.metadata["tags"] and made.metadata["mystnb"]["code_prompt_show"] == fp.DRAWING[0]


@pytest.mark.parametrize("tags", [(fp.CHECKS_TAG,), ("remove-input", fp.CHECKS_TAG)])
def test_a_stale_checks_tag_on_a_cell_not_folded_is_removed(tags):
    made = cell(CHECK, *tags)
    assert fp.label_fold(made, asserts=True)
    assert made.metadata["tags"] == [t for t in tags if t != fp.CHECKS_TAG]
    assert not fp.label_fold(made, asserts=True)


def test_a_folded_computation_with_few_asserts_is_not_tagged_checks():
    made = cell("x = 1\ny = 2\nz = 3\nw = 4\n" + CHECK, "hide-input")
    assert fp.label_fold(made, asserts=True)
    assert made.metadata["mystnb"]["code_prompt_show"] == fp.COMPUTING[0]
    assert fp.CHECKS_TAG not in made.metadata["tags"]
