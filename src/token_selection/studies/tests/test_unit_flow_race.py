"""One seed's race both ways: which seed parts, where each way records, the first unit step against the flow, and the
arguments refused."""

from __future__ import annotations

import numpy as np
import pytest

from token_selection.studies.local_optima import initial_lean
from token_selection.studies.unit_flow_race import WAYS, parting_seed, races_both_ways
from token_selection.theory.synthetic import ReferenceCase


@pytest.mark.parametrize(
    ("unit", "flow", "seed"),
    [
        ([True, True, False, True], [True, False, False, True], 1),  # both reach, then the parting seed
        ([False, True, True], [True, True, False], 2),  # the flow reaching where unit steps miss is not a parting
        ([True], [False], 0),
    ],
)
def test_the_parting_seed_is_the_first_that_unit_steps_reach_and_the_flow_misses(unit, flow, seed):
    assert parting_seed(unit, flow) == seed


def test_no_parting_seed_and_uneven_verdicts_are_refused():
    with pytest.raises(ValueError, match="no seed of the 3"):
        parting_seed([True, False, True], [True, False, True])
    with pytest.raises(ValueError, match="got 3 and 2"):
        parting_seed([True, True, True], [True, False])


@pytest.fixture(scope="module")
def short_races():
    return races_both_ways(4, 3, marks=3)


def test_each_way_records_where_it_says(short_races):
    assert tuple(short_races) == WAYS
    assert short_races["unit steps"]["step"].tolist() == [0, 1, 3]  # geomspace(1, 3, 3) -> 1, 1.7, 3, as whole steps
    assert short_races["the flow"]["step"].tolist() == [0, 1, 2, 3]
    for race in short_races.values():
        assert race["lean"][0] == 0  # p = 0 has no direction
        assert race["worst +1"][0] == race["worst -1"][0] == pytest.approx(1 / 8)  # uniform attention over T = 8


def test_a_first_unit_step_follows_the_first_gradient_and_the_flow_bends_past_it(short_races):
    data, model = ReferenceCase(seed=4).build()
    lean = initial_lean(model, data.X, data.y)
    unit, flow = short_races["unit steps"], short_races["the flow"]
    assert unit["lean"][1] == pytest.approx(lean, abs=1e-9)
    assert abs(flow["lean"][1]) > abs(unit["lean"][1]) + 0.2  # seed 4: 0.71 against 0.32
    assert np.sign(flow["lean"][1]) == np.sign(lean)


def test_the_flow_does_not_depend_on_the_tolerance_beyond_it(short_races):
    finer = races_both_ways(4, 1, marks=2, rtol=1e-9, atol=1e-11)["the flow"]
    assert finer["lean"][1] == pytest.approx(short_races["the flow"]["lean"][1], abs=1e-4)
    assert finer["lean"][1] != short_races["the flow"]["lean"][1]  # the tolerance reaches the solver


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"seed": -1, "arc": 3}, "seed"),
        ({"seed": True, "arc": 3}, "seed"),
        ({"seed": 1.5, "arc": 3}, "seed"),
        ({"seed": 0, "arc": 0}, "arc"),
        ({"seed": 0, "arc": 2.5}, "arc"),
        ({"seed": 0, "arc": 3, "marks": 1}, "marks"),
        ({"seed": 0, "arc": 3, "marks": False}, "marks"),
        ({"seed": 0, "arc": 3, "marks": 2.5}, "marks"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, named):
    with pytest.raises(ValueError, match=f"^{named} must be"):
        races_both_ways(**kwargs)


def test_a_boundary_seed_and_arc_are_accepted():
    races = races_both_ways(0, 1, marks=2)
    assert races["unit steps"]["step"].tolist() == [0, 1]
    assert races["the flow"]["step"].tolist() == [0, 1]
