import pytest
import torch

from token_selection.real_data.attention_variants import MultiClassCLSAttention
from token_selection.studies.synthetic_variants import (
    class_importance,
    make_multiclass_synthetic,
    make_shielding_data,
    train_full_batch,
)
from token_selection.theory.importance import posterior_gap, signed_frequency
from token_selection.theory.model import CLSAttention
from token_selection.theory.synthetic import make_synthetic


def test_shielding_data_hides_C_from_first_order_statistics():
    data = make_shielding_data(400, 6, 40, seed=0)
    alpha = signed_frequency(data.X, data.y, 40)
    gap = posterior_gap(data.X, data.y, 40)
    assert abs(float(alpha[data.C])) < 1e-12 and abs(float(gap[data.C])) < 1e-12
    assert float(alpha[data.A]) > 0 > float(alpha[data.N]) and float(gap[data.N]) == -1.0
    holds_N = (data.X == data.N).any(1)
    assert (data.y[holds_N] < 0).all() and ((data.X == data.C) & holds_N[:, None]).any(1).sum() == 100
    with pytest.raises(ValueError, match="multiple of 4"):
        make_shielding_data(10)
    with pytest.raises(ValueError, match="T must be at least 3"):
        make_shielding_data(8, T=2)


def test_multiclass_synthetic_and_importance():
    data = make_multiclass_synthetic(200, 6, 40, 4, n_relevant=3, seed=0)
    assert (data.relevant.sum(1) == 1).all()
    assert torch.equal(data.token_class[data.X[data.relevant]], data.y)
    importance = class_importance(data.X, data.y, 4, 40)
    seen = torch.isfinite(importance[:, 0])
    assert torch.allclose(importance[seen].sum(1), torch.zeros(int(seen.sum()), dtype=torch.float64), atol=1e-12)
    relevant = data.token_class >= 0
    assert torch.allclose(importance[relevant & seen, :].max(1).values, torch.tensor(0.75, dtype=torch.float64))
    with pytest.raises(ValueError, match="leaves no irrelevant token"):
        make_multiclass_synthetic(10, 4, 12, 4, n_relevant=3)


def test_train_full_batch_only_moves_the_named_parameters():
    data = make_synthetic(100, 6, 30, 0.0, seed=0)
    model = CLSAttention(30, 16, seed=0)
    E0, v0 = model.E.detach().clone(), model.v.detach().clone()
    losses = train_full_batch(model, data.X, data.y, steps=30, lr=0.05, parameters=("p",))
    assert losses[-1] < losses[0] and len(losses) == 31
    assert torch.equal(model.E, E0) and torch.equal(model.v, v0) and model.p.norm() > 0
    with pytest.raises(ValueError, match="parameters must name"):
        train_full_batch(model, data.X, data.y, steps=1, lr=0.1, parameters=("W",))
    with pytest.raises(ValueError, match="lr must be"):
        train_full_batch(model, data.X, data.y, steps=1, lr=0.0)


def test_multiclass_full_batch_training_reduces_the_loss():
    data = make_multiclass_synthetic(200, 6, 40, 4, n_relevant=3, seed=1)
    model = MultiClassCLSAttention(40, 16, 4, seed=0)
    losses = train_full_batch(model, data.X, data.y, steps=40, lr=0.05)
    assert losses[-1] < 0.5 * losses[0]
