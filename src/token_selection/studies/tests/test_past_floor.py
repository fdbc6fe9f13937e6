"""Past the float64 floor: the log-domain direction against float64 where float64 is exact and against 300-digit
arithmetic where it is not; a run's state; the continued runs and their counts."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from token_selection.studies import past_floor as pf
from token_selection.studies.flow_solvers import _gradient
from token_selection.studies.intervals import wilson_interval


def _problem(seed: int = 0, V: int = 7, d: int = 5, n: int = 6, T: int = 4):
    rng = np.random.default_rng(seed)
    E, v = rng.normal(size=(V, d)), rng.normal(size=d)
    X = rng.integers(0, V, size=(n, T))
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0][:n])  # unbalanced: four positive, two negative
    return E, v, X, y, (E @ v)[X]


def test_the_direction_is_float64s_where_float64_is_exact():
    E, v, X, y, values = _problem()
    p = np.random.default_rng(1).normal(size=5)
    grad, _ = _gradient(E, values, np.linalg.norm(E, axis=1), X, y, p)
    direction, log_size, log_q = pf.log_direction(E, values, X, y, p)
    assert direction.shape == (5,) and np.linalg.norm(direction) == pytest.approx(1.0)
    assert np.allclose(direction, -grad / np.linalg.norm(grad), atol=1e-12)
    assert log_size == pytest.approx(np.log(np.linalg.norm(grad)), abs=1e-12)
    assert np.allclose(np.exp(log_q).sum(axis=1), 1.0)


def _exact_gradient(E, values, X, y, p, digits=300):
    """grad_p L by the textbook formula in ``digits``-digit arithmetic: (d,) mpf."""
    mpmath.mp.dps = digits
    n, T = X.shape
    Em = [[mpmath.mpf(float(x)) for x in row] for row in E]
    pm = [mpmath.mpf(float(x)) for x in p]
    grad = [mpmath.mpf(0)] * len(pm)
    for j in range(n):
        scores = [mpmath.fsum(a * b for a, b in zip(Em[X[j, i]], pm, strict=True)) for i in range(T)]
        top = max(scores)
        w = [mpmath.exp(s - top) for s in scores]
        q = [x / mpmath.fsum(w) for x in w]
        u = [mpmath.mpf(float(x)) for x in values[j]]
        f = mpmath.fsum(a * b for a, b in zip(q, u, strict=True))
        dloss = -mpmath.mpf(float(y[j])) / (1 + mpmath.exp(mpmath.mpf(float(y[j])) * f)) / n
        for i in range(T):
            c = dloss * q[i] * (u[i] - f)
            grad = [g + c * e for g, e in zip(grad, Em[X[j, i]], strict=True)]
    return grad


def test_the_direction_holds_far_past_the_floor_against_300_digits():
    import torch

    from token_selection.studies.flow_solvers import flow_batch
    from token_selection.theory.synthetic import ReferenceCase

    data, model = ReferenceCase(seed=1, d=24).build()
    E_t, v_t = model.E.detach(), model.v.detach()
    floor, _ = flow_batch(E_t[None], v_t[None], data.X[None], data.y[None], torch.zeros(1, 24, dtype=torch.float64),
                          steps=2000, lr=1.0)  # fmt: skip
    E, X, y = E_t.numpy(), data.X[:40].numpy(), data.y[:40].double().numpy()  # 40 sequences: 300 digits stay quick
    values = (E @ v_t.numpy())[X]
    p = pf.continue_run(E, values, X, y, floor[0].numpy(), 600)
    direction, log_size, log_q = pf.log_direction(E, values, X, y, p)
    grad64, noise = _gradient(E, values, np.linalg.norm(E, axis=1), X, y, p)
    exact = _exact_gradient(E, values, X, y, p)
    size = mpmath.sqrt(mpmath.fsum(g * g for g in exact))
    assert float(mpmath.log(size)) < -60, "the case is far past float64's floor"
    assert np.linalg.norm(grad64) < 100 * noise, "where float64's own gradient is rounding error"
    assert log_size == pytest.approx(float(mpmath.log(size)), rel=1e-9)
    assert np.allclose(direction, [float(-g / size) for g in exact], atol=1e-9)


def test_a_zero_gradient_is_refused():
    E, v, X, y, _ = _problem()
    with pytest.raises(ValueError, match="exactly zero"):
        pf.log_direction(E, np.ones(X.shape), X, y, np.zeros(5))


def test_relevant_attention_and_the_state_of_a_run():
    log_q = np.log(np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]]))
    relevant = np.array([[True, False, True], [False, False, True]])
    assert np.allclose(pf.log_relevant_attention(log_q, relevant), np.log([0.75, 0.8]))
    E, v, X, y, values = _problem(seed=3)
    relevant = np.zeros(X.shape, dtype=bool)
    relevant[:, 0] = True
    target = np.ones(5)
    at = pf.state(E, values, X, y, relevant, np.zeros(5), target, 0.99)
    assert at["norm"] == 0 and at["cos"] == 0.0
    assert at["log_attention"] == pytest.approx([np.log(0.25)] * 2) and at["classes"] == []
    scale = 50.0
    p = scale * np.linalg.lstsq(E, np.where(np.arange(7) == X[0, 0], 1.0, 0.0), rcond=None)[0]
    at = pf.state(E, values, X, y, relevant, p, target, 0.99)
    assert at["norm"] == pytest.approx(np.linalg.norm(p)) and at["cos"] == pytest.approx(p.sum() / at["norm"] / 5**0.5)


def test_continue_run_takes_steps_of_its_length():
    E, v, X, y, values = _problem(seed=4)
    p0 = np.random.default_rng(5).normal(size=5)
    one = pf.continue_run(E, values, X, y, p0, 1)
    assert np.linalg.norm(one - p0) == pytest.approx(1.0)
    assert np.allclose(one, p0 + pf.log_direction(E, values, X, y, p0)[0])
    assert np.linalg.norm(pf.continue_run(E, values, X, y, p0, 1, lr=0.25) - p0) == pytest.approx(0.25)
    assert np.array_equal(pf.continue_run(E, values, X, y, p0, 0), p0)
    assert np.linalg.norm(pf.continue_run(E, values, X, y, p0, 30) - p0) <= 30 + 1e-9


def test_the_flow_past_the_floor_is_the_limit_of_ever_shorter_steps():
    E, v, X, y, values = _problem(seed=4)
    p0 = np.random.default_rng(5).normal(size=5)
    points, evaluations = pf.continue_flow(E, values, X, y, p0, 3.0, rtol=1e-9, atol=1e-11, points=4)
    assert points.shape == (4, 5) and np.array_equal(points[0], p0) and evaluations > 10
    fine = pf.continue_run(E, values, X, y, p0, 3000, lr=0.001)
    coarse = pf.continue_run(E, values, X, y, p0, 30, lr=0.1)
    assert np.linalg.norm(points[-1] - fine) < 0.01 < np.linalg.norm(points[-1] - coarse) * 10
    assert np.linalg.norm(points[-1] - fine) < np.linalg.norm(points[-1] - coarse)
    halfway = pf.continue_flow(E, values, X, y, p0, 1.0, rtol=1e-9, atol=1e-11)[0][-1]
    assert np.allclose(points[1], halfway, atol=1e-6), "the points are at arc lengths 0, 1, 2, 3"
    with pytest.raises(ValueError, match="length > 0 and points >= 2.*length = 0"):
        pf.continue_flow(E, values, X, y, p0, 0.0, rtol=1e-6, atol=1e-8)


def test_settings_per_scale_and_bad_scale():
    fast, full = pf.past_floor_settings("fast"), pf.past_floor_settings("full")
    assert fast["d"] == full["d"] == 512 and full["seeds"] == list(range(100)) and fast["seeds"] == list(range(4))
    assert full["past_length"] == 1500 > fast["past_length"] == 150 and full["steps"] == 5000
    assert full["ode"] == {"rtol": 1e-8, "atol": 1e-10} and fast["ode"] == {"rtol": 1e-6, "atol": 1e-8}
    assert full["cosine_threshold"] == pf.DIRECTION_COSINE and full["selected_attention"] == pf.SELECTED_ATTENTION
    with pytest.raises(ValueError, match="'fast' or 'full'.*'half'"):
        pf.past_floor_settings("half")


def test_run_seed_continues_a_one_sided_and_a_reaching_end():
    settings = pf.past_floor_settings("fast") | {"past_length": 150}
    missing, reaching = pf.run_seed(1, settings), pf.run_seed(0, settings)
    for way in pf.WAYS:
        floor, past = missing[way]["floor"], missing[way]["past"]
        assert floor["classes"] == past["classes"] == [1] and missing[way]["kept"]
        assert past["log_attention"][1] < floor["log_attention"][1] - 50, "the missed class falls further"
        assert 150 - 1e-6 >= past["norm"] - floor["norm"] > 50
        assert (missing[way]["evaluations"] > 150) == (way == "rk45"), "the flow evaluates often; unit steps: 0"
        assert missing[way]["rate"] == pytest.approx(
            (floor["log_gradient"] - past["log_gradient"]) / (past["norm"] - floor["norm"])
        )
        assert reaching[way]["floor"]["classes"] == [1, -1] and reaching[way]["kept"]
        assert reaching[way]["past"]["cos"] > reaching[way]["floor"]["cos"] > 0.95
        assert reaching[way]["rate"] > missing[way]["rate"] > 0, "the loss falls faster along p_mm"


def _way(classes_floor, classes_past, floor_att, past_att):
    return {"floor": {"classes": classes_floor, "log_attention": floor_att},
            "past": {"classes": classes_past, "log_attention": past_att},
            "kept": classes_floor == classes_past, "rate": 0.1}  # fmt: skip


def test_summarise_counts_kept_ends_and_falling_attention():
    per_seed = [
        {"euler_1": _way([1], [1], [0.0, -200.0], [0.0, -400.0]), "rk45": _way([1, -1], [1, -1], [0.0, 0.0], [0.0, 0.0])},
        {"euler_1": _way([-1], [-1], [-90.0, -5.0], [-80.0, -9.0]), "rk45": _way([-1], [1, -1], [-90.0, 0.0], [0.0, 0.0])},
        {"euler_1": _way([1, -1], [1, -1], [0.0, 0.0], [0.0, 0.0]), "rk45": _way([1], [1], [0.0, -5.0], [0.0, -9.0])},
    ]
    out = pf.summarise(per_seed, [3, 8, 12])
    assert out["euler_1"]["one_sided_seeds"] == [3, 8] and out["rk45"]["one_sided_seeds"] == [8, 12]
    assert out["euler_1"]["counts"]["kept"]["passed"] == 3 and out["rk45"]["counts"]["kept"]["passed"] == 2
    assert out["euler_1"]["counts"]["fell"] == {"passed": 1, "trials": 2, "ci95": list(wilson_interval(1, 2))}, (
        "seed 8 selects the negative class: its missed class is the positive one, which rose"
    )
    assert out["rk45"]["counts"]["fell"]["passed"] == 1 and len(out["rk45"]["runs"]) == 3
    with pytest.raises(ValueError, match="3 runs for 2 seeds"):
        pf.summarise(per_seed, [3, 8])


def test_run_in_processes_equals_run_in_one():
    settings = pf.past_floor_settings("fast") | {"d": 64, "seeds": [0, 1], "steps": 300, "past_length": 20}
    one, two = pf.run_past_floor(settings, jobs=1), pf.run_past_floor(settings, jobs=2)
    assert one == two and one["ways"] == ["euler_1", "rk45"] and set(one) == {"ways", "euler_1", "rk45"}
    assert one["rk45"]["runs"][1] == pf.run_seed(1, settings)["rk45"]


def test_trajectory_records_every_stretch_either_way():
    E, v, X, y, values = _problem(seed=6)
    relevant = np.zeros(X.shape, dtype=bool)
    relevant[:, 1] = True
    p0 = np.random.default_rng(7).normal(size=5)
    steps = pf.trajectory(E, values, X, y, relevant, p0, np.ones(5), length=30, every=10, way="euler_1")
    assert [s["arc"] for s in steps] == [0, 10, 20, 30]
    assert steps[-1]["norm"] == pytest.approx(np.linalg.norm(pf.continue_run(E, values, X, y, p0, 30)))
    assert steps[0] == pf.state(E, values, X, y, relevant, p0, np.ones(5), pf.SELECTED_ATTENTION) | {"arc": 0}
    ode = {"rtol": 1e-8, "atol": 1e-10}
    flow = pf.trajectory(E, values, X, y, relevant, p0, np.ones(5), length=20, every=10, way="rk45", ode=ode)
    end = pf.continue_flow(E, values, X, y, p0, 20.0, **ode)[0][-1]
    assert [s["arc"] for s in flow] == [0, 10, 20] and flow[-1]["norm"] == pytest.approx(np.linalg.norm(end), rel=1e-6)
    assert pf.trajectory(E, values, X, y, relevant, p0, np.ones(5), length=10, every=10)[-1]["norm"] == pytest.approx(
        np.linalg.norm(pf.continue_flow(E, values, X, y, p0, 10.0, rtol=1e-6, atol=1e-8)[0][-1])
    ), "the flow by default, at 1e-6 and 1e-8"
    ones = pf.trajectory(E, values, X, y, relevant, p0, np.ones(5), length=2, every=1, way="euler_1")
    assert [s["arc"] for s in ones] == [0, 1, 2] and ones[-1]["norm"] == pytest.approx(steps[0]["norm"], abs=2.0)
    for length, every in ((25, 10), (0, 3), (5, 0)):
        with pytest.raises(ValueError, match="multiple"):
            pf.trajectory(E, values, X, y, relevant, p0, np.ones(5), length=length, every=every)
    with pytest.raises(ValueError, match=r"way must be one of \('euler_1', 'rk45'\), got 'rk4'"):
        pf.trajectory(E, values, X, y, relevant, p0, np.ones(5), length=10, every=10, way="rk4")


def test_trajectory_names_the_argument_that_does_not_fit():
    E, v, X, y, values = _problem(seed=6)
    relevant = np.zeros(X.shape, dtype=bool)
    p0, target = np.zeros(5), np.ones(5)
    bad = {
        "values": {"values": values[:, :2]},
        "X": {"X": X + 7},
        "y": {"y": np.where(y > 0, 1.0, 0.0)},
        "relevant": {"relevant": relevant.astype(int)},
        "p": {"p": np.zeros(4)},
        "target": {"target": np.ones(6)},
    }
    args = {"E": E, "values": values, "X": X, "y": y, "relevant": relevant, "p": p0, "target": target}
    for name, change in bad.items():
        with pytest.raises(ValueError, match=rf"^{name} (must have|holds token ids)"):
            pf.trajectory(**(args | change), length=1, every=1)
    assert len(pf.trajectory(**args, length=1, every=1, way="euler_1")) == 2


def _count(passed: int, trials: int) -> dict:
    return {"passed": passed, "trials": trials, "ci95": list(wilson_interval(passed, trials))}


def test_counts_not_whole_names_each_way_and_count_that_falls_short():
    metrics = {
        "ways": ["euler_1", "rk45"],
        "euler_1": {"counts": {"kept": _count(10, 10), "fell": _count(2, 3)}},
        "rk45": {"counts": {"kept": _count(9, 10), "fell": _count(4, 4)}},
    }
    assert pf.counts_not_whole(metrics) == [("euler_1", "fell"), ("rk45", "kept")]
    assert pf.counts_not_whole(metrics, ("kept",)) == [("rk45", "kept")]
    assert pf.counts_not_whole(metrics, ("fell",)) == [("euler_1", "fell")]
    metrics["rk45"]["counts"]["kept"] = _count(10, 10)
    metrics["euler_1"]["counts"]["fell"] = _count(3, 3)
    assert pf.counts_not_whole(metrics) == []
    with pytest.raises(ValueError, match="'rose'"):
        pf.counts_not_whole(metrics, ("kept", "rose"))
