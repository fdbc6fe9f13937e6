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


def test_key_query_layers_scores_and_attention_by_layer():
    X, mask = _batch()
    model = KeyQueryTwoLayerAttention(30, 6, seed=4, dtype=torch.float64)
    assert torch.equal(model.W1, torch.eye(6, dtype=torch.float64)) and torch.equal(model.W2, torch.eye(6, dtype=torch.float64))
    assert torch.equal(model.p, torch.zeros(6, dtype=torch.float64))
    _randomise(model, seed=5)
    with torch.no_grad():
        assert torch.allclose(model.first_layer_scores(), model.E @ model.W1.T @ model.p)
        assert torch.allclose(model.token_values(), model.E @ model.v)
    _, q1, q2 = model.logits_and_attention(X, mask)
    assert torch.allclose(model.attention(X, mask, layer=1, chunk=2), q1)
    assert torch.allclose(model.attention(X, mask, chunk=4), q2) and not torch.allclose(q1, q2)
    assert torch.allclose(model(X, None, chunk=2), model(X, torch.ones_like(mask)))
    with pytest.raises(ValueError, match=r"^layer must be 1 or 2, got 3$"):
        model.attention(X, mask, layer=3)
    with pytest.raises(ValueError, match=r"^chunk must be an integer >= 1, got 0$"):
        model.attention(X, mask, chunk=0)


def test_mean_layer2_scores_average_each_token_over_its_real_occurrences():
    X, mask = _batch(V=12, n=7, T=5, seed=2)
    model = KeyQueryTwoLayerAttention(12, 4, seed=1, dtype=torch.float64)
    _randomise(model, seed=2)
    full = model.layer2_scores(X, mask)
    mean = model.mean_layer2_scores(X, mask, chunk=3)
    assert mean.dtype == torch.float64 and mean.shape == (12,)
    for token in range(12):
        where = (X == token) & mask
        if where.any():
            assert mean[token].item() == pytest.approx(full[where].mean().item())  # padded occurrences left out
        else:
            assert torch.isnan(mean[token])
    everything = model.mean_layer2_scores(X, None, chunk=2)  # no mask: every position counts
    scores = model.layer2_scores(X, None)
    token = int(X[0, 4])  # a padded position of row 0
    assert everything[token].item() == pytest.approx(scores[X == token].mean().item())
    with pytest.raises(ValueError, match="^chunk must be"):
        model.mean_layer2_scores(X, mask, chunk=0)


def test_the_mlp_head_draws_its_input_weights_he_scaled_and_starts_with_a_silent_branch():
    model = AttentionMLP(5, 400, seed=0, dtype=torch.float64)
    assert model.hidden == 400 and model.W_in.shape == (400, 400) and model.W_out.shape == (400, 400)
    assert model.W_in.std().item() == pytest.approx((2 / 400) ** 0.5, rel=0.02)  # He: N(0, 2/d), 160 000 draws
    assert torch.equal(model.b, torch.zeros(400, dtype=torch.float64)) and not model.W_out.any()
    narrow = AttentionMLP(5, 6, hidden=3, seed=0)
    assert narrow.W_in.shape == (3, 6) and narrow.b.shape == (3,) and narrow.W_out.shape == (6, 3) and narrow.hidden == 3
    with pytest.raises(ValueError, match="^hidden must be an integer >= 1, got 0$"):
        AttentionMLP(5, 6, hidden=0)


def test_the_mlp_share_is_the_branchs_part_of_the_logits_mean_square():
    X, mask = _batch()
    model = AttentionMLP(30, 8, seed=2, dtype=torch.float64)
    _randomise(model, seed=3)
    with torch.no_grad():
        direct, branch = [], []
        for j in range(X.shape[0]):  # each review written out: z, then v . z and v . W_out relu(W_in z + b)
            E = model.E[X[j][mask[j]]]
            z = torch.softmax(E @ model.p, 0) @ E
            direct.append(z @ model.v)
            branch.append((model.W_out @ torch.relu(model.W_in @ z + model.b)) @ model.v)
        direct, branch = torch.stack(direct), torch.stack(branch)
    expected = float(branch.pow(2).mean() / (direct + branch).pow(2).mean())
    assert model.mlp_share(X, mask) == pytest.approx(expected, rel=1e-10)
    assert model.mlp_share(X) == pytest.approx(model.mlp_share(X, torch.ones_like(mask)))
    q = model.attention(X, mask, chunk=4)
    assert torch.all(q[~mask] == 0) and torch.allclose(q.sum(1), torch.ones(9, dtype=torch.float64))
    assert torch.allclose(model.token_scores(), model.E @ model.p)


def test_the_multiclass_model_has_k_output_vectors_and_a_fixed_v():
    X, mask = _batch()
    model = MultiClassCLSAttention(30, 6, 3, seed=4, dtype=torch.float64)
    binary = ts.CLSAttention(30, 6, seed=4, dtype=torch.float64)
    assert torch.equal(model.E, binary.E) and torch.equal(model.v, binary.v) and not model.v.requires_grad
    assert model.num_classes == 3 and model.W.shape == (3, 6) and model.W.requires_grad
    _randomise(model, seed=6)
    with torch.no_grad():
        assert torch.allclose(model.token_scores(), model.E @ model.p)
        assert torch.allclose(model.token_class_values(), model.E @ model.W.T)
    logits, q = model.logits_and_attention(X, mask)
    assert logits.shape == (9, 3) and torch.allclose(model.attention(X, mask, chunk=2), q)
    with pytest.raises(ValueError, match="^num_classes must be an integer >= 2, got 1$"):
        MultiClassCLSAttention(30, 6, 1)


def test_attended_embeddings_gradient_of_one_input_alone_and_weights_of_another_dtype():
    """Only E or only the weights need a gradient; float32 weights are cast to E's float64; X leaves ids unseen."""
    gen = torch.Generator().manual_seed(3)
    V, d = 9, 4
    E = torch.randn(V, d, dtype=torch.float64, generator=gen)
    X = torch.tensor([[0, 4, 4, 1], [2, 2, 2, 0], [3, 1, 4, 4]])  # ids 0..4 of 9, repeated
    w = torch.rand(3, 4, dtype=torch.float64, generator=gen)
    g = torch.randn(3, d, dtype=torch.float64, generator=gen)

    out = attended_embeddings(E, X, w.float())
    assert out.dtype == torch.float64
    assert torch.allclose(out, (w.float().double()[..., None] * E[X]).sum(1), atol=1e-12)

    E_only = E.clone().requires_grad_(True)
    (grad_E,) = torch.autograd.grad((attended_embeddings(E_only, X, w) * g).sum(), E_only)
    E_ref = E.clone().requires_grad_(True)
    (expected_E,) = torch.autograd.grad(((w[..., None] * E_ref[X]).sum(1) * g).sum(), E_ref)
    assert grad_E.shape == (V, d) and torch.allclose(grad_E, expected_E, atol=1e-12)
    assert torch.all(grad_E[5:] == 0)

    w_only = w.clone().requires_grad_(True)
    (grad_w,) = torch.autograd.grad((attended_embeddings(E, X, w_only) * g).sum(), w_only)
    w_ref = w.clone().requires_grad_(True)
    (expected_w,) = torch.autograd.grad(((w_ref[..., None] * E[X]).sum(1) * g).sum(), w_ref)
    assert torch.allclose(grad_w, expected_w, atol=1e-12)


def _loop_layer2_scores(model: KeyQueryTwoLayerAttention, X: torch.Tensor, mask: torch.Tensor) -> list[torch.Tensor]:
    """``(p + h) . W2 E_{x_i}`` on each sequence's real positions, h attending over those positions only."""
    out = []
    for j in range(X.shape[0]):
        E = model.E[X[j][mask[j]]]
        q1 = torch.softmax(E @ (model.W1.T @ model.p), 0)
        out.append(E @ (model.W2.T @ (model.p + q1 @ E)))
    return out


def test_layer2_scores_match_the_definition_on_the_real_positions():
    X, mask = _batch(V=15, n=6, T=5, seed=4)
    model = KeyQueryTwoLayerAttention(15, 5, seed=2, dtype=torch.float64)
    _randomise(model, seed=8)
    with torch.no_grad():
        scores = model.layer2_scores(X, mask)
        for row, expected in enumerate(_loop_layer2_scores(model, X, mask)):
            assert torch.allclose(scores[row][mask[row]], expected, atol=1e-12), row


@pytest.mark.parametrize("model_class", [KeyQueryTwoLayerAttention, AttentionMLP, MultiClassCLSAttention])
def test_every_variant_draws_all_its_parameters_from_its_seed_zero_by_default(model_class):
    def make(**kwargs):
        return model_class(12, 5, 3, **kwargs) if model_class is MultiClassCLSAttention else model_class(12, 5, **kwargs)

    default, zero, other = make(), make(seed=0), make(seed=1)
    for (name, a), b, c in zip(default.named_parameters(), zero.parameters(), other.parameters(), strict=True):
        assert torch.equal(a, b), name
        if name not in ("p", "W1", "W2", "b", "W_out"):  # the drawn ones; the rest start at 0 or I
            assert not torch.equal(a, c), name


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("model_class", [KeyQueryTwoLayerAttention, AttentionMLP, MultiClassCLSAttention])
def test_every_parameter_has_the_models_dtype(model_class, dtype):
    model = model_class(7, 4, 3, dtype=dtype) if model_class is MultiClassCLSAttention else model_class(7, 4, dtype=dtype)
    assert {name: p.dtype for name, p in model.named_parameters()} == {name: dtype for name, _ in model.named_parameters()}


def test_the_class_vectors_are_drawn_with_variance_one_over_d():
    model = MultiClassCLSAttention(3, 400, 400, seed=1, dtype=torch.float64)
    assert model.W.shape == (400, 400)
    assert model.W.std().item() == pytest.approx(400**-0.5, rel=0.02)  # N(0, I/d), 160 000 draws
    assert abs(model.W.mean().item()) < 4 * 400**-0.5 / 400
