"""What a MyST-NB code cell looks like in a page's doctree, for the book's transforms that rearrange cells.

A code cell is a container with ``nb_element="cell_code"``; its output, when it has one, is a child container with
``nb_element="cell_code_output"``. These are the shapes ``fold_groups`` and ``numbered_figures`` read.
"""

from __future__ import annotations

from collections.abc import Callable

from docutils import nodes


def is_code_cell(node: nodes.Node) -> bool:
    """Whether ``node`` is a MyST-NB code cell."""
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def cell_output(cell: nodes.Element) -> nodes.container | None:
    """The output container of a code cell, or None when it has none."""
    for child in cell.children:
        if isinstance(child, nodes.container) and child.get("nb_element") == "cell_code_output":
            return child
    return None


def parents_of(document: nodes.document, condition: Callable[[nodes.Node], bool]) -> list[nodes.Element]:
    """The distinct parents of the nodes of ``document`` that meet ``condition``, in document order: where a transform
    looks for runs or pairs of sibling cells."""
    parents = {id(node.parent): node.parent for node in document.findall(condition)}
    return list(parents.values())
