import math
import re

import pytest
import torch

import token_selection as ts


def sharp_model(V: int = 30, d: int = 12, seed: int = 0, norm: float = 8.0) -> ts.CLSAttention:
    """A float64 model whose attention is far from uniform (|p| = norm)."""
    model = ts.CLSAttention(V, d, seed=seed, dtype=torch.float64, p_init="random")
    model.p.data.mul_(norm / model.p.detach().norm())
    return model


def ragged_batch(V: int, n: int = 6, T: int = 9, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """X: (n, T) ids; mask: (n, T) bool with lengths 1..T."""
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(0, V, (n, T), generator=gen)
    lengths = torch.randint(1, T + 1, (n,), generator=gen)
    lengths[0] = 1
    return X, torch.arange(T)[None, :] < lengths[:, None]


def parameters(model: ts.CLSAttention) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return model.E.detach(), model.p.detach(), model.v.detach()


def test_loop_matches_fast_form_with_padding():
    model = sharp_model()
    X, mask = ragged_batch(30)
    expected = model(X, mask)
    got = ts.loop_logits(*parameters(model), X, mask)
    assert torch.allclose(got, expected, rtol=0, atol=1e-13)


def test_loop_matches_hand_computed_logit():
    E = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    p = torch.tensor([math.log(3.0), 0.0], dtype=torch.float64)
    v = torch.tensor([2.0, -1.0], dtype=torch.float64)
    # Scores log 3 and 0: weights 3/4 and 1/4, values 2 and -1.
    got = ts.loop_logits(E, p, v, torch.tensor([[0, 1]]))
    assert got.item() == pytest.approx(0.75 * 2 - 0.25, abs=1e-15)


def test_loop_skips_padding_whatever_the_padded_ids():
    model = sharp_model(seed=1)
    X, mask = ragged_batch(30, seed=1)
    other = torch.where(mask, X, (X + 7) % 30)
    args = parameters(model)
    assert torch.equal(ts.loop_logits(*args, X, mask), ts.loop_logits(*args, other, mask))


def test_gather_then_attend_matches_fast_form_and_gradient():
    model = sharp_model(V=40, d=10, seed=2)
    X, mask = ragged_batch(40, n=8, T=11, seed=2)
    y = torch.tensor([1.0, -1.0] * 4, dtype=torch.float64)
    ts.logistic_loss(model(X, mask), y).backward()
    fast = [t.grad.clone() for t in (model.E, model.p, model.v)]
    E, p, v = (t.detach().clone().requires_grad_(True) for t in (model.E, model.p, model.v))
    logits, weights = ts.gather_then_attend(E, p, v, X, mask)
    ts.logistic_loss(logits, y).backward()
    assert torch.allclose(logits, model(X, mask), rtol=0, atol=1e-13)
    assert torch.equal(weights == 0, ~mask)
    for slow, quick in zip((E.grad, p.grad, v.grad), fast, strict=True):
        assert torch.allclose(slow, quick, rtol=1e-12, atol=1e-15)


def test_stable_at_huge_norm_of_p():
    model = sharp_model(seed=3, norm=1e6)
    X, mask = ragged_batch(30, seed=3)
    args = parameters(model)
    loop = ts.loop_logits(*args, X, mask)
    gathered, weights = ts.gather_then_attend(*args, X, mask)
    assert torch.isfinite(loop).all() and torch.isfinite(gathered).all() and torch.isfinite(weights).all()
    assert torch.allclose(loop, gathered, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda E, p, v, X: (E[0], p, v, X), "E must have shape"),
        (lambda E, p, v, X: (E, p[:-1], v, X), "p must have shape"),
        (lambda E, p, v, X: (E, p, v.float(), X), "share one dtype"),
        (lambda E, p, v, X: (E, p, v, X + 100), "ids must lie in"),
        (lambda E, p, v, X: (E, p, v, X.double()), "integer token ids"),
    ],
)
def test_bad_input_raises_value_error(change, message):
    model = sharp_model()
    X, _ = ragged_batch(30)
    args = change(*parameters(model), X)
    for function in (ts.loop_logits, ts.gather_then_attend):
        with pytest.raises(ValueError, match=message):
            function(*args)


def test_all_padding_row_is_rejected():
    model = sharp_model()
    X, mask = ragged_batch(30)
    mask[2] = False
    for function in (ts.loop_logits, ts.gather_then_attend):
        with pytest.raises(ValueError, match="every position"):
            function(*parameters(model), X, mask)


def test_loop_skips_padding_in_the_middle_of_a_row():
    model = sharp_model(seed=4)
    X = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    mask = torch.tensor([[True, False, True, True], [False, True, False, True]])
    expected = model(X, mask)
    assert torch.allclose(ts.loop_logits(*parameters(model), X, mask), expected, rtol=0, atol=1e-13)
    assert torch.allclose(ts.gather_then_attend(*parameters(model), X, mask)[0], expected, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda E, p, v: (E.tolist(), p, v), "E must be a torch.Tensor or numpy array, got list"),
        (lambda E, p, v: (E, p.tolist(), v), "p must be a torch.Tensor or numpy array, got list"),
        (lambda E, p, v: (E, p, v.tolist()), "v must be a torch.Tensor or numpy array, got list"),
        (lambda E, p, v: (E, p, v[:-1]), "v must have shape (12,), got (11,)"),
        (lambda E, p, v: (E, p[:-1], v), "p must have shape (12,), got (11,)"),
        (lambda E, p, v: (E.long(), p, v), "E must be a floating-point matrix, got dtype torch.int64"),
        (lambda E, p, v: (E[0], p, v), "E must have shape (V, d), got (12,)"),
        (
            lambda E, p, v: (E, p.float(), v),
            "E, p and v must share one dtype, got torch.float64, torch.float32 and torch.float64",
        ),
    ],
)
def test_parameter_messages(change, message):
    model = sharp_model()
    X, _ = ragged_batch(30)
    args = change(*parameters(model))
    for function in (ts.loop_logits, ts.gather_then_attend):
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            function(*args, X)
