"""The adaptive solvers of the flow: both orders follow one curve, and a method outside ``SOLVERS`` is refused."""

from __future__ import annotations

import pytest
import torch

from token_selection.studies import flow_solvers as fl
from token_selection.studies.global_local import global_local_settings
from token_selection.studies.local_optima import global_local_case, start_point
from token_selection.theory.synthetic import make_synthetic


@pytest.fixture(scope="module")
def problem():
    s = global_local_settings("fast")
    data = make_synthetic(30, 5, 12, 0.0, seed=2)
    case = global_local_case(data.X, data.y, data.relevant, 16, 8.0, 1)
    return case.model.E.detach(), case.model.v.detach(), data.X, data.y, start_point(case, "random", 1), s


def test_both_solvers_follow_the_same_curve_and_a_fine_euler_run(problem):
    E, v, X, y, p0, _ = problem
    rk = fl.flow_ode(E, v, X, y, p0, length=2.0, rtol=1e-10, atol=1e-12, method="RK45")
    dop = fl.flow_ode(E, v, X, y, p0, length=2.0, rtol=1e-10, atol=1e-12, method="DOP853")
    assert rk["stop"] == dop["stop"] == "length" and rk["arc_length"] == dop["arc_length"] == 2.0
    assert torch.allclose(rk["p"], dop["p"], rtol=0, atol=1e-7)
    assert dop["evaluations"] > 0 and rk["evaluations"] > 0
    ends, taken = fl.flow_batch(E[None], v[None], X[None], y[None], p0[None], steps=4000, lr=2.0 / 4000)
    assert int(taken[0]) == 4000
    assert float((ends[0] - dop["p"]).norm()) < 1e-2  # Euler's first-order error at step 5e-4 over arc length 2
    assert float((dop["p"] - p0).norm()) > 1.0  # it moved: the arc is not a trivial one


def test_an_unknown_method_is_refused_naming_the_allowed_ones(problem):
    E, v, X, y, p0, _ = problem
    with pytest.raises(ValueError, match=r"method must be one of \('RK45', 'DOP853'\), got 'Radau'"):
        fl.flow_ode(E, v, X, y, p0, length=1.0, rtol=1e-6, atol=1e-8, method="Radau")
    assert fl.SOLVERS == ("RK45", "DOP853")
