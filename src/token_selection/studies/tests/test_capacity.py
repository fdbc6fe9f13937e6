"""The (d, V) capacity study: settings, the union-bound boundary by hand, one cell, and how the grid is filled."""

from __future__ import annotations

import math

import pytest

from token_selection.studies import capacity as cap
from token_selection.studies.intervals import wilson_interval
from token_selection.theory.thresholds import DIRECTION_COSINE


def test_settings_per_scale():
    fast, full = cap.capacity_settings("fast"), cap.capacity_settings("full")
    assert fast == {
        "dims": [8, 16, 32, 64, 128, 256], "vocab_sizes": [20, 40, 80, 160, 320, 640], "n": 200, "T": 8,
        "n_relevant": 5, "eta": 80.0, "seeds": [0, 1, 2], "steps": 800, "lr": 1.0, "cosine_threshold": DIRECTION_COSINE,
    }  # fmt: skip
    assert full == dict(fast, dims=fast["dims"] + [512], vocab_sizes=fast["vocab_sizes"] + [1280], seeds=list(range(8)))
    with pytest.raises(ValueError, match="scale must be 'fast' or 'full', got 'quick'"):
        cap.capacity_settings("quick")


def test_value_signal_and_predicted_dimension_by_hand():
    # alpha_r = 1 / (2 m T) = 1/80 for m = 5, T = 8; s = (eta / 2) alpha_r = 40 / 80 = 0.5
    assert cap.value_signal(80.0, 5, 8) == pytest.approx(0.5)
    assert cap.value_signal(40.0, 2, 5) == pytest.approx(40 / 2 / (2 * 2 * 5))
    # K = min(2 m (V - 2 m), n (T - 1)) = min(10 x 30, 200 x 7) = 300; d* = 4 ln(300 / 0.5) / 0.25
    assert cap.predicted_dimension(40, 0.5, 5, 200, 8) == pytest.approx(16 * math.log(600))
    # many tokens: the pairs are capped by the co-occurrences, 200 x 7 = 1400
    assert cap.predicted_dimension(640, 0.5, 5, 200, 8) == pytest.approx(16 * math.log(2800))
    assert cap.predicted_dimension(640, 0.5, 5, 200, 8, failure=0.1) == pytest.approx(16 * math.log(14000))
    # at most one pair: the log's argument stays at 1 / failure
    assert cap.predicted_dimension(10, 0.5, 5, 200, 8) == pytest.approx(16 * math.log(2))


def test_protocol_names_its_settings_and_threshold():
    for part in ("n=200, T=8", "5 relevant tokens per class", "eta=80", "800 steps of length 1",
                 f">= {DIRECTION_COSINE:g}. Wilson", "for the ordering of the values"):  # fmt: skip
        assert part in cap.CAPACITY_PROTOCOL


SMALL = dict(cap.capacity_settings("fast"), n=40, T=4, n_relevant=2, steps=60)


def test_a_cell_with_room_reaches_the_direction_and_orders_the_values():
    ok, ratio, ordered = cap.cell_outcome(256, 12, 0, SMALL)
    assert ok and ordered
    assert ratio > 1, "a step of 80 at d = 256 is several eta*"
    _, ratio_small_d, _ = cap.cell_outcome(16, 12, 0, SMALL)
    assert ratio / ratio_small_d == pytest.approx(4.0, rel=1e-9), "eta / eta* grows like sqrt(d) at a fixed eta"


def test_a_cell_with_an_infeasible_program_fails(monkeypatch):
    def infeasible(*args, **kwargs):
        raise ValueError("infeasible")

    monkeypatch.setattr(cap, "solve_max_margin", infeasible)
    ok, ratio, ordered = cap.cell_outcome(256, 12, 0, SMALL)
    assert ok is False and ratio > 1 and ordered


def test_a_cell_succeeds_only_from_the_threshold(monkeypatch):
    class History:
        cosine = [0.3, 0.9]

    monkeypatch.setattr(cap, "train_cls", lambda *args, **kwargs: History())
    assert cap.cell_outcome(64, 12, 0, dict(SMALL, cosine_threshold=0.9))[0] is True
    assert cap.cell_outcome(64, 12, 0, dict(SMALL, cosine_threshold=0.9000001))[0] is False


def test_the_grid_averages_over_seeds_with_wilson_bounds(monkeypatch):
    calls = []

    def cell(d, V, seed, settings):
        calls.append((d, V, seed))
        return (d >= 32 and seed != 2), d / 8 + seed, V == 20 or seed == 0  # success, ratio, values ordered

    monkeypatch.setattr(cap, "cell_outcome", cell)
    settings = dict(SMALL, dims=[16, 32], vocab_sizes=[20, 40, 80], seeds=[0, 1, 2])
    tracked = []
    out = cap.run_capacity(settings, track=lambda items, total: tracked.append(total) or items)
    assert tracked == [18] and calls[:4] == [(16, 20, 0), (16, 20, 1), (16, 20, 2), (16, 40, 0)] and len(calls) == 18
    assert out["fraction"] == [[0.0, 0.0, 0.0], [2 / 3, 2 / 3, 2 / 3]]
    assert out["ci95_low"][1][0] == wilson_interval(2, 3)[0] and out["ci95_high"][0][2] == wilson_interval(0, 3)[1]
    # ratio: mean over seeds 0, 1, 2 of d / 8 + seed = d / 8 + 1
    assert out["eta_over_eta_star"] == [[pytest.approx(3.0)] * 3, [pytest.approx(5.0)] * 3]
    assert out["values_ordered_fraction"][0] == [pytest.approx(1.0), pytest.approx(1 / 3), pytest.approx(1 / 3)]
    signal = cap.value_signal(80.0, 2, 4)
    assert out["value_signal"] == signal
    assert out["predicted_dimension"] == [cap.predicted_dimension(V, signal, 2, 40, 4) for V in (20, 40, 80)]
