"""The claim catalogue: each claim's rule, records, chapter and how its number is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from token_selection import sources as pn
from token_selection.report.claims import CLAIMS
from token_selection.report.verdicts import AtLeast, PositiveInterval, ShapeIs, WeakerTrend, Within, WithinFactor

ROOT = next((folder for folder in Path(__file__).resolve().parents if (folder / "_toc.yml").is_file()), None)
"""The repository holding the chapters; None for a copy of the package alone (a mutation run's)."""
BY_KEY = {claim.key: claim for claim in CLAIMS}
INTERVAL = {"value": 0.885, "low": 0.883, "high": 0.886, "n": 5}


@pytest.mark.skipif(ROOT is None, reason="a copy of the package without the book's chapters")
def test_every_claim_points_to_a_chapter_of_the_book():
    for claim in CLAIMS:
        assert (ROOT / "notebooks" / f"{claim.chapter}.ipynb").is_file(), f"{claim.key}: no chapter {claim.chapter}"


def test_each_claim_is_judged_by_its_stated_rule():
    rules = {key: claim.rule for key, claim in BY_KEY.items()}
    assert rules == {
        "one_step_alignment": AtLeast(0.9), "one_step_any_data": AtLeast(0.9), "selection": AtLeast(0.99),
        "max_margin": AtLeast(0.99), "global": AtLeast(1.0), "several_relevant": AtLeast(0.99),
        "multiclass_one_step": AtLeast(0.9), "trained_accuracy": Within(pn.TRAINED_ACCURACY, 0.05),
        "frozen_accuracy": Within(pn.FROZEN_ACCURACY, 0.05), "frozen_gap": PositiveInterval(),
        "std_ratio_values": WithinFactor(pn.ONE_STEP_STD_RATIO_VALUES, 1.5),
        "std_ratio_scores": WithinFactor(pn.ONE_STEP_STD_RATIO_SCORES, 1.5), "joint_values": ShapeIs("increasing"),
        "joint_scores": ShapeIs("U-shaped"), "key_query_scores": ShapeIs("U-shaped"),
        "key_query_values": ShapeIs("increasing"), "mlp_scores": ShapeIs("U-shaped"),
        "mlp_values": WeakerTrend("the one-layer model"), "yelp_stars": ShapeIs("increasing"),
    }  # fmt: skip


def test_each_claim_reads_its_records():
    theory = ("report-theory",)
    assert all(BY_KEY[k].records == theory for k in ("one_step_alignment", "selection", "global", "multiclass_one_step"))
    assert BY_KEY["frozen_gap"].records == ("imdb-one_layer-joint", "imdb-one_layer-frozen_random")
    assert BY_KEY["std_ratio_scores"].records == ("imdb-one_layer-joint", "imdb-one_layer-one_step_frozen")
    assert BY_KEY["mlp_values"].records == ("imdb-mlp-joint", "imdb-one_layer-joint")
    assert BY_KEY["key_query_values"].records == ("imdb-key_query-joint",)
    assert BY_KEY["yelp_stars"].records == ("yelp_stars-multiclass-joint",)


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("one_step_alignment", 0.98765, "corr 0.988"),
        ("one_step_any_data", 0.91234, "corr 0.912"),
        ("selection", 0.999912, "worst sequence 0.9999"),
        ("max_margin", 0.98765, "cos 0.9877"),
        ("several_relevant", 0.99123, "worst sequence 0.9912"),
        ("multiclass_one_step", 0.9345, "worst class corr 0.934"),
        ("trained_accuracy", INTERVAL, "88.5 % [88.3, 88.6] % (5 seeds)"),
        ("frozen_accuracy", INTERVAL, "88.5 % [88.3, 88.6] % (5 seeds)"),
        ("global", {"value": 0.85, "low": 0.8, "high": 0.85, "n": 20}, "85% of 20 seeds at d = 2048, 80% at d = 512"),
        ("frozen_gap", {"value": 4.62, "low": 4.31, "high": 4.93, "n": 5}, "4.6 points [4.3, 4.9] over 5 seeds"),
        ("frozen_gap", {"value": 4.62, "low": 4.31, "high": 4.93, "n": 1},
         "4.6 points [4.3, 4.9] (one seed; interval from the test-set sizes)"),
        ("std_ratio_values", {"value": 0.466, "low": 0.44, "high": 0.5, "n": 5}, "0.47x [0.44, 0.50]x (5 seeds)"),
        ("std_ratio_scores", {"value": 0.9, "low": 0.75, "high": 1.05, "n": 5}, "0.90x [0.75, 1.05]x (5 seeds)"),
        ("mlp_values", {"ours": [0.5, 0.6], "reference": [0.7, 0.8]}, "Spearman [+0.50, +0.60]"),
    ],
)  # fmt: skip
def test_each_claim_shows_its_number(key, value, shown):
    assert BY_KEY[key].show(value) == shown
