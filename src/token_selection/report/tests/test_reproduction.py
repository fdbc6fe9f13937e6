import math

import pytest

from token_selection.report.reproduction import (
    CLAIMS,
    SHAPE_RULE,
    Claim,
    Rule,
    format_value,
    multiclass_measurements,
    read_results,
    report_rows,
    verdict,
    write_results,
)


def _claim(rule: Rule, paper_value: float | None = None) -> Claim:
    return Claim("k", "a claim", "paper", "03_one_step", "a cell", "-", rule, paper_value)


def test_threshold_rules():
    at_least = _claim(Rule("at_least", 0.9, 0.5))
    assert verdict(at_least, 0.95)[0] == "reproduced"
    assert verdict(at_least, 0.7)[0] == "partly"
    assert verdict(at_least, 0.1)[0] == "not reproduced"
    at_most = _claim(Rule("at_most", 1e-10, 1e-6))
    assert verdict(at_most, 1e-12)[0] == "reproduced"
    assert verdict(at_most, 1e-8)[0] == "partly"
    assert verdict(at_most, 1e-3)[0] == "not reproduced"
    assert verdict(at_least, None)[0] == "not run" and verdict(at_least, math.nan)[0] == "not run"


def test_ratio_rule_handles_both_signs():
    ratio = _claim(Rule("ratio", 1.5, 1.0), paper_value=8.0)
    assert verdict(ratio, 6.0)[0] == "reproduced"
    assert verdict(ratio, 14.0)[0] == "partly"
    assert verdict(ratio, 0.5)[0] == "not reproduced"
    slope = _claim(Rule("ratio", 1.2, 0.0), paper_value=-0.5)
    assert verdict(slope, -0.48)[0] == "reproduced"
    assert verdict(slope, -0.2)[0] == "partly"
    assert verdict(slope, 0.1)[0] == "not reproduced"
    with pytest.raises(ValueError, match="no paper_value"):
        verdict(_claim(Rule("ratio", 1.5, 1.0)), 2.0)


def test_claims_are_unique_and_rows_prefer_the_full_scale():
    keys = [claim.key for claim in CLAIMS]
    assert len(keys) == len(set(keys))
    rows = {row.claim.key: row for row in report_rows({"one_step_corr": 0.3}, {"one_step_corr": 0.99, "fig3_shapes": 1.0})}
    assert rows["one_step_corr"].verdict == "not reproduced" and rows["one_step_corr"].why.startswith("full scale")
    assert rows["fig3_shapes"].verdict == "reproduced" and rows["fig3_shapes"].why.startswith("fast scale only")
    assert rows["yelp_stars"].verdict == "not run"
    shape_claim = next(c for c in CLAIMS if c.rule is SHAPE_RULE)
    assert format_value(shape_claim, 0.5) == "50% of the shapes hold"
    assert format_value(shape_claim, None) == "not run"


def test_results_round_trip(tmp_path):
    path = tmp_path / "results" / "full.json"
    assert read_results(path) is None
    write_results(path, {"theory": {"values": {"one_step_corr": 0.99}}})
    assert read_results(path)["theory"]["values"]["one_step_corr"] == 0.99


def test_multiclass_measurement():
    numbers = multiclass_measurements()
    assert numbers["multiclass_exact_error"] < 1e-10
    assert numbers["multiclass_corr"] > 0.95
