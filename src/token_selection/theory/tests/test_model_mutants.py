"""Exact checks of the model's pieces: initialisation, masked softmax, the custom backward passes, the loss."""

import math
import re

import pytest
import torch

import token_selection as ts
from token_selection.theory.model import gather_tokens, gathered_logits, masked_softmax, token_table


def draws(V: int, d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """E, v and the random p, drawn in that order from one float64 generator, as the docstring says."""
    gen = torch.Generator().manual_seed(seed)
    E = torch.randn(V, d, generator=gen, dtype=torch.float64) / d**0.5
    v = torch.randn(d, generator=gen, dtype=torch.float64) / d**0.5
    p = torch.randn(d, generator=gen, dtype=torch.float64) * (1e-2 / d**0.5)
    return E, v, p


def test_initialisation_is_the_documented_draw():
    E, v, p = draws(7, 16, seed=3)
    random = ts.CLSAttention(7, 16, seed=3, dtype=torch.float64, p_init="random")
    assert torch.allclose(random.E.detach(), E, rtol=1e-15, atol=0) and torch.allclose(random.v.detach(), v, rtol=1e-15, atol=0)
    assert torch.allclose(random.p.detach(), p, rtol=1e-15, atol=0)
    zero = ts.CLSAttention(7, 16, seed=3, dtype=torch.float64)
    assert (
        torch.equal(zero.E, random.E)
        and torch.equal(zero.v, random.v)
        and torch.equal(zero.p.detach(), torch.zeros(16, dtype=torch.float64))
    )
    assert zero.p.dtype == torch.float64  # torch.equal compares values only: a float32 p would pass the line above
    single = ts.CLSAttention(7, 16, seed=3, p_init="random")
    assert single.E.dtype == single.p.dtype == single.v.dtype == torch.float32
    assert torch.equal(single.p.detach(), p.float()) and torch.equal(single.E.detach(), E.float())
    assert (single.vocab_size, single.d) == (7, 16)


def test_random_p_is_small():
    # |p| ~ 1e-2: attention starts near uniform, and p's scale is 1e-2 of E's and v's
    model = ts.CLSAttention(10, 4096, seed=0, p_init="random", dtype=torch.float64)
    assert float(model.p.detach().norm()) == pytest.approx(1e-2, rel=0.05)
    assert float(model.v.detach().norm()) == pytest.approx(1.0, rel=0.05)


def test_seed_is_read_as_an_integer():
    assert torch.equal(ts.CLSAttention(5, 3, seed=2.0).E, ts.CLSAttention(5, 3, seed=2).E)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vocab_size": 0}, "vocab_size must be an integer >= 1, got 0"),
        ({"d": 0}, "d must be an integer >= 1, got 0"),
        ({"p_init": "ones"}, "p_init must be 'zero' or 'random', got 'ones'"),
        ({"dtype": torch.int64}, "dtype must be a floating-point dtype, got torch.int64"),
    ],
)
def test_constructor_messages(kwargs, message):
    args = {"vocab_size": 5, "d": 3} | kwargs
    V, d = args.pop("vocab_size"), args.pop("d")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ts.CLSAttention(V, d, **args)


def test_masked_softmax_by_hand():
    scores = torch.tensor([[0.0, torch.log(torch.tensor(3.0)).item(), 50.0], [1.0, 1.0, 1.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    weights = masked_softmax(scores, mask)
    assert torch.allclose(weights, torch.tensor([[0.25, 0.75, 0.0], [1 / 3, 1 / 3, 1 / 3]], dtype=torch.float64), atol=1e-15)
    assert weights[0, 2] == 0.0
    assert torch.allclose(masked_softmax(scores, None)[1], torch.full((3,), 1 / 3, dtype=torch.float64), atol=1e-15)


def test_masked_softmax_is_stable_and_ignores_huge_padded_scores():
    # the largest score sits on a padded position: the shift must use the real positions only
    scores = torch.tensor([[1000.0, 1001.0, 1e300]], dtype=torch.float64)
    weights = masked_softmax(scores, torch.tensor([[True, True, False]]))
    e = torch.exp(torch.tensor(-1.0, dtype=torch.float64))
    assert torch.allclose(weights, torch.tensor([[e / (1 + e), 1 / (1 + e), 0.0]], dtype=torch.float64), atol=1e-15)
    unmasked = masked_softmax(torch.tensor([[-1e4, 0.0]], dtype=torch.float64), None)
    assert unmasked.tolist() == [[0.0, 1.0]]


def test_gather_backward_sums_per_token():
    table = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    X = torch.tensor([[0, 2, 2], [2, 0, 1]])
    out = gather_tokens(table, X)
    assert out.tolist() == [[1.0, 3.0, 3.0], [3.0, 1.0, 2.0]]
    upstream = torch.tensor([[1.0, 10.0, 100.0], [1000.0, 0.5, 0.25]])
    (out * upstream).sum().backward()
    # token 3 never occurs: its gradient is 0 and the gradient still has one entry per token
    assert table.grad.tolist() == [1.5, 0.25, 1110.0, 0.0] and table.grad.dtype == torch.float32


def test_token_table_backward_matches_plain_autograd():
    gen = torch.Generator().manual_seed(0)
    E0, p0, v0 = (torch.randn(*s, generator=gen, dtype=torch.float64) for s in ((6, 4), (4,), (4,)))
    gs, gv = torch.randn(6, generator=gen, dtype=torch.float64), torch.randn(6, generator=gen, dtype=torch.float64)

    def grads(function, needs=(True, True, True)):
        tensors = [t.clone().requires_grad_(n) for t, n in zip((E0, p0, v0), needs, strict=True)]
        scores, values = function(*tensors)
        torch.autograd.backward([scores, values], [gs, gv])
        return [t.grad for t in tensors]

    plain = grads(lambda E, p, v: (E @ p, E @ v))
    for needs in ((True, True, True), (True, False, False), (False, True, False), (False, False, True)):
        fast = grads(token_table, needs)
        for got, want, need in zip(fast, plain, needs, strict=True):
            if need:
                assert torch.allclose(got, want, rtol=1e-14, atol=1e-15)
            else:
                assert got is None


def test_forward_attention_scores_and_values():
    model = ts.CLSAttention(9, 5, seed=1, dtype=torch.float64, p_init="random")
    model.p.data.mul_(100.0)
    E, p, v = model.E.detach(), model.p.detach(), model.v.detach()
    assert torch.equal(model.token_scores().detach(), E @ p) and torch.equal(model.token_values().detach(), E @ v)
    X = torch.tensor([[0, 3, 8, 8], [5, 5, 1, 2]])
    mask = torch.tensor([[True, True, False, False], [True, True, True, True]])
    q = torch.softmax((E @ p)[X].masked_fill(~mask, float("-inf")), -1)
    assert torch.allclose(model.attention(X, mask).detach(), q, atol=1e-15)
    assert torch.allclose(model(X, mask).detach(), (q * (E @ v)[X]).sum(-1), atol=1e-15)
    logits, weights = gathered_logits(E @ p, E @ v, X, mask)
    assert torch.allclose(weights, q, atol=1e-15) and torch.allclose(logits, (q * (E @ v)[X]).sum(-1), atol=1e-15)
    with pytest.raises(ValueError, match=r"^X holds token ids in \[0, 9\], but ids must lie in \[0, 9\)"):
        model.attention(torch.tensor([[0, 9]]))


def test_logistic_loss_by_hand_and_at_large_margins():
    logits = torch.tensor([0.0, 2.0, -1000.0], dtype=torch.float64)
    y = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    expected = (math.log(2.0) + math.log1p(math.exp(2.0)) + 1000.0) / 3
    assert float(ts.logistic_loss(logits, y)) == pytest.approx(expected, rel=1e-15)


def test_default_seed_is_zero():
    assert torch.equal(ts.CLSAttention(5, 3).E, ts.CLSAttention(5, 3, seed=0).E)
