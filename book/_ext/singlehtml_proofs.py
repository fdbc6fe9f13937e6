"""Theorem and proof blocks (sphinx-proof) in the one-page build that makes the PDF.

sphinx-proof registers its nodes' HTML visitors for the ``html`` builder only; the
``singlehtml`` builder looks visitors up under its own name and stops on the first
``{prf:...}`` block. This registers the same visitors for it.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    import sphinx_proof
    from sphinx_proof.nodes import (
        NODE_TYPES,
        depart_enumerable_node,
        depart_proof_node,
        depart_unenumerable_node,
        proof_node,
        unenumerable_node,
        visit_enumerable_node,
        visit_proof_node,
        visit_unenumerable_node,
    )

    app.setup_extension(sphinx_proof.__name__)
    app.add_node(proof_node, override=True, singlehtml=(visit_proof_node, depart_proof_node))
    app.add_node(unenumerable_node, override=True, singlehtml=(visit_unenumerable_node, depart_unenumerable_node))
    for node in NODE_TYPES.values():
        app.add_node(node, override=True, singlehtml=(visit_enumerable_node, depart_enumerable_node))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
