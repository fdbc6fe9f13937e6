"""One toggle for a stack of folded cells.

A page that computes a figure's data in several steps, each checked on the way, shows one folded bar per cell: "Show
the code", "Show the checks", "Show the code", ... A reader scrolls past a wall of alike bars where the text expects
one. This wraps every run of at least ``MIN_RUN`` consecutive cells that show nothing but their toggle (no visible
output) into one toggle that says what the run holds and how many cells; each cell keeps its own toggle inside.
nbval runs the cells as before: only the HTML changes. The PDF drops folded inputs, and the group with them, as the
group carries MyST-NB's ``above-input`` class.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode
from nb_cells import is_code_cell, parents_of
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

MIN_RUN = 4
"""The shortest run wrapped: two or three toggles in a row stay as they are."""
CHECKS_CLASS = "tag_checks"
"""The class of a cell folded behind "Show the checks" (scripts/fold_prompts.py)."""
SETUP_PROMPT = "Show the set-up code"
"""The toggle of a chapter's set-up cell (scripts/fold_prompts.py), which installs the course: it keeps its own toggle,
where a reader opening the chapter in Colab looks for it, and ends a run."""


def silent_fold(node: nodes.Node) -> bool:
    """Whether ``node`` is a code cell that shows nothing but one folded toggle (its output, if any, folded too),
    other than the set-up cell."""
    return (
        is_code_cell(node)
        and len(node.children) == 1
        and isinstance(node.children[0], HideCodeCellNode)
        and node.children[0]["prompt_show"] != SETUP_PROMPT
    )


def runs_of_silent_folds(parent: nodes.Element, min_run: int = MIN_RUN) -> list[list[nodes.container]]:
    """The runs of at least ``min_run`` consecutive silent folded cells among the children of ``parent``, in order."""
    runs: list[list[nodes.container]] = []
    run: list[nodes.container] = []
    for child in [*parent.children, None]:
        if child is not None and silent_fold(child):
            run.append(child)
            continue
        if len(run) >= min_run:
            runs.append(run)
        run = []
    return runs


def group_prompts(cells: list[nodes.container]) -> tuple[str, str]:
    """The group's show and hide prompts: what its cells hold (code, checks or both) and how many there are."""
    checks = sum(CHECKS_CLASS in cell["classes"] for cell in cells)
    if checks == len(cells):
        what = "the checks"
    elif checks:
        what = "the code and its checks"
    else:
        what = "the code"
    return f"Show {what} ({len(cells)} cells)", f"Hide {what} ({len(cells)} cells)"


def wrap_run(cells: list[nodes.container]) -> HideCodeCellNode:
    """Put ``cells`` (consecutive children of one parent) inside one folded group, in place of the first. The group
    sits in a container of class ``cell`` so that MyST-NB's styles for a folded cell (one prompt at a time, the bar's
    look) apply to it; it is returned."""
    prompt_show, prompt_hide = group_prompts(cells)
    group = HideCodeCellNode(prompt_show=prompt_show, prompt_hide=prompt_hide)
    group["classes"] += ["above-input", "fold-group"]
    holder = nodes.container(classes=["cell", "fold-group-cell"])
    holder += group
    parent = cells[0].parent
    parent.replace(cells[0], holder)
    for cell in cells[1:]:
        parent.remove(cell)
    group.extend(cells)
    return group


class GroupFoldedCells(SphinxPostTransform):
    """Wrap each run of silent folded cells in one toggle, after MyST-NB has folded each cell (priority 199)."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for parent in parents_of(self.document, silent_fold):
            for run in runs_of_silent_folds(parent):
                wrap_run(run)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(GroupFoldedCells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
