"""Every table in the built chapters 6-9 shows its results records exactly.

Runs after the book build (``make test``) on ``_build/html/notebooks/0N_*.html``. A table with a
"record" column is a table of records (``results.records_table``): each of its cells under a
"<column> (fast)" or "<column> (full)" header must equal that record's value as
``results.TABLE_COLUMNS`` formats it ("no record" where the record is missing). Chapter 9's claims
table must show, for every claim, our number and the verdict the records give now. Any other table
must be a pandas DataFrame computed on the page (class "dataframe"); a table typed by hand fails.
A missing page fails too: this test skips nothing.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from token_selection.prose import math_names
from token_selection.results import SCALES, TABLE_COLUMNS, read_record
from token_selection.theory.shape_effect import shape_cell

PAGES = Path(__file__).resolve().parents[1] / "_build" / "html" / "notebooks"
CHAPTERS = ("06_imdb", "07_yelp", "08_beyond", "08b_models", "09_reproduction", "09b_differences")
MUST_HAVE_RECORD_TABLES = ("06_imdb", "07_yelp", "09_reproduction")
HEADER = re.compile(r"^(?P<column>.+) \((?P<scale>" + "|".join(SCALES) + r")\)$")


class Tables(HTMLParser):
    """The tables of an HTML page: for each, its class attribute and its rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self._cell: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
            self.tables.append((dict(attrs).get("class") or "", []))
        elif tag == "tr" and self._depth:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self._depth:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:  # the page sets a leading minus as U+2212 (book/_ext/minus_signs.py)
            self._cell.append(data.replace("\u2212", "-"))


def page_tables(chapter: str) -> list[tuple[str, list[list[str]]]]:
    path = PAGES / f"{chapter}.html"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the book first (make book); this test does not skip")
    parser = Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tables


def check_record_table(rows: list[list[str]]) -> int:
    """Compare every cell of a record table with its record; return the number of cells compared."""
    header, compared = rows[0], 0
    record_column = header.index("record")
    for row in rows[1:]:
        name = row[record_column]
        for title, cell in zip(header, row, strict=True):
            match = HEADER.match(title)
            if match is None:
                continue
            column = TABLE_COLUMNS.get(match["column"])
            assert column is not None, f"column {match['column']!r} is not in results.TABLE_COLUMNS"
            expected = column.cell(read_record(name, match["scale"]), shape_cell)
            assert cell == expected, f"{name} ({match['scale']}), {match['column']}: page shows {cell!r}, record {expected!r}"
            compared += 1
    return compared


def as_rendered(text: str) -> str:
    """What a page shows for the report's plain ``text`` once ``prose.math_names`` has set its token quantities as
    inline math: each ``$...$`` as MathJax's ``\\(...\\)`` in the built page."""
    return re.sub(r"\$([^$]+)\$", r"\\(\1\\)", math_names(text))


CLAIMS_HEADER = ["#", "claim", "paper"]
VERDICT_HEADER = ["#", "claim", "source", "ours", "verdict"]


def check_verdict_table(rows: list[list[str]]) -> int:
    """Compare chapter 9's verdict table (full scale) with what the records give now. Returns the cells compared."""
    from token_selection.report.table import report_rows

    expected, compared = report_rows(scales=("full",)), 0
    assert len(rows) - 1 == len(expected), f"the verdict table has {len(rows) - 1} rows, CLAIMS has {len(expected)}"
    for row, claim_row in zip(rows[1:], expected, strict=True):
        outcome = claim_row.outcomes["full"]
        expected = as_rendered(" ".join(outcome.ours.split()))
        assert row[3] == expected, f"claim {row[0]}: page {row[3]!r}, records {outcome.ours!r}"
        assert row[4].startswith(outcome.verdict), f"claim {row[0]}: page {row[4]!r}, records {outcome.verdict!r}"
        compared += 2
    return compared


def check_claims_table(rows: list[list[str]]) -> int:
    """Compare chapter 9's table (one row per claim of ``report.claims.CLAIMS``) with what the records give now:
    our number and the verdict at each scale. Returns the number of cells compared."""
    from token_selection.report.table import report_rows

    expected, header, compared = report_rows(), rows[0], 0
    assert len(rows) - 1 == len(expected), f"the claims table has {len(rows) - 1} rows, CLAIMS has {len(expected)}"
    for row, claim_row in zip(rows[1:], expected, strict=True):
        for scale, outcome in claim_row.outcomes.items():
            shown = row[header.index(f"ours ({scale})")]
            expected = as_rendered(" ".join(outcome.ours.split()))
            assert shown == expected, f"claim {row[0]} ({scale}): page {shown!r}, records {outcome.ours!r}"
            verdict = row[header.index(f"verdict ({scale})")]
            assert verdict.startswith(outcome.verdict), f"claim {row[0]} ({scale}): page {verdict!r}, records {outcome.verdict!r}"
            compared += 2
    return compared


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_table_is_a_record_table_or_computed_on_the_page(chapter):
    record_tables = 0
    for classes, rows in page_tables(chapter):
        if rows and rows[0][: len(CLAIMS_HEADER)] == CLAIMS_HEADER:
            assert check_claims_table(rows) > 0
            record_tables += 1
        elif rows and rows[0] == VERDICT_HEADER:
            assert check_verdict_table(rows) > 0
            record_tables += 1
        elif rows and "record" in rows[0]:
            assert check_record_table(rows) > 0, f"{chapter}: a record table without any (fast)/(full) column"
            record_tables += 1
        else:
            assert "dataframe" in classes.split(), f"{chapter}: a table that is neither from records nor computed: {rows[:2]}"
    if chapter in MUST_HAVE_RECORD_TABLES:
        assert record_tables > 0, f"{chapter}: no table of records found (the page should show its fast/full records)"


def test_the_parser_reads_a_record_table():
    parser = Tables()
    parser.feed("<table><tr><th>model</th><th>record</th></tr><tr><td>a <b>b</b></td><td>x</td></tr></table>")
    assert parser.tables == [("", [["model", "record"], ["a b", "x"]])]


def test_as_rendered_sets_each_token_quantity_as_the_pages_math_and_nothing_else():
    assert as_rendered("std of E_s . p and E_s . v_k, E_s . v") == r"std of \(E_s\cdot p\) and \(E_s\cdot v_k\), \(E_s\cdot v\)"
    assert as_rendered("E_s . q 0.012 < 0.1") == "E_s . q 0.012 < 0.1"
