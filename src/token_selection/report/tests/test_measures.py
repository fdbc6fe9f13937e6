"""How a claim's number is read from records: one-seed and several-seed records, uneven seed counts, and ties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from token_selection.intervals import seed_interval
from token_selection.report import measures
from token_selection.report.measures import (
    accuracy_gap,
    accuracy_interval,
    gap,
    per_seed,
    real_record,
    seeded,
    shape_verdict,
    share_interval,
    show_shape,
    show_share,
    std_ratio,
    theory,
    weaker,
    worst_class,
)
from token_selection.report.theory_claims import RECORD as THEORY_RECORD

from .record_layout import seeded_record


def test_record_names():
    assert real_record("one_layer") == "imdb-one_layer-joint"
    assert real_record("mlp", "frozen_random", "yelp_polarity") == "yelp_polarity-mlp-frozen_random"


def test_seeded_reads_the_seed_summary_and_names_a_metric_the_record_lacks():
    summary = {"value": 0.8, "low": 0.7, "high": 0.9, "n": 3, "values": [0.7, 0.8, 0.9]}
    assert seeded({"test_accuracy": 0.1, "seed_summary": {"test_accuracy": summary}}, "test_accuracy") is summary
    one = seeded(seeded_record({"values": {"mean_bin_std": 2}}), "values.mean_bin_std")
    assert (one["value"], one["low"], one["high"], one["n"]) == (2.0, 2.0, 2.0, 1)
    with pytest.raises(KeyError, match="values.mean_bin_std"):
        seeded({"values": {"mean_bin_std": 2}, "seed_summary": {"other": summary}}, "values.mean_bin_std")


def test_per_seed_is_a_column_of_the_seed_table_in_seed_order():
    record = seeded_record(*({"values": {"mean_bin_std": v}, "test_accuracy": 0.5} for v in (3, 1, 2)), seeds=[4, 0, 7])
    values = per_seed(record, "values.mean_bin_std")
    assert values == [3.0, 1.0, 2.0] and all(type(v) is float for v in values)
    assert per_seed(seeded_record({"test_accuracy": 0.9}), "test_accuracy") == [0.9], "one seed: a table of one row"
    with pytest.raises(KeyError, match="scores.mean_bin_std"):
        per_seed(record, "scores.mean_bin_std")
    with pytest.raises(KeyError, match="values.mean_bin_std"):  # a single run's metrics keep no column of seeds
        per_seed({"values": {"mean_bin_std": 2}}, "values.mean_bin_std")


def test_accuracy_is_the_seed_interval_of_the_test_accuracy():
    records = {"r": seeded_record({"test_accuracy": 0.75})}
    assert accuracy_interval("r")(records) == seed_interval([0.75])


def test_accuracy_adds_the_test_sets_sampling_error_to_the_seeds_spread():
    summary = seed_interval([0.88, 0.885, 0.89])
    records = {"r": {"test_accuracy": 0.88, "n_test": 2500, "seed_summary": {"test_accuracy": summary}}}
    out = accuracy_interval("r")(records)
    test_half = 1.959964 * math.sqrt(0.885 * 0.115 / 2500)
    seed_half = summary["high"] - 0.885
    assert out["value"] == pytest.approx(0.885) and out["n"] == 3 and out["n_test"] == 2500
    assert out["high"] - 0.885 == pytest.approx(math.hypot(seed_half, test_half), rel=1e-6)
    assert out["low"] < summary["low"] and out["high"] > summary["high"]
    one = accuracy_interval("r")(
        {"r": seeded_record({"test_accuracy": 0.999, "n_test": 10})}
    )  # one seed: the test set's error alone
    assert one["high"] == 1.0 and one["low"] == pytest.approx(0.999 - 1.959964 * math.sqrt(0.999 * 0.001 / 10), rel=1e-6)


def _curve(shape: str, rho: float, left: float = math.nan, right: float = math.nan) -> dict:
    verdict = {"shape": shape, "spearman": rho, "spearman_ci": [rho - 0.1, rho + 0.1]}
    verdict |= {"left_spearman": left, "right_spearman": right}
    centres = [-0.9, -0.7, -0.5, -0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.5, 0.9]
    return {
        "verdict": verdict,
        "shape": shape,
        "bin_centres": centres,
        "bin_mean": [c + 0.01 * k for k, c in enumerate(centres)],
        "bin_std": [0.01] * 12,
        "bin_count": [3, 5, 8, 9, 11, 15, 20, 14, 8, 6, 5, 2],
    }


def test_shape_verdict_reads_every_seed_with_its_effect_without_changing_the_record():
    curve = _curve("U-shaped", 0.5, -0.6, 0.7)
    per_seed = {
        "scores.shape": ["U-shaped", "increasing", "U-shaped"],
        "scores.verdict.spearman": [0.5, 0.15, 0.4],
        "scores.verdict.left_spearman": [-0.6, math.nan, -0.05],
        "scores.verdict.right_spearman": [0.7, math.nan, 0.3],
        "scores.token_std": [0.8, 0.1, 0.0999],
    }
    records = {"r": {"scores": curve, "per_seed": per_seed}}
    read = shape_verdict("r", "scores")(records)
    assert read["shapes"] == ["U-shaped", "increasing", "U-shaped"] and read["spearman"] == 0.5
    assert read["readings"] == ["U-shaped", "flat", "flat"], "0.15 and an arm of 0.05 are below the minimum 0.2"
    assert read["effects"] == pytest.approx([0.6, 0.15, 0.05])
    assert read["bins"]["shape"] == "increasing", "the 12 bin means rise: the bins' verdict is their own"
    assert read["selects"] == [True, True, False], "0.1 is the boundary: at it the model selects, below it not"
    assert "shapes" not in curve["verdict"] and "readings" not in curve["verdict"]
    one = shape_verdict("r", "values")({"r": {"values": _curve("increasing", 0.2)}})
    assert one["readings"] == ["increasing"] and "selects" not in one, "0.2 is the minimum: at it the shape stands"


def test_show_shape_with_one_and_with_several_seeds():
    verdict = {"shape": "U-shaped", "spearman": 0.123, "spearman_ci": [-0.05, 0.456], "left_spearman": -0.3}
    verdict["right_spearman"] = 0.25
    assert show_shape(verdict) == "U-shaped (U-shaped, arms -0.30 and +0.25; one seed)"
    read = {**verdict, "shapes": ["U-shaped"], "readings": ["U-shaped"], "effects": [0.25]}
    assert show_shape(read) == "U-shaped (U-shaped, arms -0.30 and +0.25, effect 0.25; one seed)"
    several = {**read, "shapes": ["U-shaped", "flat", "U-shaped"], "readings": ["U-shaped", "flat", "flat"]}
    assert show_shape(several).startswith("2 flat, 1 U-shaped of 3 seeds (seed 0: U-shaped, arms -0.30 and +0.25, ")
    bins = {"shape": "increasing", "spearman": 0.9}
    uniform = {**several, "bins": bins, "score_std": [0.05, 0.2, 0.3], "selects": [False, True, True]}
    text = show_shape(uniform)
    assert "; on the 20 bins: increasing (Spearman +0.90)" in text
    assert text.endswith("attention near uniform in 1 of 3 seeds (std of E_s . p over tokens 0.050 < 0.1): no selection to read")
    assert "near uniform" not in show_shape({**uniform, "selects": [True, True, True]})


def test_accuracy_gap_on_test_sets_of_uneven_sizes():
    value, low, high = accuracy_gap(0.9, 100, 0.6, 400)
    se = math.sqrt(0.9 * 0.1 / 100 + 0.6 * 0.4 / 400)
    assert value == pytest.approx(30.0) and low == pytest.approx(100 * (0.3 - 1.96 * se))
    assert high == pytest.approx(100 * (0.3 + 1.96 * se))
    assert accuracy_gap(0.6, 400, 0.9, 100)[0] == pytest.approx(-30.0)


def _runs(test_accuracies, n_test=1000, **extra):
    return seeded_record(*({"test_accuracy": a, "n_test": n_test, **extra} for a in test_accuracies))


def test_gap_pairs_seeds_when_both_records_have_the_same_several():
    joint, frozen = [0.90, 0.93, 0.91], [0.70, 0.71, 0.75]
    result = gap({real_record("one_layer"): _runs(joint), real_record("one_layer", "frozen_random"): _runs(frozen)})
    differences = [100 * (a - b) for a, b in zip(joint, frozen, strict=True)]
    half = stats.t.ppf(0.975, 2) * np.std(differences, ddof=1) / math.sqrt(3)
    assert result == {
        "value": pytest.approx(np.mean(differences)),
        "low": pytest.approx(np.mean(differences) - half),
        "high": pytest.approx(np.mean(differences) + half),
        "n": 3,
    }
    two = gap({real_record("one_layer"): _runs([0.9, 0.8]), real_record("one_layer", "frozen_random"): _runs([0.7, 0.7])})
    assert two["n"] == 2 and two["value"] == pytest.approx(15.0)  # two seeds are several


@pytest.mark.parametrize(("joint", "frozen"), [([0.9], [0.7]), ([0.9, 0.92], [0.7]), ([0.9, 0.92, 0.91], [0.7, 0.72])])
def test_gap_falls_back_to_the_test_set_interval_without_paired_seeds(joint, frozen):
    records = {real_record("one_layer"): _runs(joint, 800), real_record("one_layer", "frozen_random"): _runs(frozen, 200)}
    value, low, high = accuracy_gap(joint[0], 800, frozen[0], 200)
    assert gap(records) == {"value": pytest.approx(value), "low": pytest.approx(low), "high": pytest.approx(high), "n": 1}


def test_std_ratio_pairs_seeds_and_drops_the_unpaired_ones():
    joint = seeded_record(*({"values": {"mean_bin_std": v}} for v in (4.0, 6.0, 9.0)))
    one_step = seeded_record(*({"values": {"mean_bin_std": v}} for v in (2.0, 2.0)))
    result = std_ratio("values")({real_record("one_layer"): joint, real_record("one_layer", "one_step_frozen"): one_step})
    assert result["values"] == [2.0, 3.0] and result["n"] == 2
    one = std_ratio("scores")(
        {
            real_record("one_layer"): seeded_record({"scores": {"mean_bin_std": 3.0}}),
            real_record("one_layer", "one_step_frozen"): seeded_record({"scores": {"mean_bin_std": 0.5}}),
        }
    )
    assert one["value"] == 6.0 and one["n"] == 1


def _spearman(ci, summary=None):
    """One seed's metrics (its bootstrap interval ``ci``) as a record; ``summary`` replaces the seed interval."""
    metrics = seeded_record({"values": {"shape": "increasing", "verdict": {"spearman": 0.5, "spearman_ci": ci}}})
    if summary is not None:
        metrics["seed_summary"] = {"values.verdict.spearman": summary}
    return metrics


def test_weaker_uses_seed_intervals_when_there_are_several_seeds():
    several = {"value": 0.3, "low": 0.1, "high": 0.5, "n": 3}
    one = {"value": 0.3, "low": 0.3, "high": 0.3, "n": 1}
    records = {real_record("mlp"): _spearman([0.2, 0.4], several), real_record("one_layer"): _spearman((0.6, 0.8), one)}
    assert weaker()(records) == {"ours": [0.1, 0.5], "reference": [0.6, 0.8]}
    records = {real_record("mlp"): _spearman([0.2, 0.4]), real_record("one_layer"): _spearman([0.6, 0.8])}
    assert weaker()(records) == {"ours": [0.2, 0.4], "reference": [0.6, 0.8]}
    records[real_record("mlp", "joint_converged")] = _spearman([0.3, 0.5])
    assert weaker("joint_converged")(records)["ours"] == [0.3, 0.5], "the MLP record of the mode asked for"


def _classes(*verdicts, per_seed=None):
    classes = [{"shape": shape, "verdict": {"shape": shape, "spearman": rho}} for shape, rho in verdicts]
    record = {"classes": classes}
    if per_seed is not None:
        record["per_seed"] = per_seed
    return {real_record("multiclass", dataset="yelp_stars"): record}


def test_worst_class_prefers_a_class_of_another_shape_then_the_lowest_spearman():
    worst = worst_class(_classes(("increasing", 0.2), ("U-shaped", 0.9), ("increasing", 0.5)))
    assert worst["class"] == 1 and worst["shapes"] == ["U-shaped"]
    worst = worst_class(_classes(("increasing", 0.8), ("increasing", 0.3), ("increasing", 0.5)))
    assert worst["class"] == 1 and worst["spearman"] == 0.3
    weak = worst_class(_classes(("increasing", 0.8), ("increasing", 0.19), ("increasing", 0.2)))
    assert weak["class"] == 1 and weak["readings"] == ["flat"], "0.19 is below the minimum effect, 0.2 is not"


def test_worst_class_counts_the_share_of_increasing_seeds_with_uneven_seed_lists():
    per_seed = {
        "classes.0.shape": ["increasing", "increasing", "flat"],  # 2 of 3
        "classes.1.shape": ["increasing", "flat"],  # 1 of 2: the worst share
        "classes.2.shape": ["increasing"],
    }
    worst = worst_class(_classes(("increasing", 0.3), ("increasing", 0.9), ("increasing", 0.5), per_seed=per_seed))
    assert worst["class"] == 1 and worst["shapes"] == ["increasing", "flat"]


def test_theory_reads_a_dotted_path_of_the_theory_record():
    records = {THEORY_RECORD: {"alignment": {"corr": 0.99, "r": [1, 2]}}}
    assert theory("alignment.corr")(records) == 0.99 and theory("alignment")(records)["r"] == [1, 2]
    assert THEORY_RECORD == "report-theory"


def test_two_seeds_are_several_for_shapes_and_intervals():
    verdict = {"shape": "flat", "spearman": 0.0, "spearman_ci": [-0.1, 0.1], "shapes": ["flat", "U-shaped"]}
    assert show_shape(verdict).startswith("1 flat, 1 U-shaped (effect not kept) of 2 seeds (seed 0: flat, ")
    two = {"value": 0.3, "low": 0.2, "high": 0.4, "n": 2}
    records = {real_record("mlp"): _spearman([0.0, 0.9], two), real_record("one_layer"): _spearman([0.6, 0.8])}
    assert weaker()(records)["ours"] == [0.2, 0.4]


@pytest.mark.parametrize(
    ("passed", "trials", "low", "high"),
    [(17, 20, 0.6396, 0.9476), (20, 20, 0.8389, 1.0), (0, 5, 0.0, 0.4345), (4, 5, 0.3755, 0.9638)],
)
def test_share_interval_is_the_wilson_interval_of_the_count(passed, trials, low, high):
    share = share_interval(passed, trials)
    assert share["passed"] == passed and share["n"] == trials and share["value"] == passed / trials
    assert share["low"] == pytest.approx(low, abs=1e-4) and share["high"] == pytest.approx(high, abs=1e-4)


@pytest.mark.parametrize(("passed", "trials"), [(True, 5), (2.0, 5), (2, 5.0), (6, 5), (-1, 5), (0, 0)])
def test_share_interval_refuses_what_is_not_a_count(passed, trials):
    with pytest.raises(ValueError, match="passed"):
        share_interval(passed, trials)


def test_show_share_prints_the_count_and_the_interval_in_percent():
    assert show_share(share_interval(17, 20)) == "17 of 20 seeds: 85 [64, 95] % (Wilson 95%)"
    assert show_share(share_interval(0, 3)) == "0 of 3 seeds: 0 [0, 56] % (Wilson 95%)"


def _one_step_row(d: int, measured: list[float], law: list[float]) -> dict:
    return {"d": d, "predicted": 0.894,
            "per_seed": {"pearson_alpha": measured, "predicted_draw": law, "spearman_alpha": [0.4] * len(measured)}}  # fmt: skip


def test_the_one_step_on_reviews_is_read_at_the_largest_d_on_the_dataset_furthest_from_its_law():
    from token_selection.report.claims import CLAIMS

    metrics = {
        "datasets": ["imdb", "yelp_polarity"],
        "imdb": {"by_d": [_one_step_row(64, [0.5, 0.6], [0.9, 0.9]),
                          _one_step_row(2048, [0.884, 0.884, 0.883], [0.884, 0.884, 0.883])]},
        "yelp_polarity": {"by_d": [_one_step_row(2048, [0.919, 0.919, 0.921], [0.918, 0.917, 0.919]),
                                   _one_step_row(256, [0.1, 0.2], [0.9, 0.9])]},
    }  # fmt: skip
    value = measures.one_step_on_reviews({measures.ONE_STEP_DIRECT: metrics})
    assert (value["dataset"], value["d"], value["n"]) == ("yelp_polarity", 2048, 3)
    assert value["value"] == pytest.approx(0.005 / 3) and value["corr"]["value"] == pytest.approx(2.759 / 3)
    assert value["predicted_draw"] == pytest.approx(0.918) and value["spearman"] == pytest.approx(0.4)
    claim = next(c for c in CLAIMS if c.key == "one_step_real_reviews")
    assert claim.records == (measures.ONE_STEP_DIRECT,) and claim.rule.judge(value)[0] == "reproduced"
    metrics["imdb"]["by_d"][1] = _one_step_row(2048, [0.86, 0.85, 0.855], [0.884, 0.884, 0.884])
    found = measures.one_step_on_reviews({measures.ONE_STEP_DIRECT: metrics})
    assert found["dataset"] == "imdb" and claim.rule.judge(found)[0] == "partly"
    shown = measures.show_one_step_on_reviews(found)
    assert " on IMDB at d = 2048 " in shown and "imdb" not in shown, "a cell names the data set, not its record key"
    assert " on the Yelp stand-in at d = 2048 " in measures.show_one_step_on_reviews(value)
    metrics["imdb"]["by_d"][1] = _one_step_row(2048, [0.5, 0.55, 0.6], [0.884, 0.884, 0.884])
    assert claim.rule.judge(measures.one_step_on_reviews({measures.ONE_STEP_DIRECT: metrics}))[0] == "not reproduced"


def test_seed_0s_shape_says_how_it_reads_when_its_effect_is_too_small():
    verdict = {"shape": "U-shaped", "spearman": 0.0, "left_spearman": -0.24, "right_spearman": 0.16,
               "shapes": ["U-shaped"] * 3, "readings": ["flat", "U-shaped", "flat"], "effects": [0.16, 0.21, 0.18]}  # fmt: skip
    shown = show_shape(verdict)
    assert shown.startswith("2 flat, 1 U-shaped of 3 seeds (seed 0: U-shaped") and "effect 0.16, read flat)" in shown
    same = verdict | {"readings": ["U-shaped"] * 3, "effects": [0.3] * 3}
    assert "read " not in show_shape(same)  # a seed 0 that reads as tested says nothing more
