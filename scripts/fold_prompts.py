"""The words on a folded code cell's toggle: what the reader would find inside it.

Jupyter Book shows every folded input (``hide-input``) behind the same "Show code cell source" bar;
a page with a figure's code, two check cells and a set-up cell in a row shows four alike. MyST-NB reads
the prompt per cell from the cell's metadata (``mystnb.code_prompt_show``, ``mystnb.code_prompt_hide``),
so each bar can say what it holds: the checks, or the code that draws the figure under it.
"""

from __future__ import annotations

import ast
import re
from typing import Any

FOLDED = "hide-input"
WHOLE = "hide-cell"
OUTPUT_ONLY = "hide-output"
"""A cell whose output alone is folded keeps the prompts written by hand: what its output is, a table or a list of
runs, is not in its source, so no rule can name it."""
CHECKS = ("Show the checks", "Hide the checks")
CHECKS_TAG = "checks"
"""The tag of a cell folded behind the checks prompt: MyST-NB writes a cell's tags as classes (``tag_checks``), and
the book's ``audit.css`` draws its toggle small and muted at the right, so the audit trail recedes beside the reading
path instead of a full-width bar between a figure and its caption."""
DRAWING = ("Show the code that draws the figure", "Hide the code that draws the figure")
FIGURE = ("Show the figure and its code", "Hide the figure and its code")
"""A drawing cell folded whole (``hide-cell``): one toggle opens the figure with its code."""
SETUP = ("Show the set-up code", "Hide the set-up code")
"""The chapter's set-up cell, which installs the course (its first line is ``SETUP_LINE``); scripts/sync_setup_cells.py
writes these words on each chapter's first cell, which the tidying leaves alone."""
IMPORTS = ("Show the imports", "Hide the imports")
"""A cell that holds nothing but imports."""
CODE = ("Show the code", "Hide the code")
"""A folded input that neither draws, checks nor imports: the code that computes what the page shows next."""
CELL = ("Show the cell and its output", "Hide the cell and its output")
"""A cell folded whole (``hide-cell``) that draws no figure: its printed output is inside the fold too."""
SETUP_LINE = "# Setup."
COMPUTING = ("Show the code and its checks", "Hide the code and its checks")
"""A folded cell that computes what the page shows and checks it on the way: asserts under a third of its statements."""
# A cell draws when it shows a matplotlib figure or builds one.
DRAWS = re.compile(r"\bplt\.(?:show|subplots|figure)\(|\bfig\.tight_layout\(")


def mostly_checks(source: str) -> bool:
    """Whether asserts make up at least a third of the statements of ``source`` (counted at every depth, so a loop of
    asserts is checks); source that does not parse counts as checks."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    statements = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    checks = sum(isinstance(node, ast.Assert) for node in statements)
    return 3 * checks >= len(statements)


def only_imports(source: str) -> bool:
    """Whether ``source`` holds nothing but imports (source that does not parse holds something else)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return bool(tree.body) and all(isinstance(node, ast.Import | ast.ImportFrom) for node in tree.body)


def prompts(source: str, asserts: bool, whole: bool = False) -> tuple[str, str]:
    """The (show, hide) prompts of a folded code cell with ``source``: the drawing prompt when it draws a figure (the
    figure's own when the cell is folded ``whole``, output and all); when its input alone is folded and it asserts
    (``asserts``, read by the caller from its syntax tree) and draws nothing, the checks prompt, or the computing one
    where the asserts are under a third of its statements; the set-up prompt for the set-up cell and the imports
    prompt for a cell of imports; else the code prompt, or the cell prompt for a cell folded whole (never the book's
    default "Show code cell source", which says nothing about what is inside)."""
    if DRAWS.search(source):
        return FIGURE if whole else DRAWING
    if source.lstrip().startswith(SETUP_LINE):
        return SETUP
    if only_imports(source):
        return IMPORTS
    if whole:
        return CELL
    if not asserts:
        return CODE
    return CHECKS if mostly_checks(source) else COMPUTING


def label_fold(cell: Any, asserts: bool) -> bool:
    """Write the prompts of ``cell`` (a notebook code cell, a dict-like node) into its ``mystnb`` metadata when it is
    folded by ``hide-input`` or ``hide-cell``; remove prompts a cell no longer needs; tag it ``CHECKS_TAG`` exactly when
    its prompt is the checks prompt. Returns whether the metadata changed."""
    if cell.get("cell_type") != "code":
        return False
    metadata = cell.setdefault("metadata", {})
    tags = metadata.get("tags", [])
    folded = FOLDED in tags or WHOLE in tags
    if OUTPUT_ONLY in tags and not folded:
        return False
    wanted = prompts(cell.get("source", ""), asserts, whole=WHOLE in tags) if folded else None
    retagged = _tag_checks(metadata, wanted == CHECKS)
    settings = metadata.get("mystnb", {})
    present = (settings.get("code_prompt_show"), settings.get("code_prompt_hide"))
    if present == (wanted or (None, None)):
        return retagged
    settings = {k: v for k, v in settings.items() if k not in ("code_prompt_show", "code_prompt_hide")}
    if wanted:
        settings.update(code_prompt_show=wanted[0], code_prompt_hide=wanted[1])
    if settings:
        metadata["mystnb"] = settings
    else:
        metadata.pop("mystnb", None)
    return True


def _tag_checks(metadata: dict[str, Any], checks: bool) -> bool:
    """Add ``CHECKS_TAG`` to the tags in ``metadata`` when ``checks``, remove it otherwise; whether they changed."""
    tags = list(metadata.get("tags", []))
    if checks == (CHECKS_TAG in tags):
        return False
    metadata["tags"] = [*tags, CHECKS_TAG] if checks else [tag for tag in tags if tag != CHECKS_TAG]
    return True
