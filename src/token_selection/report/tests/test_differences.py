"""The diagnosis sentences choose their words from the numbers, and say so when a record is missing."""

from __future__ import annotations

import math

import pytest

from token_selection.report import differences as df
from token_selection.results import write_record
from token_selection.theory.shape_effect import ShapeReading


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    return tmp_path


def capacity(frozen, crossing):
    rows = [
        {"d": d, "d_over_V": d / 1000, "frozen": f, "joint": 0.88, "frozen_epochs_run": 5}
        for d, f in zip((10, 100, 2000), frozen, strict=True)
    ]
    return {"vocab_size": 1000, "rows": rows, "budgets": [{"epochs": 5, "frozen": frozen[1], "best_epoch": 5}],
            "spearman_frozen_vs_d": 1.0, "crossing_72": crossing}  # fmt: skip


def test_frozen_sentence_follows_where_72_percent_appears_against_the_rebuttals_d_over_v():
    stated = df.REBUTTAL_D_OVER_V
    assert stated == pytest.approx(2048 / 7766)
    small = df.frozen_sentence(capacity([0.6, 0.75, 0.85], 0.05))
    assert "first reached at d/V = 0.05 (d = 50)" in small and "(2048 / 7,766 = 0.26)" in small
    assert "does not explain" in small and "5 epochs (the shortest) comes closest to it (75.0 %)" in small
    assert "unknown" in small and "stays well above 72 %" in small  # the sweep reaches d/V = 2.0, past 0.26
    edge = stated / 2  # a crossing at half the rebuttal's d/V already counts as near it
    assert "fits the rebuttal's number" in df.frozen_sentence(capacity([0.6, 0.75, 0.85], edge))
    assert "does not explain" in df.frozen_sentence(capacity([0.6, 0.75, 0.85], edge * 0.999))
    top = 2 * stated
    assert "fits the rebuttal's number" in df.frozen_sentence(capacity([0.6, 0.75, 0.85], top))
    beyond = df.frozen_sentence(capacity([0.5, 0.6, 0.73], top * 1.001))
    assert "did better than ours" in beyond
    never = df.frozen_sentence(capacity([0.6, 0.65, 0.7], None))
    assert "not reached in the sweep" in never and "does not explain" in never


def spread(raw_values):
    ratios = {q: {r: dict(raw_values) for r in ("raw", "equal_bins", "scale_free")} for q in ("values", "scores")}
    return {"one_step": {"2.0": {}, "8.0": {}}, "joint": {"1": {}, "10": {}}, "ratios": ratios}


def test_spread_sentence_finds_the_pairs_near_the_rebuttals_ratio_on_the_boundary():
    near = df.spread_sentence(spread({"10|2.0": 0.5, "1|8.0": 8.0 / 1.5, "10|8.0": None, "1|2.0": 0.4}), "values")
    assert "0.50x at the preset" in near and "1 joint epochs against a 8.0 eta* step" in near
    assert "10 joint epochs against a 2.0" not in near.split("only for:")[1]
    far = df.spread_sentence(spread({"10|2.0": 0.5, "1|8.0": 8.0 / 1.5 - 0.01, "10|8.0": 0.3, "1|2.0": 0.4}), "values")
    assert "no reading, step size or early-stopped training length" in far


def test_shape_sentence_says_whether_any_run_is_u_shaped():
    rows = [
        {"kind": "key_query", "epochs": e, "seed": 0, "reading": "p . W2 E_s", "shape": s}
        for e, s in ((1, "U-shaped"), (3, "decreasing"))
    ]
    some = df.shape_sentence({"rows": rows}, "key_query")
    assert "1 U-shaped, 1 decreasing" in some or "1 decreasing, 1 U-shaped" in some
    assert "appears in some runs" in some
    none = df.shape_sentence({"rows": [dict(r, shape="decreasing") for r in rows]}, "key_query")
    assert "No run is U-shaped" in none


def test_accuracy_sentence_on_the_two_point_boundary():
    below = df.accuracy_sentence({"imdb": {"test_accuracy": 0.9299}}, {"imdb": 0.88})
    assert "more than 2 points below it on imdb" in below
    at = df.accuracy_sentence({"imdb": {"test_accuracy": 0.93}}, {"imdb": 0.88})
    assert "the linear baseline reaches it" in at


def test_missing_diagnosis_names_the_command(records):
    assert "make records" in df.why_differs("frozen_accuracy", "fast")
    assert "make full" in df.why_differs("std_ratio_values", "full")
    assert df.why_differs("one_step_alignment", "fast") == ""


def test_why_differs_reads_the_record_of_its_scale(records):
    write_record("diagnosis-frozen_capacity", "full", protocol="p", settings={}, metrics=capacity([0.6, 0.65, 0.7], None))
    assert "not reached" in df.why_differs("frozen_accuracy", "full")
    assert "make records" in df.why_differs("frozen_accuracy", "fast")


def _scores(shape="flat", rho=0.0, left=math.nan, right=math.nan, std=1.0):
    """A scores curve with a verdict (arms kept) and its spread."""
    verdict = {"shape": shape, "spearman": rho, "left_spearman": left, "right_spearman": right}
    return {"mean_bin_std": std, "shape": shape, "verdict": verdict}


def test_headlines_choose_their_words(records):
    def one_layer(mode, values_std, scores_std, scores=None, accuracy=0.85):
        metrics = {"test_accuracy": accuracy, "n_test": 1000, "values": {"mean_bin_std": values_std, "shape": "increasing"},
                   "scores": {**(scores or _scores()), "mean_bin_std": scores_std}}  # fmt: skip
        write_record(f"imdb-one_layer-{mode}", "fast", protocol="p", settings={"d": 64}, metrics=metrics)

    one_layer("joint", 1.0, 1.0)
    one_layer("one_step_frozen", 2.0, 0.5)
    one_layer("frozen_random", 1.0, 1.0, _scores("U-shaped", 0.0, -0.25, 0.21), accuracy=0.7)
    lines = df.headlines("fast")
    assert lines[0].startswith("- **The spread reduction reverses** for E_s . v:")
    assert (
        "shows no U beyond the minimum effect or the random-E control" in lines[1]
        and "IMDB: 1 flat, against the control's 1 U-shaped" in lines[1]
    )
    assert "trained 85.0 % (one seed) against frozen 70.0 % (one seed)" in lines[2]
    one_layer("one_step_frozen", 0.5, 0.5, _scores("U-shaped", 0.0, -0.3, 0.22))
    lines = df.headlines("fast")
    assert "**The spread is reduced, as the rebuttal says,**" in lines[0] and "gives a U-shape in 1 of 1 runs" in lines[1]
    one_layer("one_step_frozen", 0.5, 0.5, _scores("U-shaped", 0.0, -0.3, 0.21))
    assert "shows no U" in df.headlines("fast")[1], "an effect equal to the control's does not clear it"
    one_layer("one_step_frozen", 0.5, 0.5, _scores("U-shaped", 0.0, -0.9, 0.19))
    assert "IMDB: 1 flat (by significance alone: 1 U-shaped, strongest U's weaker arm 0.19)" in df.headlines("fast")[1]
    # a U by significance whose arms the record did not keep, and verdicts on the bin means beside both arms'
    unkept = {"shape": "U-shaped", "verdict": {"shape": "U-shaped", "spearman": 0.0}, "bin_verdict": {"shape": "U-shaped"}}
    one_layer("one_step_frozen", 0.5, 0.5, unkept)
    one_layer("frozen_random", 1.0, 1.0, {**_scores("flat"), "bin_verdict": {"shape": "decreasing"}}, accuracy=0.7)
    line = df.headlines("fast")[1]
    assert line.startswith("- **One step, then freezing: 1 of 1 runs are U-shaped by significance, effect not kept**: ")
    assert line.endswith(
        "reads IMDB: 1 U-shaped (effect not kept) (on the 20 bin means: 1 U-shaped), against the control's 1 flat "
        "(on the 20 bin means: 1 decreasing)."
    )
    one_layer("one_step_frozen", 0.5, 0.5, {**unkept, "verdict": {"shape": "flat", "spearman": 0.0}, "shape": "flat"})
    assert df.headlines("fast")[1].startswith(
        "- **After one step then freezing, E_s . p shows no U beyond the minimum effect or the random-E control**: read "
    ), "a flat run whose effect was not kept is no U"


def _arm(records_dir, mode, seeds, ids=None, dataset="toy", **per_seed):
    per_seed.setdefault("scores.shape", ["flat"] * seeds)
    per_seed.setdefault("scores.verdict.spearman", [0.0] * seeds)
    shapes = per_seed["scores.shape"]
    per_seed.setdefault("scores.verdict.left_spearman", [-0.5 if s == "U-shaped" else math.nan for s in shapes])
    per_seed.setdefault("scores.verdict.right_spearman", [0.5 if s == "U-shaped" else math.nan for s in shapes])
    write_record(f"{dataset}-one_layer-{mode}", "full", protocol="toy", settings={"mode": mode},
                 metrics={"per_seed": per_seed, "test_accuracy": per_seed["test_accuracy"][0],
                          "scores": _scores(shapes[0])}, seeds=ids)  # fmt: skip


def test_arm_differences_pair_seeds_and_count_shapes(records):
    _arm(records, "joint", 3, test_accuracy=[0.90, 0.88, 0.86], **{"values.mean_bin_std": [1.0, 2.0, 3.0],
         "scores.mean_bin_std": [4.0, 4.0, 4.0]})  # fmt: skip
    _arm(records, "one_step_frozen", 3, test_accuracy=[0.8, 0.8, 0.8], **{"values.mean_bin_std": [2.0, 2.0, 6.0],
         "scores.mean_bin_std": [1.0, 2.0, 4.0], "scores.shape": ["flat", "U-shaped", "flat"]})  # fmt: skip
    _arm(records, "frozen_random", 3, test_accuracy=[0.70, 0.74, 0.72])
    found = df.arm_differences("toy", "full")
    assert found["seeds"] == 3
    assert found["ratios"]["values"]["values"] == [0.5, 1.0, 0.5]  # paired seed by seed, not means over seeds
    assert found["ratios"]["scores"]["values"] == [4.0, 2.0, 1.0]
    assert [r.shape for r in found["step_readings"]] == ["flat", "U-shaped", "flat"]
    assert [r.control_effect for r in found["step_readings"]] == [0.0, 0.0, 0.0], "the control's seeds, paired"
    assert [r.shape for r in found["control_readings"]] == ["flat"] * 3
    assert found["accuracy"]["joint"]["value"] == pytest.approx(0.88)
    assert found["gaps"]["joint"] == pytest.approx(100 * (0.88 - 0.95))
    assert found["gaps"]["frozen_random"] == pytest.approx(0.0, abs=1e-9)


def test_arm_differences_read_the_bins_of_every_dataset_and_the_converged_arm_of_imdb_alone(records, monkeypatch):
    asked = []

    def diagnosis(name, scale):
        asked.append((name, scale))
        return {"record": name}

    def converged_std_ratio(quantity, dataset):
        return lambda metrics: {"quantity": quantity, "dataset": dataset, "arm": metrics[df.CONVERGED], "records": len(metrics)}

    monkeypatch.setattr(df, "diagnosis", diagnosis)
    monkeypatch.setattr(df, "converged_std_ratio", converged_std_ratio)
    spreads = {"values.mean_bin_std": [1.0, 1.0], "scores.mean_bin_std": [1.0, 1.0]}
    for dataset in ("imdb", "toy"):
        _arm(records, "joint", 2, dataset=dataset, test_accuracy=[0.9, 0.9], **spreads)
        _arm(records, "one_step_frozen", 2, dataset=dataset, test_accuracy=[0.8, 0.8],
             **{**spreads, "scores.bin_shape": ["U-shaped", "flat"]})  # fmt: skip
        _arm(records, "frozen_random", 2, dataset=dataset, test_accuracy=[0.7, 0.7],
             **{"scores.bin_shape": ["decreasing", "flat"]})  # fmt: skip
    imdb = df.arm_differences("imdb", "full")
    assert asked[0] == (df.CONVERGED, "full") and {name for name, _ in asked} <= {df.CONVERGED, "diagnosis-spread_readings"}
    assert imdb["converged"] == {
        q: {"quantity": q, "dataset": "imdb", "arm": {"record": df.CONVERGED}, "records": 4} for q in ("values", "scores")
    }, "each quantity's ratio, read from the three arms' metrics and the converged record"
    assert imdb["step_bins"] == ["U-shaped", "flat"] and imdb["control_bins"] == ["decreasing", "flat"]
    before = len(asked)
    toy = df.arm_differences("toy", "full")
    assert "converged" not in toy and len(asked) == before, "the converged arm trains on IMDB alone: nothing read"
    assert toy["step_bins"] == ["U-shaped", "flat"]


def test_arm_differences_compare_one_step_with_frozen_random_seed_by_seed(records):
    spreads = {"values.mean_bin_std": [1.0] * 3, "scores.mean_bin_std": [1.0] * 3}
    _arm(records, "joint", 3, test_accuracy=[0.9, 0.9, 0.9], **spreads)
    _arm(records, "one_step_frozen", 3, test_accuracy=[0.80, 0.75, 0.90], **spreads)
    _arm(records, "frozen_random", 3, test_accuracy=[0.78, 0.72, 0.89])
    found = df.arm_differences("toy", "full")
    # paired: 2, 3 and 1 points; the means alone (81.7 % against 79.7 %) would hide that every seed gains
    assert found["step_minus_frozen"]["values"] == pytest.approx([2.0, 3.0, 1.0])
    assert found["accuracy"]["one_step_frozen"]["value"] == pytest.approx(0.8166666)
    texts = df.arm_difference_texts(found)
    assert texts["one_step"] == "81.7 [62.7, 100.6] % (3 seeds)"
    assert texts["step_against_frozen"] == (  # the interval holds 0: three seeds are too few to call the gain
        "level with the embeddings frozen at random (+2.0 [-0.5, +4.5] points (3 seeds), paired by seed)"
    )
    _arm(records, "frozen_random", 3, ids=[0, 1, 5], test_accuracy=[0.78, 0.72, 0.89])
    assert df.arm_differences("toy", "full")["step_minus_frozen"] is None, "other seeds: not paired"
    _arm(records, "frozen_random", 2, test_accuracy=[0.78, 0.72])
    assert df.arm_differences("toy", "full")["step_minus_frozen"] is None, "fewer seeds: not paired"


@pytest.mark.parametrize(
    ("low", "high", "side"),
    [(0.1, 2.0, "above"), (1e-9, 1e-9, "above"), (-2.0, -0.1, "below"), (-1e-9, -1e-9, "below"), (0.0, 2.0, "level with"),
     (-2.0, 0.0, "level with"), (0.0, 0.0, "level with"), (-1.0, 1.0, "level with")],
)  # fmt: skip
def test_difference_side_reads_the_whole_interval_against_zero(low, high, side):
    assert df.difference_side({"value": (low + high) / 2, "low": low, "high": high, "n": 3}) == side


def test_step_against_frozen_in_words_for_each_side_and_a_single_seed():
    below = {"value": -9.9, "low": -11.25, "high": -8.5, "n": 5}
    assert df.step_against_frozen(below) == (
        "below the embeddings frozen at random by 9.9 [8.5, 11.2] points (5 seeds), paired by seed"
    )
    one = {"value": 5.4, "low": 5.4, "high": 5.4, "n": 1}
    assert df.step_against_frozen(one) == ("above the embeddings frozen at random by 5.4 points (one seed)")
    level = {"value": 0.4, "low": -0.6, "high": 1.4, "n": 4}
    assert df.step_against_frozen(level) == (
        "level with the embeddings frozen at random (+0.4 [-0.6, +1.4] points (4 seeds), paired by seed)"
    )
    assert df.step_against_frozen({"value": 0.0, "low": 0.0, "high": 0.0, "n": 1}) == (
        "level with the embeddings frozen at random (+0.0 points (one seed))"
    )
    assert df.step_against_frozen(None) == "unpaired with the embeddings frozen at random (the two arms ran on different seeds)"
    two = {"value": 2.0, "low": 1.0, "high": 3.0, "n": 2}  # two seeds are paired; one decimal always shown
    assert df.step_against_frozen(two) == (
        "above the embeddings frozen at random by 2.0 [1.0, 3.0] points (2 seeds), paired by seed"
    )


def test_arm_differences_keep_the_one_step_seeds_in_reading_order(records):
    _arm(records, "joint", 2, test_accuracy=[0.9, 0.8], **{"values.mean_bin_std": [1.0, 1.0], "scores.mean_bin_std": [1.0, 1.0]})
    _arm(records, "frozen_random", 2, test_accuracy=[0.7, 0.7])
    _arm(records, "one_step_frozen", 2, test_accuracy=[0.8, 0.8], **{"values.mean_bin_std": [1.0, 1.0],
         "scores.mean_bin_std": [1.0, 1.0]})  # fmt: skip
    assert df.arm_differences("toy", "full")["seed_ids"] == [0, 1], "a record without seed ids: numbered from 0"
    _arm(records, "one_step_frozen", 2, ids=[3, 7], test_accuracy=[0.8, 0.8], **{"values.mean_bin_std": [1.0, 1.0],
         "scores.mean_bin_std": [1.0, 1.0]})  # fmt: skip
    assert df.arm_differences("toy", "full")["seed_ids"] == [3, 7]


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
    rows = df.seed_reading_rows(_row_found(step, control, ["decreasing", "flat"], seeds=[0, 1, 2, 5, 9]))
    assert [tuple(r) for r in rows] == [df.SEED_READING_COLUMNS] * 5
    assert [r["seed"] for r in rows] == ["0", "1", "2", "5", "9"]
    assert [r["by significance"] for r in rows] == ["U-shaped", "decreasing", "U-shaped", "U-shaped", "flat"]
    assert [r["effect"] for r in rows] == ["0.07", "0.31", "0.25", "not kept", "–"]
    assert [r["control's effect"] for r in rows] == ["0.05", "0.12", "0.25", "0.10", "–"]
    assert [r["read as"] for r in rows] == [
        "flat", "decreasing", "no stronger than the control", "U-shaped (effect not kept)", "flat",
    ]  # fmt: skip
    assert [r["20 bin means"] for r in rows] == ["decreasing", "flat", "not kept", "not kept", "not kept"]
    assert [r["control read as"] for r in rows] == ["flat", "U-shaped", "flat", "U-shaped (effect not kept)", "–"]


def test_the_not_kept_note_appears_only_under_a_table_with_such_a_cell():
    kept = df.seed_reading_rows(_row_found([ShapeReading("flat", 0.0)], [ShapeReading("flat", 0.0)], ["flat"]))
    assert df.not_kept_note(kept) == ""
    missing = df.seed_reading_rows(_row_found([ShapeReading("flat", 0.0)] * 2, [], ["flat"]))
    assert df.not_kept_note(missing) == 'A "not kept" cell is one the record does not hold.'
    unknown = df.seed_reading_rows(_row_found([ShapeReading("U-shaped", math.nan)], [], ["U-shaped"]))
    assert df.not_kept_note(unknown) == 'A "not kept" cell is one the record does not hold.'  # the effect's cell
    assert df.not_kept_note([]) == ""


def test_seed_reading_rows_number_seeds_from_zero_without_ids_and_refuse_a_wrong_count():
    step = [ShapeReading("flat", 0.0), ShapeReading("increasing", 0.2)]
    rows = df.seed_reading_rows(_row_found(step, []))
    assert [r["seed"] for r in rows] == ["0", "1"]
    assert [r["read as"] for r in rows] == ["flat", "increasing"]  # 0.2: on the minimum, cleared; no control
    assert [r["control's effect"] for r in rows] == ["–", "–"]
    with pytest.raises(ValueError, match="3 seed ids for 2 readings"):
        df.seed_reading_rows(_row_found(step, [], seeds=[0, 1, 2]))


def test_arm_differences_read_the_full_scale_by_default(records):
    for mode in ("joint", "one_step_frozen", "frozen_random"):
        _arm(records, mode, 2, test_accuracy=[0.9, 0.8], **{"values.mean_bin_std": [1.0, 1.0],
             "scores.mean_bin_std": [1.0, 1.0], "scores.shape": ["flat", "flat"]})  # fmt: skip
    assert df.arm_differences("toy") == df.arm_differences("toy", "full") is not None


def test_arm_differences_need_all_three_arms(records):
    _arm(records, "joint", 1, test_accuracy=[0.9], **{"values.mean_bin_std": [1.0], "scores.mean_bin_std": [1.0]})
    assert df.arm_differences("toy", "full") is None
    assert df.arm_differences("toy", "fast") is None


@pytest.mark.parametrize(
    ("low", "high", "words"),
    [(1.0 + 1e-9, 2.0, "above 1"), (1.0, 2.0, "not distinguishable"), (0.5, 1.0, "not distinguishable"),
     (0.5, 1.0 - 1e-9, "below 1")],
)  # fmt: skip
def test_ratio_reading_judges_the_whole_interval_against_one(low, high, words):
    assert df.ratio_reading({"low": low, "high": high, "value": (low + high) / 2}).startswith(words)
    side = {"above 1": "above", "below 1": "below", "not distinguishable": "neither"}[words]
    assert df.ratio_side({"low": low, "high": high, "value": (low + high) / 2}) == side


def _readings(*effects, control=0.0):
    """One-step readings: a number is a U with that effect, None a flat seed."""
    return [
        ShapeReading("flat", 0.0, control_effect=control) if e is None else ShapeReading("U-shaped", e, control_effect=control)
        for e in effects
    ]


def test_u_reading_counts_the_u_shaped_seeds():
    assert df.u_reading(_readings(None, None, None)).startswith("No seed of 3 is U-shaped, even by the significance")
    assert (
        df.u_reading(_readings(0.5, 0.3, 0.2)) == "All 3 seeds are U-shaped beyond the minimum effect and the random-E control."
    )
    assert df.u_reading(_readings(0.5, 0.5, 0.5, 0.5, None)) == (
        "4 of 5 seeds are U-shaped beyond the minimum effect and the random-E control: one step then freezing gives "
        "the U, but not reliably."
    )
    unknown = [ShapeReading("U-shaped", math.nan), ShapeReading("flat", 0.0)]  # a U whose effect was not kept
    assert df.u_reading(unknown).startswith("No seed of 2 is U-shaped beyond the minimum effect"), "not counted as a U"
    weak = df.u_reading(_readings(0.19, 0.5, control=0.5))
    assert weak.startswith("No seed of 2 is U-shaped beyond the minimum effect and the random-E control (2 pass the")


def test_arm_difference_texts_show_intervals_counts_and_readings():
    interval = {"value": 0.5, "low": 0.4, "high": 0.6, "n": 3}
    accuracy = {"value": 0.885, "low": 0.883, "high": 0.886, "n": 3}
    found = {"ratios": {"values": interval, "scores": dict(interval, low=1.1, high=1.3, value=1.2)},
             "step_readings": _readings(None, 0.4, None), "control_readings": _readings(None, None, 0.1),
             "accuracy": {"joint": accuracy, "frozen_random": accuracy, "one_step_frozen": dict(accuracy, value=0.9)},
             "step_minus_frozen": {"value": 1.5, "low": 0.5, "high": 2.5, "n": 3}}  # fmt: skip
    texts = df.arm_difference_texts(found)
    assert texts["ratio_values"] == "0.50 [0.40, 0.60] (3 seeds)" and texts["ratio_scores"] == "1.20 [1.10, 1.30] (3 seeds)"
    assert texts["step_shapes"] == "2 flat, 1 U-shaped"
    assert texts["control_shapes"] == "3 flat (by significance alone: 2 flat, 1 U-shaped, strongest U's weaker arm 0.10)"
    assert texts["reading_values"].startswith("below 1") and texts["reading_scores"].startswith("above 1")
    assert texts["u_reading"].startswith("1 of 3 seeds are U-shaped")
    assert texts["trained"] == texts["frozen"] == "88.5 [88.3, 88.6] % (3 seeds)"
    assert texts["one_step"] == "90.0 [88.3, 88.6] % (3 seeds)"
    assert texts["step_against_frozen"].startswith("above the embeddings frozen at random by 1.5")
    assert texts["converged_values"] == texts["converged_scores"] == "not run (IMDB only)"
    assert texts["reading_values"].endswith("(joint training to convergence was run on IMDB only)")
    # with the converged arm (IMDB) and the verdicts on the bin means, each text reads its own quantity's
    converged = {
        "values": dict(interval, value=4.0, low=3.0, high=5.0, budget="32", plateau_seeds=3),
        "scores": dict(interval, value=0.8, low=0.7, high=0.9, budget="16", plateau_seeds=1),
    }
    binned = dict(found, converged=converged, step_bins=["U-shaped"] * 3, control_bins=["flat", "decreasing", "flat"])
    texts = df.arm_difference_texts(binned)
    assert texts["step_shapes"] == "2 flat, 1 U-shaped (on the 20 bin means: 3 U-shaped)"
    assert texts["control_shapes"].endswith("; on the 20 bin means: 2 flat, 1 decreasing)")
    assert texts["converged_values"] == "4.00 [3.00, 5.00] (3 seeds), 32 epochs, at the training-loss plateau in all 3 seeds"
    assert texts["converged_scores"] == "0.80 [0.70, 0.90] (3 seeds), 16 epochs, at the training-loss plateau in 1 of 3 seeds"
    assert texts["reading_values"] == df.ratio_reading(interval, converged["values"])
    assert "end of 32 epochs" in texts["reading_values"] and "end of 16 epochs" in texts["reading_scores"]
    assert texts["one_step"] == "90.0 [88.3, 88.6] % (3 seeds)"


def test_readings_words_add_the_bins_verdicts_and_say_how_many_seeds_kept_them():
    readings = _readings(None, 0.1, 0.1, control=0.0)  # two significant U's, both below the minimum effect
    assert df.readings_words(readings, ["flat", "U-shaped", "U-shaped"]) == (
        "3 flat (by significance alone: 2 U-shaped, 1 flat, strongest U's weaker arm 0.10; on the 20 bin means: "
        "2 U-shaped, 1 flat)"
    )
    assert df.readings_words(readings, ["decreasing"]) == (
        "3 flat (by significance alone: 2 U-shaped, 1 flat, strongest U's weaker arm 0.10; on the 20 bin means (kept "
        "for 1 of the 3 seeds): 1 decreasing)"
    )
    assert df.readings_words(_readings(None, None), ["flat"]) == (
        "2 flat (on the 20 bin means (kept for 1 of the 2 seeds): 1 flat)"
    )
    assert df.readings_words(_readings(None, None), []) == df.readings_words(_readings(None, None)) == "2 flat"
    unknown = [ShapeReading("U-shaped", math.nan), ShapeReading("flat", 0.0)]
    assert df.readings_words(unknown) == "1 U-shaped (effect not kept), 1 flat", "an unknown effect keeps its tested shape"


# Whole sentences, on inputs whose every number is worked out by hand in the comments: each word a reader sees is pinned.


def test_frozen_sentence_in_full_when_72_percent_needs_a_far_smaller_d():
    m = capacity([0.6, 0.75, 0.85], 0.05)
    m["spearman_frozen_vs_d"] = 0.94
    for row, joint in zip(m["rows"], (0.87, 0.885, 0.881), strict=True):
        row["joint"] = joint
    m["budgets"].append({"epochs": 2, "frozen": 0.712, "best_epoch": 2})
    # crossing 0.05 x V 1000 = d 50; trained between 87.0 and 88.5; 0.05 < 0.26 / 2; the shortest budget is 2 epochs
    assert df.frozen_sentence(m) == (
        "[ours] With E frozen at random, test accuracy rises with d/V (Spearman +0.94) from 60.0 % at d = 10 to 85.0 % "
        "at d = 2000 (V = 1,000), while trained embeddings stay between 87.0 and 88.5 %; about 72 % is first reached at "
        "d/V = 0.05 (d = 50). Frozen training budgets give 5 epochs 75.0 %, 2 epochs 71.2 %. [inferred] At the "
        "rebuttal's own d/V (2048 / 7,766 = 0.26) our frozen model stays well above 72 %; a random E of rank d limits "
        "the token values only when d is far smaller (d/V near 0.05), so that limit does not explain the rebuttal's "
        "number. Of the frozen training budgets, 2 epochs (the shortest) comes closest to it (71.2 %). The sources give "
        "neither the frozen run's "
        "training budget nor its dataset: the reason is unknown."
    )
    m["budgets"] = []
    assert "Of the frozen training budgets" not in df.frozen_sentence(m)
    assert "budgets give . [inferred]" in df.frozen_sentence(m)
    assert "explain the rebuttal's number. The sources give" in df.frozen_sentence(m)


def test_frozen_reading_in_full_on_each_side():
    m = capacity([0.6, 0.75, 0.85], None)
    assert df._frozen_reading(None, m) == (
        "[inferred] No d of the sweep gives ~72 %: the column-space limit alone does not explain the rebuttal's number."
    )
    assert df._frozen_reading(0.2, m) == (
        "[inferred] ~72 % appears near the rebuttal's own d/V (2048 / 7,766 = 0.26): the column-space limit of a "
        "random E of rank d fits the rebuttal's number."
    )
    assert df._frozen_reading(0.9, m) == (
        "[inferred] ~72 % needs d/V far above the rebuttal's own d/V (2048 / 7,766 = 0.26), where our frozen model is "
        "below 72 %: the rebuttal's frozen model did better than ours, for reasons its text does not give."
    )


def spread_grid():
    """Ratios on a 2 x 2 grid of (joint epochs | one-step factor), with gaps (None) and an empty reading."""
    return {
        "one_step": {"2.0": {}, "8.0": {}},
        "joint": {"3": {}, "10": {}},
        "ratios": {
            "values": {
                "raw": {"10|2.0": 0.5, "3|8.0": 6.0, "10|8.0": None, "3|2.0": 0.4},
                "equal_bins": {"10|2.0": 1.2, "3|8.0": 0.9, "10|8.0": 2.0, "3|2.0": 0.7},
                "scale_free": {"10|2.0": None, "3|8.0": None},
            },
            "scores": {"raw": {"10|2.0": 0.8}, "equal_bins": {}, "scale_free": {"10|2.0": 1.5, "3|8.0": 0.6}},
        },
    }


def test_spread_sentence_in_full():
    # values: the rebuttal's 8x, near means within [8 / 1.5, 8 x 1.5] = [5.33, 12]: only raw 6.0 at 3 | 8.0
    assert df.spread_sentence(spread_grid(), "values") == (
        "[ours] On seed 0's models (the grid trains one seed), the joint / one-step ratio of per-bin spreads reads "
        "raw 0.50x at the preset (from 0.40x to 6.00x over "
        "the grid); 20 equal bins 1.20x at the preset (from 0.70x to 2.00x over the grid): within a factor 1.5 of 8x "
        "only for: raw at 3 joint epochs against a 8.0 eta* step. [inferred] The rebuttal's ratio depends on a "
        "protocol it does not state (step size, training length, bins)."
    )
    # scores: 6x, near means [4, 9]: nothing; the empty reading is left out, the preset's missing value shows n/a
    grid = spread_grid()
    grid["ratios"]["scores"]["scale_free"] = {"3|8.0": 0.6, "3|2.0": 1.5}
    assert df.spread_sentence(grid, "scores") == (
        "[ours] On seed 0's models (the grid trains one seed), the joint / one-step ratio of per-bin spreads reads "
        "raw 0.80x at the preset (from 0.80x to 0.80x over "
        "the grid); raw over the tokens' overall std n/a at the preset (from 0.60x to 1.50x over the grid): no "
        "reading, step size or early-stopped training length gives a ratio within a factor 1.5 of 6x. [inferred] The "
        "rebuttal's ratio depends on a protocol it does not state (step size, training length, bins)."
    )


def test_spread_sentence_counts_both_ends_of_the_near_band():
    grid = spread_grid()
    grid["ratios"]["values"]["raw"] = {"10|2.0": 8.0 * 1.5, "3|8.0": 8.0 / 1.5, "3|2.0": 8.0 * 1.5 + 1e-9}
    found = df.spread_sentence(grid, "values").split("only for: ")[1]
    assert found.startswith("raw at 10 joint epochs against a 2.0 eta* step; raw at 3 joint epochs against a 8.0")
    assert "3 joint epochs against a 2.0" not in found


def test_default_pair_is_the_longest_joint_run_against_the_preset_step():
    grid = {"one_step": {"4.0": {}, "16.0": {}}, "joint": {"2": {}, "10": {}, "9": {}}}
    assert df._default_pair(grid) == "10|4.0"  # by value, not as text ("9" > "10" as text); no 2.0: the smallest step
    grid["one_step"]["2.0"] = {}
    assert df._default_pair(grid) == "10|2.0"
    grid["one_step"]["1.0"] = {}
    assert df._default_pair(grid) == "10|2.0", "the preset's 2 eta* step, even when a smaller one was run"


def test_shape_sentence_in_full_counts_each_reading_of_its_own_kind():
    runs = [(5, 1, "p . W2 E_s", "decreasing"), (1, 0, "p . W2 E_s", "U-shaped"), (1, 0, "E_s . v", "flat"),
            (5, 1, "p . W2 E_s", "decreasing"), (5, 0, "E_s . v", "flat")]  # fmt: skip
    rows = [{"kind": "key_query", "epochs": e, "seed": s, "reading": r, "shape": sh} for e, s, r, sh in runs]
    rows.append({"kind": "mlp", "epochs": 9, "seed": 7, "reading": "x", "shape": "U-shaped"})
    assert df.shape_sentence({"rows": rows}, "key_query") == (
        "[ours] Over training lengths [1, 5] epochs (best validation epoch kept) and initial draws [0, 1] (3 trainings; "
        "2 score readings each): p . W2 E_s: 2 decreasing, 1 U-shaped; E_s . v: 2 flat. [inferred] A U-shape appears "
        "in some runs, but the runs whose shapes differ differ in both training length and initial draw: these runs "
        "cannot say which of the two changes it."
    )
    assert df.shape_sentence({"rows": rows}, "mlp") == (
        "[ours] Over training lengths [9] epochs (best validation epoch kept) and initial draws [7] (1 trainings; 1 "
        "score reading each): x: 1 U-shaped. [inferred] Each reading has one shape at every training length and draw."
    )
    budget = rows[:5] + [{"kind": "key_query", "epochs": 9, "seed": 1, "reading": "p . W2 E_s", "shape": "U-shaped"}]
    sentence = df.shape_sentence({"rows": budget}, "key_query")
    assert "the shape depends on the training length, not on the initial draw" in sentence
    assert "(4 trainings; 2 score readings each)" in sentence
    flat = [dict(r, shape="flat") for r in rows if r["kind"] == "key_query"]
    assert df.shape_sentence({"rows": flat}, "key_query").endswith(
        "[inferred] No run is U-shaped at these lengths and draws; the rebuttal's models and data differ from ours in "
        "ways its text does not fix."
    )


def test_shape_sentence_names_budgets_that_kept_one_model_and_a_model_that_does_not_select():
    rows = [
        {"kind": "mlp", "epochs": e, "seed": s, "reading": "E_s . p", "shape": "decreasing", "spearman": rho,
         "test_accuracy": acc}
        for e, s, rho, acc in ((1, 0, -0.7457535487, 0.87624), (3, 0, -0.7457535229, 0.87624), (1, 1, -0.65, 0.879),
                               (3, 1, -0.66, 0.879), (8, 1, -0.65, 0.879))
    ]  # fmt: skip
    sentence = df.shape_sentence({"rows": rows}, "mlp", [0.015, 0.1, 0.0999])
    assert "(5 trainings; 1 and 3 epochs of draw 0; 1 and 8 epochs of draw 1 kept the same model; 1 score reading" in sentence
    assert (
        "The MLP model's attention is near uniform in 2 of 3 seeds kept: the std of its scores over tokens is 0.100 at most"
        in sentence
    )
    assert "near uniform" not in df.shape_sentence({"rows": rows}, "mlp", [0.1, 0.5])
    assert df.selection_sentence([0.05, 0.5], "lstm") == (
        " [ours] The lstm model's attention is near uniform in 1 of 2 seeds kept: the std of its scores over tokens is "
        "0.050 at most, below 0.1, so two tokens one std apart get weights within a few percent of each other. It does "
        "not select, and the shape of its scores is not read as a finding."
    ), "a kind without a display name is named by its key"
    assert "kept the same model" not in df.shape_sentence({"rows": [dict(r, test_accuracy=None) for r in rows]}, "mlp")


def test_accuracy_sentence_in_full():
    baseline = {"imdb": {"test_accuracy": 0.874}, "yelp_polarity": {"test_accuracy": 0.941}}
    # closest of ours: yelp 90.3 > imdb 86.2; below 95 - 2 points: imdb (87.4), not yelp (94.1)
    assert df.accuracy_sentence(baseline, {"imdb": 0.862, "yelp_polarity": 0.903}) == (
        "[ours] A bag-of-words logistic regression on the same split and tokens reaches imdb 87.4 %, yelp_polarity "
        "94.1 %; our jointly trained one-layer models come closest to 95 % on yelp_polarity (90.3 %). [inferred] The "
        "rebuttal does not name the dataset of its ~95 %; even the linear baseline stays more than 2 points below it "
        "on imdb, so the level there is set by the data more than by the model (the review length is not varied here)."
    )
    assert df.accuracy_sentence({"imdb": {"test_accuracy": 0.95}}, {"imdb": 0.862, "yelp_polarity": 0.85}).endswith(
        "our jointly trained one-layer models come closest to 95 % on imdb (86.2 %). [inferred] The rebuttal does not "
        "name the dataset of its ~95 %; the linear baseline reaches it, so our attention models fall short of what the "
        "words allow."
    )


def test_why_differs_hands_each_claim_its_own_diagnosis(records):
    write_record("diagnosis-spread_readings", "fast", protocol="p", settings={}, metrics=spread_grid())
    missing = " No fast record diagnosis-converged_joint yet: produce it with make records."
    assert df.why_differs("std_ratio_values", "fast") == df.spread_sentence(spread_grid(), "values") + missing
    assert df.why_differs("std_ratio_scores", "fast") == df.spread_sentence(spread_grid(), "scores") + missing
    spreads, converged = converged_pair()
    write_record("diagnosis-spread_readings", "fast", protocol="p", settings={}, metrics=spreads)
    write_record("diagnosis-converged_joint", "fast", protocol="p", settings={}, metrics=converged)
    assert df.why_differs("std_ratio_scores", "fast") == (
        df.spread_sentence(spreads, "scores") + " " + df.converged_sentence(converged, spreads, "scores")
    )
    step = {"per_seed": {"values.mean_bin_std": [0.5, 0.25], "scores.mean_bin_std": [1.0, 2.0]}}
    write_record("imdb-one_layer-one_step_frozen", "fast", protocol="p", settings={}, metrics=step)
    paired = {"8": [10.0, 28.0], "16": [16.0, 40.0], "32": [22.0, 52.0]}  # each seed over its own one-step spread
    assert df.why_differs("std_ratio_values", "fast") == (
        df.spread_sentence(spreads, "values") + " " + df.converged_sentence(converged, spreads, "values", paired)
    )
    assert "reads 19.00x (the 2 seeds from 10.00x to 28.00x) after 8" in df.why_differs("std_ratio_values", "fast")
    assert "produce it with make full" in df.why_differs("std_ratio_values", "full")
    rows = [
        {"kind": k, "epochs": 1, "seed": 0, "reading": "r", "shape": s} for k, s in (("key_query", "flat"), ("mlp", "U-shaped"))
    ]
    write_record("diagnosis-shape_budget", "fast", protocol="p", settings={}, metrics={"rows": rows})
    assert df.why_differs("key_query_scores", "fast") == df.shape_sentence({"rows": rows}, "key_query")
    assert df.why_differs("mlp_scores", "fast") == df.shape_sentence({"rows": rows}, "mlp")
    assert "No run is U-shaped" in df.why_differs("key_query_scores", "fast")
    assert "one shape at every training length and draw" in df.why_differs("mlp_scores", "fast")
    # with the kind's joint record, its token-score spread says whether its attention selects at all
    spread = {"scores": {"shape": "flat"}, "per_seed": {"scores.token_std": [0.04, 0.3]}}
    write_record("imdb-mlp-joint", "fast", protocol="p", settings={}, metrics=spread)
    assert df.why_differs("mlp_scores", "fast") == df.shape_sentence({"rows": rows}, "mlp", [0.04, 0.3])
    assert "The MLP model's attention is near uniform in 1 of 2 seeds kept" in df.why_differs("mlp_scores", "fast")
    assert (
        df.why_differs("frozen_accuracy", "fast") == "No fast record diagnosis-frozen_capacity yet: produce it with make records."
    )
    assert (
        df.why_differs("trained_accuracy", "full")
        == "No full record diagnosis-accuracy_reference yet: produce it with make full."
    )


def test_why_differs_reads_our_accuracy_from_the_seed_summary_when_there_is_one(records):
    baseline = {"imdb": {"test_accuracy": 0.874}, "yelp_polarity": {"test_accuracy": 0.941}}
    write_record("diagnosis-accuracy_reference", "fast", protocol="p", settings={}, metrics=baseline)
    summary = {"seed_summary": {"test_accuracy": {"value": 0.905}}, "test_accuracy": 0.80}
    write_record("imdb-one_layer-joint", "fast", protocol="p", settings={}, metrics=summary)
    write_record("yelp_polarity-one_layer-joint", "fast", protocol="p", settings={}, metrics={"test_accuracy": 0.89})
    # imdb's mean over seeds (90.5) is the closest, not its first seed (80.0) nor yelp's one seed (89.0)
    assert "come closest to 95 % on imdb (90.5 %)" in df.why_differs("trained_accuracy", "fast")
    write_record("imdb-one_layer-joint", "fast", protocol="p", settings={}, metrics={"test_accuracy": 0.80, "seed_summary": {}})
    assert "come closest to 95 % on yelp_polarity (89.0 %)" in df.why_differs("trained_accuracy", "fast")
    write_record("yelp_polarity-one_layer-joint", "full", protocol="p", settings={}, metrics={"test_accuracy": 0.99})
    assert "(89.0 %)" in df.why_differs("trained_accuracy", "fast"), "a record of the other scale was read"


def _headline_arm(dataset, mode, accuracy, values_std, scores_std, shapes=None):
    per_seed = {"test_accuracy": accuracy, "values.mean_bin_std": values_std, "scores.mean_bin_std": scores_std}
    if shapes:
        per_seed["scores.shape"] = shapes
        per_seed["scores.verdict.spearman"] = [-0.3 if s == "decreasing" else 0.0 for s in shapes]
        per_seed["scores.verdict.left_spearman"] = [-0.6 if s == "U-shaped" else math.nan for s in shapes]
        per_seed["scores.verdict.right_spearman"] = [0.5 if s == "U-shaped" else math.nan for s in shapes]
    first = (shapes or ["flat"])[0]
    scores = _scores(first, -0.3 if first == "decreasing" else 0.0, *((-0.6, 0.5) if first == "U-shaped" else ()))
    metrics = {"per_seed": per_seed, "test_accuracy": accuracy[0], "values": {"mean_bin_std": values_std[0], "shape": "flat"},
               "scores": {**scores, "mean_bin_std": scores_std[0]}}  # fmt: skip
    write_record(f"{dataset}-one_layer-{mode}", "fast", protocol="p", settings={"d": 128, "mode": mode}, metrics=metrics)


def test_headlines_in_full_over_seeds_datasets_and_diagnoses(records):
    _headline_arm("imdb", "joint", [0.90, 0.88, 0.86], [1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    _headline_arm("imdb", "one_step_frozen", [0.8, 0.8, 0.8], [2.0, 2.5, 2.0], [1.0, 1.0, 1.0], ["flat", "decreasing", "flat"])
    _headline_arm("imdb", "frozen_random", [0.70, 0.74, 0.72], [1.0] * 3, [1.0] * 3)
    _headline_arm("yelp_polarity", "one_step_frozen", [0.8], [1.0], [1.0], ["U-shaped"])
    _headline_arm("yelp_polarity", "frozen_random", [0.7], [1.0], [1.0], ["increasing"])
    # E_s . v: 1/2, 1/2.5, 1/2 per seed (below 1 throughout); E_s . p: 1, 2, 3 (an interval across 1)
    first = (
        "- **The spread reduction reverses** for E_s . v: on IMDB at d = 128, jointly trained over one-step per-bin "
        "spread is E_s . v 0.47x [0.32, 0.61] over 3 seeds; E_s . p 2.00x [-0.48, 4.48] over 3 seeds (best validation "
        "epoch kept), against the rebuttal's ~8x and ~6x."
    )
    second = (
        "- **One step, then freezing, gives a U-shape in 1 of 4 runs**: read with the minimum effect (0.2, the weaker "
        "arm's rank correlation) and against the control with E frozen at random, E_s . p after one step reads IMDB: "
        "2 flat, 1 decreasing, against the control's 1 flat; Yelp: 1 U-shaped, against the control's 1 flat "
        "(by significance alone: 1 increasing)."
    )
    third = (
        "- **Trained against frozen embeddings**: on IMDB, trained 90.0 % (one seed) against frozen 70.0 % (one seed); "
        "the rebuttal gives ~95 % and ~72 %."
    )
    assert df.headlines("fast") == [first, second, third]
    assert df.headlines("full") == []
    write_record("diagnosis-frozen_capacity", "fast", protocol="p", settings={}, metrics={"crossing_72": 0.0123})
    sweep = {"seeds": 20, "cos": [1.0] * 20, "share_selected": 0.85}
    write_record("report-theory", "fast", protocol="p", settings={}, metrics={"seed_sweep_d512": sweep})
    assert df.headlines("fast") == [
        first,
        second,
        third + " The frozen model's d sweep brings it to about 72 % near d/V = 0.012, against the rebuttal's 0.26.",
    ], "the global claim's headline is written by hand in chapter 9: a theory record adds no line"
    write_record("diagnosis-frozen_capacity", "fast", protocol="p", settings={}, metrics={"crossing_72": None})
    lines = df.headlines("fast")
    assert lines[2].endswith("~72 %. No d of the frozen-capacity sweep brings it to the rebuttal's level.")


def test_headlines_call_a_split_verdict_mixed_and_read_a_shape_without_seeds(records):
    _headline_arm("imdb", "joint", [0.9, 0.9], [1.0, 3.0], [2.0, 2.0])
    _headline_arm("imdb", "one_step_frozen", [0.8, 0.8], [1.0, 1.0], [1.0, 1.0])
    metrics = {"test_accuracy": 0.8, "scores": _scores("decreasing", -0.2)}
    write_record("yelp_polarity-one_layer-one_step_frozen", "fast", protocol="p", settings={}, metrics=metrics)
    write_record("yelp_polarity-one_layer-frozen_random", "fast", protocol="p", settings={}, metrics=metrics)
    lines = df.headlines("fast")
    # E_s . v: 1 and 3 (across 1); E_s . p: 2 and 2 (above 1): one above, none below
    assert lines[0].startswith("- **The spread reduction is mixed**: on IMDB at d = 128")
    assert lines[1].endswith(
        "reads Yelp: 1 no stronger than the control (by significance alone: 1 decreasing), against the control's 1 decreasing."
    ), "IMDB has no control here"
    assert len(lines) == 2, "no frozen arm on IMDB: no accuracy line"


def test_boundaries_of_the_readings_sit_exactly_on_their_thresholds():
    level = df.TRAINED_ACCURACY - 0.02  # the baseline exactly 2 points below is not "more than 2 points below"
    assert "the linear baseline reaches it" in df.accuracy_sentence({"imdb": {"test_accuracy": level}}, {"imdb": 0.8})
    both = df.accuracy_sentence({"imdb": {"test_accuracy": 0.5}, "yelp": {"test_accuracy": 0.6}}, {"imdb": 0.8})
    assert "more than 2 points below it on imdb, yelp, so the level" in both
    never = df.frozen_sentence(capacity([0.6, 0.65, 0.7], None))
    assert "%; about 72 % is not reached in the sweep. Frozen training budgets" in never
    none = df.u_reading(_readings(None, None))
    assert none.startswith("No seed of 2 is U-shaped, even by the significance test alone")
    weak = df.u_reading(_readings(None, 0.19))
    assert weak.startswith("No seed of 2 is U-shaped beyond the minimum effect") and "(1 passes the significance" in weak
    for reading in (none, weak):  # the reading is bounded by the step tried and the protocol, not a causal claim
        assert "one step of this size" in reading and "needs E trained" not in reading


def test_headline_verdicts_on_a_ratio_of_exactly_one(records):
    # per seed E_s . v: 1/1 and 1/1 (exactly 1, neither above nor below); E_s . p: 0.5 and 0.5 (below)
    _headline_arm("imdb", "joint", [0.9, 0.9], [1.0, 1.0], [1.0, 1.0])
    _headline_arm("imdb", "one_step_frozen", [0.8, 0.8], [1.0, 1.0], [2.0, 2.0])
    assert df.headlines("fast")[0].startswith("- **The spread reduction reverses** for E_s . p: on IMDB")
    _headline_arm("imdb", "one_step_frozen", [0.8, 0.8], [2.0, 2.0], [2.0, 2.0])
    assert df.headlines("fast")[0].startswith("- **The spread reduction reverses** for E_s . v and E_s . p: on IMDB")
    _headline_arm("imdb", "one_step_frozen", [0.8, 0.8], [1.0, 1.0], [0.5, 0.5])
    assert df.headlines("fast")[0].startswith("- **The spread reduction is mixed**: "), "a ratio of exactly 1 is not above 1"
    _headline_arm("imdb", "one_step_frozen", [0.8, 0.8], [0.5, 0.5], [0.5, 0.5])
    assert df.headlines("fast")[0].startswith("- **The spread is reduced, as the rebuttal says,**: on IMDB")


def test_headlines_need_both_spread_arms_and_default_to_the_full_scale(records):
    _headline_arm("imdb", "joint", [0.9, 0.9], [1.0, 1.0], [1.0, 1.0])
    assert not any("spread" in line for line in df.headlines("fast")), "one arm alone gives no spread line"
    metrics = {"test_accuracy": 0.9, "scores": _scores()}
    write_record("imdb-one_layer-one_step_frozen", "full", protocol="p", settings={}, metrics=metrics)
    write_record("imdb-one_layer-frozen_random", "full", protocol="p", settings={}, metrics=metrics)
    assert df.headlines() == df.headlines("full") and df.headlines()[0].endswith("IMDB: 1 flat, against the control's 1 flat.")


def converged_pair():
    """A spread record (one-step spreads at three sizes, one of them 0; early-stopped budgets 3 and 8 keeping epoch 2)
    and a converged-joint record (budgets 8, 16, 32, two seeds on either side of a round mean; the plateau reached
    at 16 and 32 in both seeds)."""

    def one(values, scores):
        return {"values": {"raw": values}, "scores": {"raw": scores}}

    spreads = {
        "one_step": {"2.0": one(0.5, 1.0), "8.0": one(1.0, 0.0), "0.5": one(4.0, 1.5)},
        "joint": {"1": {"best_epoch": 1}, "3": {"best_epoch": 2}, "8": {"best_epoch": 2}},
        "ratios": {q: {r: {} for r in ("raw", "equal_bins", "scale_free")} for q in ("values", "scores")},
    }
    converged = {"seeds": [0, 1], "joint": {
        "8": [{**one(5.0, 1.1), "plateau": False}, {**one(7.0, 1.3), "plateau": False}],
        "16": [{**one(8.0, 1.4), "plateau": True}, {**one(10.0, 1.6), "plateau": True}],
        "32": [{**one(11.0, 1.5), "plateau": True}, {**one(13.0, 1.7), "plateau": True}],
    }}  # fmt: skip
    return spreads, converged


def test_the_early_stopped_budgets_that_kept_one_epoch_are_named_as_one_model():
    spreads, _ = converged_pair()
    assert df._same_models(spreads) == " (the early-stopped budgets of 3 and 8 epochs all kept epoch 2: one model)"
    spreads["joint"]["8"]["best_epoch"] = 3
    assert df._same_models(spreads) == ""
    assert df._same_models({"joint": {"3": {}, "8": {}}}) == ""  # an older record without best epochs names nothing
    # budgets in numeric order (8 before 16, which text order would swap), and two groups side by side
    groups = {"joint": {"16": {"best_epoch": 2}, "8": {"best_epoch": 2}, "3": {"best_epoch": 1}, "4": {"best_epoch": 1}}}
    assert df._same_models(groups) == (
        " (the early-stopped budgets of 3 and 4 epochs all kept epoch 1: one model)"
        " (the early-stopped budgets of 8 and 16 epochs all kept epoch 2: one model)"
    )


def test_the_converged_sentence_in_full_on_the_band_edges():
    spreads, converged = converged_pair()
    # values, rebuttal 8x, near = [5.33, 12], on the seed means: 8 | 0.5 is 1.5x, 8 | 2.0 12x (the upper edge),
    # 16 | 8.0 9x, 32 | 8.0 12x
    assert df.converged_sentence(converged, spreads, "values") == (
        "[ours] Trained jointly to the end of budgets of 8, 16, 32 epochs (the last epoch kept; the training loss "
        "reached its plateau after 16 and 32 epochs in every seed; each of 2 seeds against the one-step model of seed "
        "0), the raw ratio against the 2.0 eta* step reads 12.00x (the 2 seeds from 10.00x to 14.00x) after 8, 18.00x "
        "(the 2 seeds from 16.00x to 20.00x) after 16, 24.00x (the 2 seeds from 22.00x to 26.00x) after 32 epochs, and its "
        "seed mean goes from 1.50x to 24.00x over the step sizes: within a factor 1.5 of 8x for: 8 epochs against a "
        "2.0 eta* step; 8 epochs against a 8.0 eta* step; 16 epochs against a 8.0 eta* step; 32 epochs against a 8.0 "
        "eta* step. [inferred] Trained to the end of its budget (the closest these runs come to the rebuttal's "
        "convergence), the joint model can give a ratio of the rebuttal's size: early stopping understated it."
    )
    # scores, rebuttal 6x, near = [4, 9]: the 8.0 step's one-step spread is 0 (left out); 1.6 / 1.0 is far below
    scores = df.converged_sentence(converged, spreads, "scores")
    assert "goes from 0.80x to 1.60x over the step sizes: no budget and step size gives a ratio within a factor 1.5 of 6x" in (
        scores
    )
    assert scores.endswith("does not bring the ratio to the rebuttal's size either.")
    converged["joint"]["32"][1]["plateau"] = False
    assert (
        "the training loss reached its plateau after 16 epochs in every seed, and after 32 epochs in 1 of 2 seeds; "
        in df.converged_sentence(converged, spreads, "values")
    )
    for budget in converged["joint"].values():
        for run in budget:
            run["plateau"] = False
    assert "no budget reached the training-loss plateau" in df.converged_sentence(converged, spreads, "values")
    # paired by seed at the preset step: those ratios replace the seed-0 ones there, and only there
    paired = {"8": [20.0, 22.0], "16": [18.0, 18.0], "32": [1.0, 3.0]}
    with_pairs = df.converged_sentence(converged, spreads, "values", paired)
    assert (
        "each of 2 seeds against the one-step model of the same seed at the 2.0 eta* step, of seed 0 at the other sizes), "
        "the raw ratio against the 2.0 eta* step reads 21.00x (the 2 seeds from 20.00x to 22.00x) after 8, 18.00x (the 2 "
        "seeds from 18.00x to 18.00x) after 16, 2.00x (the 2 seeds from 1.00x to 3.00x) after 32 epochs, and its seed "
        "mean goes from 1.50x to 21.00x" in with_pairs
    )
    assert "8 epochs against a 2.0" not in with_pairs and "32 epochs against a 8.0 eta* step" in with_pairs
    one = {"seeds": [0], "joint": {b: runs[:1] for b, runs in converged["joint"].items()}}
    alone = df.converged_sentence(one, spreads, "values")
    assert "; one seed), the raw ratio against the 2.0 eta* step reads 10.00x after 8, 16.00x after 16," in alone
    spreads["one_step"]["2.0"]["values"]["raw"] = 0.5 - 1e-9  # 8 | 2.0 just above the upper edge, 12x
    assert "8 epochs against a 2.0" not in df.converged_sentence(converged, spreads, "values")


def test_the_vocabulary_sentence_names_both_readings_and_the_accuracies():
    match = {"all_reviews": 25_000}
    m = {
        "matches": {
            "10": {**match, "limit": 6_150, "vocabulary": 7_770, "all_vocabulary": 19_298},
            "1": {**match, "limit": 440, "vocabulary": 7_760, "all_vocabulary": 73_004},
        },
        "vocab_size": 7_770, "n_train": 5_535, "n_test": 6_150,
        "arms": {"joint": {"test_accuracy": 0.8312}, "frozen_random": {"test_accuracy": 0.7049}},
    }  # fmt: skip
    assert df.vocabulary_sentence(m) == (
        "[ours] Words seen at least 1 time: 73,004 in all 25,000 training reviews; a draw of 440 of them comes closest "
        "to 7,766 (7,760 words); words seen at least 10 times: 19,298 in all 25,000 training reviews; a draw of 6,150 "
        "of them comes closest to 7,766 (7,770 words). "
        "Trained on the 5,535 training reviews of the matched subset (its whole vocabulary of 7,770 words kept), the "
        "one-layer model reaches 83.1 % jointly and 70.5 % with E frozen at random. [inferred] With our tokeniser the "
        "rebuttal's 7,766 tokens seen in training imply at most 6,150 of the 25,000 reviews, or another tokeniser; the "
        "sources state neither, and the full preset matches the size by keeping the most frequent words instead."
    )
    assert "5,424 tokens seen" in df.vocabulary_sentence(m, target=5424)
    # counts in numeric order (2 before 10, which text order would swap), and "times" from 2 on
    m["matches"]["2"] = {**match, "limit": 900, "vocabulary": 7_765, "all_vocabulary": 41_000}
    assert df.vocabulary_sentence(m).startswith(
        "[ours] Words seen at least 1 time: 73,004 in all 25,000 training reviews; a draw of 440 of them comes closest "
        "to 7,766 (7,760 words); words seen at least 2 times: 41,000 in all 25,000 training reviews; a draw of 900 of "
        "them comes closest to 7,766 (7,765 words); words seen at least 10 times:"
    )


def test_the_converged_shape_sentence_gives_each_budget_its_verdict_and_a_us_arms(records):
    def shape(name, rho, left=float("nan"), right=float("nan")):
        return {"shape": name, "spearman": rho, "left_spearman": left, "right_spearman": right}

    converged = {"seeds": [0, 1], "joint": {
        "40": [
            {"shapes": {"values": shape("increasing", 0.78), "scores": shape("U-shaped", -0.04, -0.55, 0.49)}},
            {"shapes": {"values": shape("increasing", 0.81), "scores": shape("U-shaped", -0.02, -0.50, 0.45)}},
        ],
        "8": [
            {"shapes": {"values": shape("increasing", 0.82), "scores": shape("flat", 0.01)}},
            # significant, but below the minimum effect: read as flat
            {"shapes": {"values": shape("increasing", 0.82), "scores": shape("increasing", 0.15)}},
        ],
    }}  # fmt: skip
    assert df.converged_shape_sentence(converged, "scores") == (
        "[ours] Trained jointly to the end of each budget (the last epoch kept, no early stopping), E_s . p reads, "
        "each seed by the shape rule with its effect size: 8 epochs 2 flat of 2 (Spearman +0.01 to +0.15); 40 epochs "
        "2 U-shaped of 2 (arms -0.55 to -0.50 and +0.45 to +0.49)."
    )
    assert "8 epochs 2 increasing of 2 (Spearman +0.82); 40 epochs 2 increasing of 2 (Spearman +0.78 to +0.81)" in (
        df.converged_shape_sentence(converged, "values")
    )
    converged["joint"]["40"][1]["shapes"]["scores"] = shape("flat", 0.02)  # a U beside a flat curve: the Spearmans
    assert "40 epochs 1 U-shaped, 1 flat of 2 (Spearman -0.04 to +0.02)" in df.converged_shape_sentence(converged, "scores")
    assert df.why_differs("joint_values", "fast") == "No fast record diagnosis-converged_joint yet: produce it with make records."
    write_record("diagnosis-converged_joint", "full", protocol="p", settings={}, metrics=converged)
    assert df.why_differs("joint_scores", "full") == df.converged_shape_sentence(converged, "scores")


@pytest.mark.parametrize(
    ("shapes", "cause"),
    [
        # (epochs, seed) -> shape of one reading
        (
            {(1, 0): "U-shaped", (3, 0): "U-shaped", (1, 1): "flat", (3, 1): "flat"},
            "on the initial draw, not on the training length",
        ),
        (
            {(1, 0): "U-shaped", (3, 0): "flat", (1, 1): "U-shaped", (3, 1): "flat"},
            "on the training length, not on the initial draw",
        ),
        (
            {(1, 0): "U-shaped", (3, 0): "flat", (1, 1): "flat", (3, 1): "flat"},
            "on both the training length and the initial draw",
        ),
    ],
)
def test_the_shape_sentence_says_which_axis_changes_the_shape(shapes, cause):
    rows = [{"kind": "mlp", "epochs": e, "seed": s, "reading": "E_s . p", "shape": sh} for (e, s), sh in shapes.items()]
    sentence = df.shape_sentence({"rows": rows}, "mlp")
    assert f"the shape depends {cause}" in sentence and "(2 trainings" not in sentence and "(4 trainings" in sentence


def test_the_theory_rows_have_no_generated_reason(records):
    """Their reading is written by hand in chapter 9 beside its numbers; a record of any content changes nothing."""
    sweep = {"seeds": 3, "cos": [0.99, 0.5, 0.97], "min_attention": [1.0, 0.0, 1.0]}
    write_record("report-theory", "fast", protocol="p", settings={}, metrics={"seed_sweep_d512": sweep})
    assert [df.why_differs(key, "fast") for key in ("selection", "max_margin", "global")] == ["", "", ""]


def _spread_arms(joint_values, joint_scores, step_values, step_scores):
    """The joint and one-step-frozen IMDB records' metrics, one seed each, with the given per-bin spreads."""
    joint = {
        "settings": {"d": 64},
        "metrics": {"per_seed": {"values.mean_bin_std": joint_values, "scores.mean_bin_std": joint_scores}},
    }
    step = {
        "settings": {"d": 64},
        "metrics": {"per_seed": {"values.mean_bin_std": step_values, "scores.mean_bin_std": step_scores}},
    }
    return joint, step


def test_the_spread_headline_leads_with_the_converged_arm_and_keeps_the_early_stopped_one():
    _, converged = converged_pair()
    for run, values, scores in zip(converged["joint"]["32"], (11.9, 12.1), (1.59, 1.61), strict=True):
        run["values"]["raw"], run["scores"]["raw"] = values, scores
    joint, step = _spread_arms([0.2, 0.21], [0.9, 1.1], [0.5, 0.5], [1.0, 1.0])
    line = df.spread_headline(joint, step, converged, "fast")
    # the longest budget at the plateau is 32 (not "8", the last in string order), paired by seed:
    # 11.9 / 0.5 and 12.1 / 0.5; 1.59 / 1.0 and 1.61 / 1.0; Student-t with 1 degree of freedom
    assert line.startswith(
        "- **Trained to convergence, one step leaves the smaller spread, as the rebuttal says**; with early stopping it "
        "reverses for E_s . v: on IMDB at d = 64, the per-bin spread of the jointly trained model over the one-step "
        "model's is 24.00x [21.46, 26.54] over 2 seeds for E_s . v and 1.60x [1.47, 1.73] over 2 seeds for E_s . p "
        "with joint training to the end of 32 epochs (at the training-loss plateau in all 2 seeds), against the "
        "rebuttal's ~8x and ~6x; with the best validation epoch kept instead, E_s . v 0.41x [0.28, 0.54] over 2 seeds"
    )
    for run in converged["joint"]["32"]:
        run["values"]["raw"] = 20.0
        run["scores"]["raw"] = 1.0  # a ratio of exactly 1 is not a smaller spread
    line = df.spread_headline(joint, step, converged, "fast")
    assert "**Trained to convergence, one step leaves the smaller spread for E_s . v only**" in line
    for budget in converged["joint"].values():
        for run in budget:
            run["plateau"] = False
            run["values"]["raw"] = 0.5
    line = df.spread_headline(joint, step, converged, "fast")
    assert line.startswith(  # no plateau: no "convergence", and the ratio at every budget
        "- **No training budget reached a loss plateau, and the raw spread ratio grows with the training length**; "
        "with early stopping it reverses for E_s . v: on IMDB at d = 64, the per-bin spread of the jointly trained "
        "model over the one-step model's reads E_s . v 1.00x after 8, 1.00x after 16, 1.00x after 32 epochs; E_s . p "
        "1.20x after 8, 1.50x after 16, 1.00x after 32 epochs (seed means), 1.00x [1.00, 1.00] over 2 seeds for E_s . v "
        "and 1.00x [1.00, 1.00] over 2 seeds for E_s . p at the longest budget, against the rebuttal's ~8x and ~6x; "
        "with the best validation epoch kept instead, E_s . v 0.41x [0.28, 0.54] over 2 seeds"
    )
    assert "Trained to convergence" not in line and "convergence" not in line
    joint, step = _spread_arms([2.0], [2.0], [0.5], [1.0])
    assert "; with early stopping" not in df.spread_headline(joint, step, converged, "fast"), "nothing reverses"


def test_without_the_converged_record_the_spread_headline_reads_the_early_stopped_arm():
    joint, step = _spread_arms([0.2], [2.0], [0.5], [1.0])
    assert df.spread_headline(joint, step, None, "fast") == (
        "- **The spread reduction reverses** for E_s . v: on IMDB at d = 64, jointly trained over one-step per-bin "
        "spread is E_s . v 0.40x (one seed); E_s . p 2.00x (one seed) (best validation epoch kept), against the "
        "rebuttal's ~8x and ~6x."
    )


def test_ratio_reading_names_the_early_stopped_arm_and_adds_the_converged_one():
    below = {"value": 0.5, "low": 0.4, "high": 0.6, "n": 5}
    assert df.ratio_reading(below) == (
        "below 1 (one step leaves the larger spread: the reverse of the rebuttal) with the best validation epoch kept "
        "(joint training to convergence was run on IMDB only)"
    )
    converged = {"value": 10.0, "low": 9.0, "high": 11.0, "n": 5, "budget": "80", "plateau": True, "plateau_seeds": 5}
    assert df.ratio_reading(below, converged) == (
        "below 1 (one step leaves the larger spread: the reverse of the rebuttal) with the best validation epoch kept; "
        "trained to the end of 80 epochs instead (at the training-loss plateau in all 5 seeds), the closest these runs "
        "come to the rebuttal's convergence, it is 10.00 [9.00, 11.00] (5 seeds), above 1 (one step leaves the smaller "
        "spread, as the rebuttal reports)"
    )
    short = converged | {"plateau": False, "plateau_seeds": 0, "value": 1.0, "low": 0.5, "high": 1.5}
    assert "(none of the budgets tried reached a loss plateau)" in df.ratio_reading(below, short)
    assert df.ratio_reading(below, short).endswith("1.00 [0.50, 1.50] (5 seeds), not distinguishable from 1 over the seeds")


def test_the_converged_cell_says_its_budget_and_how_many_seeds_reached_the_plateau():
    converged = {"value": 10.4, "low": 10.4, "high": 10.4, "n": 1, "budget": "80", "plateau": True, "plateau_seeds": 1}
    assert df._converged_words(converged) == "10.40 (one seed), 80 epochs, at the training-loss plateau"
    some = converged | {"n": 3, "low": 9.0, "high": 11.8, "plateau": False, "plateau_seeds": 2}
    assert df._converged_words(some) == "10.40 [9.00, 11.80] (3 seeds), 80 epochs, at the training-loss plateau in 2 of 3 seeds"
    assert df._converged_words(None) == "not run (IMDB only)"


def test_the_converged_sentence_adds_the_scale_free_reading_where_both_records_keep_it():
    spreads, converged = converged_pair()
    spreads["one_step"]["2.0"]["values"]["scale_free"] = 0.5
    for budget, (low, high) in {"8": (0.2, 0.4), "16": (0.3, 0.5), "32": (0.4, 0.6)}.items():
        for run, value in zip(converged["joint"][budget], (low, high), strict=True):
            run["values"]["scale_free"] = value
    sentence = df.converged_sentence(converged, spreads, "values")
    assert (
        "Scale-free (each spread over its curve's overall std), the seed mean reads 0.60x after 8, 0.80x after 16, "
        "1.00x after 32 epochs. [inferred]" in sentence
    )  # 1.00 is not below 1: no reading of a noisier curve
    converged["joint"]["32"][1]["values"]["scale_free"] = 0.5
    noisier = df.converged_sentence(converged, spreads, "values")
    assert (
        "0.90x after 32 epochs: below 1 at every budget, so against its overall spread the one-step model is the "
        "noisier one. [inferred] On the raw reading, trained to the end of its budget (the closest these runs come to "
        "the rebuttal's convergence), the joint model can give a ratio of the rebuttal's size, which early stopping "
        "understated; but the ratio grows with the budget, and scale-free it stays below 1: the raw ratio follows the "
        "scale of the values, not a cleaner curve after one step."
    ) in noisier and noisier.endswith("not a cleaner curve after one step.")
    spreads["one_step"]["2.0"]["scores"]["scale_free"] = 2.0  # far from the rebuttal's 6x: the plain reading
    for budget in converged["joint"].values():
        for run in budget:
            run["scores"]["scale_free"] = 0.5
    far = df.converged_sentence(converged, spreads, "scores")
    assert "0.25x after 32 epochs: below 1 at every budget" in far and far.endswith("to the rebuttal's size either.")
    del spreads["one_step"]["2.0"]["scores"]["scale_free"]
    del converged["joint"]["16"][0]["values"]["scale_free"]  # a run without the reading: none is shown
    assert "Scale-free" not in df.converged_sentence(converged, spreads, "values")
    assert "Scale-free" not in df.converged_sentence(converged, spreads, "scores")  # the one step has no reading


def test_a_converged_record_of_one_seed_says_one_seed_even_when_paired():
    spreads, converged = converged_pair()
    one = {"seeds": [0], "joint": {b: runs[:1] for b, runs in converged["joint"].items()}}
    sentence = df.converged_sentence(one, spreads, "values", {"8": [10.0], "16": [16.0], "32": [22.0]})
    assert "; one seed), the raw ratio against the 2.0 eta* step reads 10.00x after 8, 16.00x after 16, 22.00x after 32" in (
        sentence
    )


def test_the_converged_words_name_the_quantity_and_the_plateau_seed_by_seed():
    spreads, converged = converged_pair()
    one = {"seeds": [0], "joint": {b: runs[:1] for b, runs in converged["joint"].items()}}
    assert "(the last epoch kept; the training loss reached its plateau after 16 and 32 epochs; one seed)" in (
        df.converged_sentence(one, spreads, "values")
    )  # one seed: no "in every seed"
    converged["joint"]["16"][0]["plateau"] = False
    converged["joint"]["32"][1]["plateau"] = False
    assert (
        "(the last epoch kept; the training loss reached its plateau after 16 epochs in 1 of 2 seeds; 32 epochs in 1 of 2 "
        "seeds; each of 2 seeds"
    ) in df.converged_sentence(converged, spreads, "values")
    for runs in converged["joint"].values():
        for run in runs:
            run["plateau"] = False
    assert "(the last epoch kept; no budget reached the training-loss plateau; each of 2 seeds" in (
        df.converged_sentence(converged, spreads, "values")
    )
    shapes = {"seeds": [0], "joint": {"8": [{"shapes": {"values": {"shape": "increasing", "spearman": 0.5}}}]}}
    assert df.converged_shape_sentence(shapes, "values") == (
        "[ours] Trained jointly to the end of each budget (the last epoch kept, no early stopping), E_s . v reads, each "
        "seed by the shape rule with its effect size: 8 epochs 1 increasing of 1 (Spearman +0.50)."
    )


def test_the_spread_headline_at_the_plateau_says_which_quantity_keeps_the_smaller_spread():
    _, converged = converged_pair()  # the plateau at 16 and 32 in both seeds: 32 is read
    joint, step = _spread_arms([2.0, 2.0], [2.0, 2.0], [0.5, 0.5], [1.0, 1.0])  # nothing reverses early
    for run in converged["joint"]["32"]:
        run["values"]["raw"], run["scores"]["raw"] = 12.0, 1.0  # 24x for the values, exactly 1 for the scores
    line = df.spread_headline(joint, step, converged, "fast")
    assert line.startswith("- **Trained to convergence, one step leaves the smaller spread for E_s . v only**: on IMDB")
    for run in converged["joint"]["32"]:
        run["values"]["raw"] = 0.5
    line = df.spread_headline(joint, step, converged, "fast")
    assert line.startswith("- **Trained to convergence, one step does not leave the smaller spread**: on IMDB")
    joint, step = _spread_arms([0.2, 0.2], [0.5, 0.5], [0.5, 0.5], [1.0, 1.0])  # both reverse with early stopping
    assert "; with early stopping it reverses for E_s . v and E_s . p: on IMDB" in df.spread_headline(
        joint, step, converged, "fast"
    )


def test_frozen_reading_names_the_budget_closest_to_72_percent_and_a_sweep_that_stops_short():
    m = capacity([0.6, 0.75, 0.85], 0.005)
    for row in m["rows"]:
        row["d_over_V"] /= 100  # the sweep now stops at d/V = 0.02, below the rebuttal's 0.26
    m["budgets"] = [{"epochs": e, "frozen": f, "best_epoch": e} for e, f in ((5, 0.703), (20, 0.71), (60, 0.715))]
    reading = df._frozen_reading(0.005, m)
    assert reading.startswith(
        "[inferred] Our sweep stops at d/V = 0.02, below the rebuttal's own d/V (2048 / 7,766 = 0.26), but reaches 72 % "
        "far earlier; a random E of rank d limits"
    )
    assert "Of the frozen training budgets, 60 epochs comes closest to it (71.5 %)." in reading  # not the shortest
    m["budgets"].append({"epochs": 80, "frozen": 0.725, "best_epoch": 80})  # 0.5 above 72 %, as far as 60 epochs below
    assert "60 epochs comes closest" in df._frozen_reading(0.005, m)  # a tie goes to the shorter budget
    m["rows"][-1]["d_over_V"] = df.REBUTTAL_D_OVER_V  # a sweep that reaches the rebuttal's d/V exactly
    assert df._frozen_reading(0.005, m).startswith("[inferred] At the rebuttal's own d/V")


def test_the_converged_sentence_of_one_seed_speaks_of_its_ratio_not_of_a_seed_mean():
    spreads, converged = converged_pair()
    converged["seeds"] = [0]
    for budget in converged["joint"].values():
        del budget[1]
        budget[0]["values"]["scale_free"] = 0.3
    spreads["one_step"]["2.0"]["values"]["scale_free"] = 0.5
    sentence = df.converged_sentence(converged, spreads, "values")
    assert "one seed), the raw ratio against the 2.0 eta* step reads 10.00x after 8," in sentence
    assert "epochs, and it goes from 1.25x to 22.00x over the step sizes" in sentence
    assert "Scale-free (each spread over its curve's overall std), the ratio reads 0.60x after 8, 0.60x after 16, " in (sentence)
    assert "seed mean" not in sentence


def _seeded_records(scale, joint_values, step_values, seeds):
    from token_selection.report.measures import real_record

    for mode, values in (("joint", joint_values), ("one_step_frozen", step_values)):
        per = {"values.mean_bin_std": values}
        write_record(real_record("one_layer", mode), scale, protocol="p", settings={}, seeds=seeds,
                     metrics={"per_seed": per, "seed_summary": {}})  # fmt: skip


def test_the_early_stopped_ratio_over_seeds_is_read_beside_the_grids_one_seed(records):
    spreads, converged = converged_pair()
    write_record("diagnosis-spread_readings", "full", protocol="p", settings={}, metrics=spreads)
    write_record("diagnosis-converged_joint", "full", protocol="p", settings={}, metrics=converged)
    # seed 0: 0.3 / 1.0; seed 1: 0.5 / 1.0; seed 2: 0.7 / 1.0: mean 0.5
    _seeded_records("full", [0.3, 0.5, 0.7], [1.0, 1.0, 1.0], [0, 1, 2])
    assert df._early_seeds_sentence("values", "full") == (
        " [ours] Over the 3 seeds of the one-layer records, the early-stopped ratio at the preset is 0.50 [0.00, 1.00] "
        "(3 seeds); seed 0's is 0.30x: an interval for the mean, which one seed can fall outside."
    )
    text = df.why_differs("std_ratio_values", "full")
    assert "one seed can fall outside. [ours] Trained jointly to the end of budgets" in text
    _seeded_records("full", [0.3, 0.5], [1.0, 1.0], [0, 1])  # two seeds: the fewest an interval needs
    assert df._early_seeds_sentence("values", "full").startswith(" [ours] Over the 2 seeds of the one-layer records")
    _seeded_records("full", [0.3], [1.0], [0])  # one seed: nothing to set beside the grid's
    assert df._early_seeds_sentence("values", "full") == ""
    _seeded_records("full", [0.3, 0.5], [1.0, 1.0], [1, 2])  # the grid's seed is not among the records'
    assert df._early_seeds_sentence("values", "full") == ""
    assert df._early_seeds_sentence("scores", "full") == ""  # no per-seed spreads of the scores: said nothing
    assert df._early_seeds_sentence("values", "fast") == ""  # no fast records


def test_scale_free_ratios_read_both_records_at_the_reference_step(records):
    spreads, converged = converged_pair()
    assert df.scale_free_ratios("values", "full") == {}
    spreads["one_step"]["2.0"]["values"]["scale_free"] = 0.5
    spreads["one_step"]["0.5"]["values"]["scale_free"] = 0.25  # not the reference step: not read
    for budget in converged["joint"].values():
        for run, value in zip(budget, (0.2, 0.4), strict=True):
            run["values"]["scale_free"] = value
    write_record("diagnosis-converged_joint", "full", protocol="p", settings={}, metrics=converged)
    assert df.scale_free_ratios("values", "full") == {}  # the spread record is missing
    write_record("diagnosis-spread_readings", "full", protocol="p", settings={}, metrics=spreads)
    assert df.scale_free_ratios("values", "full") == pytest.approx({"8": 0.6, "16": 0.6, "32": 0.6})


def test_scale_agreement_reads_each_quantity_against_the_paper_sized_interval():
    full = {
        "values": {"value": 0.47, "low": 0.44, "high": 0.50, "n": 5},
        "scores": {"value": 0.9, "low": 0.75, "high": 1.05, "n": 5},
    }
    assert df.scale_agreement({"values": 4.34, "scores": 0.48}, full) == (
        "for Eₛ·v the ratio is above 1 here and below 1 at the paper's size: the two sizes disagree on the direction; "
        "for Eₛ·p the ratio is below 1 here, and the paper-sized interval holds 1"
    )
    full["values"] = {"value": 1.6, "low": 1.2, "high": 2.0, "n": 5}
    assert df.scale_agreement({"values": 1.01, "scores": 1.0}, full).startswith("for Eₛ·v both sizes put the ratio above 1;")
    assert df.scale_agreement({"values": 1.01, "scores": 1.0}, full).endswith(
        "for Eₛ·p the ratio is below 1 here, and the paper-sized interval holds 1"
    )
    full["values"] = {"value": 0.6, "low": 0.5, "high": 0.99, "n": 5}
    assert df.scale_agreement({"values": 1.0, "scores": 1.0}, full).startswith("for Eₛ·v both sizes put the ratio below 1;")


def test_a_converged_ratio_carries_its_scale_free_reading_beside_it(monkeypatch):
    monkeypatch.setattr(df, "scale_free_ratios", lambda quantity, scale: {"10": 0.6, "80": 0.8 if quantity == "values" else 1.2})
    below = df._scale_free_words({"scale_free": 0.8})
    assert "0.80x" in below and "one-step model's curve is the noisier" in below
    assert "joint model's curve is the noisier" in df._scale_free_words({"scale_free": 1.2})
    assert df._scale_free_words({}) == "", "no scale-free reading recorded: nothing is claimed"
    line = df._scale_free_headline("full")
    assert "0.60x after 10, 0.80x after 80" in line and "1.20x after 80" in line
    assert "below 1 at every budget" not in line, "one budget reads above 1: no such reading is stated"
    monkeypatch.setattr(df, "scale_free_ratios", lambda quantity, scale: {"10": 0.6, "80": 0.9})
    assert "below 1 at every budget" in df._scale_free_headline("full")
    monkeypatch.setattr(df, "scale_free_ratios", lambda quantity, scale: {})
    assert df._scale_free_headline("full") == ""
