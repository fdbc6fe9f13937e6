import pytest
import torch

from token_selection.real_data.two_layer_model import TwoLayerCLSAttention, gather_dot, gather_sum


def reference_logits(model: TwoLayerCLSAttention, X: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The defining formula, written out with the (n, T, d) tensor E[X]."""
    embedded = model.E[X]
    q1 = torch.softmax((embedded @ model.p1).masked_fill(~mask, -torch.inf), -1)
    h = (q1[..., None] * embedded).sum(1)
    q2 = torch.softmax(((embedded * (model.p2 + h)[:, None, :]).sum(-1)).masked_fill(~mask, -torch.inf), -1)
    return (q2 * (embedded @ model.v)).sum(-1)


def randomised(model: TwoLayerCLSAttention, seed: int = 0) -> TwoLayerCLSAttention:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        model.p1.copy_(torch.randn(model.d, generator=gen, dtype=model.p1.dtype))
        model.p2.copy_(torch.randn(model.d, generator=gen, dtype=model.p2.dtype))
    return model


def test_shapes_and_matches_the_formula():
    model = randomised(TwoLayerCLSAttention(30, 8, seed=1, dtype=torch.float64))
    X = torch.randint(0, 30, (5, 7), generator=torch.Generator().manual_seed(0))
    mask = torch.ones(5, 7, dtype=torch.bool)
    mask[1, 4:] = False
    logits = model(X, mask)
    assert logits.shape == (5,)
    assert torch.allclose(logits, reference_logits(model, X, mask), atol=1e-12)
    for layer in (1, 2):
        weights = model.attention(X, mask, layer=layer)
        assert weights.shape == (5, 7) and torch.allclose(weights.sum(1), torch.ones(5, dtype=torch.float64))
        assert torch.all(weights[1, 4:] == 0)


def test_padding_invariance():
    model = randomised(TwoLayerCLSAttention(20, 6, seed=2, dtype=torch.float64), seed=3)
    X = torch.randint(0, 20, (4, 5), generator=torch.Generator().manual_seed(1))
    padded = torch.cat([X, torch.randint(0, 20, (4, 3))], dim=1)  # arbitrary ids under the padding
    mask = torch.cat([torch.ones(4, 5, dtype=torch.bool), torch.zeros(4, 3, dtype=torch.bool)], dim=1)
    assert torch.allclose(model(X), model(padded, mask), atol=1e-12)


def test_batching_does_not_change_the_result():
    model = randomised(TwoLayerCLSAttention(20, 6, seed=2, dtype=torch.float64))
    X = torch.randint(0, 20, (9, 5), generator=torch.Generator().manual_seed(1))
    assert torch.allclose(model(X, batch_size=2), model(X, batch_size=100), atol=1e-12)


def test_zero_first_query_averages_the_sequence():
    model = TwoLayerCLSAttention(15, 4, seed=0)
    X = torch.randint(0, 15, (3, 6), generator=torch.Generator().manual_seed(2))
    assert torch.allclose(model.attention(X, layer=1), torch.full((3, 6), 1 / 6))


def test_primitives_gradients():
    gen = torch.Generator().manual_seed(0)
    E = torch.randn(12, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    H = torch.randn(3, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    W = torch.rand(3, 5, dtype=torch.float64, generator=gen, requires_grad=True)
    X = torch.randint(0, 12, (3, 5), generator=gen)
    assert torch.autograd.gradcheck(lambda E, H: gather_dot(E, X, H), (E, H))
    assert torch.autograd.gradcheck(lambda E, W: gather_sum(E, X, W), (E, W))
    assert torch.allclose(gather_dot(E, X, H), (E[X] * H[:, None, :]).sum(-1))


def test_gradient_matches_the_written_out_model():
    model = randomised(TwoLayerCLSAttention(25, 5, seed=4, dtype=torch.float64), seed=5)
    X = torch.randint(0, 25, (6, 7), generator=torch.Generator().manual_seed(3))
    mask = torch.rand(6, 7, generator=torch.Generator().manual_seed(4)) < 0.8
    mask[:, 0] = True
    fast = torch.autograd.grad(model.logits_and_attention(X, mask)[0].sum(), list(model.parameters()))
    slow = torch.autograd.grad(reference_logits(model, X, mask).sum(), list(model.parameters()))
    for a, b in zip(fast, slow, strict=True):
        assert torch.allclose(a, b, atol=1e-10)


def test_bad_arguments():
    model = TwoLayerCLSAttention(10, 4)
    with pytest.raises(ValueError, match="layer"):
        model.attention(torch.zeros(1, 2, dtype=torch.long), layer=3)
    with pytest.raises(ValueError, match="ids must lie"):
        model(torch.full((1, 2), 10))
    with pytest.raises(ValueError, match="d must be"):
        TwoLayerCLSAttention(10, 0)
