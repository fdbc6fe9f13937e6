"""Versioned results records: one JSON file per experiment and compute scale, shipped with the package.

Every number a page shows that is not computed on the page is read from such a
record. A record holds what produced it: the experiment's name, the compute
scale, the settings (and their hash, so a stale record is recognised), the
seeds, the package version, the machine, the protocol in words, and the metrics.

Records live in ``token_selection/records/<name>.<scale>.json`` (package data, so
a chapter opened alone in Colab reads the same numbers as the book).
``$TOKEN_SELECTION_RECORDS`` points writers and readers at another directory.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypedDict

import pandas as pd

from ._version import __version__
from .intervals import show_interval, with_test_set_error
from .machine import machine_description
from .scale import SCALES

RECORD_VERSION = 1
"""Bump when the layout of a record changes."""
RECORDS_VARIABLE = "TOKEN_SELECTION_RECORDS"


class Record(TypedDict):
    """One record as stored and read: what produced it, and its metrics. A multi-seed real-data record's metrics hold
    ``seeds``, ``per_seed`` and ``seed_summary`` beside its first seed's curves (``seed_table`` reads them)."""

    name: str
    scale: str
    record_version: int
    package_version: str
    created: str
    machine: str
    protocol: str
    settings: dict[str, Any]
    settings_hash: str
    seeds: list[int]
    seconds: float | None
    metrics: dict[str, Any]


def records_dir() -> Path:
    """``$TOKEN_SELECTION_RECORDS`` if set, else the package's own ``records/`` folder."""
    named = os.environ.get(RECORDS_VARIABLE, "").strip()
    return Path(named).expanduser() if named else Path(__file__).resolve().parent / "records"


def settings_hash(settings: dict[str, Any]) -> str:
    """A short stable hash of ``settings`` (JSON-serialisable; key order does not matter)."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_path(name: str, scale: str) -> Path:
    """Where the record of experiment ``name`` at ``scale`` lives."""
    if not name or any(c in name for c in "/\\. "):
        raise ValueError(f"name must be a non-empty word without slashes, dots or spaces, got {name!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    return records_dir() / f"{name}.{scale}.json"


def write_record(
    name: str,
    scale: str,
    *,
    protocol: str,
    settings: dict[str, Any],
    metrics: dict[str, Any],
    seeds: list[int] | None = None,
    seconds: float | None = None,
) -> Path:
    """Write the record of ``name`` at ``scale`` and return its path.

    protocol: what was run, in words (it is shown next to the numbers); settings: every
    setting the metrics depend on; metrics: JSON-serialisable numbers, lists and strings.
    """
    if not protocol.strip():
        raise ValueError("protocol must describe in words what was run")
    record: Record = {
        "name": name,
        "scale": scale,
        "record_version": RECORD_VERSION,
        "package_version": __version__,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine_description(),
        "protocol": protocol,
        "settings": settings,
        "settings_hash": settings_hash(settings),
        "seeds": list(seeds or []),
        "seconds": seconds,
        "metrics": metrics,
    }
    path = record_path(name, scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True, default=float) + "\n")
    return path


def read_record(name: str, scale: str, *, settings: dict[str, Any] | None = None) -> Record | None:
    """The record of ``name`` at ``scale``, or None when there is none.

    A record stored for another scale (a file copied or renamed) or written under other
    ``settings`` counts as missing (stale).
    """
    path = record_path(name, scale)
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    if record.get("record_version") != RECORD_VERSION or record.get("scale") != scale:
        return None
    if settings is not None and record.get("settings_hash") != settings_hash(settings):
        return None
    return record


def seed_table(metrics: dict[str, Any]) -> pd.DataFrame:
    """The metrics of a multi-seed record as a tidy table: one row per seed (index ``seed``, in the record's order),
    one column per metric it keeps for every seed (``per_seed``; dotted paths such as ``values.verdict.spearman``).
    Paired differences and seed intervals are reads of its columns. ValueError for metrics without per-seed values
    (a single run's, which no record of the book holds) or with a column of another length than the seeds."""
    if "per_seed" not in metrics or "seeds" not in metrics:
        raise ValueError(f"metrics need 'seeds' and 'per_seed' (one value per seed); got keys {sorted(metrics)[:8]}")
    seeds = list(metrics["seeds"])
    short = sorted(path for path, values in metrics["per_seed"].items() if len(values) != len(seeds))
    if short:
        raise ValueError(f"per_seed columns {short} do not hold one value for each of the seeds {seeds}")
    return pd.DataFrame(metrics["per_seed"], index=pd.Index(seeds, name="seed"))


def missing_record_message(name: str, scale: str, command: str) -> str:
    """What a page prints in place of a missing record: how to produce it."""
    return f"No {scale}-scale record '{name}' yet (token_selection/records/{name}.{scale}.json). Produce it with: {command}"


# Tables of records. A page shows records as a Markdown table with a "record" column naming the record of each row
# and one column per (metric, scale); book/test_records.py reads the built page and checks every cell against the
# record through the same columns. A column's header is its key in TABLE_COLUMNS followed by " (fast)" or " (full)".
NO_RECORD = "no record"
NOT_MEASURED = "not measured"


ShapeCell = Callable[[dict[str, Any], str], "str | None"]
"""Reads a record's metrics and a quantity ("values", "scores") into a shape cell's text, or None."""


@dataclass(frozen=True)
class TableColumn:
    """One metric of a record as a table column: ``path`` into ``record["metrics"]`` (dotted) and a format.

    fmt: "percent" (one decimal, e.g. 80.2 %), "signed" (+0.95), "float" (3 significant digits),
    "int" (thousands separated), "seconds" (whole seconds), "text". with_test_set_error: the column is a test
    accuracy, whose seed interval is widened by the test set's error (``intervals.with_test_set_error``) as every page
    gives it.
    """

    path: str
    fmt: str
    with_test_set_error: bool = False

    def cell(self, record: dict[str, Any] | None, shape_cell: ShapeCell | None = None) -> str:
        """The cell text of this column for ``record`` (``NO_RECORD`` when None, ``NOT_MEASURED`` when the path is absent).

        A record over several seeds shows a number as its seed mean and 95% interval, and a shape as the
        first seed's with how many seeds agree; with ``shape_cell`` (metrics, quantity -> text, or None to fall
        back), a shape column is that reader's text.
        """
        if record is None:
            return NO_RECORD
        metrics = record["metrics"]
        interval = metrics.get("seed_summary", {}).get(self.path)
        if interval is not None and self.with_test_set_error:
            interval = with_test_set_error(interval, metrics.get("n_test"))
        if interval is not None and (interval["n"] > 1 or "n_test" in interval):
            return show_interval(interval, *INTERVAL_FORMATS[self.fmt], basis="")
        if shape_cell is not None and self.fmt == "text" and self.path in SHAPE_PATHS:
            read = shape_cell(metrics, self.path.removesuffix(".shape"))
            if read is not None:
                return read
        shapes = metrics.get("per_seed", {}).get(self.path)
        if shapes is not None and len(shapes) > 1 and self.fmt == "text":
            return seed_shapes(shapes)
        value: Any = metrics
        for part in self.path.split("."):
            if not isinstance(value, dict) or part not in value:
                return NOT_MEASURED
            value = value[part]
        return format_value(value, self.fmt)


SHAPE_PATHS = ("values.shape", "scores.shape")
"""The shape columns: a table given a ``shape_cell`` reader (``theory.shape_effect.shape_cell``) reads them with the
effect size, as every page reads a shape."""


def shape_counts(shapes: list[str], most_common_first: bool = False) -> str:
    """ "1 flat, 2 U-shaped": each shape with its count, in the order the shapes first occur (seed 0's first), or with
    ``most_common_first`` the most common first (ties in first-seen order)."""
    order = list(dict.fromkeys(shapes))
    if most_common_first:
        order.sort(key=shapes.count, reverse=True)  # a stable sort: ties keep their first-seen order
    return ", ".join(f"{shapes.count(shape)} {shape}" for shape in order)


def seed_shapes(shapes: list[str]) -> str:
    """A shape read on each seed, as the course prints it: one seed's shape alone, or every shape with its count, the
    most common first, "of" the number of seeds ("2 U-shaped, 1 decreasing of 3 seeds"): no seed is singled out."""
    return shapes[0] if len(shapes) == 1 else f"{shape_counts(shapes, most_common_first=True)} of {len(shapes)} seeds"


INTERVAL_FORMATS = {
    "percent": ("{:.1f}", 100.0, " %"),
    "signed": ("{:+.2f}", 1.0, ""),
    "float": ("{:.3g}", 1.0, ""),
    "int": ("{:,.0f}", 1.0, ""),
    "seconds": ("{:.0f}", 1.0, ""),
}
"""Each number format of ``format_value`` as ``show_interval``'s (fmt, scale, unit), for a seed interval in a table."""


def format_value(value: Any, fmt: str) -> str:
    """``value`` as a table cell in format ``fmt`` (see ``TableColumn``)."""
    formats = {
        "percent": lambda v: f"{100 * float(v):.1f} %",
        "signed": lambda v: f"{float(v):+.2f}",
        "float": lambda v: f"{float(v):.3g}",
        "int": lambda v: f"{int(v):,}",
        "seconds": lambda v: f"{float(v):.0f}",
        "text": str,
    }
    if fmt not in formats:
        raise ValueError(f"fmt must be one of {sorted(formats)}, got {fmt!r}")
    return formats[fmt](value)


TABLE_COLUMNS: dict[str, TableColumn] = {
    "test accuracy": TableColumn("test_accuracy", "percent", with_test_set_error=True),
    "E.v shape": TableColumn("values.shape", "text"),
    "score shape": TableColumn("scores.shape", "text"),
    "E.v Spearman": TableColumn("values.verdict.spearman", "signed"),
    "E.v per-bin std": TableColumn("values.mean_bin_std", "float"),
    "score per-bin std": TableColumn("scores.mean_bin_std", "float"),
    "epochs": TableColumn("epochs_run", "int"),
    "training time (s)": TableColumn("train_seconds", "seconds"),
    "step / eta*": TableColumn("step_factor", "float"),
    "vocabulary": TableColumn("vocab_size", "int"),
}
"""Every column a record table may show, by header (without the scale)."""


def records_table(
    rows: list[tuple[str, str]], columns: list[str], scales: tuple[str, ...] = SCALES, shape_cell: ShapeCell | None = None
) -> str:
    """A Markdown table of records: one row per ``(label, record name)``, one column per (column header, scale).

    columns: headers of ``TABLE_COLUMNS``; shape_cell: as ``TableColumn.cell``. Records are read without a settings
    check: a record written under other settings is still shown, and its protocol says how it was made.
    """
    unknown = sorted(set(columns) - set(TABLE_COLUMNS))
    if unknown:
        raise ValueError(f"unknown columns {unknown}; allowed: {sorted(TABLE_COLUMNS)}")
    headers = ["model", "record"] + [f"{column} ({scale})" for column in columns for scale in scales]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for label, name in rows:
        records = {scale: read_record(name, scale) for scale in scales}
        cells = [TABLE_COLUMNS[column].cell(records[scale], shape_cell) for column in columns for scale in scales]
        lines.append("| " + " | ".join([label, name, *cells]) + " |")
    return "\n".join(lines)
