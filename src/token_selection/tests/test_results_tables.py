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


def _curve(shape: str, rho: float, **arms: float) -> dict:
    return {"shape": shape, "verdict": {"shape": shape, "spearman": rho, **arms}}


def test_a_shape_cell_reads_each_seed_with_its_effect_size():
    from token_selection.theory.shape_effect import shape_cell

    # one seed: significant but below the minimum effect (0.2) reads flat, with the tested shape beside it
    assert shape_cell({"scores": _curve("decreasing", -0.19)}, "scores") == "flat; by significance alone decreasing"
    assert shape_cell({"scores": _curve("decreasing", -0.2)}, "scores") == "decreasing"  # on the minimum: kept
    u = _curve("U-shaped", 0.0, left_spearman=-0.6, right_spearman=0.5)
    assert shape_cell({"scores": u}, "scores") == "U-shaped"
    per_seed = {
        "scores.shape": ["U-shaped", "U-shaped", "flat"],
        "scores.verdict.spearman": [0.0, 0.0, 0.01],
        "scores.verdict.left_spearman": [-0.6, -0.1, float("nan")],
        "scores.verdict.right_spearman": [0.5, 0.4, float("nan")],
    }
    cell = shape_cell({"scores": u, "per_seed": per_seed}, "scores")
    assert cell == "U-shaped (1 of 3 seeds); by significance alone U-shaped (2)"
    assert shape_cell({"scores": {"shape": "flat"}}, "scores") is None  # no verdict kept
    assert shape_cell({}, "values") is None
    # a table reads its shape columns with the reader it is given, and falls back to the tested shapes without one
    record = {"metrics": {"scores": _curve("decreasing", -0.19), "values": _curve("increasing", 0.9)}}
    column = TABLE_COLUMNS["score shape"]
    assert column.cell(record) == "decreasing"
    assert column.cell(record, shape_cell) == "flat; by significance alone decreasing"
    assert TABLE_COLUMNS["test accuracy"].cell({"metrics": {"test_accuracy": 0.5}}, shape_cell) == "50.0 %"
    assert column.cell({"metrics": {"scores": {"shape": "flat"}}}, shape_cell) == "flat"  # the reader gives up
