import pytest
import torch

import token_selection as ts
from token_selection.real_data.attention_variants import (
    AttentionMLP,
    KeyQueryTwoLayerAttention,
    MultiClassCLSAttention,
    attended_embeddings,
)


def _batch(V: int = 30, n: int = 9, T: int = 6, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(0, V, (n, T), generator=gen)
    mask = torch.ones(n, T, dtype=torch.bool)
    mask[0, 3:] = False
    mask[4, 1:] = False
    return X, mask


def _randomise(model: torch.nn.Module, seed: int = 1) -> None:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.3 * torch.randn(parameter.shape, generator=gen, dtype=parameter.dtype))


def _loop_key_query(model: KeyQueryTwoLayerAttention, X: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The definition, one sequence at a time, gathering the embeddings."""
    out = []
    for j in range(X.shape[0]):
        E = model.E[X[j][mask[j]]]
        q1 = torch.softmax(E @ (model.W1.T @ model.p), 0)
        query = model.p + q1 @ E
        q2 = torch.softmax(E @ (model.W2.T @ query), 0)
        out.append(q2 @ (E @ model.v))
    return torch.stack(out)


def _loop_mlp(model: AttentionMLP, X: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    out = []
    for j in range(X.shape[0]):
        E = model.E[X[j][mask[j]]]
        z = torch.softmax(E @ model.p, 0) @ E
        out.append((z + model.W_out @ torch.relu(model.W_in @ z + model.b)) @ model.v)
    return torch.stack(out)


def test_key_query_model_matches_the_definition():
    X, mask = _batch()
    model = KeyQueryTwoLayerAttention(30, 12, seed=0, dtype=torch.float64)
    _randomise(model)
    assert torch.allclose(model(X, mask, chunk=4), _loop_key_query(model, X, mask), atol=1e-12)
    weights = model.attention(X, mask, layer=1)
    assert torch.all(weights[~mask] == 0) and torch.allclose(weights.sum(1), torch.ones(9, dtype=torch.float64))


def test_key_query_scores_and_mean_layer2_scores():
    X, mask = _batch()
    model = KeyQueryTwoLayerAttention(30, 12, seed=0, dtype=torch.float64)
    _randomise(model)
    assert torch.allclose(model.token_scores(), model.E @ model.W2.T @ model.p)
    mean = model.mean_layer2_scores(X, mask, chunk=4)
    token = int(X[1, 0])
    rows, cols = torch.nonzero((X == token) & mask, as_tuple=True)
    full = model.layer2_scores(X, mask)
    assert torch.allclose(mean[token], full[rows, cols].mean())
    unseen = torch.ones(30, dtype=torch.bool)
    unseen[X[mask]] = False
    assert torch.isnan(mean[unseen]).all() and torch.isfinite(mean[~unseen]).all()


def test_key_query_gradients_match_the_loop():
    X, mask = _batch()
    model = KeyQueryTwoLayerAttention(30, 8, seed=2, dtype=torch.float64)
    _randomise(model)
    model(X, mask).square().sum().backward()
    fast = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    _loop_key_query(model, X, mask).square().sum().backward()
    for a, (name, p) in zip(fast, model.named_parameters(), strict=True):
        assert torch.allclose(a, p.grad, atol=1e-10), name


def test_mlp_model_starts_as_the_one_layer_model_and_matches_the_definition():
    X, mask = _batch()
    model = AttentionMLP(30, 12, seed=3, dtype=torch.float64)
    one_layer = ts.CLSAttention(30, 12, seed=3, dtype=torch.float64)
    assert torch.equal(model.E, one_layer.E) and torch.equal(model.v, one_layer.v)
    assert torch.allclose(model(X, mask), one_layer(X, mask), atol=1e-14)
    assert model.mlp_share(X, mask) == 0.0
    _randomise(model)
    assert torch.allclose(model(X, mask), _loop_mlp(model, X, mask), atol=1e-12)
    assert 0.0 < model.mlp_share(X, mask) < 1.0


def test_attended_embeddings_gradients():
    X, mask = _batch()
    E = torch.randn(30, 5, dtype=torch.float64, requires_grad=True)
    w = (torch.rand(9, 6, dtype=torch.float64) * mask).requires_grad_(True)
    # fast mode checks the Jacobian along random directions: as strict for a wrong backward, in 0.1 s instead of 10
    assert torch.autograd.gradcheck(lambda E_, w_: attended_embeddings(E_, X, w_), (E, w), fast_mode=True)


def test_multiclass_model_matches_the_theory_helper():
    X, mask = _batch()
    model = MultiClassCLSAttention(30, 12, 4, seed=0, dtype=torch.float64)
    _randomise(model)
    expected = ts.multiclass_logits(model.E, model.p, model.W, X, mask)[0]
    assert torch.allclose(model(X, mask), expected, atol=1e-12)
    assert model.token_class_values().shape == (30, 4)


@pytest.mark.parametrize("model_class", [KeyQueryTwoLayerAttention, AttentionMLP])
def test_bad_input_raises_value_error(model_class):
    model = model_class(10, 4)
    with pytest.raises(ValueError, match="X holds token ids"):
        model(torch.tensor([[0, 10]]))
    with pytest.raises(ValueError, match="d must be"):
        model_class(10, 0)
    with pytest.raises(ValueError, match="chunk"):
        model(torch.tensor([[0, 1]]), chunk=0)


def test_same_seed_same_model_and_float32_default():
    a, b = KeyQueryTwoLayerAttention(20, 6, seed=5), KeyQueryTwoLayerAttention(20, 6, seed=5)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    assert a.E.dtype == torch.float32
    assert not torch.equal(a.E, KeyQueryTwoLayerAttention(20, 6, seed=6).E)
