"""Fold groups: a run of at least four cells that show only their toggle becomes one toggle; nothing else moves."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from docutils.utils import new_document
from fold_groups import (
    MIN_RUN,
    SETUP_PROMPT,
    group_prompts,
    runs_of_silent_folds,
    silent_fold,
    wrap_run,
)
from myst_nb.sphinx_ import HideCodeCellNode

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import fold_prompts  # noqa: E402


def _cell(name: str, *, checks: bool = False, output: bool = False, prompt: str = "Show the code") -> nodes.container:
    """A code cell as MyST-NB leaves it after folding: its input inside a toggle, its output (if any) beside it."""
    cell = nodes.container(nb_element="cell_code", classes=["cell", "tag_hide-input"] + (["tag_checks"] * checks))
    fold = HideCodeCellNode(prompt_show=prompt, prompt_hide=prompt.replace("Show", "Hide"))
    fold += nodes.literal_block(text=name)
    cell += fold
    if output:
        cell += nodes.container(nb_element="cell_code_output")
    cell["names"].append(name)
    return cell


def _section(*children: nodes.Node) -> nodes.section:
    document = new_document("page")
    section = nodes.section()
    for child in children:
        section += child
    document += section
    return section


def _names(section: nodes.Element) -> list:
    """The section's children: a cell by its name, a group as the list of its cells' names, text as "text"."""
    shown = []
    for child in section.children:
        if "fold-group-cell" in child["classes"]:
            shown.append([cell["names"][0] for cell in child.children[0].children])
        elif isinstance(child, nodes.container):
            shown.append(child["names"][0])
        else:
            shown.append("text")
    return shown


def test_a_cell_is_silent_when_it_shows_only_its_toggle():
    assert silent_fold(_cell("a"))
    assert not silent_fold(_cell("a", output=True)), "a visible output is not silent"
    assert not silent_fold(_cell("a", prompt=SETUP_PROMPT)), "the set-up cell keeps its own toggle"
    assert not silent_fold(nodes.paragraph(text="x"))
    open_cell = nodes.container(nb_element="cell_code")
    open_cell += nodes.literal_block(text="x")
    assert not silent_fold(open_cell), "an open cell is not folded"


def test_the_set_up_prompt_is_the_one_the_notebooks_carry():
    assert SETUP_PROMPT == fold_prompts.SETUP[0]
    assert MIN_RUN == 4


def test_runs_start_at_four_and_break_at_text_outputs_and_the_set_up_cell():
    three = [_cell(f"a{i}") for i in range(MIN_RUN - 1)]
    four = [_cell(f"b{i}", checks=i % 2 == 1) for i in range(MIN_RUN)]
    after_output = [_cell(f"c{i}") for i in range(MIN_RUN)]
    section = _section(
        _cell("setup", prompt=SETUP_PROMPT),
        *three,
        nodes.paragraph(text="text"),
        *four,
        _cell("shown", output=True),
        *after_output,
    )
    runs = runs_of_silent_folds(section)
    assert [[cell["names"][0] for cell in run] for run in runs] == [
        [f"b{i}" for i in range(MIN_RUN)],
        [f"c{i}" for i in range(MIN_RUN)],
    ]
    assert runs_of_silent_folds(section, min_run=MIN_RUN - 1)[0] == three, "three in a row count at a lower bar"


def test_the_prompt_names_what_the_group_holds_and_counts_it():
    assert group_prompts([_cell("a"), _cell("b", checks=True), _cell("c")]) == (
        "Show the code and its checks (3 cells)",
        "Hide the code and its checks (3 cells)",
    )
    assert group_prompts([_cell("a"), _cell("b")])[0] == "Show the code (2 cells)"
    assert group_prompts([_cell("a", checks=True)] * 5)[0] == "Show the checks (5 cells)"


def test_wrapping_keeps_order_and_every_cell():
    cells = [_cell(f"b{i}", checks=i == 2) for i in range(5)]
    section = _section(nodes.paragraph(text="before"), *cells, nodes.paragraph(text="after"))
    group = wrap_run(runs_of_silent_folds(section)[0])
    assert _names(section) == ["text", [f"b{i}" for i in range(5)], "text"]
    assert group["prompt_show"] == "Show the code and its checks (5 cells)"
    assert {"above-input", "fold-group"} <= set(group["classes"]), "the PDF drops it with the other folded inputs"
    assert "cell" in group.parent["classes"], "MyST-NB's styles of a folded cell apply to it"
    assert all(isinstance(cell.children[0], HideCodeCellNode) for cell in group.children), "each keeps its toggle"
