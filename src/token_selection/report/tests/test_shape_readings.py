"""Per-seed readings of a record's curves: arms kept or not, bins, token spread, the control's seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from token_selection.report.shape_readings import (
    MIN_SCORE_STD,
    arms_words,
    bin_verdict,
    score_std,
    seed_readings,
    selects,
)
from token_selection.tests.record_curves import CENTRES, curve


def test_seed_readings_pair_the_controls_seeds():
    per_seed = {
        "scores.shape": ["U-shaped", "U-shaped", "U-shaped"],
        "scores.verdict.spearman": [0.0, 0.0, 0.0],
        "scores.verdict.left_spearman": [-0.5, -0.3, -0.3],
        "scores.verdict.right_spearman": [0.5, 0.3, 0.3],
    }
    control = {
        "scores": curve(left=-0.1, right=0.1),
        "per_seed": {
            "scores.shape": ["U-shaped", "U-shaped"],
            "scores.verdict.spearman": [0.0, 0.0],
            "scores.verdict.left_spearman": [-0.1, -0.35],
            "scores.verdict.right_spearman": [0.1, 0.4],
        },
    }
    readings = seed_readings({"scores": curve(), "per_seed": per_seed}, "scores", control)
    assert [r.shape for r in readings] == ["U-shaped", "no stronger than the control", "U-shaped"]
    assert readings[2].control_effect is None, "seed 2 has no control seed"
    assert [r.control_effect for r in seed_readings({"scores": curve()}, "scores")] == [None]


def test_bin_verdict_kept_computed_or_absent():
    kept = {"scores": {**curve(), "bin_verdict": {"shape": "flat", "spearman": 0.0}}}
    assert bin_verdict(kept, "scores") == {"shape": "flat", "spearman": 0.0}
    computed = bin_verdict({"scores": curve(means=[c for c in CENTRES])}, "scores")
    assert computed["shape"] == "increasing" and computed["n_points"] == len(CENTRES)
    nine = curve(means=[abs(c) for c in CENTRES[:9]] + [math.nan] * 7)
    assert bin_verdict({"scores": nine}, "scores") is None, "9 filled bins are fewer than the rule's 10"
    ten = curve(means=[c for c in CENTRES[:10]] + [math.nan] * 6)
    assert bin_verdict({"scores": ten}, "scores") is not None
    assert bin_verdict({"scores": {"shape": "flat", "verdict": {}}}, "scores") is None


def test_score_std_kept_per_seed_or_pooled_from_the_bins():
    assert score_std({"scores": curve(), "per_seed": {"scores.token_std": [0.5, 0.25]}}) == [0.5, 0.25]
    assert score_std({"scores": {**curve(), "token_std": 0.3}}) == [0.3]
    means, stds, counts = [0.0] * 16, [0.2] * 16, [3] * 16
    means[0], counts[0] = 1.0, 1
    pooled = score_std({"scores": curve(means=means, stds=stds, counts=counts)})[0]
    grand = np.average(means, weights=counts)
    expected = math.sqrt(np.average(np.array(stds) ** 2 + (np.array(means) - grand) ** 2, weights=counts))
    assert pooled == pytest.approx(expected) and pooled > 0.2, "the outlying bin's mean adds to the within-bin std"
    empty = curve(means=[*means, math.nan], stds=[*stds, math.nan], counts=[*counts, 0])
    assert score_std({"scores": empty}) == [pytest.approx(expected)], "an empty bin is left out, not pooled as NaN"
    assert score_std({"scores": {"shape": "flat"}}) == []


def test_selects_at_the_boundary():
    assert selects(MIN_SCORE_STD) and not selects(MIN_SCORE_STD - 1e-12) and selects(1.0)


def test_words():
    assert arms_words({"shape": "U-shaped", "spearman": 0.1, "left_spearman": -0.07, "right_spearman": 0.066}) == (
        "arms -0.07 and +0.07"
    )
    assert arms_words({"shape": "U-shaped", "spearman": 0.1}) == "Spearman +0.10"
    assert arms_words({"shape": "decreasing", "spearman": -0.75}) == "Spearman -0.75"


def test_bin_shapes_kept_per_seed_or_seed_zeros_or_none():
    from token_selection.report.shape_readings import bin_shapes

    assert bin_shapes({"scores": curve(), "per_seed": {"scores.bin_shape": ["flat", "U-shaped"]}}, "scores") == [
        "flat",
        "U-shaped",
    ]
    assert bin_shapes({"scores": curve(means=list(CENTRES))}, "scores") == ["increasing"]
    assert bin_shapes({"scores": {"shape": "flat", "verdict": {}}}, "scores") == []


def test_a_computed_bin_verdict_is_seed_0s_with_the_rules_bin_resamples(monkeypatch):
    from token_selection.report import shape_readings
    from token_selection.theory.shape import classify_shape

    noisy = [math.sin(3 * c) + 0.3 * (-1) ** i for i, c in enumerate(CENTRES)]
    centres, means = np.asarray(CENTRES, float), np.asarray(noisy, float)
    monkeypatch.setattr(shape_readings, "BIN_BOOT", 200)  # not classify_shape's default: the resamples are passed on
    found = repr(bin_verdict({"scores": curve(means=noisy)}, "scores"))  # repr: the unset arms are NaN on both sides
    assert found == repr(classify_shape(centres, means, n_boot=200, seed=0).as_dict())
    # the bootstrap interval tells the seed and the number of resamples apart: the check above can fail
    assert found != repr(classify_shape(centres, means, n_boot=200, seed=1).as_dict())
    assert found != repr(classify_shape(centres, means, seed=0).as_dict())
