"""Results records: the settings hash, where records live, what a record holds, and when a stored record counts as stale.

The staleness tests write a record under one setting and read it under another: any single changed
setting, another record layout, another scale.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from token_selection import results
from token_selection._version import __version__
from token_selection.results import (
    NO_RECORD,
    NOT_MEASURED,
    RECORD_VERSION,
    RECORDS_VARIABLE,
    TABLE_COLUMNS,
    TableColumn,
    format_value,
    missing_record_message,
    read_record,
    record_path,
    records_dir,
    records_table,
    settings_hash,
    write_record,
)


@pytest.fixture
def records(tmp_path, monkeypatch) -> Path:
    """An empty records directory that writers and readers use."""
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    return tmp_path


def _random_settings(rng: random.Random) -> dict:
    """Settings of mixed types (int, float, str, bool, None, list), as records store them."""
    return {
        "d": rng.choice([16, 64, 2048]),
        "lr": rng.choice([5e-3, 5e-4, 0.1]),
        "dataset": rng.choice(["imdb", "yelp_polarity"]),
        "limit": rng.choice([None, 25_000]),
        "fused": rng.choice([True, False]),
        "seeds": [rng.randrange(10) for _ in range(rng.randrange(1, 4))],
        "nested": {"T": rng.choice([8, 256]), "min_count": rng.randrange(1, 20)},
    }


def _changed(value):
    """A different value of the same kind: what one edited setting looks like."""
    if isinstance(value, bool):
        return not value
    if value is None:
        return 0
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * (1 + 1e-9)  # a tiny change still changes the hash
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value + [value[-1]]
    return {**value, "extra": 1}


@pytest.mark.parametrize("seed", range(10))
def test_settings_hash_changes_when_any_single_setting_changes(seed):
    rng = random.Random(seed)
    settings = _random_settings(rng)
    digest = settings_hash(settings)
    assert re.fullmatch(r"[0-9a-f]{16}", digest)
    assert settings_hash(dict(reversed(list(settings.items())))) == digest  # key order does not matter
    for key, value in settings.items():
        assert settings_hash({**settings, key: _changed(value)}) != digest, key
        assert settings_hash({k: v for k, v in settings.items() if k != key}) != digest, f"dropping {key}"
    assert settings_hash({**settings, "new_setting": None}) != digest


def test_settings_hash_keeps_types_apart_and_reads_other_objects_as_text():
    assert settings_hash({"a": 1}) != settings_hash({"a": "1"}) != settings_hash({"a": True})
    assert settings_hash({"a": None}) != settings_hash({})
    assert settings_hash({"path": Path("/x/y")}) == settings_hash({"path": "/x/y"})
    # the known value pins the encoding: compact separators, sorted keys, first 16 hex digits of sha256
    assert settings_hash({"b": 1, "a": [1, 2]}) == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()[:16]


def test_records_live_in_the_package_unless_the_variable_names_a_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(RECORDS_VARIABLE, raising=False)
    package = Path(results.__file__).resolve().parent / "records"
    assert records_dir() == package
    monkeypatch.setenv(RECORDS_VARIABLE, "  ")
    assert records_dir() == package
    monkeypatch.setenv(RECORDS_VARIABLE, f" {tmp_path} ")
    assert records_dir() == tmp_path
    monkeypatch.setenv(RECORDS_VARIABLE, "~/records-here")
    assert records_dir() == Path.home() / "records-here"


def test_record_path_names_the_experiment_and_the_scale(records):
    assert record_path("imdb-one_layer-joint", "fast") == records / "imdb-one_layer-joint.fast.json"
    assert record_path("a", "full") == records / "a.full.json"
    for bad in ("", "a/b", "a\\b", "a.b", "a b"):
        with pytest.raises(ValueError, match="non-empty word without slashes, dots or spaces"):
            record_path(bad, "fast")
    for bad in ("medium", "FAST", ""):
        with pytest.raises(ValueError, match=r"scale must be one of \('fast', 'full'\)"):
            record_path("a", bad)


def test_a_record_holds_what_produced_it(records):
    settings = {"d": 64, "lr": np.float32(0.5)}
    path = write_record(
        "demo",
        "fast",
        protocol="a demo run",
        settings={"d": 64},
        metrics={"acc": np.float64(0.75), "curve": [1, 2]},
        seeds=(3, 4),
        seconds=1.5,
    )
    assert path == records / "demo.fast.json"
    text = path.read_text()
    assert text.endswith("}\n") and text.startswith('{\n "created"')  # indented, sorted keys, one newline
    record = json.loads(text)
    assert record["name"] == "demo" and record["scale"] == "fast"
    assert record["record_version"] == RECORD_VERSION and record["package_version"] == __version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", record["created"])
    assert "CPU cores" in record["machine"] and "torch" in record["machine"]
    assert record["protocol"] == "a demo run" and record["settings"] == {"d": 64}
    assert record["settings_hash"] == settings_hash({"d": 64})
    assert record["seeds"] == [3, 4] and record["seconds"] == 1.5
    assert record["metrics"] == {"acc": 0.75, "curve": [1, 2]}  # numpy scalars are written as floats
    write_record("demo", "full", protocol="p", settings=settings, metrics={})
    full = read_record("demo", "full")
    assert full["seeds"] == [] and full["seconds"] is None and full["settings"]["lr"] == 0.5


def test_a_record_in_a_new_folder_creates_it(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path / "a" / "b"))
    assert write_record("x", "fast", protocol="p", settings={}, metrics={}).is_file()


@pytest.mark.parametrize("protocol", ["", " ", "\n\t"])
def test_a_record_must_say_what_was_run(records, protocol):
    with pytest.raises(ValueError, match="protocol must describe"):
        write_record("x", "fast", protocol=protocol, settings={}, metrics={})
    assert not list(records.iterdir())


@pytest.mark.parametrize("seed", range(5))
def test_a_record_read_under_any_other_single_setting_is_stale(records, seed):
    settings = _random_settings(random.Random(seed))
    write_record("run", "fast", protocol="p", settings=settings, metrics={"acc": 0.5})
    assert read_record("run", "fast", settings=settings)["metrics"] == {"acc": 0.5}
    assert read_record("run", "fast", settings=dict(reversed(list(settings.items())))) is not None
    for key, value in settings.items():
        assert read_record("run", "fast", settings={**settings, key: _changed(value)}) is None, key
    assert read_record("run", "fast", settings={}) is None
    assert read_record("run", "fast")["settings"] == settings  # no settings given: any record is shown


def test_a_record_of_another_layout_or_none_at_all_is_missing(records):
    assert read_record("run", "fast") is None
    path = write_record("run", "fast", protocol="p", settings={"a": 1}, metrics={})
    for version in (RECORD_VERSION + 1, RECORD_VERSION - 1, None):
        record = json.loads(path.read_text())
        if version is None:
            del record["record_version"]
        else:
            record["record_version"] = version
        path.write_text(json.dumps(record))
        assert read_record("run", "fast") is None
        assert read_record("run", "fast", settings={"a": 1}) is None
    (records / "other.fast.json").mkdir()  # not a file
    assert read_record("other", "fast") is None


def test_fast_and_full_records_are_kept_apart(records):
    write_record("run", "fast", protocol="p", settings={"scale": "fast"}, metrics={"acc": 0.5})
    assert read_record("run", "full") is None
    assert read_record("run", "full", settings={"scale": "fast"}) is None
    write_record("run", "full", protocol="p", settings={"scale": "full"}, metrics={"acc": 0.9})
    assert read_record("run", "fast")["metrics"]["acc"] == 0.5 and read_record("run", "full")["metrics"]["acc"] == 0.9


def test_a_record_copied_to_the_other_scale_is_not_read_as_that_scale(records):
    path = write_record("run", "fast", protocol="p", settings={"a": 1}, metrics={"acc": 0.5})
    os.replace(path, records / "run.full.json")
    assert read_record("run", "full", settings={"a": 1}) is None


def test_the_missing_record_message_says_how_to_produce_it():
    assert missing_record_message("imdb-mlp-joint", "full", "make full") == (
        "No full-scale record 'imdb-mlp-joint' yet (token_selection/records/imdb-mlp-joint.full.json). Produce it with: make full"
    )


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (0.0, "percent", "0.0 %"),
        (1.0, "percent", "100.0 %"),
        (0.12345, "percent", "12.3 %"),
        ("0.5", "percent", "50.0 %"),
        (0.0, "signed", "+0.00"),
        (-0.125, "signed", "-0.12"),
        (0.999, "signed", "+1.00"),
        (123456.0, "float", "1.23e+05"),
        (0.000123456, "float", "0.000123"),
        (999, "int", "999"),
        (1000, "int", "1,000"),
        (-1234567.9, "int", "-1,234,567"),
        (59.5, "seconds", "60"),
        (0.4, "seconds", "0"),
        (3, "text", "3"),
        (None, "text", "None"),
    ],
)
def test_format_value_on_and_around_its_boundaries(value, fmt, text):
    assert format_value(value, fmt) == text


def test_an_unknown_format_is_refused_with_the_allowed_ones():
    allowed = r"\['float', 'int', 'percent', 'seconds', 'signed', 'text'\]"
    with pytest.raises(ValueError, match=rf"fmt must be one of {allowed}, got 'x'"):
        format_value(1, "x")


def test_a_cell_reads_nested_paths_and_says_what_is_missing():
    record = {"metrics": {"values": {"verdict": {"spearman": 0.5}, "shape": 3}, "flat": 2}}
    assert TableColumn("values.verdict.spearman", "signed").cell(record) == "+0.50"
    assert TableColumn("values.shape", "int").cell(record) == "3"
    assert TableColumn("values.verdict.spearman.deeper", "float").cell(record) == NOT_MEASURED  # not a dict
    assert TableColumn("flat.x", "float").cell(record) == NOT_MEASURED
    assert TableColumn("values.missing", "float").cell(record) == NOT_MEASURED
    assert TableColumn("flat", "float").cell(None) == NO_RECORD == "no record" and NOT_MEASURED == "not measured"


def test_a_cell_over_several_seeds_shows_the_mean_and_interval_and_one_seed_the_value():
    metrics = {
        "test_accuracy": 0.8,
        "seed_summary": {"test_accuracy": {"value": 0.85, "low": 0.801, "high": 0.9, "n": 3}},
        "values": {"shape": "U-shaped"},
        "per_seed": {"values.shape": ["U-shaped", "increasing", "U-shaped"]},
    }
    assert TABLE_COLUMNS["test accuracy"].cell({"metrics": metrics}) == "85.0 [80.1, 90.0] %"
    plain = TableColumn("test_accuracy", "percent")  # a column that does not declare the test set's error
    assert plain.cell({"metrics": {**metrics, "n_test": 100}}) == "85.0 [80.1, 90.0] %"
    widened = TABLE_COLUMNS["test accuracy"].cell({"metrics": {**metrics, "n_test": 100}})
    assert widened != plain.cell({"metrics": {**metrics, "n_test": 100}}) and widened.startswith("85.0 [")
    assert TABLE_COLUMNS["E.v shape"].cell({"metrics": metrics}) == "2 U-shaped, 1 increasing of 3 seeds"
    assert TableColumn("seed_summary.test_accuracy.n", "int").cell({"metrics": metrics}) == "3"
    one = {
        "test_accuracy": 0.8,
        "seed_summary": {"test_accuracy": {"value": 0.85, "low": 0.85, "high": 0.85, "n": 1}},
        "values": {"shape": "U-shaped"},
        "per_seed": {"values.shape": ["increasing"]},
    }
    assert TABLE_COLUMNS["test accuracy"].cell({"metrics": one}) == "80.0 %"  # n = 1: the plain value
    assert TABLE_COLUMNS["E.v shape"].cell({"metrics": one}) == "U-shaped"
    numbers = {"step_factor": 2.0, "per_seed": {"step_factor": [2.0, 3.0]}}
    assert TABLE_COLUMNS["step / eta*"].cell({"metrics": numbers}) == "2"  # per-seed lists are for text columns only
    interval = {"value": 0.5, "low": -0.25, "high": 0.75, "n": 2}
    signed = {"values": {"verdict": {"spearman": 0.5}}, "seed_summary": {"values.verdict.spearman": interval}}
    assert TABLE_COLUMNS["E.v Spearman"].cell({"metrics": signed}) == "+0.50 [-0.25, +0.75]"


def test_every_table_column_is_measured_in_some_shipped_fast_record(monkeypatch):
    monkeypatch.delenv(RECORDS_VARIABLE, raising=False)
    shipped = [json.loads(p.read_text()) for p in sorted(records_dir().glob("*.fast.json"))]
    for header, column in TABLE_COLUMNS.items():
        cells = [column.cell(record) for record in shipped]
        assert any(cell != NOT_MEASURED for cell in cells), f"{header}: no shipped record has {column.path}"


def test_records_table_rows_columns_and_scales(records):
    write_record("a-run", "fast", protocol="p", settings={}, metrics={"test_accuracy": 0.5, "epochs_run": 1200})
    write_record("b-run", "full", protocol="p", settings={}, metrics={"test_accuracy": 0.25})
    table = records_table([("A", "a-run"), ("B", "b-run")], ["test accuracy", "epochs"])
    assert table.splitlines() == [
        "| model | record | test accuracy (fast) | test accuracy (full) | epochs (fast) | epochs (full) |",
        "|---|---|---|---|---|---|",
        "| A | a-run | 50.0 % | no record | 1,200 | no record |",
        "| B | b-run | no record | 25.0 % | no record | not measured |",
    ]
    only_full = records_table([("B", "b-run")], ["test accuracy"], scales=("full",))
    assert only_full.splitlines() == ["| model | record | test accuracy (full) |", "|---|---|---|", "| B | b-run | 25.0 % |"]
    assert records_table([], ["epochs"]).count("\n") == 1
    with pytest.raises(ValueError, match=r"unknown columns \['speed', 'zeal'\]; allowed: \['E.v Spearman'"):
        records_table([("A", "a-run")], ["zeal", "epochs", "speed"])


def test_records_table_shows_a_stale_record_with_its_numbers(records):
    write_record("a-run", "fast", protocol="p", settings={"d": 1}, metrics={"test_accuracy": 0.5})
    assert "| A | a-run | 50.0 % |" in records_table([("A", "a-run")], ["test accuracy"], scales=("fast",))


def test_names_may_hold_any_other_character(records):
    assert record_path("XX-run_X", "fast") == records / "XX-run_X.fast.json"


def test_the_protocol_refusal_says_what_is_missing(records):
    with pytest.raises(ValueError, match=r"^protocol must describe in words what was run$"):
        write_record("x", "fast", protocol="", settings={}, metrics={})


def test_a_record_is_dated_in_utc_whatever_the_local_time_zone(records):
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Etc/GMT-14"  # 14 hours ahead of UTC: never the same hour
    time.tzset()
    try:
        before = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        write_record("x", "fast", protocol="p", settings={}, metrics={})
        after = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
    assert read_record("x", "fast")["created"] in {before, after}


def test_two_seeds_are_enough_for_a_seed_count_and_no_seed_is_singled_out():
    metrics = {"values": {"shape": "U"}, "per_seed": {"values.shape": ["U", "flat"]}}
    assert TABLE_COLUMNS["E.v shape"].cell({"metrics": metrics}) == "1 U, 1 flat of 2 seeds"
    minority_first = {"values": {"shape": "decreasing"}, "per_seed": {"values.shape": ["decreasing", "U", "U"]}}
    assert TABLE_COLUMNS["E.v shape"].cell({"metrics": minority_first}) == "2 U, 1 decreasing of 3 seeds"


def test_seed_table_has_one_row_per_seed_in_the_records_order_and_every_kept_column():
    from token_selection.results import seed_table

    metrics = {"seeds": [3, 0, 7], "test_accuracy": 0.8, "per_seed": {"test_accuracy": [0.8, 0.9, 0.85],
               "values.shape": ["increasing", "flat", "increasing"]}}  # fmt: skip
    table = seed_table(metrics)
    assert list(table.index) == [3, 0, 7] and table.index.name == "seed"
    assert table.loc[0, "test_accuracy"] == 0.9 and table.loc[7, "values.shape"] == "increasing"
    assert list(table.columns) == ["test_accuracy", "values.shape"]
    assert len(seed_table({"seeds": [5], "per_seed": {"p_norm": [1.5]}})) == 1


@pytest.mark.parametrize(
    ("metrics", "named"),
    [
        ({"per_seed": {"a": [1]}}, "need 'seeds' and 'per_seed'"),
        ({"seeds": [0]}, "need 'seeds' and 'per_seed'"),
        ({"seeds": [0, 1], "per_seed": {"a": [1, 2], "b": [1]}}, r"columns \['b'\] do not hold one value for each"),
    ],
)
def test_seed_table_names_what_a_record_lacks(metrics, named):
    from token_selection.results import seed_table

    with pytest.raises(ValueError, match=named):
        seed_table(metrics)


def test_shape_counts_keep_the_order_the_shapes_first_occur_in():
    assert results.shape_counts(["flat", "U-shaped", "U-shaped", "flat", "increasing"]) == "2 flat, 2 U-shaped, 1 increasing"
    assert results.shape_counts(["U-shaped", "flat", "flat"]) == "1 U-shaped, 2 flat"  # not the most common first
    assert results.shape_counts([]) == ""


def test_shape_counts_in_first_seen_order_or_most_common_first_with_ties_first_seen():
    shapes = ["U-shaped", "flat", "increasing", "increasing", "flat"]
    assert results.shape_counts(shapes) == "1 U-shaped, 2 flat, 2 increasing"
    assert results.shape_counts(shapes, most_common_first=True) == "2 flat, 2 increasing, 1 U-shaped"
    assert results.shape_counts([]) == "" and results.shape_counts(["flat"], most_common_first=True) == "1 flat"


def test_seed_shapes_gives_one_seed_alone_and_several_counted_most_common_first():
    assert results.seed_shapes(["decreasing"]) == "decreasing"
    assert results.seed_shapes(["flat", "U-shaped", "flat", "increasing"]) == "2 flat, 1 U-shaped, 1 increasing of 4 seeds"
    assert results.seed_shapes(["U-shaped", "decreasing", "decreasing"]) == "2 decreasing, 1 U-shaped of 3 seeds"
