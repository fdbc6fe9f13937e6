"""The fixed-tau runs that break hypothesis 1, followed past the float64 floor: settings, which runs are followed,
what a followed run records, and the counts over them."""

from __future__ import annotations

import pytest

from token_selection.studies import STUDIES
from token_selection.studies import fixed_tau_past_floor as study
from token_selection.studies.fixed_tau import fixed_tau_settings
from token_selection.studies.fixed_tau_past_floor import (
    FIXED_TAU_PAST_FLOOR_PROTOCOL,
    RECORD,
    fixed_tau_past_floor_settings,
    run_fixed_tau_past_floor,
    summarise,
)
from token_selection.theory.thresholds import DIRECTION_COSINE


@pytest.mark.parametrize(("scale", "past"), [("fast", 200), ("full", 800)])
def test_the_settings_are_the_fixed_tau_study_s_with_the_arc_followed_past_the_floor(scale, past):
    settings = fixed_tau_past_floor_settings(scale)
    assert {k: v for k, v in settings.items() if k not in ("past_length", "every")} == fixed_tau_settings(scale)
    assert (settings["past_length"], settings["every"]) == (past, 100) and past % settings["every"] == 0


def test_the_study_is_registered_under_its_record_name():
    found = STUDIES[RECORD]
    assert found.settings is fixed_tau_past_floor_settings and found.run is run_fixed_tau_past_floor
    assert "hypothesis 1" in FIXED_TAU_PAST_FLOOR_PROTOCOL and "800" in FIXED_TAU_PAST_FLOOR_PROTOCOL


def _state(cos: float, classes: list[int], arc: int) -> dict:
    return {"cos": cos, "classes": classes, "arc": arc, "log_attention": [0.0, 0.0], "norm": 1.0, "log_gradient": 0.0}


def _run(reached: bool, cosines: list[float], last_classes: list[int]) -> dict:
    past = [_state(c, [1, -1], 100 * i) for i, c in enumerate(cosines)]
    past[-1]["classes"] = last_classes
    return {"seed": 0, "d": 64, "rows": 1, "floor": {"reached": reached, "cos": cosines[0]}, "past": past}


def test_the_counts_judge_every_state_past_the_floor_at_the_direction_bar():
    runs = [
        _run(True, [0.99, DIRECTION_COSINE, 0.97], [1, -1]),  # on the bar at one state: stays
        _run(True, [0.99, 0.999, 0.9499], [1]),  # below the bar at the last state, one class lost: leaves
        _run(True, [0.98, 0.90, 0.99], [-1, 1]),  # dips below and comes back: does not stay
        _run(False, [0.5, 0.4], [1]),  # missed at the floor: not counted among those that stay
    ]
    counts = summarise(runs, checked=10, threshold=DIRECTION_COSINE)["counts"]
    assert (counts["reached"]["passed"], counts["reached"]["trials"]) == (3, 4)
    assert (counts["stays"]["passed"], counts["stays"]["trials"]) == (1, 3)
    assert (counts["both_classes"]["passed"], counts["both_classes"]["trials"]) == (2, 4)
    assert summarise(runs, checked=10, threshold=DIRECTION_COSINE)["checked"] == 10


def test_no_run_breaking_hypothesis_1_gives_empty_counts_not_an_error():
    found = summarise([], checked=300, threshold=DIRECTION_COSINE)
    assert found["runs"] == [] and found["checked"] == 300
    assert found["counts"]["stays"] == {"passed": 0, "trials": 0, "ci95": None}


def test_checked_must_count_every_run_it_summarises():
    with pytest.raises(ValueError, match="checked"):
        summarise([_run(True, [0.99], [1, -1])] * 2, checked=1, threshold=DIRECTION_COSINE)


def _small(seeds: list[int]) -> dict:
    settings = fixed_tau_past_floor_settings("fast")
    return {**settings, "dimensions": [64], "seeds": seeds, "steps": 60, "past_length": 20, "every": 10}


def test_only_the_runs_that_break_hypothesis_1_are_followed(monkeypatch):
    breaks = {(0, 64): 0, (1, 64): 3, (2, 64): 0}
    followed = []
    monkeypatch.setattr(study, "hypothesis_1_breaks", lambda seed, d, settings: breaks[(seed, d)])

    def follow(seed: int, d: int, rows: int, settings: dict) -> dict:
        followed.append((seed, d, rows))
        return {"seed": seed, "d": d, "rows": rows, "floor": {"reached": False}, "past": [_state(0.1, [1], 0)]}

    monkeypatch.setattr(study, "follow_run", follow)
    found = run_fixed_tau_past_floor(_small([0, 1, 2]), jobs=1)
    assert followed == [(1, 64, 3)] and found["checked"] == 3
    assert [(run["seed"], run["rows"]) for run in found["runs"]] == [(1, 3)]


def test_a_followed_run_records_the_floor_and_every_state_past_it():
    settings = _small([0])
    run = study.follow_run(0, 64, 2, settings)
    assert (run["seed"], run["d"], run["rows"]) == (0, 64, 2)
    assert 0 < run["floor"]["arc"] <= settings["steps"] * settings["lr"] + 1e-9
    assert [state["arc"] for state in run["past"]] == [0, 10, 20]
    assert abs(run["past"][0]["cos"] - run["floor"]["cos"]) < 1e-9  # the trajectory starts where the floor run ended
    assert run["past"][-1]["norm"] > run["past"][0]["norm"] + 15  # 20 units of arc, nearly straight
    assert all(-1.0 <= state["cos"] <= 1.0 and set(state["classes"]) <= {1, -1} for state in run["past"])
