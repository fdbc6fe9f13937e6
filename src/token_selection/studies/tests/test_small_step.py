"""The flow sweep of the reference case at smaller steps on E: its settings, hypothesis 1 per seed, and the counts of
misses with and without it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from token_selection.studies import STUDIES
from token_selection.studies.flow_seed_sweep import flow_sweep_settings, reference_case
from token_selection.studies.small_step import (
    RECORD,
    SMALL_STEP_PROTOCOL,
    TAUS,
    hypothesis_1_breaks,
    keeps_hypothesis_1,
    misses_by_hypothesis,
    run_small_step,
    small_step_settings,
)

OWN = ("dimensions", "taus", "refinements", "solvers", "step_rule")


@pytest.mark.parametrize(("scale", "seeds"), [("fast", 5), ("full", 100)])
def test_the_settings_are_the_sweep_s_at_the_reference_d_and_two_smaller_steps(scale, seeds):
    settings = small_step_settings(scale)
    assert settings["dimensions"] == [512] and settings["seeds"] == list(range(seeds)) and "length" not in settings
    assert (settings["taus"], settings["step_rule"], settings["refinements"], settings["solvers"]) == (
        [4.0, 8.0],
        "tau",
        [1],
        ["DOP853"],
    )
    base = flow_sweep_settings(scale)
    assert {k: v for k, v in settings.items() if k not in OWN} == {k: v for k, v in base.items() if k not in OWN}
    assert TAUS == (4.0, 8.0)


def test_the_study_is_registered_under_its_record_name():
    study = STUDIES[RECORD]
    assert study.settings is small_step_settings and study.run is run_small_step
    assert "tau = 4 and 8" in SMALL_STEP_PROTOCOL and "hypothesis 1" in SMALL_STEP_PROTOCOL


def _gaps(seed: int, tau: float):
    data, model = reference_case(seed, 512, {"step_rule": "tau", "tau": tau}).build()
    values = model.token_values().detach()[data.X]
    own = values[data.relevant]  # one relevant position per sequence, in row order
    return data.y.double()[:, None] * (own[:, None] - values), data.relevant


@pytest.mark.parametrize(("seed", "tau"), [(0, 4.0), (1, 4.0), (1, 8.0), (2, 15.0)])
def test_hypothesis_1_holds_exactly_when_every_other_position_scores_a_smaller_signed_value(seed, tau):
    gaps, relevant = _gaps(seed, tau)
    assert keeps_hypothesis_1(seed, 512, {"step_rule": "tau", "tau": tau}) == bool(gaps[~relevant].min() > 0)
    worst = gaps.masked_fill(relevant, float("inf")).amin(1)  # each sequence's smallest gap to another position
    assert hypothesis_1_breaks(seed, 512, {"step_rule": "tau", "tau": tau}) == int((worst <= 0).sum())


def test_a_small_step_breaks_hypothesis_1_on_some_seed_that_a_larger_one_keeps():
    # seed 1 of the fast record: at 4 eta* some sequence's relevant token is not its best, at 8 eta* every one is
    assert not keeps_hypothesis_1(1, 512, {"step_rule": "tau", "tau": 4.0})
    assert keeps_hypothesis_1(1, 512, {"step_rule": "tau", "tau": 8.0})


def test_run_adds_hypothesis_1_per_seed_to_every_tau_and_dimension(monkeypatch):
    import token_selection.studies.small_step as module

    passed = []

    def sweep(settings, track, jobs):
        passed.append((track, jobs))
        return {
            "taus": settings["taus"],
            **{f"tau{t:g}": {f"d{d}": {"dop853": {}} for d in settings["dimensions"]} for t in settings["taus"]},
        }

    monkeypatch.setattr(module, "run_long_sequences", sweep)
    monkeypatch.setattr(module, "keeps_hypothesis_1", lambda seed, d, s: (seed + int(s["tau"]) + d // 256) % 3 == 0)
    settings = {**small_step_settings("fast"), "taus": [4.0, 8.0], "seeds": [0, 1, 2, 5], "dimensions": [512, 256]}
    track = object()
    metrics = run_small_step(settings, track, 3)
    assert passed == [(track, 3)]
    assert metrics["tau4"]["d512"]["hypothesis_1"] == [True, False, False, False]
    assert metrics["tau4"]["d256"]["hypothesis_1"] == [False, True, False, False]
    assert metrics["tau8"]["d512"]["hypothesis_1"] == [False, False, True, True]


class _Model:
    def __init__(self, values):
        self._values = torch.tensor(values, dtype=torch.float64)

    def token_values(self):
        return self._values


def _case(values, X, y, relevant):
    data = SimpleNamespace(X=torch.tensor(X), y=torch.tensor(y), relevant=torch.tensor(relevant))
    return SimpleNamespace(build=lambda: (data, _Model(values)))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1.0, -1.0, 0.5, 0.0, -0.5], True),  # each relevant token above the others of its sequence, by its label
        ([1.0, -1.0, 1.0, 0.0, -0.5], False),  # a tie with an irrelevant token is not "best"
        ([1.0, -1.0, 1.5, 0.0, -0.5], False),  # an irrelevant token above the positive relevant one
        ([1.0, -1.0, 0.5, 0.0, -1.5], False),  # an irrelevant token below the negative relevant one
        ([1.0, -1.0, -2.0, 0.0, -0.5], True),  # far below the positive one: still its best, whatever the sum
    ],
)
def test_hypothesis_1_on_a_hand_made_case(monkeypatch, values, expected):
    import token_selection.studies.small_step as module

    # two sequences of three tokens: (0, 2, 3), label +1, relevant token 0; (1, 4, 3), label -1, relevant token 1
    case = _case(values, [[0, 2, 3], [1, 4, 3]], [1, -1], [[True, False, False], [True, False, False]])
    monkeypatch.setattr(module, "reference_case", lambda seed, d, settings: case)
    assert keeps_hypothesis_1(0, 512, {}) is expected


def test_the_breaks_are_counted_per_sequence(monkeypatch):
    import token_selection.studies.small_step as module

    # the two sequences of the hand-made case: the first broken alone, then both (an irrelevant token above each)
    for values, broken in (([1.0, -1.0, 1.5, 0.0, -0.5], 1), ([1.0, -1.0, 1.5, 0.0, -1.5], 2), ([1.0, -1.0, 0.5, 0.0, -0.5], 0)):
        case = _case(values, [[0, 2, 3], [1, 4, 3]], [1, -1], [[True, False, False], [True, False, False]])
        monkeypatch.setattr(module, "reference_case", lambda seed, d, settings, case=case: case)
        assert hypothesis_1_breaks(0, 512, {}) == broken


def test_the_misses_are_split_by_hypothesis_1_per_tau_and_dimension_in_order():
    def entry(reached, h1):
        return {"dop853": {"reached": reached}, "euler_1": {"reached": [True] * len(reached)}, "hypothesis_1": h1}

    metrics = {
        "taus": [8.0, 4.0],
        "tau8": {
            "discretisations": ["euler_1", "dop853"],  # a sweep's own key, not a dimension
            "d1000": entry([True, False], [True, True]),
            "d8": entry([False, False, True], [True, False, False]),
        },
        "tau4": {"d512": entry([True, True, False, False, False], [True, False, True, False, False])},
    }
    counts = misses_by_hypothesis(metrics)
    assert list(counts) == [8.0, 4.0] and list(counts[8.0]) == [8, 1000]
    assert counts[8.0][8] == {"trials": 3, "reached": 1, "missed with hypothesis 1": 1, "missed without it": 1,
                              "without hypothesis 1": 2}  # fmt: skip
    assert counts[8.0][1000] == {"trials": 2, "reached": 1, "missed with hypothesis 1": 1, "missed without it": 0,
                                 "without hypothesis 1": 0}  # fmt: skip
    # reached without hypothesis 1 (seed 1) is no miss; missed without it: seeds 3 and 4
    assert counts[4.0][512]["missed with hypothesis 1"] == 1 and counts[4.0][512]["missed without it"] == 2
    assert misses_by_hypothesis(metrics, "euler_1")[4.0][512]["reached"] == 5


def test_a_record_whose_seeds_and_verdicts_disagree_in_length_is_refused():
    metrics = {"taus": [4.0], "tau4": {"d512": {"dop853": {"reached": [True, False]}, "hypothesis_1": [True]}}}
    with pytest.raises(ValueError, match="zip"):
        misses_by_hypothesis(metrics)
