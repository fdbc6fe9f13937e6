"""The numbers the real-data chapters and the closing page state about the one-layer arms, read from the records.

    found = arm_differences("imdb", "full")   # accuracies, spread ratios, the one-step arm's shape readings
    spread_table(found)                        # the table of spread ratios a chapter shows

Everything here is a number, an interval or a table cell. What the numbers mean is written by hand on each page,
beside a folded cell that asserts the premises of the paragraph.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..intervals import seed_interval, show_interval
from ..results import read_record
from ..sources import FROZEN_ACCURACY, ONE_STEP_STD_RATIO_SCORES, ONE_STEP_STD_RATIO_VALUES, TRAINED_ACCURACY
from ..theory.shape_effect import ShapeReading
from .binned import binned_from_record, scale_free_spread
from .converged_arms import CONVERGED, CONVERGED_ONE_STEP, converged_std_ratio
from .measures import accuracy_interval, per_seed, real_record, std_ratio
from .shape_readings import bin_shapes, seed_readings

MODES = ("joint", "one_step_frozen", "frozen_random")
"""The one-layer arms of the real-data chapters."""
NOT_KEPT = "not kept"
"""A table cell whose value the record does not hold."""
SEED_READING_COLUMNS = ("seed", "by significance", "effect", "control's effect", "read as", "20 bin means", "control read as")
"""The columns of ``seed_reading_rows``: the one-step arm's E_s . p per seed, then the random-E control's reading."""
QUANTITY_NAMES = {"values": "Eₛ·v", "scores": "Eₛ·p"}


def one_step_readings(dataset: str, scale: str) -> dict[str, list] | None:
    """E_s . p after one step then freezing on ``dataset``: ``step`` (each seed read with its effect size against the
    random-E control's same seed), ``control`` (the control's own readings) and each one's verdicts on the 20 bin
    means (``step_bins``, ``control_bins``); None when either record is missing."""
    step = read_record(real_record("one_layer", "one_step_frozen", dataset), scale)
    control = read_record(real_record("one_layer", "frozen_random", dataset), scale)
    if step is None or control is None:
        return None
    step, control = step["metrics"], control["metrics"]
    return {
        "step": seed_readings(step, "scores", control),
        "control": seed_readings(control, "scores"),
        "step_bins": bin_shapes(step, "scores"),
        "control_bins": bin_shapes(control, "scores"),
    }


def arm_differences(dataset: str, scale: str = "full") -> dict[str, Any] | None:
    """The one-layer arms of ``dataset`` at ``scale``; None when one of their records is missing.

    Returns ``ratios`` (quantity -> seed interval of the joint over the one-step per-bin std, both early-stopped,
    paired by seed: ``measures.std_ratio``); ``scale_free_early`` (quantity -> the same ratio scale-free, from seed 0's
    curves: ``early_scale_free``); on IMDB ``converged`` (quantity -> both arms trained to the end of the
    same budget: ``converged_arms.converged_std_ratio``; absent where its records are); ``step_readings``,
    ``control_readings``, ``step_bins``, ``control_bins`` (``one_step_readings``); ``accuracy`` (mode -> seed
    interval of test accuracy widened by the test set's sampling error, as the report gives it:
    ``measures.accuracy_interval``); ``gaps`` (mode -> points from the rebuttal's level); ``step_minus_frozen`` (seed interval
    of one step then freezing minus E frozen at random, accuracy points, paired by seed; None when the two arms ran
    other seeds); ``seeds`` (the joint arm's number of seeds) and ``seed_ids`` (the one-step arm's seeds).
    """
    names = {m: real_record("one_layer", m, dataset) for m in MODES}
    records = {m: read_record(names[m], scale) for m in MODES}
    if any(r is None for r in records.values()):
        return None
    metrics = {names[m]: records[m]["metrics"] for m in MODES}
    accuracy = {m: accuracy_interval(names[m])(metrics) for m in MODES}  # the report's: test-set error included
    step, frozen = (per_seed(metrics[names[m]], "test_accuracy") for m in ("one_step_frozen", "frozen_random"))
    paired = records["one_step_frozen"].get("seeds") == records["frozen_random"].get("seeds") and len(step) == len(frozen)
    differences = [100 * (a - b) for a, b in zip(step, frozen, strict=True)] if paired else None
    levels = {"joint": TRAINED_ACCURACY, "frozen_random": FROZEN_ACCURACY}
    shapes = one_step_readings(dataset, scale)
    assert shapes is not None  # both of its records were read above
    found: dict[str, Any] = {}
    converged = {name: read_record(name, scale) for name in (CONVERGED, CONVERGED_ONE_STEP)}
    if dataset == "imdb" and None not in converged.values():  # the converged arms train on IMDB
        with_converged = metrics | {name: record["metrics"] for name, record in converged.items()}
        found["converged"] = {q: converged_std_ratio(q)(with_converged) for q in QUANTITY_NAMES}
    joint_curves, step_curves = (metrics[names[m]] for m in ("joint", "one_step_frozen"))
    return found | {
        "ratios": {q: std_ratio(q, dataset)(metrics) for q in QUANTITY_NAMES},
        "scale_free_early": {q: early_scale_free(joint_curves[q], step_curves[q]) for q in QUANTITY_NAMES},
        "step_readings": shapes["step"],
        "control_readings": shapes["control"],
        "step_bins": shapes["step_bins"],
        "control_bins": shapes["control_bins"],
        "accuracy": accuracy,
        "gaps": {m: 100 * (accuracy[m]["value"] - levels[m]) for m in levels},
        "step_minus_frozen": None if differences is None else seed_interval(differences),
        "seeds": len(per_seed(metrics[names["joint"]], "test_accuracy")),
        "seed_ids": list(records["one_step_frozen"].get("seeds") or range(len(shapes["step"]))),
    }


def early_scale_free(joint: dict[str, Any], one_step: dict[str, Any]) -> float:
    """The scale-free spread ratio, joint over one step, of two early-stopped records' curves of one quantity (seed
    0's, the bins the records keep: ``binned.scale_free_spread``)."""
    return scale_free_spread(binned_from_record(joint)) / scale_free_spread(binned_from_record(one_step))


def u_counts(readings: list[ShapeReading]) -> dict[str, int]:
    """Seeds of E_s . p after one step: ``u`` (U-shaped beyond the minimum effect and the control), ``significant``
    (U-shaped by the significance test alone) and ``seeds``."""
    return {
        "u": sum(r.cleared and r.shape == "U-shaped" for r in readings),
        "significant": sum(r.tested == "U-shaped" for r in readings),
        "seeds": len(readings),
    }


def spread_table(found: dict[str, Any]) -> pd.DataFrame:
    """Per quantity: the early-stopped ratio, raw (seed interval) and scale-free (seed 0); with ``converged``, the raw
    and the scale-free ratio of both arms trained to the end of the same budget (the budget named in the column); the
    rebuttal's factor."""
    paper = {"values": ONE_STEP_STD_RATIO_VALUES, "scores": ONE_STEP_STD_RATIO_SCORES}
    columns: dict[str, list[str]] = {
        "stopped early": [show_interval(found["ratios"][q], "{:.2f}") for q in QUANTITY_NAMES],
        "scale-free, stopped early (seed 0)": [f"{found['scale_free_early'][q]:.2f}" for q in QUANTITY_NAMES],
    }
    converged = found.get("converged")
    if converged is not None:
        budget = converged["values"]["budget"]
        columns[f"raw, {budget} epochs"] = [show_interval(converged[q], "{:.2f}") for q in QUANTITY_NAMES]
        columns[f"scale-free, {budget} epochs"] = [show_interval(converged[q]["scale_free"], "{:.2f}") for q in QUANTITY_NAMES]
    columns["reported"] = [f"about {paper[q]:g}" for q in QUANTITY_NAMES]
    return pd.DataFrame(columns, index=list(QUANTITY_NAMES.values()))


def _reading_word(reading: ShapeReading) -> str:
    """A seed's reading: its shape, or its tested shape marked "(effect not kept)" when the effect is unknown."""
    return reading.shape if reading.known else f"{reading.tested} (effect not kept)"


def _effect_cell(value: float | None, tested: str) -> str:
    """An effect for a table cell: two decimals; "–" for a flat verdict or no control; "not kept" for NaN."""
    if value is None or tested == "flat":
        return "–"
    return NOT_KEPT if math.isnan(value) else f"{value:.2f}"


def seed_reading_rows(found: dict[str, Any]) -> list[dict[str, str]]:
    """One row per seed of E_s . p after one step then freezing (``arm_differences``): the significance verdict, its
    effect and the control's effect for the same shape, the reading, the verdict on the 20 bin means ("not kept" for
    a seed the record kept none of) and the random-E control's own reading; keys ``SEED_READING_COLUMNS``."""
    step, control = found["step_readings"], found["control_readings"]
    step_bins = found.get("step_bins") or []
    seeds = found.get("seed_ids") or list(range(len(step)))
    if len(seeds) != len(step):
        raise ValueError(f"{len(seeds)} seed ids for {len(step)} readings")
    rows = []
    for k, reading in enumerate(step):
        theirs = control[k] if k < len(control) else None
        cells = (
            str(seeds[k]),
            reading.tested,
            _effect_cell(reading.effect, reading.tested),
            _effect_cell(reading.control_effect, reading.tested),
            _reading_word(reading),
            step_bins[k] if k < len(step_bins) else NOT_KEPT,
            "–" if theirs is None else _reading_word(theirs),
        )
        rows.append(dict(zip(SEED_READING_COLUMNS, cells, strict=True)))
    return rows
