import pytest
import torch

from token_selection.real_data.two_layer_model import TwoLayerCLSAttention


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


def test_gradient_matches_the_written_out_model():
    model = randomised(TwoLayerCLSAttention(25, 5, seed=4, dtype=torch.float64), seed=5)
    X = torch.randint(0, 25, (6, 7), generator=torch.Generator().manual_seed(3))
    mask = torch.rand(6, 7, generator=torch.Generator().manual_seed(4)) < 0.8
    mask[:, 0] = True
    fast = torch.autograd.grad(model.logits_and_attention(X, mask)[0].sum(), list(model.parameters()))
    slow = torch.autograd.grad(reference_logits(model, X, mask).sum(), list(model.parameters()))
    for a, b in zip(fast, slow, strict=True):
        assert torch.allclose(a, b, atol=1e-10)


def test_rows_of_tokens_never_seen_get_no_gradient_and_the_seen_ones_do():
    """X holds ids 0..5 of 11 (5 repeated, padding at the end of one row): the table's other rows get exactly zero."""
    model = randomised(TwoLayerCLSAttention(11, 3, seed=8, dtype=torch.float64), seed=9)
    X = torch.tensor([[0, 5, 5, 2], [1, 1, 5, 0], [2, 3, 4, 5], [5, 5, 5, 5]])
    mask = torch.ones(4, 4, dtype=torch.bool)
    mask[0, 3] = False
    (grad_E,) = torch.autograd.grad(model.logits_and_attention(X, mask)[0].sum(), model.E)
    (expected,) = torch.autograd.grad(reference_logits(model, X, mask).sum(), model.E)
    assert torch.allclose(grad_E, expected, atol=1e-12)
    assert torch.all(grad_E[6:] == 0) and torch.all(grad_E[:6].abs().sum(1) > 0)


def test_bad_arguments():
    model = TwoLayerCLSAttention(10, 4)
    with pytest.raises(ValueError, match="layer"):
        model.attention(torch.zeros(1, 2, dtype=torch.long), layer=3)
    with pytest.raises(ValueError, match="ids must lie"):
        model(torch.full((1, 2), 10))
    with pytest.raises(ValueError, match="d must be"):
        TwoLayerCLSAttention(10, 0)


def test_the_per_token_tables_are_the_embeddings_times_each_vector():
    model = randomised(TwoLayerCLSAttention(12, 3, seed=6, dtype=torch.float64), seed=7)
    with torch.no_grad():
        assert torch.allclose(model.token_scores(), model.E @ model.p2)
        assert torch.allclose(model.first_layer_scores(), model.E @ model.p1)
        assert torch.allclose(model.token_values(), model.E @ model.v)
    assert not torch.allclose(model.token_scores(), model.first_layer_scores())


def test_it_starts_from_the_one_layer_draw_with_zero_queries_in_float32():
    from token_selection.real_data.registry import OneLayerAttention

    model, one_layer = TwoLayerCLSAttention(9, 4, seed=3), OneLayerAttention(9, 4, seed=3)
    assert torch.equal(model.E, one_layer.E) and torch.equal(model.v, one_layer.v)
    assert model.E.dtype == model.p1.dtype == model.p2.dtype == torch.float32
    assert torch.equal(model.p1, torch.zeros(4)) and torch.equal(model.p2, torch.zeros(4))
    assert TwoLayerCLSAttention(9, 4, dtype=torch.float64).p2.dtype == torch.float64
    assert torch.equal(TwoLayerCLSAttention(9, 4).E, TwoLayerCLSAttention(9, 4, seed=0).E)


def test_attention_reads_the_requested_layer_in_batches_with_or_without_a_mask():
    model = randomised(TwoLayerCLSAttention(20, 6, seed=2, dtype=torch.float64), seed=4)
    X = torch.randint(0, 20, (7, 5), generator=torch.Generator().manual_seed(5))
    mask = torch.ones(7, 5, dtype=torch.bool)
    mask[2, 3:] = False
    mask[5, 1:] = False
    layer1, layer2 = model.attention(X, mask, layer=1), model.attention(X, mask)
    _, q1, q2 = model.logits_and_attention(X, mask)
    assert torch.allclose(layer1, q1) and torch.allclose(layer2, q2) and not torch.allclose(layer1, layer2)
    assert torch.allclose(model.attention(X, mask, layer=1, batch_size=3), layer1)
    assert torch.allclose(model.attention(X, mask, batch_size=2), layer2)
    assert torch.allclose(model(X, mask, batch_size=2), model(X, mask)) and model(X, mask, batch_size=2).shape == (7,)
    assert torch.allclose(model(X, None, batch_size=3), model(X, torch.ones(7, 5, dtype=torch.bool)))
    assert torch.allclose(model.attention(X, None, layer=1, batch_size=3), model.attention(X, torch.ones_like(mask), layer=1))
    with pytest.raises(ValueError, match=r"^layer must be 1 or 2, got 0$"):
        model.attention(X, layer=0)
    with pytest.raises(ValueError, match=r"^layer must be 1 or 2, got '2'$"):
        model.attention(X, layer="2")
