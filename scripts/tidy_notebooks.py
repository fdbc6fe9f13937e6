"""Tidy the chapters for the reader: no test markers, no glue plumbing, code that fits the column.

For every chapter (``notebooks/*.ipynb``, or the notebooks named) this script

1. turns nbval's comment markers (``# NBVAL_CHECK_OUTPUT`` and the others nbval reads) into
   the cell tags nbval reads just as well (``nbval-check-output``, ...), so no test machinery
   shows on the page; a compared cell also keeps ``keep_output: true``, the mark
   ``scripts/refresh_notebooks.py`` and nbstripout keep its output by;
2. moves the glue calls that end a code cell (its last top-level statements, when they only hand
   values to the prose) into a cell of their own right after it, so the code a reader sees keeps
   no ``glue(...)`` line; then tags ``remove-cell`` every code cell that only hands values to the prose (every statement
   a ``glue(...)`` call, an import of ``glue`` or a loop of such calls:
   ``token_selection.prose.glue_plumbing``), or ``remove-input`` when one of its calls shows
   the value (``display=True``);
3. tags ``hide-input`` every code cell that holds an ``assert`` statement (a check cell), so the
   checks run under nbval and stay one click away while the page shows only their printed line;
   a cell already folded or removed (``hide-input``, ``hide-cell``, ``remove-input``,
   ``remove-cell``) is left as it is;
4. formats the code with ``ruff format`` at the chapters' line length (``notebooks/ruff.toml``,
   the characters the book's code column shows), then splits what ruff leaves too long:
   a string literal into implicitly concatenated pieces, a comment into several lines, a
   one-line docstring into a wrapped one. Each such edit is kept only when the code's syntax
   tree is unchanged by it (a docstring's whitespace aside), so the code does what it did;
4. folds the checks: a code cell with an ``assert`` statement (at any indentation, one-line
   ``if x: assert y`` included; the word inside a string or a comment does not count) must be
   folded on the page, so it carries ``hide-input``, ``hide-cell``, ``remove-input`` or
   ``remove-cell``; tidying adds ``hide-input`` where none is there, and ``--check`` fails
   naming the chapter, the cell and the first assert line. Its output (one line such as
   "✓ 4 checks passed") stays visible;
5. labels each folded input's toggle with what it holds, the checks or the code that draws the figure
   (``fold_prompts``).

The first code cell (the set-up cell, written by ``scripts/sync_setup_cells.py``) is left as it
is. Running the script twice changes nothing the second time.

    python scripts/tidy_notebooks.py            # rewrite the chapters in place
    python scripts/tidy_notebooks.py --check    # change nothing; exit 1 and list what would change
    python scripts/tidy_notebooks.py notebooks/06_imdb.ipynb

Lines still longer than the limit after all this (a long name, a URL) are listed, and the
exit status is 1: they need a hand.
"""

from __future__ import annotations

import argparse
import ast
import copy
import io
import json
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from fold_prompts import label_fold

from token_selection.prose import glue_plumbing

ROOT = Path(__file__).resolve().parent.parent
RUFF_CONFIG = ROOT / "notebooks" / "ruff.toml"

# nbval's comment markers and the cell tags that mean the same (nbval.plugin: comment_markers, metadata_tags).
NBVAL_TAGS = {
    "NBVAL_CHECK_OUTPUT": "nbval-check-output",
    "NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
    "NBVAL_SKIP": "nbval-skip",
    "NBVAL_RAISES_EXCEPTION": "nbval-raises-exception",
}
CHECK_OUTPUT_TAG = NBVAL_TAGS["NBVAL_CHECK_OUTPUT"]
REMOVING_TAGS = ("remove-cell", "remove-input")
# Tags that keep a cell's input off the reading path (folded or removed): a check cell needs one.
FOLDING_TAGS = ("hide-input", "hide-cell", *REMOVING_TAGS)
CHECK_TAG = "hide-input"
# Comments that act on their own line: never moved or wrapped.
PRAGMA = re.compile(r"#\s*(?:noqa|type:|fmt:|pragma|NBVAL_)")
FORMAT_ROUNDS = 4


@dataclass
class Tidied:
    """What tidying one notebook did: ``changes`` in words, ``too_long`` as 'cell N: line' for lines left over the limit."""

    changes: list[str] = field(default_factory=list)
    too_long: list[str] = field(default_factory=list)


def line_length(config: Path = RUFF_CONFIG) -> int:
    """The chapters' line length: ``line-length`` of ``notebooks/ruff.toml``."""
    match = re.search(r"^line-length\s*=\s*(\d+)\s*$", config.read_text(), flags=re.MULTILINE)
    if match is None:
        raise ValueError(f"{config} sets no line-length")
    return int(match.group(1))


def tags_of(cell: nbformat.NotebookNode) -> list[str]:
    """The cell's tag list (created when missing)."""
    return cell.metadata.setdefault("tags", [])


def marker_tags(cell: nbformat.NotebookNode) -> list[str]:
    """Replace nbval comment markers in a code cell by tags; return the markers replaced.

    A marker is a comment line holding only the marker, as nbval reads it. A cell whose
    output nbval compares also gets ``keep_output: true``.
    """
    if cell.cell_type != "code":
        return []
    kept, found = [], []
    for line in cell.source.split("\n"):
        marker = line.strip().lstrip("#").strip()
        if line.strip().startswith("#") and marker in NBVAL_TAGS:
            found.append(marker)
        else:
            kept.append(line)
    if found:
        cell.source = "\n".join(kept).strip("\n")
        tags = tags_of(cell)
        tags += [NBVAL_TAGS[marker] for marker in found if NBVAL_TAGS[marker] not in tags]
    if CHECK_OUTPUT_TAG in cell.metadata.get("tags", []):
        cell.metadata["keep_output"] = True
    return found


def plumbing_tag(cell: nbformat.NotebookNode) -> str | None:
    """Tag a code cell that only glues values: ``remove-cell``, or ``remove-input`` when it displays one.

    Returns the tag added, or None (not plumbing, or already removed from the page).
    """
    if cell.cell_type != "code" or any(tag in cell.metadata.get("tags", []) for tag in REMOVING_TAGS):
        return None
    if not glue_plumbing(cell.source):
        return None
    displays = any(
        isinstance(node, ast.keyword)
        and node.arg == "display"
        and not (isinstance(node.value, ast.Constant) and node.value.value is False)
        for node in ast.walk(ast.parse(cell.source))
    )
    tag = "remove-input" if displays else "remove-cell"
    tags_of(cell).append(tag)
    return tag


def trailing_glue(source: str) -> tuple[str, str] | None:
    """(code, glue): ``source`` cut before its trailing top-level glue statements, or None when it does not end
    in glue, is only glue, or does not parse. Both parts keep their lines as written."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    lines = source.split("\n")
    first = len(body)
    while first > 0 and glue_plumbing("\n".join(lines[body[first - 1].lineno - 1 :])):
        first -= 1
    if first in (0, len(body)):
        return None
    cut = body[first].lineno - 1
    while cut > body[first - 1].end_lineno and lines[cut - 1].lstrip().startswith("#"):
        cut -= 1  # a comment just above the glue goes with it
    code, glue = "\n".join(lines[:cut]).rstrip(), "\n".join(lines[cut:]).strip("\n")
    return code, glue


def split_trailing_glue(notebook: nbformat.NotebookNode, skip: int | None) -> list[int]:
    """Split every shown code cell (not ``skip``, the set-up cell) that ends in glue into its code and a new cell of
    the glue right after it; returns the indices (before splitting) of the cells split."""
    split, cells = [], []
    for index, cell in enumerate(notebook.cells):
        cells.append(cell)
        if index == skip or cell.cell_type != "code" or any(t in cell.metadata.get("tags", []) for t in REMOVING_TAGS):
            continue
        parts = trailing_glue(cell.source)
        if parts is None:
            continue
        cell.source = parts[0]
        cells.append(nbformat.v4.new_code_cell(parts[1]))
        split.append(index)
    notebook.cells = cells
    return split


def _parsable(source: str) -> str:
    """``source`` with IPython magics and shell lines (``%...``, ``!...``) replaced by ``pass``, indentation kept."""
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass" if stripped[:1] in ("%", "!") else line)
    return "\n".join(lines)


def assert_lines(source: str) -> list[int]:
    """The 1-based line numbers of the ``assert`` statements of a code cell's source.

    Read from the syntax tree, so an assert inside a string or a comment is not one and an
    indented one (in a loop, a function, ``if x: assert y``) is. Source that does not parse
    falls back to a line test (a line whose first word is ``assert``), strings and comments
    still left out by the tokenizer where it can read them.
    """
    try:
        tree = ast.parse(_parsable(source))
    except SyntaxError:
        return [i for i, line in enumerate(source.split("\n"), 1) if re.match(r"\s*assert\b", line)]
    return sorted({node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)})


def glue_lines(source: str) -> list[int]:
    """The 1-based line numbers of the ``glue(...)`` calls of a code cell's source (from its syntax tree)."""
    try:
        tree = ast.parse(_parsable(source))
    except SyntaxError:
        return [i for i, line in enumerate(source.split("\n"), 1) if re.match(r"\s*glue\(", line)]
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "glue"
        }
    )


def quiet_checker(cell: nbformat.NotebookNode) -> bool:
    """End a code cell whose last statement is a bare call of a checker (``check_...(...)``) with ``;``.

    A checker prints its own verdict and returns a bool; without the ``;`` Jupyter also shows that
    bool (a stray ``True`` or ``False`` under the exercise). Returns whether the cell changed.
    """
    if cell.cell_type != "code" or cell.source.rstrip().endswith(";"):
        return False
    try:
        tree = ast.parse(_parsable(cell.source))
    except SyntaxError:
        return False
    last = tree.body[-1] if tree.body else None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        return False
    name = ast.unparse(last.value.func).rsplit(".", 1)[-1]
    if not name.startswith("check_"):
        return False
    cell.source = cell.source.rstrip() + ";"
    return True


def check_tag(cell: nbformat.NotebookNode) -> tuple[str, int] | None:
    """Fold a code cell that asserts, or that still glues after the trailing glue moved out (a call inside a loop
    or between other statements): add ``hide-input`` unless a folding tag is there, so neither an assert nor a
    glue call stays on the reading path or in the PDF.

    Returns (the tag added, the first such line) or None (neither, or already folded).
    """
    if cell.cell_type != "code" or any(tag in cell.metadata.get("tags", []) for tag in FOLDING_TAGS):
        return None
    lines = sorted(assert_lines(cell.source) + glue_lines(cell.source))
    if not lines:
        return None
    tags_of(cell).append(CHECK_TAG)
    return CHECK_TAG, lines[0]


def ruff_format(notebook: nbformat.NotebookNode, filename: str, config: Path = RUFF_CONFIG) -> nbformat.NotebookNode:
    """``notebook`` formatted by ``ruff format`` under ``config`` (through stdin; nothing is written)."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--config", str(config), "--stdin-filename", filename, "-"],
        input=nbformat.writes(notebook),
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"ruff format failed on {filename}:\n{result.stderr}")
    return nbformat.reads(result.stdout, as_version=4)


# --- fitting what ruff leaves too long ----------------------------------------------------------


def _syntax_key(source: str) -> str | None:
    """The syntax tree of ``source`` with each docstring's whitespace collapsed, as text; None if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                first.value.value = " ".join(first.value.value.split())
    return ast.dump(tree)


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def _strings(tokens: list[tokenize.TokenInfo]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of every string literal, f-strings whole (Python 3.12 splits them into several tokens)."""
    spans, depth, start = [], 0, (0, 0)
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    for token in tokens:
        if token.type == tokenize.STRING and depth == 0:
            spans.append((token.start, token.end))
        elif fstring_start is not None and token.type == fstring_start:
            start = token.start if depth == 0 else start
            depth += 1
        elif fstring_end is not None and token.type == fstring_end:
            depth -= 1
            if depth == 0:
                spans.append((start, token.end))
    return spans


def _docstring_rows(source: str) -> set[int]:
    """The rows (1-based) on which a docstring starts."""
    rows = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                rows.add(first.lineno)
    return rows


def _split_points(body: str, formatted: bool, raw: bool) -> list[int]:
    """Indices at which the body of a string literal may be cut: after a space, outside ``{...}`` fields and ``\\N{...}``."""
    points, depth, i = [], 0, 0
    while i < len(body):
        char = body[i]
        if not raw and char == "\\":
            if body.startswith("\\N{", i):
                i = body.index("}", i) + 1 if "}" in body[i:] else len(body)
                continue
            i += 2
            continue
        if formatted and char in "{}":
            if depth == 0 and body.startswith(char * 2, i):
                i += 2
                continue
            depth += 1 if char == "{" else -1
        elif char == " " and depth == 0 and 0 < i + 1 < len(body):
            points.append(i + 1)
        i += 1
    return points


def _has_field(piece: str) -> bool:
    """Whether an f-string body holds a replacement field (not only ``{{`` / ``}}``)."""
    return "{" in piece.replace("{{", "").replace("}}", "")


def _pieces(literal: str, width: int) -> list[str] | None:
    """``literal`` (one string token) as several literals of at most ``width`` characters each, or None.

    The pieces concatenate to the same string: an f-string piece without a field loses its
    ``f`` and its doubled braces. None when the literal cannot be cut (bytes, no space to cut at).
    """
    match = re.fullmatch(r"([A-Za-z]*)('''|\"\"\"|'|\")(.*)\2", literal, flags=re.DOTALL)
    if match is None or "b" in match.group(1).lower() or "\n" in literal:
        return None
    prefix, quote, body = match.groups()
    formatted, raw = "f" in prefix.lower(), "r" in prefix.lower()
    cuts = _split_points(body, formatted, raw)
    if not cuts:
        return None
    segments = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    pieces = _balanced(segments, width - len(prefix) - 2 * len(quote), "")
    if len(pieces) < 2:
        return None
    literals = []
    for piece in pieces:
        if formatted and not _has_field(piece):
            plain_prefix = re.sub("[fF]", "", prefix)
            literals.append(f"{plain_prefix}{quote}{piece.replace('{{', '{').replace('}}', '}')}{quote}")
        else:
            literals.append(f"{prefix}{quote}{piece}{quote}")
    return literals


def _pack(segments: list[str], width: int, joint: str) -> list[str]:
    """Greedy: consecutive ``segments`` joined by ``joint`` into lines of at most ``width`` (a long segment alone)."""
    lines: list[str] = []
    for segment in segments:
        if lines and len(lines[-1]) + len(joint) + len(segment) <= width:
            lines[-1] += joint + segment
        else:
            lines.append(segment)
    return lines


def _balanced(segments: list[str], width: int, joint: str, at_least: int = 1) -> list[str]:
    """``_pack`` into as few lines as fit ``width`` (at least ``at_least``), as even in length as that allows."""
    count = max(len(_pack(segments, width, joint)), at_least)
    total = sum(map(len, segments)) + len(joint) * (len(segments) - 1)
    for narrower in range(min(width, -(-total // count)), width + 1):
        lines = _pack(segments, narrower, joint)
        if len(lines) <= count:
            return lines
    return _pack(segments, width, joint)


def _words(text: str) -> list[str]:
    return text.split()


def _wrap_comment(indent: str, text: str, limit: int) -> list[str] | None:
    """A comment's text as two or more comment lines at ``indent`` within ``limit``; None when it cannot be wrapped."""
    lines = _balanced(_words(text.lstrip("#")), limit - len(indent) - 2, " ", at_least=2)
    if len(lines) < 2 or any(len(indent) + 2 + len(line) > limit for line in lines):
        return None
    return [f"{indent}# {line}" for line in lines]


def _fit_line(source: str, row: int, limit: int) -> str | None:
    """``source`` with line ``row`` (1-based) shortened by one edit, or None when no edit applies."""
    lines = source.split("\n")
    line = lines[row - 1]
    indent = line[: len(line) - len(line.lstrip())]
    tokens = _tokens(source)
    comment = next((t for t in tokens if t.type == tokenize.COMMENT and t.start[0] == row), None)
    if comment is not None and not PRAGMA.match(comment.string):
        before = line[: comment.start[1]]
        wrapped = _wrap_comment(indent, comment.string, limit)
        if not before.strip():  # a comment line: wrap it
            return None if wrapped is None else "\n".join([*lines[: row - 1], *wrapped, *lines[row:]])
        # a trailing comment: to its own lines above the code
        above = wrapped or [f"{indent}{comment.string}"]
        return "\n".join([*lines[: row - 1], *above, before.rstrip(), *lines[row:]])
    spans = [(start, end) for start, end in _strings(tokens) if start[0] == end[0] == row]
    if not spans:
        return None
    start, end = max(spans, key=lambda span: span[1][1] - span[0][1])
    literal, head, tail = line[start[1] : end[1]], line[: start[1]], line[end[1] :]
    if start[0] in _docstring_rows(source) and not head.strip() and literal[-3:] in ('"""', "'''"):
        quote = literal[-3:]
        prefix = literal[: literal.index(quote)]
        text = literal[len(prefix) + 3 : -3]
        wrapped = _balanced(_words(text), limit - len(indent) - 3 - len(prefix), " ", at_least=2)
        if len(wrapped) < 2 or "\\" in text or text != text.strip():
            return None
        block = [f"{indent}{prefix}{quote}{wrapped[0]}", *(f"{indent}{w}" for w in wrapped[1:])]
        block[-1] += quote + tail
        return "\n".join([*lines[: row - 1], *block, *lines[row:]])
    if not head.strip() and tail.strip() in ("", ","):  # the literal alone on its line: one piece a line
        pieces = _pieces(literal, limit - len(head) - len(tail.strip()))
        if pieces is None:
            return None
        block = [head + piece for piece in pieces]
        block[-1] += tail
        return "\n".join([*lines[: row - 1], *block, *lines[row:]])
    # elsewhere: parenthesised pieces, which ruff format then lays out
    pieces = _pieces(literal, limit - len(indent) - 8)
    if pieces is None:
        return None
    inner = indent + " " * 4
    block = [head + "(", *(inner + piece for piece in pieces), indent + ")" + tail]
    return "\n".join([*lines[: row - 1], *block, *lines[row:]])


def fit_long_lines(source: str, limit: int) -> str:
    """``source`` with each line over ``limit`` characters shortened where an edit keeps the syntax tree.

    Edits: a comment line is wrapped; a trailing comment moves above its line; a string
    literal becomes implicitly concatenated pieces; a one-line docstring is wrapped. An edit
    that changes the syntax tree (docstring whitespace aside) is dropped. Source that does
    not parse (an IPython magic) is returned unchanged.
    """
    key = _syntax_key(source)
    if key is None:
        return source
    given_up: set[str] = set()
    for _ in range(10 * (source.count("\n") + 1)):
        long_rows = [row for row, line in enumerate(source.split("\n"), start=1) if len(line) > limit and line not in given_up]
        if not long_rows:
            break
        row = long_rows[0]
        try:
            candidate = _fit_line(source, row, limit)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            candidate = None
        if candidate is None or _syntax_key(candidate) != key:
            given_up.add(source.split("\n")[row - 1])
            continue
        source = candidate
    return source


# --- one notebook --------------------------------------------------------------------------------


def _first_code_cell(notebook: nbformat.NotebookNode) -> int | None:
    return next((i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"), None)


def tidy(
    notebook: nbformat.NotebookNode, filename: str, limit: int, config: Path = RUFF_CONFIG
) -> tuple[nbformat.NotebookNode, Tidied]:
    """A tidied copy of ``notebook`` and what was done (``filename`` names it in messages and to ruff)."""
    notebook = copy.deepcopy(notebook)
    report = Tidied()
    setup = _first_code_cell(notebook)
    for index in split_trailing_glue(notebook, setup):
        report.changes.append(f"cell {index}: glue calls at its end moved into a cell of their own")
    for index, cell in enumerate(notebook.cells):
        if index == setup:
            continue
        for marker in marker_tags(cell):
            report.changes.append(f"cell {index}: comment '# {marker}' -> tag {NBVAL_TAGS[marker]!r}")
        tag = plumbing_tag(cell)
        if tag:
            report.changes.append(f"cell {index}: glue plumbing -> tag {tag!r}")
        if quiet_checker(cell):
            report.changes.append(f"cell {index}: ';' after its checker call, so Jupyter does not show the returned bool")
        folded = check_tag(cell)
        if folded:
            first = cell.source.split("\n")[folded[1] - 1].strip()[:50]
            report.changes.append(f"cell {index}: assert on line {folded[1]} ({first!r}) in a visible cell -> tag {folded[0]!r}")
        if label_fold(cell, bool(assert_lines(cell.source))):
            report.changes.append(f"cell {index}: the toggle of its folded input says what it holds")

    before = [cell.source for cell in notebook.cells]
    setup_source = notebook.cells[setup].source if setup is not None else None
    for _ in range(FORMAT_ROUNDS):
        formatted = ruff_format(notebook, filename, config)
        for index, cell in enumerate(formatted.cells):
            if cell.cell_type == "code" and index != setup:
                cell.source = fit_long_lines(cell.source, limit)
        if setup is not None:
            formatted.cells[setup].source = setup_source
        done = [cell.source for cell in formatted.cells] == [cell.source for cell in notebook.cells]
        notebook = formatted
        if done:
            break
    else:
        raise RuntimeError(f"{filename}: formatting did not settle in {FORMAT_ROUNDS} rounds")
    changed = [i for i, (old, cell) in enumerate(zip(before, notebook.cells, strict=True)) if old != cell.source]
    if changed:
        report.changes.append(f"cells {', '.join(map(str, changed))}: code formatted to {limit} characters a line")

    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and index != setup:
            report.too_long += [f"cell {index}: {line.strip()[:60]}..." for line in cell.source.split("\n") if len(line) > limit]
    nbformat.validate(notebook)
    return notebook, report


def _same(a: nbformat.NotebookNode, b: nbformat.NotebookNode) -> bool:
    return json.loads(nbformat.writes(a)) == json.loads(nbformat.writes(b))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when something would change")
    parser.add_argument("--config", type=Path, default=RUFF_CONFIG, help="ruff configuration (default: %(default)s)")
    args = parser.parse_args(argv)
    limit = line_length(args.config)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    status = 0
    for path in paths:
        original = nbformat.read(path, as_version=4)
        tidied, report = tidy(original, str(path.resolve()), limit, args.config)
        if not _same(original, tidied):
            status = 1 if args.check else status
            verb = "would change" if args.check else "changed"
            print(f"{path}: {verb}:\n  " + "\n  ".join(report.changes or ["cell metadata"]))
            if not args.check:
                nbformat.write(tidied, path)
        if report.too_long:
            status = 1
            lines = "\n  ".join(report.too_long)
            print(f"{path}: {len(report.too_long)} line(s) over {limit} characters need a hand:\n  {lines}")
    return status


if __name__ == "__main__":
    sys.exit(main())
