"""Both one-layer arms trained to the end of the same budgets: the tidy table, the convergence rule applied to each
arm, the ratios paired budget with budget and seed with seed, and the report's readings."""

from __future__ import annotations

import pytest

from token_selection.report import converged_arms as ca
from token_selection.report.measures import real_record

from .record_layout import seeded_record

FITTED = [0.5, 0.2, 0.04]  # under 0.05 nats
SETTLED = [0.7, 0.66, 0.65, 0.64]  # a 3 % drop over the last quarter
MOVING = [0.9, 0.6, 0.3, 0.2]


def _point(values: float, scores: float, loss: list[float], free: float = 0.5, accuracy: float = 0.8) -> dict:
    return {"values": {"raw": values, "scale_free": free}, "scores": {"raw": scores, "scale_free": free / 2},
            "train_loss": loss, "test_accuracy": accuracy, "p_norm": 1.0,
            "shapes": {"values": {"shape": "increasing", "spearman": 0.8}}}  # fmt: skip


def _arms() -> tuple[dict, dict]:
    # seeds listed out of order; budget "40" sorts after "8" only as a number
    joint = {
        "seeds": [3, 1],
        "joint": {"40": [_point(8.0, 4.0, FITTED), _point(6.0, 3.0, FITTED)],
                  "8": [_point(2.0, 2.0, MOVING), _point(3.0, 1.0, FITTED)]},
    }  # fmt: skip
    one_step = {
        "seeds": [1, 3],
        "one_step": {"8": [_point(1.0, 1.0, SETTLED, 1.0), _point(4.0, 1.0, SETTLED, 1.0)],
                     "40": [_point(2.0, 2.0, SETTLED, 1.0), _point(1.0, 1.0, MOVING, 1.0)]},
    }  # fmt: skip
    return joint, one_step


def test_the_table_has_a_row_per_arm_budget_and_seed_with_the_rule_applied():
    table = ca.converged_table(*_arms())
    assert len(table) == 8 and set(table["arm"]) == {"joint", "one_step"}
    row = table[(table["arm"] == "one_step") & (table["budget"] == 40) & (table["seed"] == 3)].iloc[0]
    assert row["convergence"] == "moving" and row["values_raw"] == 1.0 and row["scores_scale_free"] == 0.5
    assert list(table[table["arm"] == "joint"]["budget"]) == [8, 8, 40, 40]  # budgets as numbers


def test_ratios_pair_the_same_seed_at_the_same_budget():
    table = ca.converged_table(*_arms())
    raw = ca.ratios(table, "values", "raw")
    assert raw.loc[40, 3] == 8.0 and raw.loc[40, 1] == 3.0  # joint seed 3 (8) over one step seed 3 (1)
    assert raw.loc[8, 3] == 0.5 and raw.loc[8, 1] == 3.0
    free = ca.ratio_intervals(table, "values", "scale_free")
    assert free[40]["value"] == pytest.approx(0.5) and free[40]["n"] == 2


@pytest.mark.parametrize(
    ("changes", "budget"),
    [
        ({}, None),  # at 40 one seed of the one-step arm is moving, at 8 a joint seed
        ({("one_step", "40", 1): SETTLED}, 40),
        ({("joint", "8", 0): FITTED}, 8),  # 40 still has a moving one-step seed
        ({("joint", "8", 0): FITTED, ("one_step", "40", 1): FITTED}, 40),  # the longest that passes
    ],
)
def test_the_converged_budget_is_the_longest_where_every_seed_of_both_arms_met_the_rule(changes, budget):
    joint, one_step = _arms()
    for (arm, b, k), loss in changes.items():
        (joint if arm == "joint" else one_step)[arm][b][k]["train_loss"] = loss
    table = ca.converged_table(joint, one_step)
    assert ca.converged_budget(table) == budget
    assert ca.converged_budget(table, ("joint",)) == 40  # the joint arm alone is fitted at 40 in both seeds


def test_convergence_counts_per_arm():
    table = ca.converged_table(*_arms())
    assert ca.convergence_counts(table, 40) == {
        "joint": {"fitted": 2, "settled": 0, "moving": 0, "n": 2},
        "one_step": {"fitted": 0, "settled": 1, "moving": 1, "n": 2},
    }


def _records(joint: dict, one_step: dict) -> dict:
    return {
        ca.CONVERGED: joint,
        ca.CONVERGED_ONE_STEP: one_step,
        real_record("one_layer"): {"seeds": [0, 1], "per_seed": {"values.mean_bin_std": [1.0, 1.0]}},
        real_record("one_layer", "one_step_frozen"): {"seeds": [0, 1], "per_seed": {"values.mean_bin_std": [2.0, 4.0]}},
    }


def test_the_std_ratio_reads_the_longest_budget_when_none_converged_and_says_so():
    found = ca.converged_std_ratio("values")(_records(*_arms()))
    assert (found["budget"], found["converged"]) == (40, False)
    assert found["value"] == pytest.approx(5.5) and found["n"] == 2  # (8 + 3) / 2
    assert found["by_budget"] == {8: pytest.approx(1.75), 40: pytest.approx(5.5)}
    assert found["scale_free"]["value"] == pytest.approx(0.5)
    assert found["scale_free_by_budget"] == {8: pytest.approx(0.5), 40: pytest.approx(0.5)}
    assert found["counts"]["one_step"]["moving"] == 1
    assert found["early_stopped"]["value"] == pytest.approx(0.375)  # (1/2 + 1/4) / 2


def test_the_std_ratio_reads_the_converged_budget_when_there_is_one():
    joint, one_step = _arms()
    joint["joint"]["8"][0]["train_loss"] = FITTED
    found = ca.converged_std_ratio("values")(_records(joint, one_step))
    assert (found["budget"], found["converged"]) == (8, True) and found["value"] == pytest.approx(1.75)


def test_the_shape_reads_the_joint_arm_alone():
    joint, _ = _arms()
    curve = {"shape": "increasing", "verdict": {"shape": "increasing", "spearman": 0.8, "spearman_ci": [0.7, 0.9]}}
    found = ca.converged_shape("values")({ca.CONVERGED: joint, real_record("one_layer"): {"values": curve}})
    assert (found["budget"], found["converged"]) == (40, True)
    assert found["readings"] == ["increasing", "increasing"] and found["early_stopped"]["shape"] == "increasing"


def test_bad_metrics_are_refused_by_name():
    joint, one_step = _arms()
    with pytest.raises(ValueError, match="the joint arm's metrics need 'seeds'"):
        ca.converged_table({"joint": joint["joint"]}, one_step)
    joint["joint"]["8"].pop()
    with pytest.raises(ValueError, match="the joint arm holds 1 points at budget 8 for 2 seeds"):
        ca.converged_table(joint, one_step)
    joint, one_step = _arms()
    one_step["one_step"]["8"][0]["values"]["raw"] = 0.0
    with pytest.raises(ValueError, match="a one-step spread of values_raw is not positive"):
        ca.ratios(ca.converged_table(joint, one_step), "values", "raw")
    with pytest.raises(ValueError, match="^no \\(budget, seed\\) was run by both arms$"):
        ca.ratios(ca.converged_table(joint), "values", "raw")


def test_convergence_words_count_each_arm():
    value = {"counts": {"joint": {"fitted": 5, "settled": 0, "moving": 0, "n": 5},
                        "one_step": {"fitted": 0, "settled": 3, "moving": 2, "n": 5}}}  # fmt: skip
    words = ca.convergence_words(value)
    assert "5 of 5 fitted" in words and "3 of 5 settled" in words and "2 of 5 moving" in words
    assert "0 of" not in words


def test_the_mlp_is_set_against_the_one_layer_model_trained_to_the_same_budget():
    joint, _ = _arms()
    for k, rho in enumerate((0.8, 0.9)):
        joint["joint"]["8"][k]["shapes"] = {"values": {"shape": "increasing", "spearman": rho}}
    curve = {"shape": "increasing", "verdict": {"shape": "increasing", "spearman": 0.5, "spearman_ci": [0.4, 0.6]}}
    mlp = {"seeds": [0, 1], "per_seed": {"values.verdict.spearman": [0.5, 0.6], "epochs_run": [8, 8]}, "values": curve,
           "seed_summary": {"values.verdict.spearman": {"value": 0.55, "low": 0.4, "high": 0.7, "n": 2}}}  # fmt: skip
    early = seeded_record(*({"values": {**curve, "verdict": {**curve["verdict"], "spearman": r}}} for r in (0.95, 0.97)))
    records = {ca.CONVERGED: joint, real_record("mlp", "joint_converged"): mlp, real_record("one_layer"): early}
    found = ca.weaker_at_budget(records)
    assert found["budget"] == 8 and found["ours"] == [0.4, 0.7]
    assert found["reference"][0] < 0.85 < found["reference"][1]  # the 8-epoch runs' 0.8 and 0.9, not 0.95 and 0.97
    mlp["per_seed"]["epochs_run"] = [10, 10]
    with pytest.raises(ValueError, match=r"no budget of 10 epochs, the MLP's; it has \['8', '40'\]"):
        ca.weaker_at_budget(records)


def test_the_table_keeps_accuracy_and_p_in_a_clean_index():
    table = ca.converged_table(*_arms())
    assert list(table.index) == list(range(len(table)))
    assert set(table["test_accuracy"]) == {0.8} and set(table["p_norm"]) == {1.0}
    with pytest.raises(ValueError, match="the joint arm's metrics need"):
        ca.converged_table({"seeds": [0], "joint": {}})  # no budget at all


def test_a_budget_run_by_one_arm_only_is_not_converged():
    joint, one_step = _arms()
    joint["joint"]["8"][0]["train_loss"] = FITTED
    one_step["one_step"]["40"][1]["train_loss"] = SETTLED
    del one_step["one_step"]["8"]  # 8 epochs: the joint arm alone
    assert ca.converged_budget(ca.converged_table(joint, one_step)) == 40
    del one_step["one_step"]["40"]
    one_step["one_step"]["16"] = [_point(1.0, 1.0, SETTLED)] * 2
    assert ca.converged_budget(ca.converged_table(joint, one_step)) is None  # no budget both arms ran


def test_the_shape_reads_the_longest_budget_when_the_joint_arm_never_converged():
    joint, _ = _arms()
    joint["joint"]["40"][0]["train_loss"] = MOVING
    joint["joint"]["8"][0]["train_loss"] = MOVING
    joint["joint"]["40"][1]["shapes"] = {"values": {"shape": "U-shaped", "spearman": 0.0, "left_spearman": -0.5,
                                                    "right_spearman": 0.4}}  # fmt: skip
    curve = {"shape": "increasing", "verdict": {"shape": "increasing", "spearman": 0.8, "spearman_ci": [0.7, 0.9]}}
    found = ca.converged_shape("values")({ca.CONVERGED: joint, real_record("one_layer"): {"values": curve}})
    assert (found["budget"], found["converged"]) == (40, False)
    assert found["shape"] == "increasing" and found["spearman"] == 0.8  # seed 0's verdict (seed 3)
    assert found["shapes"] == ["increasing", "U-shaped"] and found["effects"] == [0.8, 0.4]
    assert found["counts"]["joint"] == {"fitted": 1, "settled": 0, "moving": 1, "n": 2}


def test_ratio_intervals_and_the_reference_stay_within_their_bounds():
    joint, one_step = _arms()
    joint["joint"]["40"][0]["values"]["raw"] = 0.1  # ratios 0.1 and 3.0 over two seeds: a t-interval dips below 0
    low = ca.ratio_intervals(ca.converged_table(joint, one_step), "values", "raw")[40]["low"]
    assert low == 0.0
    for k, rho in enumerate((0.99, 0.2)):
        joint["joint"]["8"][k]["shapes"] = {"values": {"shape": "increasing", "spearman": rho}}
    curve = {"shape": "increasing", "verdict": {"shape": "increasing", "spearman": 0.5, "spearman_ci": [0.4, 0.6]}}
    mlp = seeded_record({"epochs_run": 8, "values": curve})
    records = {
        ca.CONVERGED: joint,
        real_record("mlp", "joint_converged"): mlp,
        real_record("one_layer"): seeded_record({"values": curve}),
    }
    high = ca.weaker_at_budget(records)["reference"][1]
    assert high == 1.0  # a Spearman's interval ends at 1 at most
    for k, rho in enumerate((-0.99, -0.2)):
        joint["joint"]["8"][k]["shapes"] = {"values": {"shape": "decreasing", "spearman": rho}}
    assert ca.weaker_at_budget(records)["reference"][0] == -1.0


def test_convergence_words_join_counts_by_commas_and_arms_by_semicolons():
    value = {"counts": {"joint": {"fitted": 4, "settled": 1, "moving": 0, "n": 5},
                        "one_step": {"fitted": 0, "settled": 5, "moving": 0, "n": 5}}}  # fmt: skip
    assert ca.convergence_words(value) == "joint: 4 of 5 fitted, 1 of 5 settled; one step: 5 of 5 settled"


def test_the_shape_reads_the_joint_arms_converged_budget_not_the_longest():
    joint, _ = _arms()
    joint["joint"]["8"][0]["train_loss"] = FITTED  # 8 epochs: both seeds fitted
    joint["joint"]["40"][1]["train_loss"] = MOVING  # 40 epochs: one seed still moving
    for run in joint["joint"]["8"]:
        run["shapes"] = {"values": {"shape": "flat", "spearman": 0.05}}
    curve = {"shape": "increasing", "verdict": {"shape": "increasing", "spearman": 0.8, "spearman_ci": [0.7, 0.9]}}
    found = ca.converged_shape("values")({ca.CONVERGED: joint, real_record("one_layer"): {"values": curve}})
    assert (found["budget"], found["converged"], found["shape"]) == (8, True, "flat")
