"""MyST-NB cells in a doctree: a code cell, its output, and the distinct parents of the nodes a transform looks for."""

from __future__ import annotations

from docutils import nodes
from docutils.utils import new_document
from nb_cells import cell_output, is_code_cell, parents_of


def _cell(output: bool) -> nodes.container:
    cell = nodes.container(nb_element="cell_code")
    cell += nodes.container(nb_element="cell_code_source")
    if output:
        cell += nodes.container(nb_element="cell_code_output")
    return cell


def test_a_code_cell_and_its_output():
    assert is_code_cell(_cell(False)) and not is_code_cell(nodes.container(nb_element="cell_code_output"))
    assert not is_code_cell(nodes.paragraph())
    assert cell_output(_cell(False)) is None
    with_output = _cell(True)
    assert cell_output(with_output) is with_output.children[-1]


def test_parents_of_names_each_parent_once_in_document_order():
    document = new_document("page")
    first, second, empty = nodes.section(), nodes.section(), nodes.section()
    first.extend([_cell(False), nodes.paragraph(), _cell(True)])
    second += _cell(False)
    empty += nodes.paragraph()
    document.extend([first, empty, second])
    assert parents_of(document, is_code_cell) == [first, second]
    assert parents_of(document, lambda node: isinstance(node, nodes.title)) == []
