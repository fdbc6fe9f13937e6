"""The theory rows read the flow sweep: the finest solver's share, the unit-step count beside it."""

from __future__ import annotations

import pytest

from token_selection.report.flow_rows import FLOW_RECORD, flow_share, global_shares, show_flow_share, show_global_shares

from .flow_fixtures import flow_metrics


def test_a_share_reads_the_finest_discretisation_with_the_coarse_count_beside_it():
    records = {FLOW_RECORD: flow_metrics((20, 17, 11), (12, 12, 10), coarse=(11, 10))}
    selects = flow_share("selects", 512)(records)
    assert (selects["passed"], selects["n"], selects["d"], selects["flow"]) == (17, 20, 512, "dop853")
    assert selects["value"] == pytest.approx(0.85)
    assert selects["low"] == pytest.approx(0.6396, abs=1e-4) and selects["high"] == pytest.approx(0.9476, abs=1e-4)
    assert (selects["coarse"]["passed"], selects["coarse"]["n"]) == (11, 20)  # unit steps can select fewer
    given = flow_share("reached_given_selects", 512)(records)
    assert (given["passed"], given["n"], given["coarse"]["passed"], given["coarse"]["n"]) == (11, 17, 10, 11)
    assert flow_share("reached", 2048)(records)["passed"] == 10 and selects["settled"]


def test_the_global_row_keeps_each_dimension_and_says_when_the_solvers_disagree():
    records = {FLOW_RECORD: flow_metrics((5, 4, 4), (12, 12, 12), changed=[3])}
    shares = global_shares(records)
    assert [(s["d"], s["passed"], s["n"], s["settled"]) for s in shares] == [(512, 4, 5, False), (2048, 12, 12, True)]
    shown = show_global_shares(shares)
    assert shown.split("; ")[0].startswith("4 of 5 seeds: 80 [38, 96] % (Wilson 95%) at d = 512 under the flow (")
    assert "unit steps: 5 of 5" in shown and "12 of 12 seeds: 100 [76, 100] % (Wilson 95%) at d = 2048" in shown
    assert show_flow_share(shares[1]).endswith("at d = 2048 under the flow; unit steps: 12 of 12")


def test_bad_tests_and_dimensions_are_named():
    with pytest.raises(ValueError, match=r"test must be one of \('selects', 'reached', 'reached_given_selects'\), got 'both'"):
        flow_share("both", 512)
    with pytest.raises(ValueError, match=r"no d = 1024; it holds d = \[512, 2048\]"):
        flow_share("reached", 1024)({FLOW_RECORD: flow_metrics((5, 4, 4), (5, 5, 5))})
