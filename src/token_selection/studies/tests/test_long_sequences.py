"""The flow sweep at T = 32 and two multiples of eta*: its settings, its step rule and how its counts are read."""

from __future__ import annotations

import pytest

from token_selection.studies import STUDIES
from token_selection.studies.fixed_tau import reached_counts
from token_selection.studies.flow_seed_sweep import flow_sweep_settings, reference_case
from token_selection.studies.long_sequences import (
    LENGTH,
    LONG_SEQUENCES_PROTOCOL,
    RECORD,
    TAUS,
    long_sequence_settings,
    reached_by_tau,
    run_long_sequences,
)
from token_selection.theory.one_step import step_size_threshold

OWN = ("seeds", "dimensions", "length", "taus", "refinements", "solvers", "step_rule")


@pytest.mark.parametrize(("scale", "dimensions", "seeds"), [("fast", [1024], 2), ("full", [512, 1024, 2048, 4096], 20)])
def test_the_settings_are_the_sweep_s_at_t_32_and_two_multiples_of_eta_star(scale, dimensions, seeds):
    settings = long_sequence_settings(scale)
    assert settings["dimensions"] == dimensions and settings["seeds"] == list(range(seeds))
    assert (settings["length"], settings["taus"], settings["step_rule"]) == (32, [4.0, 14.3], "tau")
    assert (settings["refinements"], settings["solvers"]) == ([1], ["DOP853"])
    base = flow_sweep_settings(scale)
    assert {k: v for k, v in settings.items() if k not in OWN} == {k: v for k, v in base.items() if k not in OWN}
    assert LENGTH == 32 and TAUS == (4.0, 14.3)


def test_the_study_is_registered_under_its_record_name():
    study = STUDIES[RECORD]
    assert study.settings is long_sequence_settings and study.run is run_long_sequences
    assert study.protocol == LONG_SEQUENCES_PROTOCOL and "T = 32" in LONG_SEQUENCES_PROTOCOL
    assert "tau = 4 and 14.3" in LONG_SEQUENCES_PROTOCOL


def test_an_unknown_scale_is_refused_by_name():
    with pytest.raises(ValueError, match="scale must be 'fast' or 'full'"):
        long_sequence_settings("medium")


@pytest.mark.parametrize("rule", [None, "fixed_tau"])
def test_run_refuses_settings_without_the_tau_rule(rule):
    settings = {k: v for k, v in long_sequence_settings("fast").items() if k != "step_rule"}
    if rule:
        settings["step_rule"] = rule
    with pytest.raises(ValueError, match=f"step_rule must be 'tau', got {rule!r}$"):
        run_long_sequences(settings)


@pytest.mark.parametrize("taus", [None, [], [4.0, 0.0], [-1.0], [True], ["4"]])
def test_run_refuses_taus_that_are_not_positive_numbers_and_names_them(taus):
    settings = {**long_sequence_settings("fast"), "taus": taus}
    if taus is None:
        del settings["taus"]
    with pytest.raises(ValueError, match=r"taus must be a non-empty list of positive numbers, got "):
        run_long_sequences(settings)


def test_run_sweeps_once_per_tau_with_that_tau_and_passes_its_progress_bar_and_process_count(monkeypatch):
    import token_selection.studies.long_sequences as module

    seen = []
    monkeypatch.setattr(module, "run_flow_seed_sweep", lambda s, t, j: seen.append((s, t, j)) or {"tau": s["tau"]})
    settings, track = {**long_sequence_settings("fast"), "taus": [15.0, 2.5]}, object()
    assert run_long_sequences(settings, track, 3) == {"taus": [15.0, 2.5], "tau15": {"tau": 15.0}, "tau2.5": {"tau": 2.5}}
    assert [s["tau"] for s, _, _ in seen] == [15.0, 2.5] and all(t is track and j == 3 for _, t, j in seen)
    assert all("taus" not in s and s["length"] == 32 and s["step_rule"] == "tau" for s, _, _ in seen)


@pytest.mark.parametrize(("d", "tau"), [(512, 4.0), (2048, 15.0), (64, 0.5)])
def test_the_tau_rule_sets_eta_to_tau_times_the_eta_star_of_the_seed_s_own_data(d, tau):
    case = reference_case(3, d, {"step_rule": "tau", "tau": tau, "length": 32})
    data = case.data()
    assert (case.T, case.d, case.seed) == (32, d, 3) and tuple(data.X.shape) == (200, 32)
    assert case.eta == pytest.approx(tau * step_size_threshold(data.X, data.y, 50, d), rel=1e-15)
    assert reference_case(3, d, {"step_rule": "fixed_eta", "length": 32}).eta == 200.0
    assert reference_case(3, d, {}).T == 8  # without a length, the reference T


@pytest.mark.parametrize("tau", [None, 0.0, -2.0, True, "4"])
def test_the_tau_rule_without_a_positive_tau_is_refused_by_name(tau):
    settings = {"step_rule": "tau"} if tau is None else {"step_rule": "tau", "tau": tau}
    with pytest.raises(ValueError, match=rf"the step rule 'tau' needs settings\['tau'\], a positive number, got {tau!r}"):
        reference_case(0, 64, settings)


def _sweep(counts: dict[int, tuple[int, int]]) -> dict:
    """A flow sweep's metrics with its dimension keys in JSON's string order: {d: (unit passed, flow passed)} of 20."""
    out = {"discretisations": ["euler_1", "dop853"]}
    for d in sorted(counts, key=str):
        unit, flow = counts[d]
        out[f"d{d}"] = {
            "euler_1": {"counts": {"reached": {"passed": unit, "trials": 20, "ci95": [0.1, 0.9]}}},
            "dop853": {"counts": {"reached": {"passed": flow, "trials": 20, "ci95": [0.2, 0.8]}}},
            "changed_seeds": [],
        }
    return out


def test_the_counts_come_back_per_tau_in_order_and_per_dimension_from_the_smallest():
    metrics = {"taus": [14.3, 4.0], "tau14.3": _sweep({512: (0, 0), 4096: (18, 11), 1024: (1, 0)}),
               "tau4": _sweep({4096: (18, 17), 512: (14, 13)})}  # fmt: skip
    counts = reached_by_tau(metrics)
    assert list(counts) == [14.3, 4.0]
    assert list(counts[14.3]) == [512, 1024, 4096] and list(counts[4.0]) == [512, 4096]
    assert counts[14.3][4096]["dop853"]["passed"] == 11 and counts[14.3][4096]["euler_1"]["passed"] == 18
    assert counts[4.0][512]["euler_1"] == {"passed": 14, "trials": 20, "ci95": [0.1, 0.9]}
    assert list(reached_counts(metrics["tau14.3"])) == [512, 1024, 4096]


def test_run_accepts_a_step_below_eta_star_and_whole_numbers(monkeypatch):
    import token_selection.studies.long_sequences as module

    monkeypatch.setattr(module, "run_flow_seed_sweep", lambda s, t, j: {"tau": s["tau"]})
    metrics = run_long_sequences({**long_sequence_settings("fast"), "taus": [0.5, 2]})
    assert metrics == {"taus": [0.5, 2], "tau0.5": {"tau": 0.5}, "tau2": {"tau": 2}}
