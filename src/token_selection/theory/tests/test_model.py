import pytest
import torch

import token_selection as ts


def loop_logit(model: ts.CLSAttention, tokens: list[int]) -> float:
    """f(X) by a plain loop over tokens, straight from the formula."""
    E, p, v = model.E.detach(), model.p.detach(), model.v.detach()
    scores = [float(E[s] @ p) for s in tokens]
    top = max(scores)
    weights = [torch.exp(torch.tensor(s - top, dtype=torch.float64)).item() for s in scores]
    return sum(w * float(E[s] @ v) for w, s in zip(weights, tokens, strict=True)) / sum(weights)


def test_forward_matches_loop_over_tokens():
    model = ts.CLSAttention(30, 16, seed=1, dtype=torch.float64, p_init="random")
    model.p.data.mul_(300.0)
    X = torch.randint(0, 30, (5, 7), generator=torch.Generator().manual_seed(0))
    logits = model(X)
    for j in range(5):
        assert logits[j].item() == pytest.approx(loop_logit(model, X[j].tolist()), rel=1e-12, abs=1e-14)


def test_padding_never_changes_a_logit():
    model = ts.CLSAttention(40, 8, seed=2, dtype=torch.float64, p_init="random")
    model.p.data.mul_(50.0)
    X = torch.randint(1, 40, (6, 5), generator=torch.Generator().manual_seed(1))
    padded = torch.cat([X, torch.randint(0, 40, (6, 9), generator=torch.Generator().manual_seed(2))], dim=1)
    mask = torch.zeros_like(padded, dtype=torch.bool)
    mask[:, :5] = True
    assert torch.equal(model(X), model(padded, mask))
    weights = model.attention(padded, mask)
    assert torch.all(weights[:, 5:] == 0)
    assert torch.allclose(weights.sum(1), torch.ones(6, dtype=torch.float64), atol=1e-15)


def test_ragged_rows_match_unpadded_rows():
    model = ts.CLSAttention(20, 8, seed=3, dtype=torch.float64, p_init="random")
    X = torch.tensor([[3, 4, 5, 0], [7, 8, 0, 0]])
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    logits = model(X, mask)
    assert logits[0] == model(X[:1, :3])[0]
    assert logits[1] == model(X[1:, :2])[0]


@pytest.mark.parametrize("norm", [1e3, 1e6, 1e30])
def test_no_nan_or_inf_at_large_norm_of_p(norm):
    for dtype in (torch.float32, torch.float64):
        model = ts.CLSAttention(50, 16, seed=4, dtype=dtype, p_init="random")
        model.p.data.mul_(norm / model.p.detach().norm())
        X = torch.randint(0, 50, (8, 12), generator=torch.Generator().manual_seed(3))
        logits, weights = model(X), model.attention(X)
        assert torch.isfinite(logits).all() and torch.isfinite(weights).all()
        loss = ts.logistic_loss(model(X), torch.ones(8, dtype=dtype))
        loss.backward()
        assert torch.isfinite(model.p.grad).all() and torch.isfinite(model.E.grad).all()


def test_init_statistics_and_seed():
    model = ts.CLSAttention(2000, 256, seed=5)
    assert model.E.std().item() == pytest.approx(256**-0.5, rel=0.02)
    assert torch.all(model.p == 0)
    again = ts.CLSAttention(2000, 256, seed=5)
    assert torch.equal(model.E, again.E) and torch.equal(model.v, again.v)
    assert not torch.equal(model.E, ts.CLSAttention(2000, 256, seed=6).E)


def test_deterministic_forward_and_backward():
    def run():
        model = ts.CLSAttention(100, 32, seed=7, p_init="random")
        data = ts.make_synthetic(64, 10, 100, 0.2, seed=8)
        loss = ts.logistic_loss(model(data.X), data.y.float())
        loss.backward()
        return loss.detach(), model.E.grad.clone(), model.p.grad.clone()

    first, second = run(), run()
    for a, b in zip(first, second, strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize(
    ("X", "mask", "message"),
    [
        (torch.zeros(3, dtype=torch.long), None, "X must have shape"),
        (torch.zeros(2, 3), None, "integer token ids"),
        (torch.full((2, 3), 10), None, r"\[0, 10\)"),
        (torch.full((2, 3), -1), None, r"\[0, 10\)"),
        (torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long), "mask must be a bool"),
        (torch.zeros(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.bool), "mask must have the shape"),
        (torch.zeros(2, 3, dtype=torch.long), torch.tensor([[True, False, False], [False, False, False]]), "sequence"),
    ],
)
def test_bad_inputs_raise_value_error(X, mask, message):
    model = ts.CLSAttention(10, 4)
    with pytest.raises(ValueError, match=message):
        model(X, mask)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="vocab_size"):
        ts.CLSAttention(0, 4)
    with pytest.raises(ValueError, match="d must"):
        ts.CLSAttention(10, 2.5)
    with pytest.raises(ValueError, match="p_init"):
        ts.CLSAttention(10, 4, p_init="ones")
    with pytest.raises(ValueError, match="dtype"):
        ts.CLSAttention(10, 4, dtype=torch.int64)
