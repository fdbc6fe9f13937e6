import re

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory.one_step import predicted_correlation, step_size_from_alpha, step_size_threshold
from token_selection.theory.synthetic import REFERENCE_CASE


def _fresh_reference_model() -> ts.CLSAttention:
    case = REFERENCE_CASE
    return ts.CLSAttention(case.vocab_size, case.d, seed=case.seed, dtype=torch.float64)


def test_autograd_step_equals_closed_form_in_float64():
    data, model, eta = REFERENCE_CASE.data(), _fresh_reference_model(), REFERENCE_CASE.eta
    E1 = ts.one_step_embeddings(model, data.X, data.y, eta)
    weights = ts.one_step_sample_weights(model, data.X, data.y)
    alpha = ts.signed_frequency(data.X, data.y, 50, sample_weights=weights)
    predicted = ts.predicted_one_step(model.E.detach(), model.v.detach(), alpha, eta)
    step = E1 - model.E.detach()
    assert float((E1 - predicted).norm() / step.norm()) < 1e-10


def test_leading_order_form_error_shrinks_like_inverse_sqrt_d():
    # The g_j = 1/2 approximation errs by O(|f_j(0)|) = O(1/sqrt(d T)): 256x more d, ~16x less error.
    data = ts.make_synthetic(200, 8, 50, 0.0, seed=1)
    alpha = ts.signed_frequency(data.X, data.y, 50)

    def mean_error(d: int) -> float:
        errors = []
        for seed in range(6):
            model = ts.CLSAttention(50, d, seed=seed, dtype=torch.float64)
            E1 = ts.one_step_embeddings(model, data.X, data.y, 200.0)
            predicted = ts.predicted_one_step(model.E.detach(), model.v.detach(), alpha, 200.0)
            errors.append(float((E1 - predicted).norm() / (E1 - model.E.detach()).norm()))
        return float(np.mean(errors))

    ratio = mean_error(16) / mean_error(4096)
    assert 6 < ratio < 40, f"error ratio d=16 / d=4096 is {ratio:.1f}, expected about 16"


def test_padding_and_masked_step():
    data = ts.make_synthetic(40, 6, 30, 0.1, seed=2)
    model = ts.CLSAttention(30, 64, seed=2, dtype=torch.float64)
    padded = torch.cat([data.X, torch.zeros(40, 3, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(40, 6, dtype=torch.bool), torch.zeros(40, 3, dtype=torch.bool)], dim=1)
    assert torch.allclose(
        ts.one_step_embeddings(model, data.X, data.y, 10.0), ts.one_step_embeddings(model, padded, data.y, 10.0, mask), atol=1e-14
    )


def test_alignment_with_signed_frequency_needs_a_large_step():
    # eta = 1 is r ~ 0.07 (law: 0.07, one seed scatters by ~0.14); the reference eta is r ~ 14 (law: 0.9976)
    data, model = REFERENCE_CASE.data(), _fresh_reference_model()
    alpha = ts.signed_frequency(data.X, data.y, 50).numpy()
    v = model.v.detach()
    eta = REFERENCE_CASE.eta
    corr = {lr: np.corrcoef((ts.one_step_embeddings(model, data.X, data.y, lr) @ v).numpy(), alpha)[0, 1] for lr in (1.0, eta)}
    assert corr[eta] > 0.99
    assert corr[1.0] < 0.5


def test_model_is_left_untouched():
    data = ts.make_synthetic(20, 4, 20, 0.1, seed=3)
    model = ts.CLSAttention(20, 8, seed=3)
    before = model.E.detach().clone()
    ts.one_step_embeddings(model, data.X, data.y, 5.0)
    assert torch.equal(model.E, before)


def test_predicted_one_step_rejects_bad_shapes():
    with pytest.raises(ValueError, match="alpha must have shape"):
        ts.predicted_one_step(torch.zeros(5, 3), torch.zeros(3), torch.zeros(4), 1.0)
    with pytest.raises(ValueError, match="v must have shape"):
        ts.predicted_one_step(torch.zeros(5, 3), torch.zeros(4), torch.zeros(5), 1.0)


def test_step_size_threshold_matches_its_formula_and_the_reference_case():
    data = REFERENCE_CASE.data()
    alpha = ts.signed_frequency(data.X, data.y, 50).numpy()
    eta_star = step_size_threshold(data.X, data.y, 50, 512)
    assert eta_star == pytest.approx(2 / (np.sqrt(512) * alpha.std()), rel=1e-12)
    assert 10 < eta_star < 20  # std(alpha) ~ 0.007 on these data
    # quadrupling d halves eta*; padding changes nothing
    assert step_size_threshold(data.X, data.y, 50, 2048) == pytest.approx(eta_star / 2, rel=1e-12)
    padded = torch.cat([data.X, torch.zeros(200, 2, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(200, 8, dtype=torch.bool), torch.zeros(200, 2, dtype=torch.bool)], dim=1)
    assert step_size_threshold(padded, data.y, 50, 512, mask) == pytest.approx(eta_star, rel=1e-12)


def test_predicted_correlation_follows_measured_alignment():
    # at eta = 4 eta* the law predicts 0.970; 20 seeds put the mean within 0.003 (3 standard errors) plus the
    # law's systematic error (measured at most 0.005 at this r), so 0.02 is safe and still rejects r = 3
    data = REFERENCE_CASE.data()
    eta_star = step_size_threshold(data.X, data.y, 50, REFERENCE_CASE.d)
    alpha = ts.signed_frequency(data.X, data.y, 50).numpy()
    measured = []
    for seed in range(20):
        model = ts.CLSAttention(50, REFERENCE_CASE.d, seed=seed, dtype=torch.float64)
        values = ts.one_step_embeddings(model, data.X, data.y, 4 * eta_star) @ model.v.detach()
        measured.append(np.corrcoef(values.numpy(), alpha)[0, 1])
    assert np.mean(measured) == pytest.approx(predicted_correlation(4.0), abs=0.02)
    assert predicted_correlation(1.0) == pytest.approx(2**-0.5)
    assert np.allclose(predicted_correlation(np.array([0.0, 3.0])), [0.0, 3 / np.sqrt(10)])


def test_step_size_rule_rejects_bad_input():
    with pytest.raises(ValueError, match="same signed frequency"):
        step_size_threshold(torch.tensor([[0, 1], [0, 1]]), torch.tensor([1, -1]), 2, 8)
    with pytest.raises(ValueError, match="d must be"):
        step_size_threshold(torch.tensor([[0, 1], [1, 1]]), torch.tensor([1, -1]), 2, 0)
    with pytest.raises(ValueError, match="r = eta / eta"):
        predicted_correlation(-1.0)
    with pytest.raises(ValueError, match="r = eta / eta"):
        predicted_correlation(np.array([1.0, np.inf]))


def test_float32_step_matches_autograd_in_float32():
    # in a float32 model the loss is taken in float32 (labels cast to the model's dtype), bit for bit
    data = ts.make_synthetic(30, 5, 20, 0.1, seed=6)
    model = ts.CLSAttention(20, 16, seed=6)
    E = model.E.detach().clone().requires_grad_(True)
    logits = ts.gathered_logits(E @ model.p.detach(), E @ model.v.detach(), data.X, None)[0]
    (grad,) = torch.autograd.grad(ts.logistic_loss(logits, data.y.float()), E)
    step = ts.one_step_embeddings(model, data.X, data.y, 3.0)
    assert step.dtype == torch.float32 and torch.equal(step, (E - 3.0 * grad).detach())


def test_sample_weights_ignore_padding():
    data = ts.make_synthetic(40, 6, 30, 0.1, seed=7)
    model = ts.CLSAttention(30, 64, seed=7, dtype=torch.float64, p_init="random")
    padded = torch.cat([data.X, torch.full((40, 3), 5)], dim=1)
    mask = torch.cat([torch.ones(40, 6, dtype=torch.bool), torch.zeros(40, 3, dtype=torch.bool)], dim=1)
    plain = ts.one_step_sample_weights(model, data.X, data.y)
    assert torch.allclose(ts.one_step_sample_weights(model, padded, data.y, mask), plain, atol=1e-14)
    assert not torch.allclose(ts.one_step_sample_weights(model, padded, data.y), plain, atol=1e-6)


def test_predicted_one_step_computes_in_the_dtype_of_e0():
    gen = torch.Generator().manual_seed(0)
    E0, v, alpha = (torch.randn(*shape, generator=gen, dtype=torch.float64) for shape in ((5, 3), (3,), (5,)))
    expected = E0 + 1.5 * alpha[:, None] * v[None, :]
    # a float32 alpha is widened before the product, so the float64 result is the float64 formula of it
    got = ts.predicted_one_step(E0, v, alpha.float(), 3.0)
    assert torch.equal(got, E0 + 1.5 * alpha.float().double()[:, None] * v[None, :])
    assert torch.allclose(ts.predicted_one_step(E0, v, alpha, 3.0), expected, rtol=0, atol=1e-15)
    # a float32 E0 gives a float32 result whatever the dtype of v and alpha
    assert ts.predicted_one_step(E0.float(), v, alpha, 3.0).dtype == torch.float32
    assert ts.predicted_one_step(E0.float(), v.float(), alpha, 3.0).dtype == torch.float32


def test_predicted_one_step_rejects_a_vector_e0():
    with pytest.raises(ValueError, match=r"^E0 must have shape \(V, d\), got \(5,\)$"):
        ts.predicted_one_step(torch.zeros(5), torch.zeros(5), torch.zeros(5), 1.0)


def test_predicted_correlation_returns_a_float_for_a_scalar():
    assert type(predicted_correlation(1.0)) is float and type(predicted_correlation(3)) is float
    assert isinstance(predicted_correlation(np.array([1.0])), np.ndarray)


def test_constant_signed_frequency_message():
    message = r"^every token has the same signed frequency, so no step size aligns E\.v with it \(eta\* is infinite\)$"
    with pytest.raises(ValueError, match=message):
        step_size_threshold(torch.tensor([[0, 1], [0, 1]]), torch.tensor([1, -1]), 2, 8)


def test_predicted_correlation_of_a_huge_integer_ratio():
    # computed in float64 whatever the input dtype: an int64 r**2 would overflow here
    assert predicted_correlation(10**10) == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(predicted_correlation(np.array([0, 10**10])), [0.0, 1.0], rtol=0, atol=1e-12)


def test_step_size_from_alpha_checks_its_vector():
    assert step_size_from_alpha(np.array([1.0, -1.0]), 4) == pytest.approx(1.0, rel=1e-15)  # std 1, sqrt(d) 2
    for bad, shape in ((torch.ones(2, 2), "(2, 2)"), (torch.ones(1), "(1,)")):
        with pytest.raises(
            ValueError, match=rf"^alpha must be a 1-D vector of at least 2 signed frequencies, got shape {re.escape(shape)}$"
        ):
            step_size_from_alpha(bad, 4)
    with pytest.raises(ValueError, match="^alpha must be a torch.Tensor or numpy array, got list$"):
        step_size_from_alpha([1.0, -1.0], 4)
