"""The flow of p against its discretisation: the integrators, the judgement of a run, the record's reading."""

from __future__ import annotations

import copy

import pytest
import torch

from token_selection.results import RECORDS_VARIABLE, write_record
from token_selection.studies import flow_discretisation as fd
from token_selection.studies.global_local import global_local_settings
from token_selection.studies.local_optima import classify_endpoint, global_local_case, run_start, start_point
from token_selection.theory.model import CLSAttention
from token_selection.theory.synthetic import ReferenceCase, make_synthetic
from token_selection.theory.thresholds import DIRECTION_COSINE, SELECTED_ATTENTION
from token_selection.theory.training import train_cls


@pytest.fixture(scope="module")
def tiny():
    """A small Assumption-1 case after a step of 8 eta*: data, two seeds' cases and their random starts."""
    data = make_synthetic(24, 4, 12, 0.0, seed=0)
    cases = [global_local_case(data.X, data.y, data.relevant, 16, 8.0, seed) for seed in (0, 1)]
    p0 = torch.stack([start_point(c, "random", seed) for seed, c in enumerate(cases)])
    E = torch.stack([c.model.E.detach() for c in cases])
    v = torch.stack([c.model.v.detach() for c in cases])
    X, y = data.X.expand(2, *data.X.shape), data.y.expand(2, *data.y.shape)
    return data, cases, E, v, X, y, p0


def test_settings_per_scale_follow_the_chapters():
    fast, full = fd.flow_settings("fast"), fd.flow_settings("full")
    for scale, settings in (("fast", fast), ("full", full)):
        sweep = global_local_settings(scale)
        assert settings["ch10"] == {k: sweep[k] for k in settings["ch10"]}
        assert settings["ch4"] == {"seeds": list(range(20)), "steps": 5000, "lr": 1.0}
        assert settings["refinements"][0] == 1 and settings["refinements"][-1] >= 10
        assert set(sweep["seeds"]) | set(range(20)) == set(settings["seeds"])
        assert settings["cosine_threshold"] == DIRECTION_COSINE
        assert settings["selected_attention"] == SELECTED_ATTENTION
    assert full["ch10"]["eta_ratios"] == [4.0, 8.0, 16.0, 32.0, 64.0] and full["ode"]["rtol"] < fast["ode"]["rtol"]
    assert fd.discretisations(full) == ["euler_1", "euler_10", "rk45"]
    with pytest.raises(ValueError, match="scale must be 'fast' or 'full', got 'Full'"):
        fd.flow_settings("Full")


def test_the_batch_at_the_chapters_step_repeats_train_cls(tiny):
    data, cases, E, v, X, y, p0 = tiny
    ends, taken = fd.flow_batch(E, v, X, y, p0, steps=300, lr=0.3)
    for b, case in enumerate(cases):
        model = CLSAttention(12, 16, dtype=torch.float64)
        model.load_state_dict(case.model.state_dict())
        model.p.data.copy_(p0[b])
        history = train_cls(model, data.X, data.y, steps=300, lr=0.3, method="normalized", log_points=2)
        assert int(taken[b]) == history.step[-1]
        assert torch.allclose(ends[b], model.p.detach(), rtol=0, atol=1e-8)
        ours = {name: float(ends[b] @ d / ends[b].norm()) for name, d in case.directions.items()}
        assert classify_endpoint(ours, DIRECTION_COSINE) == classify_endpoint(
            run_start(case, data.X, data.y, p0[b], steps=300, lr=0.3), DIRECTION_COSINE
        )


def test_shorter_steps_converge_to_the_adaptive_solution_at_first_order(tiny):
    _, _, E, v, X, y, p0 = tiny
    exact = [fd.flow_ode(E[b], v[b], X[b], y[b], p0[b], length=1.0, rtol=1e-11, atol=1e-13)["p"] for b in range(2)]
    errors = []
    for k in (1, 10, 100):
        ends, taken = fd.flow_batch(E, v, X, y, p0, steps=20 * k, lr=0.05 / k)
        assert taken.tolist() == [20 * k, 20 * k]  # the same arc length, no early stop
        errors.append(max(float((ends[b] - exact[b]).norm()) for b in range(2)))
    assert errors[0] > 1e-3, "the coarse step should be visibly off the flow here"
    assert 7 < errors[0] / errors[1] < 14 and 7 < errors[1] / errors[2] < 14, errors  # about 10: Euler's order 1


def test_rows_of_a_batch_are_independent_and_stop_on_their_own(tiny):
    _, _, E, v, X, y, p0 = tiny
    both, _ = fd.flow_batch(E, v, X, y, p0, steps=40, lr=0.3)
    for b in range(2):
        alone, _ = fd.flow_batch(E[b : b + 1], v[b : b + 1], X[b : b + 1], y[b : b + 1], p0[b : b + 1], steps=40, lr=0.3)
        assert torch.allclose(alone[0], both[b], rtol=0, atol=1e-12)
    far = p0.clone()
    far[0] = 1e4 * p0[0] / p0[0].norm() + 1e5 * (E[0, 0] - E[0, 1])  # scores far apart: at the floor at once
    ends, taken = fd.flow_batch(E, v, X, y, far, steps=40, lr=0.3, rounding_factor=1e30)
    assert taken.tolist() == [0, 0] and torch.equal(ends, far)
    ends, taken = fd.flow_batch(E, v, X, y, p0, steps=0, lr=0.3)
    assert taken.tolist() == [0, 0] and torch.equal(ends, p0)
    solved = fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=5.0, rtol=1e-6, atol=1e-8, rounding_factor=1e30)
    assert solved["arc_length"] == 0.0 and solved["evaluations"] == 0 and torch.equal(solved["p"], p0[0])
    assert solved["stop"] == "floor"
    short = fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=0.5, rtol=1e-6, atol=1e-8)
    assert short["stop"] == "length" and short["arc_length"] == pytest.approx(0.5)
    capped = fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=50.0, rtol=1e-10, atol=1e-12, max_evaluations=30)
    assert capped["stop"] == "budget" and 30 < capped["evaluations"] <= 36 and capped["arc_length"] < 50


def test_bad_input_is_named(tiny):
    _, _, E, v, X, y, p0 = tiny
    with pytest.raises(ValueError, match=r"E must have shape \(B, V, d\)"):
        fd.flow_batch(E[0], v, X, y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match="v and p0 must have shape"):
        fd.flow_batch(E, v[:, :3], X, y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"X must have shape \(B, n, T\)"):
        fd.flow_batch(E, v, X[0], y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"X must hold int64 token ids in \[0, 12\)"):
        fd.flow_batch(E, v, X + 12, y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"y must hold labels -1 and \+1 only"):
        fd.flow_batch(E, v, X, y * 0, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match="steps must be an integer >= 0, got -1"):
        fd.flow_batch(E, v, X, y, p0, steps=-1, lr=0.1)
    for lr in (0.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="lr must be a finite number > 0"):
            fd.flow_batch(E, v, X, y, p0, steps=1, lr=lr)
    with pytest.raises(ValueError, match="length, rtol and atol must be > 0"):
        fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=1.0, rtol=0.0, atol=1e-8)
    with pytest.raises(ValueError, match=r"E must be \(V, d\), v and p0 \(d,\)"):
        fd.flow_ode(E[0], v[0], X[0], y[0], p0[0, :3], length=1.0, rtol=1e-6, atol=1e-8)


def test_a_run_is_judged_at_the_boundaries_of_both_thresholds():
    y = torch.tensor([1, 1, -1, -1])
    above, at = SELECTED_ATTENTION + 1e-9, SELECTED_ATTENTION
    judge = lambda cos, mass: fd.judge_run(cos, torch.tensor(mass, dtype=torch.float64), y, DIRECTION_COSINE, SELECTED_ATTENTION)  # noqa: E731
    assert judge(DIRECTION_COSINE, [above] * 4) == {"reached": True, "selects": True, "one_class": True}
    assert judge(DIRECTION_COSINE - 1e-12, [above] * 4)["reached"] is False
    assert judge(1.0, [above, above, above, at]) == {"reached": False, "selects": False, "one_class": True}
    assert judge(1.0, [at, above, above, 0.2]) == {"reached": False, "selects": False, "one_class": False}
    with pytest.raises(ValueError, match=r"mass and y must be \(n,\) of one shape"):
        fd.judge_run(1.0, torch.ones(3), y, DIRECTION_COSINE, SELECTED_ATTENTION)


def _tiny_settings() -> dict:
    settings = fd.flow_settings("fast")
    settings["ch10"] = dict(settings["ch10"], n=24, T=4, vocab_size=12, d=16, eta_ratios=[8.0], seeds=[0, 1], steps=40)
    settings["ch4"] = {"seeds": [0, 1], "steps": 30, "lr": 1.0}
    return settings


def test_the_runners_compare_coarse_and_fine_on_a_tiny_case(tiny):
    data, cases, *_ = tiny
    settings = _tiny_settings()
    metrics = fd.run_flow_discretisation(settings)
    assert metrics["discretisations"] == ["euler_1", "euler_10", "rk45"]
    entry = metrics["ch10"]["8"]
    for name in metrics["discretisations"]:
        assert sum(entry[name][end]["count"] for end in ("all_relevant", "one_sided", "other")) == 2
    assert entry["euler_1"]["median_step"] == 0.3 and entry["euler_10"]["median_step"] == pytest.approx(0.03)
    for seed, case in enumerate(cases):  # the coarse discretisation is chapter 10's own run
        p0 = start_point(case, "random", seed)
        cos = run_start(case, data.X, data.y, p0, steps=40, lr=0.3)
        assert entry["euler_1"]["cos_all_relevant"][seed] == pytest.approx(cos["all_relevant"], abs=1e-9)
        assert entry["euler_1"]["labels"][seed] == classify_endpoint(cos, DIRECTION_COSINE)
    fine = [abs(a - b) for a, b in zip(entry["euler_10"]["cos_all_relevant"], entry["rk45"]["cos_all_relevant"], strict=True)]
    coarse = [abs(a - b) for a, b in zip(entry["euler_1"]["cos_all_relevant"], entry["rk45"]["cos_all_relevant"], strict=True)]
    assert max(fine) < max(coarse)
    for name in metrics["discretisations"]:  # chapter 4's sweep: its own run at the coarse step
        ch4 = metrics["ch4"][name]
        assert len(ch4["cos"]) == 2 and set(ch4["failed_seeds"]) <= {0, 1}
    case = ReferenceCase(seed=1)
    data4, model = case.build()
    train_cls(model, data4.X, data4.y, steps=30, lr=1.0, method="normalized", log_points=2)
    assert metrics["ch4"]["euler_1"]["arc_length"][1] == pytest.approx(30.0)
    from token_selection.theory.max_margin import solve_max_margin

    target = solve_max_margin(case.model_after_one_step().E.detach(), data4.X, data4.relevant).direction
    p = model.p.detach()
    assert metrics["ch4"]["euler_1"]["cos"][1] == pytest.approx(float(p @ target / p.norm()), abs=1e-9)


def _metrics(one_sided: dict[str, list[int]], ch4: tuple[list[int], list[int]]) -> dict:
    """Scripted metrics: one-sided counts per multiple at (euler_1, euler_10, rk45), 24 trials; chapter 4's failures."""
    names = ["euler_1", "euler_10", "rk45"]

    def summary(count):
        return {"trials": 24, "one_sided": {"count": count}, "all_relevant": {"count": 24 - count}, "other": {"count": 0}}

    return {
        "discretisations": names,
        "ch10": {ratio: {n: summary(c) for n, c in zip(names, counts, strict=True)} for ratio, counts in one_sided.items()},
        "ch4": {"euler_1": {"failed_seeds": ch4[0]}, "euler_10": {"failed_seeds": ch4[1]}, "rk45": {"failed_seeds": ch4[1]}},
    }


def test_survival_reads_the_coarsest_and_finest_discretisations():
    metrics = _metrics({"8": [4, 3, 2], "4": [0, 0, 1], "16": [14, 0, 0], "64": [4, 5, 0]}, ([1, 11], [1, 11]))
    assert fd.end_counts(metrics) == {
        "4": {"euler_1": 0, "euler_10": 0, "rk45": 1},
        "8": {"euler_1": 4, "euler_10": 3, "rk45": 2},
        "16": {"euler_1": 14, "euler_10": 0, "rk45": 0},
        "64": {"euler_1": 4, "euler_10": 5, "rk45": 0},
    }
    assert fd.survival(metrics) == {
        "coarse": "euler_1", "finest": "rk45", "one_sided_ratios": ["8", "16", "64"], "surviving": ["8"],
        "ch4_coarse": [1, 11], "ch4_finest": [1, 11], "trials": 24,
    }  # fmt: skip
    with pytest.raises(ValueError, match="end must be one of"):
        fd.end_counts(metrics, "one-sided")


def test_the_figure_draws_both_counts_per_discretisation():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = _metrics({"8": [4, 3, 2], "16": [14, 13, 12]}, ([1], [1]))
    fig, axes = plt.subplots(1, 2)
    fd.plot_end_counts(axes, metrics)
    left, right = ([line.get_ydata().tolist() for line in ax.get_lines()] for ax in axes)
    assert left == [[4, 14], [3, 13], [2, 12]]
    assert right == [[4, 14], [3, 13], [2, 12]]  # scripted: every run not one-sided is all-relevant
    assert [t.get_text() for t in axes[0].get_legend().get_texts()] == [
        "the chapter's step", "10 times shorter steps", "adaptive RK45",
    ]  # fmt: skip
    plt.close(fig)


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_a_record_under_any_other_nested_setting_is_stale(tmp_path, monkeypatch, scale):
    from token_selection.results import read_record

    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    settings = fd.flow_settings(scale)
    leaves = [(group, key) for group in ("ch10", "ch4", "ode") for key in settings[group]]
    assert len(leaves) == len(settings["ch10"]) + 3 + 3
    for group, key in leaves:
        edited = copy.deepcopy(settings)
        value = edited[group][key]
        edited[group][key] = (
            value + [value[-1]]
            if isinstance(value, list)
            else value + (1 if isinstance(value, int) else 0.5)
            if not isinstance(value, str)
            else value + "x"
        )
        write_record("flow_discretisation", scale, protocol="p", settings=edited, metrics={})
        assert read_record("flow_discretisation", scale, settings=settings) is None, (group, key)
    write_record("flow_discretisation", scale, protocol="p", settings=settings, metrics={})
    assert read_record("flow_discretisation", scale, settings=settings) is not None


def test_the_settings_values_are_those_the_protocol_states():
    fast, full = fd.flow_settings("fast"), fd.flow_settings("full")
    assert fast["ode"] == {"method": "RK45", "rtol": 1e-6, "atol": 1e-8}
    assert full["ode"] == {"method": "RK45", "rtol": 1e-8, "atol": 1e-10}
    assert "(fast: rtol 1e-6, atol 1e-8; full: rtol 1e-8, atol 1e-10)" in fd.FLOW_PROTOCOL
    for settings, scale in ((fast, "fast"), (full, "full")):
        assert settings["refinements"] == [1, 10]  # euler_10 in the protocol
        assert set(settings["ch10"]) == {"n", "T", "vocab_size", "delta", "data_seed", "d", "eta_ratios", "seeds", "steps", "lr"}
        assert settings["seeds"] == sorted(set(global_local_settings(scale)["seeds"]) | set(range(20)))
        assert fd.discretisations(settings) == ["euler_1", "euler_10", "rk45"]
    assert fd.discretisations({"refinements": [1, 4, 100]}) == ["euler_1", "euler_4", "euler_100", "rk45"]


def test_more_bad_input_is_named(tiny):
    _, _, E, v, X, y, p0 = tiny
    with pytest.raises(ValueError, match=r"X must hold int64 token ids in \[0, 12\), got torch.int64 in \[-1, 10\]"):
        fd.flow_batch(E, v, X - 1, y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"X must hold int64 token ids in \[0, 12\), got torch.int32"):
        fd.flow_batch(E, v, X.int(), y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"X must have shape \(B, n, T\) and y \(B, n\) with B = 2"):
        fd.flow_batch(E, v, X, y[:, :-1], p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"X must have shape \(B, n, T\)"):
        fd.flow_batch(E, v, X[:1], y[:1], p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"v and p0 must have shape \(2, 16\), got \(2, 16\) and \(2, 3\)"):
        fd.flow_batch(E, v, X, y, p0[:, :3], steps=1, lr=0.1)
    with pytest.raises(ValueError, match=r"E must have shape \(B, V, d\), got \(12, 16\)"):
        fd.flow_batch(E[0], v, X, y, p0, steps=1, lr=0.1)
    with pytest.raises(ValueError, match="steps must be an integer >= 0, got 1.5"):
        fd.flow_batch(E, v, X, y, p0, steps=1.5, lr=0.1)
    ends, taken = fd.flow_batch(E, v, X, y.double(), p0.float(), steps=2.0, lr=1e-3)  # float labels and starts are read
    assert ends.dtype == torch.float64 and taken.tolist() == [2, 2]
    for length, rtol, atol in ((0.0, 1e-6, 1e-8), (1.0, 1e-6, 0.0), (-1.0, 1e-6, 1e-8)):
        with pytest.raises(ValueError, match=f"length, rtol and atol must be > 0, got {length}, {rtol}, {atol}"):
            fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=length, rtol=rtol, atol=atol)
    with pytest.raises(ValueError, match=r"E must be \(V, d\), v and p0 \(d,\)"):
        fd.flow_ode(E, v[0], X[0], y[0], p0[0], length=1.0, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match=r"E must be \(V, d\), v and p0 \(d,\)"):
        fd.flow_ode(E[0], v[0, :3], X[0], y[0], p0[0], length=1.0, rtol=1e-6, atol=1e-8)


def test_one_euler_step_by_hand(tiny):
    """One step moves p by lr along minus the unit gradient of the logistic loss of the attention model, in float64."""
    data, cases, E, v, X, y, p0 = tiny
    model = CLSAttention(12, 16, dtype=torch.float64)
    model.load_state_dict(cases[0].model.state_dict())
    p = p0[0].double().clone().requires_grad_(True)
    scores = (model.E.detach() @ p)[data.X]
    f = (torch.softmax(scores, dim=1) * (model.E.detach() @ model.v.detach())[data.X]).sum(1)
    loss = torch.log1p(torch.exp(-data.y.double() * f)).mean()
    (grad,) = torch.autograd.grad(loss, p)
    ends, taken = fd.flow_batch(E[:1], v[:1], X[:1], y[:1], p0[:1], steps=1, lr=0.25)
    assert taken.tolist() == [1]
    assert torch.allclose(ends[0], p0[0].double() - 0.25 * grad / grad.norm(), rtol=0, atol=1e-12)


def test_the_solver_budget_counts_field_evaluations(tiny):
    _, _, E, v, X, y, p0 = tiny
    # RK45 spends 2 evaluations choosing its first step, then 6 a step: 32 after 5 steps, 38 after 6
    at = fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=50.0, rtol=1e-10, atol=1e-12, max_evaluations=32)
    assert at["stop"] == "budget" and at["evaluations"] == 38  # 32 is not past the budget of 32
    past = fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=50.0, rtol=1e-10, atol=1e-12, max_evaluations=31)
    assert past["evaluations"] == 32 and 0 < past["median_step"] < past["arc_length"] < at["arc_length"]
    short = fd.flow_ode(E[0], v[0], X[0], y[0], p0[0], length=0.5, rtol=1e-6, atol=1e-8)
    assert short["p"].dtype == torch.float64 and short["evaluations"] > 8 and 0 < short["median_step"] < 0.5


def test_the_counts_of_ends_carry_wilson_intervals():
    from token_selection.studies.intervals import wilson_interval

    counts = fd._counts(["one_sided", "all_relevant", "one_sided", "other", "one_sided"])
    assert counts == {
        "trials": 5,
        "all_relevant": {"count": 1, "ci95": list(wilson_interval(1, 5))},
        "one_sided": {"count": 3, "ci95": list(wilson_interval(3, 5))},
        "other": {"count": 1, "ci95": list(wilson_interval(1, 5))},
    }


def test_the_runners_record_every_run_consistently():
    settings = _tiny_settings()
    metrics = fd.run_flow_discretisation(settings, track=lambda items, total: list(items)[:total])
    entry = metrics["ch10"]["8"]
    assert list(metrics["ch10"]) == ["8"] and list(entry) == ["euler_1", "euler_10", "rk45"]
    for name, k in (("euler_1", 1), ("euler_10", 10)):
        assert all(0 <= arc <= 40 * 0.3 + 1e-9 for arc in entry[name]["arc_length"])
        assert all(abs(arc / (0.3 / k) - round(arc / (0.3 / k))) < 1e-6 for arc in entry[name]["arc_length"])  # whole steps
        assert entry[name]["median_step"] == pytest.approx(0.3 / k)
    assert 0 < entry["rk45"]["median_step"] < 12 and all(0 <= a <= 12 + 1e-9 for a in entry["rk45"]["arc_length"])
    for name in metrics["discretisations"]:
        assert len(entry[name]["labels"]) == len(entry[name]["cos_all_relevant"]) == 2
        assert entry[name]["trials"] == 2
        ch4 = metrics["ch4"][name]
        assert set(ch4) == {
            "cos",
            "selects",
            "one_class",
            "reached",
            "failed_seeds",
            "one_class_seeds",
            "arc_length",
            "median_step",
        }
        assert ch4["failed_seeds"] == [seed for seed, ok in zip((0, 1), ch4["reached"], strict=True) if not ok]
        assert ch4["one_class_seeds"] == [
            s for s, ok, one in zip((0, 1), ch4["reached"], ch4["one_class"], strict=True) if not ok and one
        ]
        assert all(sel or not ok for sel, ok in zip(ch4["selects"], ch4["reached"], strict=True))
        assert all(isinstance(flag, bool) for flag in ch4["selects"] + ch4["one_class"] + ch4["reached"])
    assert metrics["ch4"]["euler_10"]["median_step"] == pytest.approx(0.1)
    assert metrics["ch4"]["euler_10"]["arc_length"][1] == pytest.approx(30.0)


def test_a_four_seed_case_that_fails_and_one_that_does_not():
    """Chapter 4's judgement inside the runner: the seeds' selection and cosines follow judge_run."""
    settings = _tiny_settings()
    settings["ch4"] = {"seeds": [0, 1], "steps": 2, "lr": 1.0}  # two steps from p = 0: far from the max-margin direction
    out = fd._chapter4(settings)["euler_1"]
    assert out["reached"] == [False, False] and out["failed_seeds"] == [0, 1]
    assert all(c < DIRECTION_COSINE for c in out["cos"])


def test_every_element_of_the_figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = _metrics({"8": [4, 3, 2], "16": [14, 13, 12], "4": [1, 1, 0]}, ([1], [1]))
    metrics["discretisations"] = ["euler_1", "euler_10", "rk45", "euler_100"]
    for entry in metrics["ch10"].values():
        entry["euler_100"] = entry["rk45"]
    fig, axes = plt.subplots(1, 2)
    fd.plot_end_counts(axes, metrics)
    for ax in axes:
        lines = ax.get_lines()
        assert [line.get_marker() for line in lines] == ["o", "s", "^", "o"]
        assert [line.get_linestyle() for line in lines] == ["-", "--", ":", "-"]
        assert all(line.get_linewidth() == 1.5 for line in lines)
        assert [line.get_label() for line in lines] == [
            "the chapter's step",
            "10 times shorter steps",
            "adaptive RK45",
            "euler_100",
        ]
        assert all(list(line.get_xdata()) == [4.0, 8.0, 16.0] for line in lines)
        assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
        assert list(ax.get_xticks()) == [4.0, 8.0, 16.0] and [t.get_text() for t in ax.get_xticklabels()] == ["4", "8", "16"]
        assert ax.get_xlabel() == r"first step $\tau = \eta/\eta^*$" and ax.get_ylabel() == "random starts (of 24)"
        assert ax.get_ylim() == (-0.5, 24.5)
    assert [line.get_ydata().tolist() for line in axes[0].get_lines()][0] == [1, 4, 14]
    assert [line.get_ydata().tolist() for line in axes[1].get_lines()][2] == [0, 2, 12]
    assert axes[0].get_title() == "Random starts that end one-sided"
    assert axes[1].get_title() == "Random starts that end off the all-relevant direction"
    assert axes[0].get_legend().get_texts()[0].get_fontsize() == 8 and axes[1].get_legend() is None
    plt.close(fig)
