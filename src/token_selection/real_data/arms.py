"""The model arms the real-data chapters compare, run together, and their fast/full table of records.

An arm is a (kind, mode) pair of the registry. Both real-data chapters run ``CHAPTER_ARMS`` with
their dataset's preset and show ``arms_table``: one row per arm, the fast and the full record side
by side, and below it how to produce any record that is missing.
"""

from __future__ import annotations

import html

from ..results import SCALES, read_record, records_table
from ..theory.shape_effect import shape_cell
from .encoding import EncodedReviews
from .pipeline import TrainedRun, missing_message, record_name, run_experiment
from .registry import MODE_LABELS, MODEL_KINDS
from .settings import RealDataSettings

CHAPTER_ARMS = (
    ("one_layer", "joint"),
    ("two_layer", "joint"),
    ("one_layer", "one_step_frozen"),
    ("one_layer", "frozen_random"),
)
"""The arms of chapters 6 and 7: the paper's model and our two-layer one trained jointly, and the two frozen-E baselines."""
TABLE_COLUMNS = ("test accuracy", "E.v shape", "score shape")


def arm_label(kind: str, mode: str) -> str:
    """A short row label: the kind's and the mode's short names."""
    return f"{MODEL_KINDS[kind].label}, {MODE_LABELS[mode]}"


def run_arms(
    settings: RealDataSettings,
    data: EncodedReviews,
    arms: tuple[tuple[str, str], ...] = CHAPTER_ARMS,
    *,
    progress: bool = False,
) -> dict[tuple[str, str], TrainedRun]:
    """``run_experiment`` of every arm on ``data`` (trained, or loaded from its checkpoint): (kind, mode) -> run."""
    return {(kind, mode): run_experiment(kind, mode, settings, data=data, progress=progress) for kind, mode in arms}


def arms_table(
    dataset: str,
    arms: tuple[tuple[str, str], ...] = CHAPTER_ARMS,
    columns: tuple[str, ...] = TABLE_COLUMNS,
    scales: tuple[str, ...] = SCALES,
) -> str:
    """The Markdown table of the arms' records at ``scales`` (``results.records_table``; one scale keeps the table
    narrow enough for the text column), shapes read with their effect size (``theory.shape_effect.shape_cell``)."""
    rows = [(arm_label(kind, mode), record_name(dataset, kind, mode)) for kind, mode in arms]
    return records_table(rows, list(columns), scales, shape_cell=shape_cell)


MARKDOWN_SPECIAL = "\\`*_[]$"
"""Characters that Markdown (and MyST's dollar maths) would read as markup inside running text."""


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown: HTML escaped and Markdown's inline markup characters backslash-escaped.

    A record's protocol is plain text written by code ("vocabulary V = 7,766 words plus <pad> and
    <unk>", "a step of 2 eta*"); put into Markdown as it is, ``<pad>`` and ``<unk>`` are read as HTML
    tags and vanish from the rendered page, and a stray ``*`` or ``_`` may start emphasis. The result
    renders as exactly ``text``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    escaped = html.escape(text, quote=False)
    return "".join(f"\\{c}" if c in MARKDOWN_SPECIAL else c for c in escaped)


def records_notes(dataset: str, arms: tuple[tuple[str, str], ...] = CHAPTER_ARMS) -> str:
    """Below a table: each full-scale record's protocol in words (escaped, ``markdown_text``), or how to produce a
    missing record."""
    lines = []
    for kind, mode in arms:
        for scale in SCALES:
            record = read_record(record_name(dataset, kind, mode), scale)
            if record is None:
                lines.append(f"- {missing_message(dataset, kind, mode, scale)}")
            elif scale == "full":
                lines.append(f"- `{record['name']}` (full, {record['created']}): {markdown_text(record['protocol'])}")
    return "\n".join(lines)
