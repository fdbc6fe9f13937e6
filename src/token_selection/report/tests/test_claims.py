"""The claim catalogue: each claim's rule, records, chapter and how its number is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from token_selection import sources as pn
from token_selection.report.cells import (
    show_accuracy,
    show_corr,
    show_gap,
    show_ratio,
    show_spearman,
    show_worst_class_corr,
    show_worst_sequence,
)
from token_selection.report.claims import CLAIMS
from token_selection.report.flow_rows import FLOW_RECORD
from token_selection.report.verdicts import (
    AtLeast,
    NoCounterexample,
    PositiveInterval,
    ShapeIs,
    ShareOfSeeds,
    WeakerTrend,
    Within,
    WithinFactor,
)
from token_selection.theory.thresholds import DIRECTION_COSINE

from .flow_fixtures import flow_metrics

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
        "one_step_alignment": AtLeast(0.9), "one_step_any_data": AtLeast(0.9),
        "one_step_real_reviews": Within(0.0, 0.02), "selection": ShareOfSeeds(),
        "max_margin": ShareOfSeeds(), "global": NoCounterexample(), "several_relevant": AtLeast(0.99),
        "multiclass_one_step": AtLeast(0.9), "trained_accuracy": Within(pn.TRAINED_ACCURACY, 0.05),
        "frozen_accuracy": Within(pn.FROZEN_ACCURACY, 0.05), "frozen_gap": PositiveInterval(23),
        "std_ratio_values": WithinFactor(pn.ONE_STEP_STD_RATIO_VALUES, 1.5, at_convergence=True),
        "std_ratio_scores": WithinFactor(pn.ONE_STEP_STD_RATIO_SCORES, 1.5, at_convergence=True),
        "joint_values": ShapeIs("increasing"),
        "joint_scores": ShapeIs("U-shaped"), "key_query_scores": ShapeIs("U-shaped"),
        "key_query_values": ShapeIs("increasing"), "mlp_scores": ShapeIs("U-shaped"),
        "mlp_values": WeakerTrend("the one-layer model"), "yelp_stars": ShapeIs("increasing"),
    }  # fmt: skip


def test_each_claim_reads_its_records():
    theory = ("report-theory",)
    assert all(BY_KEY[k].records == theory for k in ("one_step_alignment", "several_relevant", "multiclass_one_step"))
    assert BY_KEY["frozen_gap"].records == ("imdb-one_layer-joint", "imdb-one_layer-frozen_random")
    converged = (
        "diagnosis-converged_joint",
        "diagnosis-converged_one_step",
        "imdb-one_layer-joint",
        "imdb-one_layer-one_step_frozen",
    )
    assert BY_KEY["std_ratio_scores"].records == BY_KEY["std_ratio_values"].records == converged
    assert BY_KEY["mlp_values"].records == ("imdb-mlp-joint_converged", "diagnosis-converged_joint", "imdb-one_layer-joint")
    assert BY_KEY["mlp_scores"].records == ("imdb-mlp-joint_converged",)  # the MLP trained until its p moves
    assert BY_KEY["key_query_values"].records == ("imdb-key_query-joint",)
    assert BY_KEY["yelp_stars"].records == ("yelp_stars-multiclass-joint",)


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("one_step_alignment", 0.98765, "corr 0.988"),
        ("one_step_any_data", 0.91234, "corr 0.912"),
        ("selection", {"value": 0.85, "low": 0.64, "high": 0.948, "n": 20, "passed": 17, "d": 512, "settled": True,
                       "coarse": {"passed": 19, "n": 20}},
         "17 of 20 seeds: 85 [64, 95] % (Wilson 95%) at d = 512 under the flow; unit steps: 19 of 20"),
        ("max_margin", {"value": 1.0, "low": 0.566, "high": 1.0, "n": 5, "passed": 5, "d": 2048, "settled": False,
                        "coarse": {"passed": 6, "n": 7}},
         "5 of 5 seeds: 100 [57, 100] % (Wilson 95%) at d = 2048 under the flow (the two solvers disagree on some "
         "seeds); unit steps: 6 of 7"),
        ("several_relevant", 0.99123, "worst sequence 0.9912"),
        ("multiclass_one_step", 0.9345, "worst class corr 0.934"),
        ("trained_accuracy", INTERVAL, "88.5 [88.3, 88.6] % (5 seeds)"),
        ("frozen_accuracy", INTERVAL, "88.5 [88.3, 88.6] % (5 seeds)"),
        ("global", [{"value": 0.8, "low": 0.376, "high": 0.964, "n": 5, "passed": 4, "d": 512, "settled": True,
                     "coarse": {"passed": 5, "n": 5}},
                    {"value": 1.0, "low": 0.839, "high": 1.0, "n": 20, "passed": 20, "d": 2048, "settled": True,
                     "coarse": {"passed": 20, "n": 20}}],
         "4 of 5 seeds: 80 [38, 96] % (Wilson 95%) at d = 512 under the flow; unit steps: 5 of 5; 20 of 20 seeds: "
         "100 [84, 100] % (Wilson 95%) at d = 2048 under the flow; unit steps: 20 of 20"),
        ("frozen_gap", {"value": 4.62, "low": 4.31, "high": 4.93, "n": 5}, "4.6 [4.3, 4.9] points (5 seeds)"),
        ("frozen_gap", {"value": 4.62, "low": 4.31, "high": 4.93, "n": 1},
         "4.6 [4.3, 4.9] points (one seed; interval from the test-set sizes)"),
        ("mlp_values", {"ours": [0.5, 0.6], "reference": [0.7, 0.8]}, "Spearman [+0.50, +0.60]"),
        # ours on the 20 bins first, the reference's second
        ("mlp_values", {"ours": [0.5, 0.6], "reference": [0.7, 0.8], "bins": [1.0, 0.99]},
         "Spearman [+0.50, +0.60]; on the 20 bins +1.00"),
    ],
)  # fmt: skip
def test_each_claim_shows_its_number(key, value, shown):
    assert BY_KEY[key].show(value) == shown


_COUNTS = {"joint": {"fitted": 5, "settled": 0, "moving": 0, "n": 5},
           "one_step": {"fitted": 0, "settled": 4, "moving": 1, "n": 5}}  # fmt: skip


def test_the_converged_rows_show_the_raw_and_scale_free_ratio_the_budget_and_each_arms_convergence():
    value = {"value": 3.1, "low": 2.9, "high": 3.3, "n": 5, "budget": 80, "converged": False, "counts": _COUNTS,
             "scale_free": {"value": 0.81, "low": 0.8, "high": 0.82, "n": 5},
             "by_budget": {10: 1.5, 40: 2.5, 80: 3.1}, "scale_free_by_budget": {10: 0.6, 40: 0.7, 80: 0.81},
             "early_stopped": {"value": 0.466, "low": 0.44, "high": 0.5, "n": 5}}  # fmt: skip
    shown = BY_KEY["std_ratio_values"].show(value)
    assert shown.startswith("3.10 [2.90, 3.30]x (5 seeds), scale-free 0.81 [0.80, 0.82]x")
    assert "80 epochs" in shown and "no budget where every seed converged" in shown
    assert "5 of 5 fitted" in shown and "1 of 5 moving" in shown
    assert "1.50x (scale-free 0.60x) after 10" in shown and "3.10x (scale-free" not in shown  # the others only
    assert shown.endswith("early-stopped: 0.47 [0.44, 0.50]x (5 seeds)")
    assert "every seed converged:" in BY_KEY["std_ratio_scores"].show(value | {"converged": True})
    verdict = {"shape": "increasing", "spearman": 0.6, "shapes": ["increasing"], "readings": ["increasing"],
               "effects": [0.6], "budget": 80, "converged": True, "counts": {"joint": _COUNTS["joint"]},
               "early_stopped": {"shape": "increasing", "spearman": 0.1, "shapes": ["increasing"],
                                 "readings": ["flat"], "effects": [0.1]}}  # fmt: skip
    shown = BY_KEY["joint_values"].show(verdict)
    assert shown.startswith("increasing") and "80 epochs" in shown and "5 of 5 fitted" in shown
    assert "early-stopped: flat" in shown


def test_rows_3_to_5_read_the_flow_sweep_with_the_unit_step_count_beside_it():
    records = {FLOW_RECORD: flow_metrics((20, 17, 15), (7, 7, 6), coarse=(7, 7))}
    selection = BY_KEY["selection"].measure(records)
    assert (selection["passed"], selection["n"], selection["d"], selection["coarse"]["passed"]) == (17, 20, 512, 7)
    reaches = BY_KEY["max_margin"].measure(records)  # conditional on the selection: 15 of the 17 that select
    assert (reaches["passed"], reaches["n"]) == (15, 17)
    shares = BY_KEY["global"].measure(records)
    assert [(s["d"], s["passed"], s["n"]) for s in shares] == [(512, 15, 20), (2048, 6, 7)]
    # the selection is judged on its share; the global claim, which excludes every other end, on its counterexamples
    assert BY_KEY["selection"].rule.judge(selection)[0] == "partly"
    assert BY_KEY["global"].rule.judge(shares) == (
        "not reproduced",
        "5 of 20 at d = 512, 1 of 7 at d = 2048 seeds fail: each is a counterexample",
    )
    assert [BY_KEY[key].records for key in ("selection", "max_margin", "global")] == [(FLOW_RECORD,)] * 3
    every = {FLOW_RECORD: flow_metrics((5, 5, 5), (12, 12, 12))}
    assert BY_KEY["global"].rule.judge(BY_KEY["global"].measure(every))[0] == "reproduced"


def test_the_rows_name_the_course_direction_threshold():
    for key in ("max_margin", "global"):
        assert f">= {DIRECTION_COSINE:g}" in BY_KEY[key].protocol
    for key in ("selection", "max_margin", "global"):
        assert "flow" in BY_KEY[key].protocol, key


ONE_SEED = " (one seed; interval from the test-set sizes)"


@pytest.mark.parametrize(
    ("n", "tail"),
    [(1, ONE_SEED), (2, " (2 seeds)"), (0, ONE_SEED)],
)
def test_a_gap_names_its_seeds_from_two_on(n, tail):
    assert show_gap({"value": -1.25, "low": -3.04, "high": 0.56, "n": n}) == f"-1.2 [-3.0, 0.6] points{tail}"


def test_each_shown_number_keeps_its_digits():
    one_seed = {"value": 0.7234, "low": 0.7, "high": 0.75, "n": 1}
    assert show_accuracy(one_seed) == "72.3 % (one seed)"
    assert show_accuracy({**one_seed, "n": 2}) == "72.3 [70.0, 75.0] % (2 seeds)"
    assert show_ratio({"value": 8.456, "low": 6.5, "high": 10.004, "n": 3}) == "8.46 [6.50, 10.00]x (3 seeds)"
    assert show_ratio(one_seed) == "0.72x (one seed)"
    assert (show_corr(-0.12345), show_worst_class_corr(0.5)) == ("corr -0.123", "worst class corr 0.500")
    assert show_worst_sequence(0.99995) == "worst sequence 1.0000"
    assert show_spearman({"ours": [-0.3, 0.04], "reference": [0.9, 1.0]}) == "Spearman [-0.30, +0.04]"


def test_a_non_finite_number_is_shown_in_lower_case():
    """A std ratio over a zero std is infinite, an accuracy of no test sequence undefined: shown as Python writes them."""
    assert show_ratio({"value": float("inf"), "low": 1.5, "high": float("inf"), "n": 2}) == "inf [1.50, inf]x (2 seeds)"
    assert show_accuracy({"value": float("nan"), "low": 0.0, "high": 1.0, "n": 1}) == "nan % (one seed)"
