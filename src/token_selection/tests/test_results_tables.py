import pytest

from token_selection.results import NO_RECORD, NOT_MEASURED, TABLE_COLUMNS, TableColumn, format_value, records_table, write_record


def test_formats():
    assert format_value(0.8017, "percent") == "80.2 %"
    assert format_value(0.891, "signed") == "+0.89"
    assert format_value(1.9501, "float") == "1.95"
    assert format_value(19300, "int") == "19,300"
    assert format_value("U-shaped", "text") == "U-shaped"
    with pytest.raises(ValueError, match="fmt"):
        format_value(1, "roman")


def test_a_cell_reads_a_dotted_path_and_says_what_is_missing():
    record = {"metrics": {"test_accuracy": 0.5, "values": {"shape": "increasing"}}}
    assert TABLE_COLUMNS["E.v shape"].cell(record) == "increasing"
    assert TableColumn("scores.shape", "text").cell(record) == NOT_MEASURED
    assert TABLE_COLUMNS["test accuracy"].cell(None) == NO_RECORD


def test_records_table_puts_fast_and_full_side_by_side(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    write_record("demo-run", "full", protocol="a demo", settings={"a": 1}, metrics={"test_accuracy": 0.9})
    table = records_table([("demo", "demo-run")], ["test accuracy"])
    assert table.splitlines()[0] == "| model | record | test accuracy (fast) | test accuracy (full) |"
    assert table.splitlines()[2] == "| demo | demo-run | no record | 90.0 % |"
    with pytest.raises(ValueError, match="unknown columns"):
        records_table([("demo", "demo-run")], ["speed"])
