"""The flow sweep at a fixed multiple of eta*: its settings, its step rule and the eta it gives each dimension."""

from __future__ import annotations

import math

import pytest

from token_selection.studies import STUDIES
from token_selection.studies.fixed_tau import (
    FIXED_TAU_PROTOCOL,
    RECORD,
    fixed_tau_settings,
    reached_counts,
    run_fixed_tau,
)
from token_selection.studies.flow_seed_sweep import STEP_RULES, flow_sweep_settings, reference_case
from token_selection.theory.one_step import step_size_threshold


@pytest.mark.parametrize(("scale", "dimensions", "seeds"), [("fast", [2048], 5), ("full", [1024, 2048, 4096], 100)])
def test_the_settings_are_the_sweep_s_at_a_fixed_tau_with_unit_steps_and_dop853(scale, dimensions, seeds):
    settings = fixed_tau_settings(scale)
    base = flow_sweep_settings(scale)
    assert settings["dimensions"] == dimensions and len(settings["seeds"]) == seeds
    assert (settings["step_rule"], settings["refinements"], settings["solvers"]) == ("fixed_tau", [1], ["DOP853"])
    assert {k: v for k, v in settings.items() if k not in ("dimensions", "refinements", "solvers", "step_rule")} == {
        k: v for k, v in base.items() if k not in ("dimensions", "refinements", "solvers")
    }
    assert "step_rule" not in base  # the sweep's own records keep their settings


def test_the_study_is_registered_under_its_record_name():
    study = STUDIES[RECORD]
    assert study.settings is fixed_tau_settings and study.run is run_fixed_tau and study.protocol == FIXED_TAU_PROTOCOL
    assert "200 sqrt(512 / d)" in FIXED_TAU_PROTOCOL


def test_an_unknown_scale_is_refused_by_name():
    with pytest.raises(ValueError, match="scale must be 'fast' or 'full'"):
        fixed_tau_settings("medium")


@pytest.mark.parametrize("rule", [None, "fixed_eta"])
def test_run_refuses_settings_without_the_fixed_tau_rule(rule):
    settings = {k: v for k, v in fixed_tau_settings("fast").items() if k != "step_rule"}
    if rule:
        settings["step_rule"] = rule
    with pytest.raises(ValueError, match=f"step_rule must be 'fixed_tau', got {rule!r}$"):
        run_fixed_tau(settings)


def test_run_passes_its_settings_progress_bar_and_process_count_to_the_sweep(monkeypatch):
    import token_selection.studies.fixed_tau as module

    seen = []
    monkeypatch.setattr(module, "run_flow_seed_sweep", lambda *args: seen.append(args) or {"ran": True})
    settings, track = fixed_tau_settings("fast"), object()
    assert run_fixed_tau(settings, track, 3) == {"ran": True}
    assert seen == [(settings, track, 3)]


@pytest.mark.parametrize("d", [1024, 2048, 4096])
def test_the_fixed_tau_step_is_the_reference_multiple_of_eta_star_at_every_d(d):
    reference = reference_case(3, 512, {})
    case = reference_case(3, d, {"step_rule": "fixed_tau"})
    assert case.eta == pytest.approx(200.0 * math.sqrt(512 / d), rel=1e-15) and case.d == d and case.seed == 3
    data = case.data()
    tau = {c.d: c.eta / step_size_threshold(data.X, data.y, c.vocab_size, c.d) for c in (reference, case)}  # same data at both d
    assert tau[d] == pytest.approx(tau[512], rel=1e-12)
    fixed_eta = reference_case(3, d, {"step_rule": "fixed_eta"})
    assert fixed_eta.eta == 200.0 and fixed_eta.eta / step_size_threshold(data.X, data.y, 50, d) > tau[512] * 1.4


def test_the_step_rule_defaults_to_the_reference_eta_and_an_unknown_rule_is_named():
    assert reference_case(0, 2048, {}).eta == 200.0
    assert STEP_RULES == ("fixed_eta", "fixed_tau", "tau")
    with pytest.raises(ValueError, match=r"step_rule must be one of \('fixed_eta', 'fixed_tau', 'tau'\), got 'fixed'"):
        reference_case(0, 2048, {"step_rule": "fixed"})


def test_a_fast_run_counts_every_seed_both_ways():
    settings = {**fixed_tau_settings("fast"), "seeds": [0, 1]}
    metrics = run_fixed_tau(settings, jobs=1)
    assert metrics["discretisations"] == ["euler_1", "dop853"]
    for way in ("euler_1", "dop853"):
        counts = metrics["d2048"][way]["counts"]["reached"]
        assert counts["trials"] == 2 and 0 <= counts["passed"] <= 2


def test_reached_counts_reads_every_dimension_and_way_of_the_metrics_from_the_smallest_dimension():
    def column(passed: int) -> dict:
        return {"counts": {"reached": {"passed": passed, "trials": 5, "ci95": [0.1, 0.9]}, "selects": {"passed": 5}}}

    metrics = {
        "discretisations": ["euler_1", "dop853"],
        "d4096": {"euler_1": column(5), "dop853": column(4), "changed_seeds": [3]},
        "d1024": {"euler_1": column(2), "dop853": column(1), "changed_seeds": []},
    }
    counts = reached_counts(metrics)
    assert list(counts) == [1024, 4096]  # from the smallest; "discretisations" is no dimension
    assert counts[1024] == {"euler_1": column(2)["counts"]["reached"], "dop853": column(1)["counts"]["reached"]}
    assert counts[4096]["dop853"]["passed"] == 4 and set(counts[4096]) == {"euler_1", "dop853"}


def test_reached_counts_of_the_fast_record():
    from token_selection.studies import load_or_run

    counts = reached_counts(load_or_run(RECORD, "fast"))
    assert list(counts) == fixed_tau_settings("fast")["dimensions"]
    assert all(c["trials"] == 5 for ways in counts.values() for c in ways.values())
