import numpy as np
import pytest
import torch

import token_selection as ts


def test_autograd_step_equals_closed_form_in_float64():
    data = ts.make_synthetic(200, 8, 50, 0.0, seed=0)
    model = ts.CLSAttention(50, 512, seed=0, dtype=torch.float64)
    E1 = ts.one_step_embeddings(model, data.X, data.y, 200.0)
    weights = ts.one_step_sample_weights(model, data.X, data.y)
    alpha = ts.signed_frequency(data.X, data.y, 50, sample_weights=weights)
    predicted = ts.predicted_one_step(model.E.detach(), model.v.detach(), alpha, 200.0)
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
    data = ts.make_synthetic(200, 8, 50, 0.0, seed=0)
    model = ts.CLSAttention(50, 512, seed=0, dtype=torch.float64)
    alpha = ts.signed_frequency(data.X, data.y, 50).numpy()
    v = model.v.detach()
    corr = {lr: np.corrcoef((ts.one_step_embeddings(model, data.X, data.y, lr) @ v).numpy(), alpha)[0, 1] for lr in (1.0, 200.0)}
    assert corr[200.0] > 0.99
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
