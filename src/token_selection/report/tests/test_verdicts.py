import pytest

from token_selection.report.verdicts import (
    AtLeast,
    NoCounterexample,
    PositiveInterval,
    ShapeIs,
    ShareOfSeeds,
    WeakerTrend,
    Within,
    WithinFactor,
    judge,
)


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


def test_within_factor_at_convergence_is_partly_without_a_converged_budget():
    rule = WithinFactor(8.0, 1.5, at_convergence=True)
    inside = {"value": 9.73, "low": 9.16, "high": 10.3, "n": 5, "converged": True}
    assert rule.judge(inside)[0] == "reproduced"
    growing = inside | {"converged": False, "by_budget": {"10": 1.134, "40": 5.18, "80": 9.73}}
    verdict, why = rule.judge(growing)
    assert verdict == "partly" and "converge" in why
    assert "1.13 after 10" in why and "9.73 after 80" in why  # the size at each budget, so the trend shows
    assert rule.judge(inside | {"converged": False})[0] == "partly"  # a value without the budgets
    # on the factor's bounds: a converged value is reproduced, an unconverged one partly
    for low, high in ((8 / 1.5, 8 / 1.5), (12.0, 12.0)):
        bound = {"value": low, "low": low, "high": high, "n": 5}
        assert rule.judge(bound | {"converged": True})[0] == "reproduced"
        assert rule.judge(bound | {"converged": False})[0] == "partly"
    # outside the factor convergence changes nothing: the same verdicts as without it
    for value in (inside | {"value": 20.0, "low": 19.0, "high": 21.0, "converged": False}, 0.5):
        assert rule.judge(value) == WithinFactor(8.0, 1.5).judge(value)
    assert WithinFactor(8.0, 1.5).judge(growing)[0] == "reproduced"  # the plain rule does not read convergence
    assert "converged" in rule.describe() and "converged" not in WithinFactor(8.0, 1.5).describe()


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
    assert "(5 seeds)" in AtLeast(0.5).judge(_interval(0.6, 0.55, 0.65))[1]


# The words the report prints next to each claim: every rule's statement and every branch's reason, whole.


def test_each_rule_states_itself_in_full():
    assert AtLeast(0.99).describe() == (
        "reproduced if ours (the lower end of its seed interval) >= 0.99, partly if only the mean is, else not reproduced"
    )
    assert Within(0.95, 0.05).describe() == (
        "reproduced if the seed interval lies within 0.05 of 0.95, partly if it reaches within 0.1, else not reproduced"
    )
    # 8 / 1.5 = 5.33 and 8 x 1.5 = 12
    assert WithinFactor(8.0, 1.5).describe() == (
        "reproduced if the seed interval lies between 5.33 and 12 (a factor 1.5 of 8), partly if it lies above 1, "
        "else not reproduced"
    )
    assert PositiveInterval().describe() == "reproduced if the 95% interval lies above 0, else not reproduced"
    shape_rule = ShapeIs("U-shaped").describe()
    assert "'U-shaped'" in shape_rule and "near uniform does not count" in shape_rule
    assert shape_rule.endswith("the claim is not tested"), "the fifth verdict is stated with the rule"
    assert WeakerTrend("the one-layer model").describe() == (
        "reproduced if the Spearman interval lies wholly below that of the one-layer model and the Spearman of the "
        "20 bin means is lower too; partly if only one of them is lower, else not reproduced"
    )


def test_at_least_and_within_give_their_reasons_in_full():
    rule = AtLeast(0.9)
    assert rule.judge(0.9) == ("reproduced", "0.9 (one seed) >= 0.9")
    assert rule.judge(_interval(0.92, 0.88, 0.96, 3)) == (
        "partly",
        "0.92 [0.88, 0.96] (3 seeds): the mean is >= 0.9, the interval reaches below",
    )
    assert rule.judge(_interval(0.85, 0.8, 0.9)) == ("not reproduced", "0.85 [0.8, 0.9] (5 seeds) < 0.9")
    within = Within(0.95, 0.05)
    assert within.judge(_interval(0.93, 0.9, 1.0)) == ("reproduced", "0.93 [0.9, 1] (5 seeds) lies within 0.05 of 0.95")
    assert within.judge(_interval(0.93, 0.9, 1.0001))[0] == "partly", "the interval's top above 0.95 + 0.05"
    assert within.judge(_interval(1.0, 0.96, 1.05)) == ("partly", "1 [0.96, 1.05] (5 seeds) reaches within 0.1 of 0.95")
    assert within.judge(_interval(1.1, 1.05, 1.2))[0] == "partly", "the interval's bottom exactly 0.95 + 2 x 0.05"
    assert within.judge(_interval(1.1, 1.0501, 1.2)) == (
        "not reproduced",
        "1.1 [1.05, 1.2] (5 seeds) lies further than 0.1 from 0.95",
    )
    assert within.judge(_interval(0.8, 0.7, 0.85))[0] == "partly", "the interval's top exactly 0.95 - 2 x 0.05"


def test_within_factor_positive_interval_and_shapes_give_their_reasons_in_full():
    rule = WithinFactor(8.0, 1.5)
    assert rule.judge(_interval(9.0, 6.0, 12.0)) == ("reproduced", "9 [6, 12] (5 seeds) is within a factor 1.5 of 8")
    assert rule.judge(_interval(9.0, 6.0, 12.01))[0] == "partly"
    assert rule.judge(_interval(3.0, 1.01, 5.0)) == (
        "partly",
        "3 [1.01, 5] (5 seeds) > 1 (the direction holds) but not within a factor 1.5 of 8",
    )
    assert rule.judge(_interval(3.0, 1.0, 5.0)) == ("not reproduced", "3 [1, 5] (5 seeds) is not above 1")
    assert PositiveInterval().judge({"value": 2.5, "low": 0.25, "high": 4.75}) == (
        "reproduced",
        "2.5 [0.25, 4.75] (95% interval) lies above 0",
    )
    assert PositiveInterval().judge({"value": 2.5, "low": -0.5, "high": 4.75}) == (
        "not reproduced",
        "2.5 [-0.5, 4.75] (95% interval) reaches 0",
    )
    with_size = PositiveInterval(23)
    assert with_size.judge({"value": 4.6, "low": 4.3, "high": 4.9}) == (
        "reproduced",
        "4.6 [4.3, 4.9] (95% interval) lies above 0: the direction is reproduced, not the size (the paper's 23)",
    )
    assert with_size.judge({"value": 4.6, "low": 0.0, "high": 4.9}) == ("not reproduced", "4.6 [0, 4.9] (95% interval) reaches 0")
    assert with_size.describe() == (
        "reproduced if the 95% interval lies above 0, else not reproduced; the size is not scored (the paper's is 23)"
    )
    shape = ShapeIs("U-shaped")
    assert shape.judge({"shapes": ["U-shaped", "U-shaped"], "shape": "flat"}) == (
        "reproduced",
        "the shape rule finds 'U-shaped' (2 U-shaped of 2 seeds)",
    )
    assert shape.judge({"shapes": ["flat", "U-shaped", "flat"]}) == (
        "partly",
        "the shape rule finds 2 flat, 1 U-shaped of 3 seeds",
    )
    assert shape.judge({"shapes": [], "shape": "decreasing"}) == (
        "not reproduced",
        "the shape rule finds 1 decreasing of 1 seed, not 'U-shaped'",
    )


def test_weaker_trend_gives_its_reasons_in_full():
    rule = WeakerTrend("the one-layer model")
    assert rule.judge({"ours": [0.5, 0.69], "reference": [0.7, 0.8]}) == (
        "reproduced",
        "[+0.50, +0.69] against [+0.70, +0.80]: wholly below",
    )
    assert rule.judge({"ours": [0.5, 0.7], "reference": [0.7, 0.8]})[0] == "partly", "touching is overlapping"
    assert rule.judge({"ours": [0.6, 0.89], "reference": [0.7, 0.8]}) == (
        "partly",
        "[+0.60, +0.89] against [+0.70, +0.80]: lower, but the intervals overlap",
    )
    assert rule.judge({"ours": [0.5, 0.75], "reference": [0.25, 1.0]}) == (
        "not reproduced",
        "[+0.50, +0.75] against [+0.25, +1.00]: not lower",
    ), "equal midpoints are not lower"
    assert rule.judge({"ours": [0.0, 0.5], "reference": [-1.0, 0.5]})[0] == "not reproduced"
    assert judge(rule, None) == ("not run", "no record at this scale")


def test_within_includes_both_ends_of_its_band_as_computed():
    rule = Within(0.95, 0.05)
    low, high = 0.95 - 0.05, 0.95 + 0.05  # the band's ends as the rule computes them (0.8999...)
    assert rule.judge(_interval(0.95, low, high))[0] == "reproduced"


def _share(passed: int, n: int, d: int = 512) -> dict:
    from token_selection.report.measures import share_interval

    return {**share_interval(passed, n), "d": d}


@pytest.mark.parametrize(
    ("passed", "n", "verdict"),
    [
        (20, 20, "reproduced"),  # exactly at the bound of 'reproduced': every seed
        (19, 20, "partly"),  # one seed short
        (10, 20, "partly"),  # exactly at the bound of 'partly'
        (9, 19, "not reproduced"),  # just below half, an odd count
        (5, 10, "partly"),
        (0, 7, "not reproduced"),
        (1, 1, "reproduced"),
    ],
)
def test_share_of_seeds_on_each_side_of_its_bounds(passed, n, verdict):
    assert ShareOfSeeds().judge(_share(passed, n))[0] == verdict


def test_share_of_seeds_judges_the_weakest_dimension_and_names_it():
    uneven = [_share(20, 20, 2048), _share(3, 5, 512)]
    assert ShareOfSeeds().judge(uneven) == ("partly", "3 of 5 seeds pass at d = 512: a share of 60% is at least 50%, below 100%")
    assert ShareOfSeeds().judge([_share(12, 12, 512), _share(20, 20, 2048)]) == (
        "reproduced",
        "12 of 12 at d = 512, 20 of 20 at d = 2048 seeds pass",
    )
    assert ShareOfSeeds().judge(_share(12, 12)) == ("reproduced", "12 of 12 seeds pass")
    assert ShareOfSeeds().judge(_share(2, 5)) == ("not reproduced", "2 of 5 seeds pass: a share of 40% is below 50%")
    with pytest.raises(ValueError, match="at least one share"):
        ShareOfSeeds().judge([])


def test_share_of_seeds_with_other_bounds_states_them():
    rule = ShareOfSeeds(reproduced=0.9, partly=0.6)
    assert rule.judge(_share(9, 10))[0] == "reproduced" and rule.judge(_share(6, 10))[0] == "partly"
    assert rule.judge(_share(59, 100))[0] == "not reproduced"
    assert rule.describe().startswith("reproduced if at least 90% of the seeds pass (at each dimension measured), ")
    assert ShareOfSeeds().describe() == (
        "reproduced if every seed passes (at each dimension measured), partly if at least 50% of the seeds do, else "
        "not reproduced; the Wilson 95% interval of the share is shown beside it"
    )
    for equal in (0.0, 0.5, 1.0):
        assert ShareOfSeeds(reproduced=equal, partly=equal).judge(_share(1, 2))[0] == (
            "reproduced" if equal <= 0.5 else "not reproduced"
        )
    for bad in ({"reproduced": 0.5, "partly": 0.6}, {"reproduced": 1.1}, {"partly": -0.1}):
        with pytest.raises(ValueError, match="need 0 <= partly <= reproduced <= 1"):
            ShareOfSeeds(**bad)


def test_no_counterexample_is_reproduced_only_when_no_seed_fails_at_any_dimension():
    rule = NoCounterexample()
    assert rule.judge(_share(12, 12)) == ("reproduced", "12 of 12 seeds pass")
    assert rule.judge([_share(12, 12, 512), _share(20, 20, 2048)]) == (
        "reproduced",
        "12 of 12 at d = 512, 20 of 20 at d = 2048 seeds pass",
    )
    # one failing seed out of many is enough, and only the dimensions with a failing seed are named
    assert rule.judge(_share(99, 100)) == ("not reproduced", "1 of 100 at d = 512 seeds fail: each is a counterexample")
    assert rule.judge([_share(20, 20, 512), _share(6, 7, 2048)]) == (
        "not reproduced",
        "1 of 7 at d = 2048 seeds fail: each is a counterexample",
    )
    assert rule.judge([_share(3, 5, 512), _share(0, 4, 2048)])[1].startswith("2 of 5 at d = 512, 4 of 4 at d = 2048")
    no_d = {key: value for key, value in _share(4, 5).items() if key != "d"}
    assert rule.judge(no_d) == ("not reproduced", "1 of 5 seeds fail: each is a counterexample")
    with pytest.raises(ValueError, match="at least one share"):
        rule.judge([])
    assert rule.describe().startswith("reproduced if every seed passes (at each dimension measured); a seed that fails")
    assert judge(rule, None) == ("not run", "no record at this scale")


def test_shape_is_judges_the_readings_and_leaves_out_seeds_that_do_not_select():
    rule = ShapeIs("U-shaped")
    value = {"shape": "U-shaped", "shapes": ["U-shaped", "U-shaped", "U-shaped"], "readings": ["U-shaped", "flat", "U-shaped"]}
    assert rule.judge(value) == ("partly", "the shape rule finds 2 U-shaped, 1 flat of 3 seeds (1 below the minimum effect)")
    every = {**value, "readings": ["U-shaped"] * 3}
    assert rule.judge(every) == ("reproduced", "the shape rule finds 'U-shaped' (3 U-shaped of 3 seeds)")
    uniform = {**every, "selects": [True, False, True]}
    verdict, why = rule.judge(uniform)
    assert verdict == "reproduced", "the two seeds that select both read U-shaped; the uniform one does not count"
    assert "near uniform in 1 seed" in why
    mixed = {**uniform, "readings": ["U-shaped", "U-shaped", "flat"]}
    assert rule.judge(mixed)[0] == "partly", "of the two seeds that select, one reads flat"
    assert rule.judge({**mixed, "readings": ["flat", "U-shaped", "flat"]})[0] == "not reproduced"
    # a record that kept seed 0's spread alone: the other seeds are judged on their shapes
    assert rule.judge({**every, "selects": [True]}) == ("reproduced", "the shape rule finds 'U-shaped' (3 U-shaped of 3 seeds)")
    assert rule.judge({**every, "selects": [False]})[0] == "reproduced", "seed 0 does not select; seeds 1 and 2 count"
    none = {**every, "selects": [False, False, False]}
    verdict, why = rule.judge(none)
    assert verdict == "not tested" and "3 seeds" in why, "no seed selects: nothing to read, neither for nor against"
    assert rule.judge({**none, "readings": ["flat"] * 3})[0] == "not tested"
    assert rule.judge({"shape": "U-shaped", "shapes": ["U-shaped", "flat"]}) == (
        "partly",
        "the shape rule finds 1 U-shaped, 1 flat of 2 seeds",
    ), "without readings the tested shapes are judged"
    with pytest.raises(ValueError):
        rule.judge({"shape": "U-shaped", "shapes": ["U-shaped"], "readings": ["U-shaped", "flat"]})


def test_weaker_trend_with_bins_needs_both_readings_lower():
    rule = WeakerTrend("the one-layer model")
    both = {"ours": [0.5, 0.6], "reference": [0.8, 0.9], "bins": [0.7, 0.99]}
    assert rule.judge(both) == (
        "reproduced",
        "[+0.50, +0.60] against [+0.80, +0.90] over tokens (wholly below); on the 20 bin means +0.70 against +0.99 (lower)",
    )
    equal_bins = {**both, "bins": [1.0, 1.0]}
    assert rule.judge(equal_bins) == (
        "partly",
        "[+0.50, +0.60] against [+0.80, +0.90] over tokens (wholly below); on the 20 bin means +1.00 against +1.00 "
        "(not lower: the bin means are as monotone)",
    )
    touching = {"ours": [0.5, 0.8], "reference": [0.8, 0.9], "bins": [0.5, 0.6]}
    assert rule.judge(touching) == (
        "partly",
        "[+0.50, +0.80] against [+0.80, +0.90] over tokens (lower, but the intervals overlap); on the 20 bin means "
        "+0.50 against +0.60 (lower)",
    ), "an interval ending on the reference's start is not wholly below"
    neither = {"ours": [0.8, 0.95], "reference": [0.8, 0.9], "bins": [0.6, 0.6]}
    assert rule.judge(neither) == (
        "not reproduced",
        "[+0.80, +0.95] against [+0.80, +0.90] over tokens (not lower); on the 20 bin means +0.60 against +0.60 "
        "(not lower: the bin means are as monotone)",
    )
