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
