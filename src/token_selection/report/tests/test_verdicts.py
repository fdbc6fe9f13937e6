import pytest

from token_selection.report.verdicts import AtLeast, PositiveInterval, ShapeIs, WeakerTrend, Within, WithinFactor, judge


def test_at_least_on_each_side_of_its_threshold():
    rule = AtLeast(0.99)
    assert rule.judge(0.99)[0] == "reproduced" and rule.judge(0.9899)[0] == "not reproduced"
    assert "0.99" in rule.describe()


def test_within_on_each_side_of_both_tolerances():
    rule = Within(0.95, 0.05)
    assert rule.judge(0.9001)[0] == "reproduced" and rule.judge(0.9999)[0] == "reproduced"
    assert rule.judge(0.8999)[0] == "partly" and rule.judge(0.8501)[0] == "partly"
    assert rule.judge(0.8499)[0] == "not reproduced"


def test_within_factor_on_each_side_of_its_bounds():
    rule = WithinFactor(8.0, 1.5)
    assert rule.judge(8 / 1.5)[0] == "reproduced" and rule.judge(12.0)[0] == "reproduced"
    assert rule.judge(12.01)[0] == "partly" and rule.judge(5.3)[0] == "partly" and rule.judge(1.01)[0] == "partly"
    assert rule.judge(1.0)[0] == "not reproduced" and rule.judge(0.5)[0] == "not reproduced"


def test_positive_interval():
    assert PositiveInterval().judge({"value": 3.0, "low": 0.01, "high": 6.0})[0] == "reproduced"
    assert PositiveInterval().judge({"value": 3.0, "low": 0.0, "high": 6.0})[0] == "not reproduced"


def test_shape_is():
    assert ShapeIs("U-shaped").judge({"shape": "U-shaped"})[0] == "reproduced"
    verdict, why = ShapeIs("U-shaped").judge({"shape": "increasing"})
    assert verdict == "not reproduced" and "increasing" in why


def test_weaker_trend_on_each_side():
    rule = WeakerTrend("the one-layer model")
    assert rule.judge({"ours": [0.5, 0.69], "reference": [0.7, 0.8]})[0] == "reproduced"
    assert rule.judge({"ours": [0.5, 0.71], "reference": [0.7, 0.8]})[0] == "partly"
    assert rule.judge({"ours": [0.7, 0.8], "reference": [0.7, 0.8]})[0] == "not reproduced"


def test_missing_value_is_not_run():
    assert judge(AtLeast(0.5), None)[0] == "not run"
    assert judge(AtLeast(0.5), 0.6)[0] == "reproduced"
    with pytest.raises(TypeError):
        judge(AtLeast(0.5), "0.6")


def _interval(value, low, high, n=5):
    return {"value": value, "low": low, "high": high, "n": n}


def test_at_least_judges_the_lower_end_of_a_seed_interval():
    rule = AtLeast(0.99)
    assert rule.judge(_interval(0.995, 0.99, 1.0))[0] == "reproduced"
    assert rule.judge(_interval(0.995, 0.9899, 1.0))[0] == "partly"
    assert rule.judge(_interval(0.99, 0.98, 1.0))[0] == "partly"
    assert rule.judge(_interval(0.9899, 0.98, 0.999))[0] == "not reproduced"


def test_within_needs_the_whole_interval_inside_the_tolerance():
    rule = Within(0.72, 0.05)
    assert rule.judge(_interval(0.72, 0.67, 0.77))[0] == "reproduced"
    assert rule.judge(_interval(0.72, 0.6699, 0.77))[0] == "partly"  # mean inside, interval not
    assert rule.judge(_interval(0.84, 0.82, 0.86))[0] == "partly"  # reaches within 0.10 (0.82 = 0.72 + 0.10)
    assert rule.judge(_interval(0.84, 0.8201, 0.86))[0] == "not reproduced"
    assert rule.judge(_interval(0.55, 0.50, 0.62))[0] == "partly"  # asymmetric: the upper end reaches 0.62
    assert rule.judge(_interval(0.55, 0.50, 0.6199))[0] == "not reproduced"


def test_within_factor_needs_the_whole_interval_between_its_bounds():
    rule = WithinFactor(6.0, 1.5)
    assert rule.judge(_interval(6.0, 4.0, 9.0))[0] == "reproduced"
    assert rule.judge(_interval(6.0, 3.99, 9.0))[0] == "partly"
    assert rule.judge(_interval(1.5, 1.0001, 2.0))[0] == "partly"
    assert rule.judge(_interval(1.5, 1.0, 2.0))[0] == "not reproduced"
    assert rule.judge(_interval(0.6, 0.4, 0.8))[0] == "not reproduced"


def test_shape_is_counts_the_seeds_that_agree():
    rule = ShapeIs("U-shaped")
    assert rule.judge({"shape": "U-shaped", "shapes": ["U-shaped"] * 3})[0] == "reproduced"
    verdict, why = rule.judge({"shape": "U-shaped", "shapes": ["U-shaped", "decreasing", "U-shaped"]})
    assert verdict == "partly" and "2 U-shaped, 1 decreasing of 3 seeds" in why
    assert rule.judge({"shape": "decreasing", "shapes": ["decreasing", "flat"]})[0] == "not reproduced"


def test_one_seed_is_said_so():
    assert "one seed" in AtLeast(0.5).judge(0.6)[1]
    assert "over 5 seeds" in AtLeast(0.5).judge(_interval(0.6, 0.55, 0.65))[1]
