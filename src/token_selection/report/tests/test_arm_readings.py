"""The numbers the real-data chapters state about the one-layer arms: paired by seed, the one-step arm's shape
readings against the random-E control, the spread table, and every seed of the reading rows."""

from __future__ import annotations

import math

import pytest

from token_selection.intervals import seed_interval
from token_selection.report import arm_readings as ar
from token_selection.report.converged_arms import CONVERGED, CONVERGED_ONE_STEP
from token_selection.results import write_record
from token_selection.theory.shape_effect import ShapeReading


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    return tmp_path


def _scores(shape="flat"):
    verdict = {"shape": shape, "spearman": 0.0, "left_spearman": math.nan, "right_spearman": math.nan}
    return {"mean_bin_std": 1.0, "shape": shape, "verdict": verdict, **BINS}


BINS = {"bin_centres": [-0.5, 0.0, 0.5], "bin_mean": [-1.0, 0.0, 1.0], "bin_std": [1.0, 1.0, 1.0], "bin_count": [10, 20, 10]}
"""Three bins: within-bin std 1, bin means -1, 0, 1 (variance 0.5 by count): tokens' std sqrt(1.5)."""


N_TEST = 2_000


def _arm(mode, seeds, ids=None, dataset="toy", **per_seed):
    per_seed.setdefault("scores.shape", ["flat"] * seeds)
    per_seed.setdefault("scores.verdict.spearman", [0.0] * seeds)
    shapes = per_seed["scores.shape"]
    per_seed.setdefault("scores.verdict.left_spearman", [-0.5 if s == "U-shaped" else math.nan for s in shapes])
    per_seed.setdefault("scores.verdict.right_spearman", [0.5 if s == "U-shaped" else math.nan for s in shapes])
    summary = {"test_accuracy": seed_interval(per_seed["test_accuracy"])}
    write_record(f"{dataset}-one_layer-{mode}", "full", protocol="toy", settings={"mode": mode},
                 metrics={"per_seed": per_seed, "seeds": ids or list(range(seeds)),
                          "test_accuracy": per_seed["test_accuracy"][0], "n_test": N_TEST,
                          "seed_summary": summary, "scores": _scores(shapes[0]), "values": dict(BINS)}, seeds=ids)  # fmt: skip


SPREADS = {"values.mean_bin_std": [1.0] * 3, "scores.mean_bin_std": [1.0] * 3}


def test_arm_differences_pair_seeds_and_read_the_shapes(records):
    _arm("joint", 3, test_accuracy=[0.90, 0.88, 0.86], **{"values.mean_bin_std": [1.0, 2.0, 3.0],
         "scores.mean_bin_std": [4.0, 4.0, 4.0]})  # fmt: skip
    _arm("one_step_frozen", 3, test_accuracy=[0.8, 0.8, 0.8], **{"values.mean_bin_std": [2.0, 2.0, 6.0],
         "scores.mean_bin_std": [1.0, 2.0, 4.0], "scores.shape": ["flat", "U-shaped", "flat"],
         "scores.bin_shape": ["U-shaped", "flat", "flat"]})  # fmt: skip
    _arm("frozen_random", 3, test_accuracy=[0.70, 0.74, 0.72])
    found = ar.arm_differences("toy", "full")
    assert found["seeds"] == 3 and "converged" not in found
    assert found["ratios"]["values"]["values"] == [0.5, 1.0, 0.5]  # paired seed by seed, not means over seeds
    assert found["ratios"]["scores"]["values"] == [4.0, 2.0, 1.0]
    assert [r.shape for r in found["step_readings"]] == ["flat", "U-shaped", "flat"]
    assert [r.control_effect for r in found["step_readings"]] == [0.0, 0.0, 0.0], "the control's seeds, paired"
    assert found["step_bins"] == ["U-shaped", "flat", "flat"]
    assert found["accuracy"]["joint"]["value"] == pytest.approx(0.88)
    assert found["gaps"]["joint"] == pytest.approx(100 * (0.88 - 0.95))
    assert found["gaps"]["frozen_random"] == pytest.approx(0.0, abs=1e-9)
    assert ar.u_counts(found["step_readings"]) == {"u": 1, "significant": 1, "seeds": 3}


def test_one_step_minus_frozen_is_paired_only_on_the_same_seeds(records):
    _arm("joint", 3, test_accuracy=[0.9, 0.9, 0.9], **SPREADS)
    _arm("one_step_frozen", 3, test_accuracy=[0.80, 0.75, 0.90], **SPREADS)
    _arm("frozen_random", 3, test_accuracy=[0.78, 0.72, 0.89])
    found = ar.arm_differences("toy", "full")
    assert found["step_minus_frozen"]["values"] == pytest.approx([2.0, 3.0, 1.0])  # every seed gains
    assert found["step_minus_frozen"]["low"] < 0 < found["step_minus_frozen"]["value"]  # three seeds: holds 0
    _arm("frozen_random", 3, ids=[0, 1, 5], test_accuracy=[0.78, 0.72, 0.89])
    assert ar.arm_differences("toy", "full")["step_minus_frozen"] is None, "other seeds: not paired"
    _arm("frozen_random", 2, test_accuracy=[0.78, 0.72])
    assert ar.arm_differences("toy", "full")["step_minus_frozen"] is None, "fewer seeds: not paired"


def test_accuracy_intervals_stay_within_0_and_1(records):
    _arm("joint", 3, test_accuracy=[0.999, 0.9, 0.999], **SPREADS)
    _arm("one_step_frozen", 3, test_accuracy=[0.8, 0.8, 0.8], **SPREADS)
    _arm("frozen_random", 3, test_accuracy=[0.7, 0.7, 0.7])
    joint = ar.arm_differences("toy", "full")["accuracy"]["joint"]
    assert joint["high"] == 1.0 and joint["low"] < joint["value"]
    one_step = ar.arm_differences("toy", "full")["accuracy"]["one_step_frozen"]  # no spread over seeds: test set alone
    assert one_step["high"] - 0.8 == pytest.approx(1.96 * (0.8 * 0.2 / N_TEST) ** 0.5, rel=1e-3)


def _converged_point(values):
    return {"train_loss": [0.5, 0.2, 0.01], "test_accuracy": 0.8, "p_norm": 1.0,
            "values": {"raw": values, "scale_free": 0.5}, "scores": {"raw": values, "scale_free": 0.25}}  # fmt: skip


def test_imdb_reads_both_converged_arms_and_the_spread_table_shows_raw_and_scale_free(records):
    for dataset in ("imdb", "toy"):
        _arm("joint", 2, dataset=dataset, test_accuracy=[0.9, 0.9], **{k: v[:2] for k, v in SPREADS.items()})
        _arm("one_step_frozen", 2, dataset=dataset, test_accuracy=[0.8, 0.8], **{k: v[:2] for k, v in SPREADS.items()})
        _arm("frozen_random", 2, dataset=dataset, test_accuracy=[0.7, 0.7])
    assert "converged" not in ar.arm_differences("imdb", "full"), "without the converged records: the early arms only"
    write_record(CONVERGED, "full", protocol="p", settings={},
                 metrics={"seeds": [0, 1], "joint": {"40": [_converged_point(6.0), _converged_point(4.0)]}})  # fmt: skip
    write_record(CONVERGED_ONE_STEP, "full", protocol="p", settings={},
                 metrics={"seeds": [0, 1], "one_step": {"40": [_converged_point(2.0), _converged_point(2.0)]}})  # fmt: skip
    imdb = ar.arm_differences("imdb", "full")
    assert imdb["converged"]["values"]["value"] == pytest.approx(2.5) and imdb["converged"]["values"]["budget"] == 40
    assert "converged" not in ar.arm_differences("toy", "full"), "the converged arms train on IMDB alone"
    table = ar.spread_table(imdb)
    assert list(table.columns) == [
        "stopped early",
        "scale-free, stopped early (seed 0)",
        "raw, 40 epochs",
        "scale-free, 40 epochs",
        "reported",
    ]
    assert table.loc["Eₛ·v", "raw, 40 epochs"].startswith("2.50") and table.loc["Eₛ·p", "reported"] == "about 6"
    assert table.loc["Eₛ·v", "scale-free, 40 epochs"].startswith("1.00")  # 0.5 / 0.5
    toy_columns = list(ar.spread_table(ar.arm_differences("toy", "full")).columns)
    assert toy_columns == ["stopped early", "scale-free, stopped early (seed 0)", "reported"]


def test_arm_differences_need_all_three_arms_and_read_the_full_scale_by_default(records):
    _arm("joint", 1, test_accuracy=[0.9], **{"values.mean_bin_std": [1.0], "scores.mean_bin_std": [1.0]})
    assert ar.arm_differences("toy", "full") is None and ar.one_step_readings("toy", "full") is None
    for mode in ("one_step_frozen", "frozen_random"):
        _arm(mode, 1, test_accuracy=[0.8], **{"values.mean_bin_std": [1.0], "scores.mean_bin_std": [1.0]})
    assert ar.arm_differences("toy") == ar.arm_differences("toy", "full") is not None
    assert ar.arm_differences("toy", "fast") is None


def _row_found(step, control, bins=(), seeds=None):
    found = {"step_readings": step, "control_readings": control, "step_bins": list(bins)}
    return found if seeds is None else found | {"seed_ids": seeds}


def test_seed_reading_rows_show_each_seed_with_its_effect_its_control_and_its_bins():
    step = [
        ShapeReading("U-shaped", 0.07, control_effect=0.05),  # significant, below the minimum: flat
        ShapeReading("decreasing", 0.31, control_effect=0.12),  # clears both
        ShapeReading("U-shaped", 0.25, control_effect=0.25),  # clears the minimum, not the control (equal)
        ShapeReading("U-shaped", math.nan, control_effect=0.1),  # arms not kept
        ShapeReading("flat", 0.0, control_effect=0.0),
    ]
    control = [ShapeReading("flat", 0.0), ShapeReading("U-shaped", 0.2), ShapeReading("U-shaped", 0.19),
               ShapeReading("U-shaped", math.nan)]  # fmt: skip
    rows = ar.seed_reading_rows(_row_found(step, control, ["decreasing", "flat"], seeds=[0, 1, 2, 5, 9]))
    assert [tuple(r) for r in rows] == [ar.SEED_READING_COLUMNS] * 5
    assert [r["seed"] for r in rows] == ["0", "1", "2", "5", "9"]
    assert [r["effect"] for r in rows] == ["0.07", "0.31", "0.25", "not kept", "–"]
    assert [r["control's effect"] for r in rows] == ["0.05", "0.12", "0.25", "0.10", "–"]
    assert [r["read as"] for r in rows] == [
        "flat", "decreasing", "no stronger than the control", "U-shaped (effect not kept)", "flat",
    ]  # fmt: skip
    assert [r["20 bin means"] for r in rows] == ["decreasing", "flat", "not kept", "not kept", "not kept"]
    assert [r["control read as"] for r in rows] == ["flat", "U-shaped", "flat", "U-shaped (effect not kept)", "–"]
    counts = ar.u_counts(step)
    assert counts == {"u": 0, "significant": 3, "seeds": 5}  # none clears both the minimum and the control


def test_seed_reading_rows_number_seeds_from_zero_without_ids_and_refuse_a_wrong_count():
    step = [ShapeReading("flat", 0.0), ShapeReading("increasing", 0.2)]
    rows = ar.seed_reading_rows(_row_found(step, []))
    assert [r["seed"] for r in rows] == ["0", "1"]
    assert [r["read as"] for r in rows] == ["flat", "increasing"]  # 0.2: on the minimum, cleared; no control
    with pytest.raises(ValueError, match="3 seed ids for 2 readings"):
        ar.seed_reading_rows(_row_found(step, [], seeds=[0, 1, 2]))


def test_the_control_its_bins_and_the_seed_ids_come_with_the_readings(records):
    _arm("joint", 2, test_accuracy=[0.9, 0.9], **{k: v[:2] for k, v in SPREADS.items()})
    _arm("one_step_frozen", 2, ids=[4, 7], test_accuracy=[0.8, 0.8], **{k: v[:2] for k, v in SPREADS.items()})
    _arm("frozen_random", 2, ids=[4, 7], test_accuracy=[0.7, 0.7],
         **{"scores.shape": ["U-shaped", "flat"], "scores.bin_shape": ["decreasing", "flat"]})  # fmt: skip
    found = ar.arm_differences("toy", "full")
    assert found["seed_ids"] == [4, 7]
    assert [r.tested for r in found["control_readings"]] == ["U-shaped", "flat"]
    assert found["control_bins"] == ["decreasing", "flat"]
    table = ar.spread_table(found)
    assert table.loc["Eₛ·v", "stopped early"] == "1.00 [1.00, 1.00] (2 seeds)"  # ratios of 1, two decimals


def test_one_step_readings_need_both_records(records):
    _arm("one_step_frozen", 1, test_accuracy=[0.8])
    assert ar.one_step_readings("toy", "full") is None, "the control is missing"
    _arm("frozen_random", 1, dataset="other", test_accuracy=[0.7])
    assert ar.one_step_readings("other", "full") is None, "the one-step record is missing"


def test_the_scale_free_ratio_of_the_early_stopped_arms_is_read_from_the_bins():
    flat = {**BINS, "bin_mean": [0.0, 0.0, 0.0]}  # no signal: every token's spread is within its bin
    assert ar.early_scale_free(BINS, flat) == pytest.approx(1.0 / 1.5**0.5)
    assert ar.early_scale_free(flat, BINS) == pytest.approx(1.5**0.5)
    assert ar.early_scale_free(BINS, BINS) == pytest.approx(1.0)
