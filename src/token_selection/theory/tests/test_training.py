import copy
import re

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory.synthetic import REFERENCE_CASE
from token_selection.theory.training import log_spaced_steps


def trained_copy(reference_case, **kwargs):
    data, model = reference_case
    model = REFERENCE_CASE.model_after_one_step(data.X, data.y)
    reference = ts.max_margin_direction(model.E.detach(), data.X, data.relevant)
    history = ts.train_cls(model, data.X, data.y, reference=reference, relevant=data.relevant, **kwargs)
    return model, history, reference


def test_normalized_gd_converges_to_max_margin_direction(reference_case):
    model, history, reference = trained_copy(reference_case, steps=5000, lr=1.0, method="normalized")
    assert history.cosine[-1] >= 0.99
    assert history.min_relevant_attention[-1] > 0.99
    assert float(model.p.detach() @ reference / model.p.detach().norm()) == pytest.approx(history.cosine[-1], abs=1e-12)
    assert history.stop_reason.startswith("stopped at step")
    assert history.step[-1] < 5000


def test_plain_gd_grows_norm_and_lowers_loss(reference_case):
    _, history, _ = trained_copy(reference_case, steps=300, lr=10.0, method="gd")
    arrays = history.as_arrays()
    assert arrays["step"][-1] == 300 and history.stop_reason == "ran all 300 steps"
    assert np.all(np.diff(arrays["p_norm"]) > 0)
    assert arrays["loss"][-1] < arrays["loss"][0]
    assert arrays["cosine"][-1] > 0.85
    assert np.all(np.isfinite(arrays["cosine"]))


def test_without_the_stop_the_direction_drifts(reference_case):
    # past the float64 floor the gradient is rounding noise: the stop is what keeps p on p_mm
    _, history, _ = trained_copy(reference_case, steps=1500, lr=1.0, method="normalized", rounding_factor=0.0)
    assert max(history.cosine) > 0.99
    assert history.cosine[-1] < 0.9


def test_history_is_log_spaced_and_bitwise_reproducible(reference_case):
    _, first, _ = trained_copy(reference_case, steps=200, lr=10.0, log_points=20)
    _, second, _ = trained_copy(reference_case, steps=200, lr=10.0, log_points=20)
    assert first.as_arrays().keys() == second.as_arrays().keys()
    for key, value in first.as_arrays().items():
        assert np.array_equal(value, second.as_arrays()[key]), key
    assert first.step[:4] == [0, 1, 2, 3] and first.step[-1] == 200 and len(first.step) <= 21


def test_e_and_v_stay_frozen(reference_case):
    model, _, _ = trained_copy(reference_case, steps=20, lr=1.0)
    assert torch.equal(model.E.detach(), reference_case[1].E.detach())
    assert torch.equal(model.v.detach(), reference_case[1].v.detach())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "adam"}, "method must be"),
        ({"lr": -1.0}, "lr must be"),
        ({"lr": float("nan")}, "lr must be"),
        ({"lr": 0.0}, "lr must be"),
        ({"rounding_factor": -1.0}, "rounding_factor must be"),
        ({"steps": -1}, "steps must be"),
        ({"reference": torch.ones(3, dtype=torch.float64)}, "reference must have shape"),
        ({"relevant": torch.ones(200, 8)}, "relevant must be a bool"),
    ],
)
def test_bad_arguments(reference_case, kwargs, message):
    data, model = reference_case
    args = {"steps": 5, "lr": 1.0} | kwargs
    with pytest.raises(ValueError, match=message):
        ts.train_cls(model, data.X, data.y, **args)


def test_single_class_is_rejected(reference_case):
    data, model = reference_case
    with pytest.raises(ValueError, match="single class"):
        ts.train_cls(model, data.X, torch.ones(200), steps=1, lr=1.0)


def small_problem(seed: int = 0, V: int = 12, d: int = 6):
    """A float64 model with random p and data over ids 0..V-3 (the last two ids never occur)."""
    data = ts.make_synthetic(16, 5, V - 2, 0.2, seed=seed)
    model = ts.CLSAttention(V, d, seed=seed, dtype=torch.float64, p_init="random")
    return model, data


def test_padding_changes_nothing():
    # the padded positions hold a real id (0) that must get no attention and no gradient
    model, data = small_problem(1)
    padded = torch.cat([data.X, torch.zeros(16, 3, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(16, 5, dtype=torch.bool), torch.zeros(16, 3, dtype=torch.bool)], dim=1)
    relevant = torch.cat([data.relevant, torch.zeros(16, 3, dtype=torch.bool)], dim=1)
    plain = copy.deepcopy(model)
    a = ts.train_cls(plain, data.X, data.y, steps=30, lr=5.0, relevant=data.relevant, rounding_factor=0.0)
    b = ts.train_cls(model, padded, data.y, steps=30, lr=5.0, mask=mask, relevant=relevant, rounding_factor=0.0)
    assert torch.allclose(model.p, plain.p, rtol=0, atol=1e-13)
    for key, value in a.as_arrays().items():
        assert np.allclose(value, b.as_arrays()[key], rtol=1e-12, atol=1e-14, equal_nan=True), key
    unmasked = copy.deepcopy(plain)
    ts.train_cls(unmasked, padded, data.y, steps=1, lr=5.0)
    assert not torch.allclose(unmasked.p, plain.p)


def test_one_step_by_hand_and_the_recorded_diagnostics():
    # p(1) = p(0) - lr grad, grad by autograd of the logistic loss; then every recorded series by hand
    model, data = small_problem(2)
    p0 = model.p.detach().clone().requires_grad_(True)
    E, v = model.E.detach(), model.v.detach()
    logits, q0 = ts.gathered_logits(E @ p0, E @ v, data.X, None)
    y = data.y.double()
    (grad,) = torch.autograd.grad(ts.logistic_loss(logits, y), p0)
    p0 = p0.detach()
    reference = torch.ones(6, dtype=torch.float64) * 3.0  # not unit: train_cls normalises it
    history = ts.train_cls(model, data.X, data.y, steps=1, lr=0.5, reference=reference, relevant=data.relevant, rounding_factor=0)
    p1 = (p0 - 0.5 * grad).detach()
    assert torch.allclose(model.p.detach(), p1, rtol=0, atol=1e-15)
    assert history.step == [0, 1] and history.stop_reason == "ran all 1 steps"
    assert history.p_norm == pytest.approx([float(p0.norm()), float(p1.norm())], rel=1e-12)
    assert 0 < history.p_norm[0] < 1  # a small |p| still gets its cosine
    unit = reference / reference.norm()
    assert history.cosine == pytest.approx([float(p0 @ unit / p0.norm()), float(p1 @ unit / p1.norm())], rel=1e-12)
    assert history.loss[0] == pytest.approx(float(torch.nn.functional.softplus(-y * logits.detach()).mean()), rel=1e-12)
    assert history.grad_norm[0] == pytest.approx(float(grad.norm()), rel=1e-10)
    mass = (q0.detach() * data.relevant).sum(-1)
    assert history.min_relevant_attention[0] == pytest.approx(float(mass.min()), rel=1e-12)
    assert history.mean_relevant_attention[0] == pytest.approx(float(mass.mean()), rel=1e-12)


def test_cosine_is_zero_at_p_zero_and_attention_nan_without_relevant():
    model, data = small_problem(3)
    model.p.data.zero_()
    history = ts.train_cls(model, data.X, data.y, steps=2, lr=1.0, reference=torch.ones(6, dtype=torch.float64))
    assert history.cosine[0] == 0.0 and history.cosine[1] != 0.0
    arrays = history.as_arrays()
    assert np.isnan(arrays["min_relevant_attention"]).all() and np.isnan(arrays["mean_relevant_attention"]).all()
    assert all(a.dtype == np.float64 for a in arrays.values())


def test_zero_steps_records_the_start_only():
    model, data = small_problem(4)
    before = model.p.detach().clone()
    history = ts.train_cls(model, data.X, data.y, steps=0, lr=1.0)
    assert history.step == [0] and history.stop_reason == "ran all 0 steps"
    assert torch.equal(model.p.detach(), before)


def test_a_gradient_of_exactly_zero_stops_unless_rounding_factor_is_zero():
    # every token has the same value E.v, so f - E_x.v = 0 at every position and the gradient is exactly 0
    model, data = small_problem(5)
    model.E.data.copy_(model.E.detach()[:1].expand(12, 6))
    history = ts.train_cls(model, data.X, data.y, steps=3, lr=1.0, rounding_factor=0.0)
    assert history.stop_reason == "ran all 3 steps" and history.grad_norm == [0.0, 0.0, 0.0, 0.0]
    assert ts.train_cls(model, data.X, data.y, steps=3, lr=1.0).stop_reason.startswith("stopped at step 0")


def test_stop_reports_the_rounding_floor_of_its_formula(reference_case):
    # noise = eps * sum_s |E_s| sum_{(j,i): x_ji = s} |dL/df_j| q_ji (|E_s.v| + |f_j|), at the p where it stopped
    model, history, _ = trained_copy(reference_case, steps=5000, lr=1.0, method="normalized")
    data = reference_case[0]
    match = re.search(r"at the float64 floor: \|grad\| = (\S+) < 100 x its rounding error (\S+)$", history.stop_reason)
    assert match, history.stop_reason
    E = model.E.detach()
    values = (E @ model.v.detach())[data.X]
    q = torch.softmax((E @ model.p.detach())[data.X], -1)
    f = (q * values).sum(-1)
    y = data.y.double()
    dloss_df = (y * torch.sigmoid(-y * f) / 200).abs()
    summands = dloss_df[:, None] * q * (values.abs() + f.abs()[:, None])
    per_token = torch.zeros(50, dtype=torch.float64).index_add_(0, data.X.reshape(-1), summands.reshape(-1))
    noise = torch.finfo(torch.float64).eps * float(E.norm(dim=1) @ per_token)
    assert float(match.group(2)) == pytest.approx(noise, rel=0.01, abs=0)  # printed to 3 significant digits
    assert float(match.group(1)) == pytest.approx(history.grad_norm[-1], rel=0.01, abs=0)
    assert history.grad_norm[-1] < 100 * noise


def test_log_spaced_steps():
    assert log_spaced_steps(0) == {0, 1} and log_spaced_steps(1) == {0, 1} and log_spaced_steps(2) == {0, 1, 2}
    steps = log_spaced_steps(10**6)
    assert all(type(s) is int for s in steps) and min(steps) == 0 and max(steps) == 10**6
    assert steps == log_spaced_steps(10**6, 60) != log_spaced_steps(10**6, 61)


def test_default_log_points_is_sixty():
    model, data = small_problem(6)
    history = ts.train_cls(model, data.X, data.y, steps=3000, lr=1e-3, rounding_factor=0.0)
    assert history.step == sorted(log_spaced_steps(3000, 60)) != sorted(log_spaced_steps(3000, 61))


def test_relevant_must_be_an_array():
    model, data = small_problem(7)
    with pytest.raises(ValueError, match="^relevant must be a torch.Tensor or numpy array, got list$"):
        ts.train_cls(model, data.X, data.y, steps=1, lr=1.0, relevant=data.relevant.tolist())
