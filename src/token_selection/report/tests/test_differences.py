"""The diagnosis sentences choose their words from the numbers, and say so when a record is missing."""

from __future__ import annotations

import pytest

from token_selection.report import differences as df
from token_selection.results import write_record


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
    assert "does not explain" in small and "5 epochs: 75.0 %" in small and "unknown" in small
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
    assert "no reading, step size or training length" in far


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


def test_headlines_choose_their_words(records):
    def one_layer(mode, values_std, scores_std, shape="flat", accuracy=0.85):
        metrics = {"test_accuracy": accuracy, "n_test": 1000, "values": {"mean_bin_std": values_std, "shape": "increasing"},
                   "scores": {"mean_bin_std": scores_std, "shape": shape}}  # fmt: skip
        write_record(f"imdb-one_layer-{mode}", "fast", protocol="p", settings={"d": 64}, metrics=metrics)

    one_layer("joint", 1.0, 1.0)
    one_layer("one_step_frozen", 2.0, 0.5)
    one_layer("frozen_random", 1.0, 1.0, accuracy=0.7)
    lines = df.headlines("fast")
    assert lines[0].startswith("- **The spread reduction reverses** for E_s . v:")
    assert "no U-shape" in lines[1] and "1 flat" in lines[1]
    assert "trained 85.0 % (one seed) against frozen 70.0 % (one seed)" in lines[2]
    one_layer("one_step_frozen", 0.5, 0.5, shape="U-shaped")
    lines = df.headlines("fast")
    assert "**The spread is reduced, as the rebuttal says,**" in lines[0] and "gives a U-shape in some runs" in lines[1]


def _arm(records_dir, mode, seeds, **per_seed):
    write_record(f"toy-one_layer-{mode}", "full", protocol="toy", settings={"mode": mode},
                 metrics={"per_seed": per_seed, "test_accuracy": per_seed["test_accuracy"][0]})  # fmt: skip


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
    assert list(found["step_shapes"].items()) == [("flat", 2), ("U-shaped", 1)]
    assert found["accuracy"]["joint"]["value"] == pytest.approx(0.88)
    assert found["gaps"]["joint"] == pytest.approx(100 * (0.88 - 0.95))
    assert found["gaps"]["frozen_random"] == pytest.approx(0.0, abs=1e-9)


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


def test_u_reading_counts_the_u_shaped_seeds():
    assert df.u_reading({"decreasing": 3, "flat": 2}).startswith("No seed of 5 is U-shaped")
    assert df.u_reading({"U-shaped": 3}) == "All 3 seeds are U-shaped, as the theory predicts for its own regime."
    assert df.u_reading({"U-shaped": 4, "flat": 1}).startswith("4 of 5 seeds are U-shaped")


def test_arm_difference_texts_show_intervals_counts_and_readings():
    interval = {"value": 0.5, "low": 0.4, "high": 0.6, "n": 3}
    accuracy = {"value": 0.885, "low": 0.883, "high": 0.886, "n": 3}
    found = {"ratios": {"values": interval, "scores": dict(interval, low=1.1, high=1.3, value=1.2)},
             "step_shapes": {"flat": 2, "U-shaped": 1}, "accuracy": {"joint": accuracy, "frozen_random": accuracy}}  # fmt: skip
    texts = df.arm_difference_texts(found)
    assert texts["ratio_values"] == "0.50 [0.40, 0.60] (3 seeds)" and texts["ratio_scores"] == "1.20 [1.10, 1.30] (3 seeds)"
    assert texts["step_shapes"] == "2 flat, 1 U-shaped"
    assert texts["reading_values"].startswith("below 1") and texts["reading_scores"].startswith("above 1")
    assert texts["u_reading"].startswith("1 of 3 seeds are U-shaped")
    assert texts["trained"] == texts["frozen"] == "88.5 % [88.3, 88.6] % (3 seeds)"
