"""The chapters' coding exercises: each checker accepts the hidden solution and rejects a typical mistake."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.exercises import check_exercise
from token_selection.theory.one_step import step_size_threshold


def _random_model_cases(sizes, seed=1):
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for V, d, n, T in sizes:
        E = torch.randn(V, d, generator=gen, dtype=torch.float64)
        p, v = torch.randn(d, generator=gen, dtype=torch.float64), torch.randn(d, generator=gen, dtype=torch.float64)
        X = torch.randint(0, V, (n, T), generator=gen)
        mask = torch.arange(T)[None, :] < torch.randint(1, T + 1, (n, 1), generator=gen)
        cases.append(((E, p, v, X, mask), {}))
    return cases


def _softmax_cases():
    gen = torch.Generator().manual_seed(0)
    cases = []
    for scale in (1.0, 1e4):
        scores = scale * torch.randn(6, 5, generator=gen, dtype=torch.float64)
        mask = torch.rand(6, 5, generator=gen) < 0.7
        mask[:, 0] = True
        cases.append(((scores, mask), {}))
    return cases


def _importance_cases():
    cases = []
    for seed, (V, n, T) in enumerate([(10, 8, 5), (60, 12, 4)]):
        gen = torch.Generator().manual_seed(seed)
        X = torch.randint(0, V, (n, T), generator=gen)
        y = torch.where(torch.arange(n) % 2 == 0, 1, -1)
        mask = torch.arange(T)[None, :] < torch.randint(1, T + 1, (n, 1), generator=gen)
        cases.append(((X, y, V, mask), {}))
    return cases


def _values_cases():
    cases = []
    for seed, (V, d, n, T) in enumerate([(12, 16, 30, 5), (30, 64, 80, 9)]):
        gen = torch.Generator().manual_seed(seed)
        X = torch.randint(0, V, (n, T), generator=gen)
        y = torch.where(torch.rand(n, generator=gen) < 0.5, 1.0, -1.0).double()
        E0 = torch.randn(V, d, generator=gen, dtype=torch.float64) / d**0.5
        v = torch.randn(d, generator=gen, dtype=torch.float64) / d**0.5
        cases.append(((E0, v, X, y, 25.0 * (seed + 1)), {}))
    return cases


def _threshold_cases():
    return [
        ((s.X, s.y, V, d), {})
        for s, V, d in [
            (ts.make_synthetic(40, 6, 20, 0.0, seed=0), 20, 64),
            (ts.make_synthetic(200, 8, 50, 0.1, seed=1), 50, 512),
        ]
    ]


def _pair_cases():
    return [
        ((s.X, s.relevant), {}) for s in (ts.make_synthetic(12, 5, 20, 0.0, seed=0), ts.make_synthetic(12, 5, 20, 0.3, seed=1))
    ]


def _margin_cases():
    cases = []
    for seed in range(2):
        gen = torch.Generator().manual_seed(seed)
        sample = ts.make_synthetic(16, 6, 24, 0.2 * seed, seed=seed)
        E = torch.randn(24, 10, generator=gen, dtype=torch.float64)
        cases.append(((E, torch.randn(10, generator=gen, dtype=torch.float64), sample.X, sample.relevant), {}))
    return cases


def _one_hot_alpha(X, y, V):
    counts = torch.nn.functional.one_hot(X, V).sum(1).double()
    return (y.double()[:, None] * counts / X.shape[1]).mean(0)


def _softmax(scores, mask, *, use_mask=True):
    filled = scores.masked_fill(~mask, float("-inf")) if use_mask else scores
    weights = torch.exp(filled - filled.amax(dim=1, keepdim=True))
    return weights / weights.sum(dim=1, keepdim=True)


def _logits(E, p, v, X, mask, *, softmax=True):
    weights = ts.masked_softmax((E @ p)[X], mask) if softmax else mask.double() / mask.sum(1, keepdim=True)
    return (weights * (E @ v)[X]).sum(dim=1)


def _signed_frequency(X, y, V, mask, *, per_length=True):
    lengths = mask.sum(1).double() if per_length else torch.full((X.shape[0],), float(X.shape[1]), dtype=torch.float64)
    weights = (y.double() / lengths)[:, None].expand_as(X)
    return torch.bincount(X[mask], weights=weights[mask], minlength=V) / X.shape[0]


def _posterior_gap(X, y, V, mask, *, unseen=float("nan")):
    positive = (y > 0)[:, None].expand_as(X)
    plus = torch.bincount(X[mask & positive], minlength=V).double()
    minus = torch.bincount(X[mask & ~positive], minlength=V).double()
    total = plus + minus
    return torch.where(total > 0, (plus - minus) / total.clamp(min=1), torch.full_like(total, unseen))


def _values(E0, v, X, y, eta, *, factor=0.5):
    return E0 @ v + factor * eta * _one_hot_alpha(X, y, E0.shape[0]) * (v @ v)


def _threshold(X, y, V, d, *, unbiased=False):
    return 2 / (d**0.5 * float(_one_hot_alpha(X, y, V).std(unbiased=unbiased)))


def _pairs(X, relevant, *, distinct=True):
    pairs = [] if not distinct else set()
    for row, marks in zip(X.tolist(), relevant.tolist(), strict=True):
        chosen = [s for s, m in zip(row, marks, strict=True) if m]
        others = [s for s, m in zip(row, marks, strict=True) if not m]
        new = [(r, s) for r in chosen for s in others]
        pairs.update(new) if distinct else pairs.extend(new)
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _reference_margin(E, p, X, relevant):
    pairs = ts.selection_pairs(X, relevant, E.shape[0])
    return float(((E[pairs[:, 0]] - E[pairs[:, 1]]) @ p).min() / p.norm())


def _margin(E, p, X, relevant, *, normalise=True):
    scores = (E @ p)[X]
    gap = torch.where(relevant, scores, torch.inf).amin(1) - torch.where(relevant, -torch.inf, scores).amax(1)
    return float(gap.min() / (p.norm() if normalise else 1.0))


EXERCISES = {
    # chapter: (reference, cases, right solution, wrong solution: a typical mistake)
    "ch1 masked softmax": (ts.masked_softmax, _softmax_cases, _softmax, lambda s, m: _softmax(s, m, use_mask=False)),
    "ch1 two-vector logits": (
        ts.loop_logits,
        lambda: _random_model_cases([(8, 4, 5, 6), (30, 16, 12, 9)]),
        _logits,
        lambda *a: _logits(*a, softmax=False),
    ),
    "ch2 signed frequency": (
        ts.signed_frequency,
        _importance_cases,
        _signed_frequency,
        lambda *a: _signed_frequency(*a, per_length=False),
    ),
    "ch2 posterior gap": (ts.posterior_gap, _importance_cases, _posterior_gap, lambda *a: _posterior_gap(*a, unseen=0.0)),
    "ch3 one-step values": (
        lambda E0, v, X, y, eta: ts.predicted_one_step(E0, v, ts.signed_frequency(X, y, E0.shape[0]), eta) @ v,
        _values_cases,
        _values,
        lambda *a: _values(*a, factor=1.0),
    ),
    "ch3 step-size threshold": (step_size_threshold, _threshold_cases, _threshold, lambda *a: _threshold(*a, unbiased=True)),
    "ch4 distinct pairs": (
        lambda X, r: ts.selection_pairs(X, r, int(X.max()) + 1),
        _pair_cases,
        _pairs,
        lambda X, r: _pairs(X, r, distinct=False),
    ),
    "ch4 selection margin": (_reference_margin, _margin_cases, _margin, lambda *a: _margin(*a, normalise=False)),
}


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_checker_accepts_the_solution_and_rejects_a_mistake(name):
    reference, cases, right, wrong = EXERCISES[name]
    assert check_exercise(right, reference, cases(), name=name) is True
    with pytest.raises(AssertionError, match="differs from the reference|shape"):
        check_exercise(wrong, reference, cases(), name=name)


def test_an_unattempted_stub_is_reported_not_failed():
    def stub(*args):
        raise NotImplementedError

    assert check_exercise(stub, ts.masked_softmax, _softmax_cases()) is False
