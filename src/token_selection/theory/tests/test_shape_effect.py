"""The effect-size reading of a shape verdict: boundaries, the control, unknown effects, bad input."""

from __future__ import annotations

import math

import pytest

from token_selection.results import TABLE_COLUMNS
from token_selection.tests.record_curves import curve
from token_selection.theory.shape_effect import (
    CONTROL,
    MIN_EFFECT,
    ShapeReading,
    curve_at,
    effect_size,
    read_shape,
    seed_verdicts,
    shape_cell,
)


def u(left: float, right: float, rho: float = 0.0) -> dict:
    return {"shape": "U-shaped", "spearman": rho, "left_spearman": left, "right_spearman": right}


def test_effect_of_each_shape():
    assert effect_size(u(-0.63, 0.65)) == pytest.approx(0.63), "the weaker arm"
    assert effect_size(u(-0.9, 0.25)) == pytest.approx(0.25)
    assert effect_size({"shape": "increasing", "spearman": 0.81}) == 0.81
    assert effect_size({"shape": "decreasing", "spearman": -0.4}) == 0.4
    assert effect_size({"shape": "flat", "spearman": 0.9}) == 0.0


def test_effect_of_another_shape_reads_the_same_verdict():
    verdict = {"shape": "increasing", "spearman": 0.3, "left_spearman": -0.1, "right_spearman": 0.5}
    assert effect_size(verdict, "U-shaped") == pytest.approx(0.1)
    assert effect_size(verdict, "decreasing") == pytest.approx(-0.3)
    no_minimum = {"shape": "increasing", "spearman": 0.3, "left_spearman": math.nan, "right_spearman": math.nan}
    assert effect_size(no_minimum, "U-shaped") == 0.0, "no interior minimum: no U at all"
    assert math.isnan(effect_size({"shape": "U-shaped", "spearman": 0.0})), "arms not kept: unknown"
    assert math.isnan(effect_size({"shape": "U-shaped", "spearman": 0.0, "left_spearman": -0.5}))


def test_unknown_shape_is_refused():
    with pytest.raises(ValueError, match="shape must be one of"):
        effect_size({"shape": "S-shaped", "spearman": 0.1})


@pytest.mark.parametrize(
    ("verdict", "shape"),
    [
        (u(-MIN_EFFECT, 0.9), "U-shaped"),  # at the minimum: stands
        (u(-0.9, MIN_EFFECT - 1e-9), "flat"),  # just below: flat
        ({"shape": "increasing", "spearman": MIN_EFFECT}, "increasing"),
        ({"shape": "decreasing", "spearman": -MIN_EFFECT + 1e-9}, "flat"),
        ({"shape": "flat", "spearman": 0.99}, "flat"),
    ],
)
def test_minimum_effect_boundary(verdict, shape):
    reading = read_shape(verdict)
    assert reading.shape == shape and reading.known
    assert reading.cleared == (shape != "flat")


def test_control_must_be_beaten():
    step = u(-0.3, 0.35)
    weaker_control = u(-0.29, 0.4)
    assert read_shape(step, weaker_control).shape == "U-shaped"
    equal = read_shape(step, u(-0.3, 0.5))
    assert equal.shape == CONTROL and not equal.cleared and equal.clears_minimum, "an effect equal to the control's"
    monotone_control = {"shape": "increasing", "spearman": 0.5, "left_spearman": math.nan, "right_spearman": math.nan}
    assert read_shape(step, monotone_control).control_effect == 0.0
    rising = read_shape({"shape": "increasing", "spearman": 0.28}, {"shape": "increasing", "spearman": 0.15})
    assert rising.cleared and rising.control_effect == 0.15


def test_unknown_effects_keep_the_tested_shape_but_do_not_clear():
    unknown = read_shape({"shape": "U-shaped", "spearman": 0.1})
    assert unknown.shape == "U-shaped" and not unknown.known and not unknown.cleared
    flat_control = read_shape(
        u(-0.5, 0.5), {"shape": "flat", "spearman": 0.0} | {"left_spearman": math.nan, "right_spearman": math.nan}
    )
    assert flat_control.known and flat_control.control_effect == 0.0, "a control without an interior minimum has no U"
    missing = read_shape(u(-0.5, 0.5), {"shape": "U-shaped", "spearman": 0.0})
    assert not missing.known and missing.shape == "U-shaped" and not missing.cleared
    assert "effect not kept" in missing.describe()


def test_describe_says_what_decided():
    assert read_shape(u(-0.63, 0.65)).describe() == "U-shaped (effect 0.63)"
    assert read_shape(u(-0.07, 0.066)).describe() == "flat (U-shaped by significance, effect 0.07 < 0.2)"
    assert read_shape(u(-0.3, 0.3), u(-0.4, 0.4)).describe() == "no more than the control (U-shaped, effect 0.30, control 0.40)"
    assert read_shape(u(-0.5, 0.5), u(-0.1, 0.1)).describe() == "U-shaped (effect 0.50, control 0.10)"
    assert read_shape({"shape": "flat", "spearman": 0.0}).describe() == "flat"


@pytest.mark.parametrize("minimum", [0.0, -0.1, 1.01, math.nan])
def test_minimum_outside_zero_one_is_refused(minimum):
    with pytest.raises(ValueError, match="minimum must lie in"):
        read_shape(u(-0.5, 0.5), minimum=minimum)


def test_minimum_of_one_is_allowed_and_a_custom_minimum_is_used():
    assert read_shape(u(-1.0, 1.0), minimum=1.0).shape == "U-shaped"
    assert read_shape(u(-0.5, 0.5), minimum=0.6).shape == "flat"
    assert ShapeReading("increasing", 0.3, minimum=0.3).shape == "increasing"


def test_curve_at_reads_values_scores_and_classes():
    metrics = {"values": {"a": 1}, "scores": {"b": 2}, "classes": [{"c": 3}, {"c": 4}]}
    assert curve_at(metrics, "values") == {"a": 1} and curve_at(metrics, "classes.1") == {"c": 4}
    with pytest.raises(ValueError, match="quantity must be"):
        curve_at(metrics, "weights")


def test_seed_verdicts_with_and_without_kept_arms():
    per_seed = {"scores.shape": ["U-shaped", "flat", "U-shaped"], "scores.verdict.spearman": [0.1, 0.0, 0.2]}
    metrics = {"scores": curve(), "per_seed": per_seed}
    verdicts = seed_verdicts(metrics, "scores")
    assert verdicts[0] == {"shape": "U-shaped", "spearman": 0.1, "left_spearman": -0.5, "right_spearman": 0.4}
    assert verdicts[2] == {"shape": "U-shaped", "spearman": 0.2}, "arms not kept for seed 2: no key, not NaN"
    per_seed |= {"scores.verdict.left_spearman": [-0.5, math.nan, -0.1], "scores.verdict.right_spearman": [0.4, math.nan, 0.3]}
    kept = seed_verdicts(metrics, "scores")
    assert kept[2]["left_spearman"] == -0.1 and math.isnan(kept[1]["right_spearman"])
    per_seed["scores.verdict.spearman"] = [0.1, 0.0]
    with pytest.raises(ValueError, match="3 shapes but 2 correlations"):
        seed_verdicts(metrics, "scores")


def test_seed_verdicts_of_a_record_that_kept_one_correlation():
    metrics = {"scores": curve(), "per_seed": {"scores.shape": ["U-shaped", "increasing"]}}
    second = seed_verdicts(metrics, "scores")[1]
    assert second["shape"] == "increasing" and math.isnan(second["spearman"])
    bare = {"scores": {"shape": "flat", "verdict": {"shape": "flat", "spearman": 0.0}}}
    assert seed_verdicts(bare, "scores") == [{"shape": "flat", "spearman": 0.0}]


def _curve(shape: str, rho: float, **arms: float) -> dict:
    return {"shape": shape, "verdict": {"shape": shape, "spearman": rho, **arms}}


def test_a_shape_cell_reads_each_seed_with_its_effect_size():
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
    assert cell == "2 flat, 1 U-shaped of 3 seeds; by significance alone 2 U-shaped, 1 flat"
    per_seed["scores.shape"] = ["flat", "U-shaped", "U-shaped"]
    per_seed["scores.verdict.left_spearman"] = [float("nan"), -0.1, -0.6]
    per_seed["scores.verdict.right_spearman"] = [float("nan"), 0.4, 0.5]
    cell = shape_cell({"scores": _curve("flat", 0.01), "per_seed": per_seed}, "scores")
    assert cell == "2 flat, 1 U-shaped of 3 seeds; by significance alone 2 U-shaped, 1 flat", (
        "counted, whichever seed comes first"
    )
    assert shape_cell({"scores": {"shape": "flat"}}, "scores") is None  # no verdict kept
    assert shape_cell({}, "values") is None
    # a table reads its shape columns with the reader it is given, and falls back to the tested shapes without one
    record = {"metrics": {"scores": _curve("decreasing", -0.19), "values": _curve("increasing", 0.9)}}
    column = TABLE_COLUMNS["score shape"]
    assert column.cell(record) == "decreasing"
    assert column.cell(record, shape_cell) == "flat; by significance alone decreasing"
    assert TABLE_COLUMNS["test accuracy"].cell({"metrics": {"test_accuracy": 0.5}}, shape_cell) == "50.0 %"
    assert column.cell({"metrics": {"scores": {"shape": "flat"}}}, shape_cell) == "flat"  # the reader gives up
