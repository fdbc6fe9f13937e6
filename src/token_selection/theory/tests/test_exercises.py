"""The chapters' coding exercises: each checker accepts the hidden solution and rejects a typical mistake."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.exercises import check_exercise
from token_selection.theory.exercise_cases import EXERCISES as CASES
from token_selection.theory.exercise_cases import exercise


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


def _accumulator_grad(E, p, v, X, y, *, sign=1.0):
    u, q = (E @ v)[X], torch.softmax((E @ p)[X], dim=1)
    f = (q * u).sum(1)
    dL_df = -sign * y * torch.sigmoid(-y * f) / X.shape[0]
    a = torch.bincount(X.flatten(), weights=(dL_df[:, None] * q * (u - f[:, None])).flatten(), minlength=E.shape[0])
    b = torch.bincount(X.flatten(), weights=(dL_df[:, None] * q).flatten(), minlength=E.shape[0])
    return torch.outer(a, p) + torch.outer(b, v)


def _batched_logits(E, p, v, X, batch_size, *, softmax=True):
    out = []
    for start in range(0, X.shape[0], batch_size):
        gathered = E[X[start : start + batch_size]]
        scores = gathered @ p
        weights = torch.softmax(scores, dim=1) if softmax else torch.full_like(scores, 1 / scores.shape[1])
        out.append((weights * (gathered @ v)).sum(1))
    return torch.cat(out)


def _margin(E, p, X, relevant, *, normalise=True):
    scores = (E @ p)[X]
    gap = torch.where(relevant, scores, torch.inf).amin(1) - torch.where(relevant, -torch.inf, scores).amax(1)
    return float(gap.min() / (p.norm() if normalise else 1.0))


SOLUTIONS = {
    # label: (right solution, wrong solution: a typical mistake)
    "ch1-ex-masked-softmax": (_softmax, lambda s, m: _softmax(s, m, use_mask=False)),
    "ch1-ex-fast-logits": (_logits, lambda *a: _logits(*a, softmax=False)),
    "ch2-ex-signed-frequency": (_signed_frequency, lambda *a: _signed_frequency(*a, per_length=False)),
    "ch2-ex-posterior-gap": (_posterior_gap, lambda *a: _posterior_gap(*a, unseen=0.0)),
    "ch3-ex-values": (_values, lambda *a: _values(*a, factor=1.0)),
    "ch3-ex-eta-star": (_threshold, lambda *a: _threshold(*a, unbiased=True)),
    "ch4-ex-pairs": (_pairs, lambda X, r: _pairs(X, r, distinct=False)),
    "ch4-ex-margin": (_margin, lambda *a: _margin(*a, normalise=False)),
    "a1-ex-accumulators": (_accumulator_grad, lambda *a: _accumulator_grad(*a, sign=-1.0)),
    "a1-ex-batched": (_batched_logits, lambda *a: _batched_logits(*a, softmax=False)),
}


def test_every_registered_exercise_has_a_solution_and_a_mistake():
    assert set(SOLUTIONS) == set(CASES)


@pytest.mark.parametrize("label", sorted(SOLUTIONS))
def test_checker_accepts_the_solution_and_rejects_a_mistake(label):
    right, wrong = SOLUTIONS[label]
    assert check_exercise(right, *exercise(label)) is True
    with pytest.raises(AssertionError, match="differs from the reference|shape"):
        check_exercise(wrong, *exercise(label))


def test_an_unattempted_stub_is_reported_not_failed(capsys):
    def my_stub(*args):
        raise NotImplementedError

    assert check_exercise(my_stub, *exercise("ch1-ex-masked-softmax")) is None
    assert "my_stub" in capsys.readouterr().out


def test_an_unknown_label_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown exercise 'ch1-ex-nothing'.*ch1-ex-masked-softmax"):
        exercise("ch1-ex-nothing")
