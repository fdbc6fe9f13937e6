"""The seed sweep from random starts of p: settings, the starts on one ray, the zero start against the flow sweep,
the counts and the agreement with the zero start."""

from __future__ import annotations

import math

import pytest
import torch

from token_selection.studies import flow_seed_sweep as fs
from token_selection.studies import random_start as rs
from token_selection.studies.intervals import wilson_interval


def test_settings_per_scale_and_bad_scale():
    fast, full = rs.random_start_settings("fast"), rs.random_start_settings("full")
    assert fast["dimensions"] == full["dimensions"] == [512, 2048]
    assert fast["seeds"] == list(range(6)) and full["seeds"] == list(range(100))
    assert full["starts"] == ["0", "0.01/sqrt(d)", "1/sqrt(d)", "1"] and full["steps"] * full["lr"] == 5000
    assert full["judged_on"] == fast["judged_on"] == "acting part"
    assert full["ode"] == fs.flow_sweep_settings("full")["ode"] and fast["ode"] == fs.flow_sweep_settings("fast")["ode"]
    with pytest.raises(ValueError, match="'fast' or 'full'.*'half'"):
        rs.random_start_settings("half")


def test_the_starts_lie_on_one_ray_with_their_spread_and_their_own_draw():
    starts = rs.start_points(3, 400, ["0", "0.01/sqrt(d)", "1/sqrt(d)", "1"])
    assert starts.shape == (4, 400) and starts.dtype == torch.float64
    assert bool((starts[0] == 0).all())
    assert torch.allclose(starts[3], starts[2] * math.sqrt(400)) and torch.allclose(starts[2], starts[1] * 100)
    assert float(starts[3].std()) == pytest.approx(1.0, abs=0.1)  # N(0, I): 400 draws
    z = torch.randn(400, generator=torch.Generator().manual_seed(3 + rs.START_DRAW_OFFSET), dtype=torch.float64)
    assert torch.equal(starts[3], z), "drawn from seed + offset, not from the data's seed"
    assert not torch.equal(rs.start_points(4, 400, ["1"])[0], starts[3])
    assert torch.equal(rs.start_points(3, 400, ["1", "0"]), starts[[3, 0]])
    with pytest.raises(ValueError, match=r"unknown start 'sqrt\(d\)'; known: \['0', "):
        rs.start_points(3, 400, ["1", "sqrt(d)"])


def test_run_seed_from_zero_is_the_flow_sweep_and_a_tiny_start_ends_alike():
    settings = rs.random_start_settings("fast") | {"steps": 300}
    out = rs.run_seed(64, 5, settings)
    assert list(out) == settings["starts"] and all(list(ways) == ["euler_1", "rk45"] for ways in out.values())
    sweep = fs.run_seed(64, 5, fs.flow_sweep_settings("fast") | {"steps": 300, "refinements": [1]})
    for way in ("euler_1", "rk45"):
        assert out["0"][way]["cos"] == pytest.approx(sweep[way]["cos"], abs=1e-9)
        assert out["0"][way]["min_attention"] == pytest.approx(sweep[way]["min_attention"], abs=1e-9)
        assert out["0"][way]["arc_length"] == pytest.approx(sweep[way]["arc_length"], abs=1e-9)
        assert out["0.01/sqrt(d)"][way]["cos"] == pytest.approx(out["0"][way]["cos"], abs=1e-3)
    assert abs(out["1"]["euler_1"]["cos"] - out["0"]["euler_1"]["cos"]) > 1e-4, "an order-one start moves the end"
    assert out["0"]["rk45"]["cos_full"] == pytest.approx(out["0"]["rk45"]["cos"], abs=1e-9), "from 0, p acts whole"
    assert 0 < out["1"]["rk45"]["cos_full"] < out["1"]["rk45"]["cos"] - 1e-5, "a random start keeps an inert part"
    whole = rs.run_seed(64, 5, settings | {"judged_on": "whole"})
    assert whole["1"]["rk45"]["cos"] == pytest.approx(out["1"]["rk45"]["cos_full"], abs=1e-12)
    assert whole["1"]["rk45"]["cos_full"] == out["1"]["rk45"]["cos_full"]
    with pytest.raises(ValueError, match=r"judged_on must be one of \('acting part', 'whole'\), got 'half'"):
        rs.run_seed(64, 5, settings | {"judged_on": "half"})
    for ways in out.values():
        for run in ways.values():
            assert run["reached"] == (run["cos"] >= settings["cosine_threshold"] and run["selects"])
            assert 0 < run["arc_length"] <= 300


def _run(reached: bool, selects: bool = True, cos: float = 0.5) -> dict:
    return {"cos": cos, "cos_full": cos / 2, "min_attention": 0.5, "reached": reached, "selects": selects,
            "one_class": True, "arc_length": 1.0}  # fmt: skip


def _seed(zero: tuple[bool, bool], other: tuple[bool, bool]) -> dict:
    return {"0": {"euler_1": _run(zero[0]), "rk45": _run(zero[1])},
            "1": {"euler_1": _run(other[0]), "rk45": _run(other[1], selects=other[1], cos=0.97)}}  # fmt: skip


def test_summarise_counts_failures_and_agreement_with_the_zero_start():
    per_seed = [_seed((True, True), (True, False)), _seed((False, True), (True, True)), _seed((True, False), (True, False))]
    out = rs.summarise(per_seed, [2, 5, 9], ["0", "1"])
    assert out["0"]["euler_1"]["failed_seeds"] == [5] and out["0"]["rk45"]["failed_seeds"] == [9]
    assert out["1"]["euler_1"]["failed_seeds"] == [] and out["1"]["rk45"]["failed_seeds"] == [2, 9]
    assert out["1"]["euler_1"]["same_as_zero"] == 2 and out["1"]["rk45"]["same_as_zero"] == 2
    assert out["0"]["rk45"]["same_as_zero"] == 3
    assert out["1"]["rk45"]["counts"]["reached"] == {"passed": 1, "trials": 3, "ci95": list(wilson_interval(1, 3))}
    assert out["1"]["rk45"]["counts"]["selects"]["passed"] == 1 and out["1"]["rk45"]["cos"] == [0.97] * 3
    assert out["1"]["rk45"]["cos_full"] == [0.485] * 3
    with pytest.raises(ValueError, match="3 runs for 2 seeds"):
        rs.summarise(per_seed, [2, 5], ["0", "1"])
    with pytest.raises(ValueError, match=r"first start must be '0'.*\['1'\]"):
        rs.summarise(per_seed, [2, 5, 9], ["1", "0"])


def test_run_in_processes_equals_run_in_one():
    settings = rs.random_start_settings("fast") | {"dimensions": [32, 48], "seeds": [0, 3], "steps": 60}
    one = rs.run_random_start(settings, jobs=1)
    two = rs.run_random_start(settings, jobs=2)
    assert one == two
    assert one["starts"] == settings["starts"] and one["discretisations"] == ["euler_1", "rk45"]
    assert set(one) == {"starts", "discretisations", "d32", "d48"} and len(one["d48"]["1"]["rk45"]["cos"]) == 2
    single = rs.run_seed(48, 3, settings)
    assert one["d48"]["1/sqrt(d)"]["rk45"]["cos"][1] == single["1/sqrt(d)"]["rk45"]["cos"]


def test_judge_end_at_zero_and_on_the_max_margin_direction():
    from token_selection.theory.max_margin import solve_max_margin
    from token_selection.theory.synthetic import ReferenceCase

    data, model = ReferenceCase(seed=1, d=64).build()
    E = model.E.detach()
    target = solve_max_margin(E, data.X, data.relevant).direction
    settings = rs.random_start_settings("fast")
    zero = fs.judge_end(E, data, target, torch.zeros(64, dtype=torch.float64), settings)
    assert zero["cos"] == 0.0 and zero["min_attention"] == pytest.approx(1 / data.X.shape[1]) and not zero["selects"]
    far = fs.judge_end(E, data, target, 1e3 * target / target.norm(), settings)
    assert far["cos"] == pytest.approx(1.0) and far["selects"] and far["reached"] and far["one_class"]


def test_the_acting_part_keeps_every_score_and_drops_the_rest():
    generator = torch.Generator().manual_seed(0)
    E = torch.randn(5, 12, generator=generator, dtype=torch.float64)
    inside = E.T @ torch.randn(5, generator=generator, dtype=torch.float64)
    outside = torch.randn(12, generator=generator, dtype=torch.float64)
    outside -= E.T @ torch.linalg.solve(E @ E.T, E @ outside)  # orthogonal to every row
    assert float((E @ outside).abs().max()) < 1e-12 and float(outside.norm()) > 0.5
    acting = rs.acting_part(E, inside + outside)
    assert torch.allclose(acting, inside, atol=1e-12) and torch.allclose(E @ acting, E @ (inside + outside))
