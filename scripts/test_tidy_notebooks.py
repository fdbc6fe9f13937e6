"""scripts/tidy_notebooks.py: test markers become tags, glue plumbing leaves the page, code fits the column."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import sync_setup_cells
import tidy_notebooks as tidy
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
LIMIT = tidy.line_length()
SETUP = "# Setup.\nprint('set up')"


def notebook(*sources: str) -> nbformat.NotebookNode:
    """A chapter: a title, the set-up cell, then one code cell per source."""
    nb = new_notebook(cells=[new_markdown_cell("# A chapter"), new_code_cell(SETUP), *map(new_code_cell, sources)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def tidied(*sources: str) -> nbformat.NotebookNode:
    return tidy.tidy(notebook(*sources), str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)[0]


def test_the_chapters_line_length_is_what_the_book_column_shows():
    # measured at a 1300-px window, widest common monospace font: 79 characters fit an open code cell,
    # 77 a folded one, 76 a cell inside an exercise's solution (CONTRIBUTING.md, "Code in chapters")
    assert LIMIT == 76


def test_nbval_markers_become_tags_and_compared_cells_keep_their_output():
    nb = tidied("# NBVAL_CHECK_OUTPUT\nprint(1)", "x = 1\n# NBVAL_SKIP\ny = 2", "print(2)")
    compared, skipped, plain = nb.cells[2:]
    assert compared.source == "print(1)" and compared.metadata == {"tags": ["nbval-check-output"], "keep_output": True}
    assert skipped.source == "x = 1\ny = 2" and skipped.metadata["tags"] == ["nbval-skip"]
    assert "keep_output" not in skipped.metadata and plain.metadata == {}
    assert not any("NBVAL" in cell.source for cell in nb.cells)


def test_glue_plumbing_is_removed_from_the_page_and_nothing_else_is():
    nb = tidied(
        'from token_selection.prose import glue\n\nglue("a", 1)\nglue("b", 2)',
        'for name, value in {"c": 3}.items():\n    glue(name, value)',
        'glue("d", 4, display=True)',
        'x = 5\nglue("x", x)',
        'glue("e", 5)',
    )
    tags = [cell.metadata.get("tags") for cell in nb.cells[2:]]
    # 'x = 5' then its glue: the glue moves into a removed cell of its own
    assert tags == [["remove-cell"], ["remove-cell"], ["remove-input"], None, ["remove-cell"], ["remove-cell"]]
    assert nb.cells[5].source == "x = 5" and nb.cells[6].source == 'glue("x", x)'
    assert nb.cells[1].source == SETUP and nb.cells[1].metadata == {}


def test_a_cell_already_removed_or_the_set_up_cell_is_left_alone():
    nb = notebook('glue("a", 1)')
    nb.cells[1].source = 'glue("setup", 0)'
    nb.cells[2].metadata["tags"] = ["remove-input"]
    out, report = tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)
    assert out.cells[1].metadata == {} and out.cells[2].metadata["tags"] == ["remove-input"]
    assert report.changes == []


def test_glue_at_the_end_of_a_cell_moves_into_a_removed_cell_of_its_own():
    nb = tidied(
        'x = 2\nprint(x)\n\n# for the prose\nglue("x", x)\nglue("y", x + 1)',
        'for k in range(2):\n    glue(f"k{k}", k)\nz = 1',
        'glue("a", 1)',
        'w = 3\nfor k in range(2):\n    glue(f"w{k}", w)',
    )
    sources = [cell.source for cell in nb.cells[2:]]
    tags = [cell.metadata.get("tags") for cell in nb.cells[2:]]
    assert sources == [
        "x = 2\nprint(x)",
        '# for the prose\nglue("x", x)\nglue("y", x + 1)',
        'for k in range(2):\n    glue(f"k{k}", k)\nz = 1',  # glue not at the end: the cell is folded
        'glue("a", 1)',
        "w = 3",
        'for k in range(2):\n    glue(f"w{k}", w)',
    ]
    # glue inside other code cannot move out: that cell is folded instead
    assert tags == [None, ["remove-cell"], ["hide-input"], ["remove-cell"], None, ["remove-cell"]]
    assert tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)[1].changes == []  # nothing left to split


def test_a_removed_cell_or_one_that_does_not_parse_is_not_split():
    nb = notebook('x = 1\nglue("x", x)', '%time y = 2\nglue("y", 2)')
    nb.cells[2].metadata["tags"] = ["remove-input"]
    out, _ = tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)
    assert len(out.cells) == 4 and out.cells[2].source == 'x = 1\nglue("x", x)'


def test_check_cells_are_folded_and_nothing_else_is():
    nb = tidied(
        "x = 1\nassert x == 1",
        "for k in range(2):\n    if k:\n        assert k > 0, 'deep'",
        "print('assert nothing')  # assert in a comment",
        "%time y = 2\nassert y",
        "z = 3\n# assert z == 3",
        "assert True",
    )
    tags = [cell.metadata.get("tags") for cell in nb.cells[2:]]
    # a folded check cell also carries the tag "checks", which draws its toggle small (book/_static/audit.css)
    checks = ["hide-input", "checks"]
    assert tags == [checks, checks, None, checks, None, checks]


@pytest.mark.parametrize("tag", ["hide-input", "hide-cell", "remove-input", "remove-cell"])
def test_a_check_cell_already_out_of_the_reading_path_keeps_its_tags(tag):
    nb = notebook("assert 1")
    nb.cells[2].metadata["tags"] = [tag, "nbval-check-output"]
    out, report = tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)
    labelled = ["cell 2: the toggle of its folded input says what it holds"] if tag.startswith("hide") else []
    kept = [tag, "nbval-check-output"] + (["checks"] if tag == "hide-input" else [])
    assert out.cells[2].metadata["tags"] == kept and report.changes == labelled


def test_the_set_up_cell_is_not_folded_for_an_assert():
    nb = notebook()
    nb.cells[1].source = "assert True"
    out, _ = tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)
    assert out.cells[1].metadata == {}


def _value(source: str) -> object:
    """What ``source`` binds to ``s`` (the names it formats are given)."""
    namespace = {"x": 1.23456, "name": "alpha", "items": [1, 2]}
    exec(source, namespace)  # noqa: S102 - test data written here
    return namespace["s"]


@pytest.mark.parametrize(
    "source",
    [
        's = f"the value of x is {x:.3f} and the name is {name!r}, with {len(items)} items in the list, in all"',
        's = "a plain string that is far too long for the column of the book, so it must be cut somewhere"',
        's = f"braces {{kept}} in the first half of an f-string that is far too long, and a field {x:.2f} at its end"',
        's = r"a raw string \\d+ that is far too long for the column of the book, with backslashes \\s* kept as they are"',
        's = dict(a=f"{x} a value inside a call, with a long explanation that does not fit the line of the book")["a"]',
    ],
)
def test_a_long_string_is_cut_into_pieces_with_the_same_value(source):
    fitted = tidy.fit_long_lines(source, LIMIT)
    assert fitted != source and _value(fitted) == _value(source)
    assert tidy._syntax_key(fitted) == tidy._syntax_key(source)
    formatted = tidy.ruff_format(nbformat.v4.new_notebook(cells=[new_code_cell(fitted)]), "probe.ipynb")
    assert _value(formatted.cells[0].source) == _value(source)


def test_an_f_string_piece_without_a_field_loses_its_f():
    source = 's = f"{x} and then a long tail of plain words that does not fit the line, {{braces}} too"'
    fitted = tidy.fit_long_lines(source, LIMIT)
    assert fitted != source and _value(fitted) == _value(source)
    assert ruff_clean("x = 1\n" + fitted)  # F541 (an f-string without a field) included


def ruff_clean(source: str) -> bool:
    """Whether ``ruff check`` (the chapters' rules) finds nothing in ``source``."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(tidy.RUFF_CONFIG), "--stdin-filename", "probe.py", "-"],
        input=source + "\n",
        capture_output=True,
        text=True,
    )
    return result.returncode == 0


def test_a_field_is_never_cut():
    source = 's = f"{x:.3f}{name!r}{len(items) * 1000 + len(name) * 100 + round(x) * 10 + len(items) * len(name)}"'
    assert tidy.fit_long_lines(source, LIMIT) == source  # no space outside a field: left for a hand


def test_comments_and_docstrings_are_wrapped():
    source = (
        "def f():\n"
        '    """A docstring far too long for the column of the book, which is wrapped on two lines."""\n'
        "    # a comment far too long for the column of the book, which is wrapped on two lines too\n"
        "    return 1  # a trailing comment that is too long to stay where it is, so it moves\n"
    )
    fitted = tidy.fit_long_lines(source, LIMIT)
    assert all(len(line) <= LIMIT for line in fitted.split("\n"))
    assert tidy._syntax_key(fitted) == tidy._syntax_key(source)
    assert fitted.count("# ") == 4 and "    return 1\n" in fitted  # the trailing comment moved above


def test_a_pragma_comment_stays_and_the_line_is_reported():
    source = "y = " + " + ".join(["1"] * 30) + "  # fmt: skip"
    nb, report = tidy.tidy(notebook(source), str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)
    assert nb.cells[2].source == source and len(report.too_long) == 1


def test_tidy_is_idempotent_and_check_mode_changes_nothing(tmp_path):
    path = tmp_path / "01_probe.ipynb"
    nbformat.write(notebook("# NBVAL_CHECK_OUTPUT\nprint(x)", 'glue("a", 1)', "y = [1,2 ,3]"), path)
    before = path.read_text()
    assert tidy.main(["--check", str(path)]) == 1 and path.read_text() == before
    assert tidy.main([str(path)]) == 0
    nbformat.validate(nbformat.read(path, as_version=4))
    after = path.read_text()
    assert tidy.main(["--check", str(path)]) == 0 and tidy.main([str(path)]) == 0 and path.read_text() == after


def test_a_chapter_keeps_its_code_and_fits_the_column(tmp_path):
    chapter = ROOT / "notebooks" / "03_one_step.ipynb"
    copy = Path(shutil.copy(chapter, tmp_path / chapter.name))
    tidy.main([str(copy)])
    before, after = nbformat.read(chapter, as_version=4), nbformat.read(copy, as_version=4)
    nbformat.validate(after)
    assert len(before.cells) == len(after.cells)
    for old, new in zip(before.cells, after.cells, strict=True):
        assert old.cell_type == new.cell_type
        if old.cell_type == "code":
            assert tidy._syntax_key(old.source) == tidy._syntax_key(new.source)
        else:
            assert old.source == new.source
    code = [cell.source for cell in after.cells[2:] if cell.cell_type == "code"]
    assert [line for source in code for line in source.split("\n") if len(line) > LIMIT] == []
    assert tidy.main(["--check", str(copy)]) == 0


def test_the_set_up_cell_fits_the_column_and_ruff_leaves_it_as_it_is():
    source = sync_setup_cells.setup_cell(sync_setup_cells.course_location(ROOT))
    assert max(len(line) for line in source.split("\n")) <= LIMIT
    formatted = tidy.ruff_format(nbformat.v4.new_notebook(cells=[new_code_cell(source)]), "probe.ipynb")
    assert formatted.cells[0].source == source


# --- check cells are folded ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("assert x == 1", [1]),
        ("for i in range(3):\n    assert i < 3", [2]),  # indented: counts
        ("def f():\n    if True: assert 1\n    return 2", [2]),  # one-line if: counts
        ("s = 'assert x == 1'", []),  # in a string: does not count
        ('doc = """\nassert x\n"""', []),  # on its own line of a multi-line string: does not
        ("# assert x == 1\nx = 1", []),  # in a comment: does not count
        ("x = 1  # assert x", []),
        ("asserted = 1\nassert_ok = True", []),  # a name that starts with the word: does not
        ("%timeit f()\nassert f()", [2]),  # a magic does not hide the assert
        ("print('a'\nassert x", [2]),  # does not parse: the line test
    ],
)
def test_assert_lines_reads_statements_not_words(source, lines):
    assert tidy.assert_lines(source) == lines


def test_a_check_cell_gets_hide_input_and_check_names_the_chapter_and_cell(tmp_path, capsys):
    nb = notebook("x = 1\nassert x == 1", "y = 'assert'", "for i in range(2):\n    assert i < 2")
    nb.cells[4].metadata["tags"] = ["remove-cell"]
    path = tmp_path / "07_probe.ipynb"
    nbformat.write(nb, path)
    assert tidy.main(["--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "07_probe.ipynb" in out and "cell 2: assert on line 2" in out and "cell 3" not in out
    assert "cell 4" not in out  # removed from the page already
    assert tidy.main([str(path)]) == 0
    fixed = nbformat.read(path, as_version=4)
    assert fixed.cells[2].metadata["tags"] == ["hide-input", "checks"]
    assert "tags" not in fixed.cells[3].metadata or fixed.cells[3].metadata["tags"] == []
    assert fixed.cells[4].metadata["tags"] == ["remove-cell"]
    assert tidy.main(["--check", str(path)]) == 0  # a second run changes nothing


@pytest.mark.parametrize("tag", ["hide-input", "hide-cell", "remove-input", "remove-cell"])
def test_a_folded_check_cell_is_left_alone(tag):
    nb = notebook("assert True")
    nb.cells[2].metadata["tags"] = [tag]
    cell = tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)[0].cells[2]
    assert cell.metadata["tags"] == [tag] + (["checks"] if tag == "hide-input" else [])


def test_the_setup_cell_is_not_folded_for_its_asserts():
    nb = notebook()
    nb.cells[1].source = "assert True"
    assert tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)[0].cells[1].metadata.get("tags", []) == []


@pytest.mark.parametrize(
    ("source", "quiet"),
    [
        ("check_exercise(f, g, cases)", True),
        ("ts.check_spread_ratio(f)", True),
        ("x = 1\ncheck_factor(\n    f,\n)", True),
        ("check_exercise(f, g, cases);", False),  # already quiet
        ("ok = check_exercise(f, g, cases)", False),  # an assignment shows nothing
        ("print(check_exercise(f, g, cases))", False),  # not a checker call
        ("exercise_check(f)", False),  # the name must start with check_
        ("check_exercise(f, g, cases)\nx = 1", False),  # not the last statement
        ("check_exercise(f,", False),  # does not parse
        ("", False),
    ],
)
def test_a_bare_checker_call_at_the_end_of_a_cell_gets_a_semicolon(source, quiet):
    cell = new_code_cell(source)
    assert tidy.quiet_checker(cell) is quiet
    assert cell.source == (source + ";" if quiet else source)


def test_tidy_quiets_a_checker_and_keeps_the_semicolon_through_ruff():
    nb = tidied("def f(x):\n    return x\n\n\ncheck_exercise(f, f, [((1,), {})])")
    assert nb.cells[2].source.endswith("check_exercise(f, f, [((1,), {})]);")


def test_tidy_labels_the_toggle_of_a_folded_check_cell_and_of_a_folded_figure():
    nb = notebook("x = 1\nassert x == 1", "fig, ax = plt.subplots()\nplt.show()", "y = 2")
    nb.cells[3].metadata["tags"] = ["hide-input"]
    out = tidy.tidy(nb, str(ROOT / "notebooks" / "probe.ipynb"), LIMIT)[0]
    prompts = [cell.metadata.get("mystnb", {}).get("code_prompt_show") for cell in out.cells[2:]]
    assert prompts == ["Show the checks", "Show the code that draws the figure", None]
