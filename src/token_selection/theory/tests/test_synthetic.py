import re
from dataclasses import replace

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory.one_step import step_size_threshold
from token_selection.theory.synthetic import REFERENCE_CASE, ReferenceCase, make_synthetic, zipf_probabilities


def test_shapes_labels_and_classes():
    data = ts.make_synthetic(100, 12, 60, 0.1, seed=0)
    assert data.X.shape == (100, 12) and data.X.dtype == torch.int64
    assert data.relevant.shape == (100, 12) and data.relevant.dtype == torch.bool
    assert set(data.y.tolist()) == {-1, 1} and int(data.y.sum()) == 0
    m = 6
    assert data.token_class.tolist() == [1] * m + [-1] * m + [0] * (60 - 2 * m)
    cls = data.token_class[data.X]
    assert torch.all(cls[data.relevant] == data.y[:, None].expand_as(data.X)[data.relevant])
    assert torch.all(cls[~data.relevant] == 0)
    assert torch.all(data.relevant.any(1))


def test_balanced_twins_give_irrelevant_alpha_exactly_zero():
    data = ts.make_synthetic(400, 16, 80, 0.2, seed=1)
    alpha = ts.signed_frequency(data.X, data.y, 80)
    assert torch.all(alpha[data.token_class == 0] == 0)
    assert torch.all(alpha[:8] > 0)
    assert torch.equal(alpha[:8], -alpha[8:16])
    unbalanced = ts.make_synthetic(400, 16, 80, 0.2, balanced=False, seed=1)
    alpha_u = ts.signed_frequency(unbalanced.X, unbalanced.y, 80)
    assert alpha_u[unbalanced.token_class == 0].abs().max() > 0


def test_delta_zero_satisfies_assumption_1_and_large_delta_does_not():
    assert ts.make_synthetic(200, 8, 50, 0.0, seed=2).satisfies_assumption_1()
    many = ts.make_synthetic(200, 16, 50, 0.5, seed=2)
    assert not many.satisfies_assumption_1()
    assert many.relevant_per_sequence().float().mean() > 2


def test_zipf_makes_the_first_irrelevant_token_most_frequent():
    data = ts.make_synthetic(400, 16, 100, 0.1, zipf=1.0, seed=3)
    counts = torch.bincount(data.X.flatten(), minlength=100)
    assert int(counts.argmax()) == 20


def test_same_seed_same_data():
    a, b = ts.make_synthetic(50, 6, 30, 0.3, seed=4, balanced=False), ts.make_synthetic(50, 6, 30, 0.3, seed=4, balanced=False)
    assert torch.equal(a.X, b.X) and torch.equal(a.y, b.y) and torch.equal(a.relevant, b.relevant)
    assert not torch.equal(a.X, ts.make_synthetic(50, 6, 30, 0.3, seed=5, balanced=False).X)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta": 1.5}, r"delta must lie in \[0, 1\]"),
        ({"delta": -0.1}, r"delta must lie in \[0, 1\]"),
        ({"T": 0}, "T must be an integer >= 1"),
        ({"n": 1}, "n must be an integer >= 2"),
        ({"n": 7}, "n must be even"),
        ({"vocab_size": 10, "n_relevant": 5}, "no irrelevant token"),
        ({"zipf": -1.0}, "zipf"),
    ],
)
def test_bad_arguments(kwargs, message):
    args = {"n": 10, "T": 4, "vocab_size": 30, "delta": 0.1} | kwargs
    n, T, V, delta = args.pop("n"), args.pop("T"), args.pop("vocab_size"), args.pop("delta")
    with pytest.raises(ValueError, match=message):
        ts.make_synthetic(n, T, V, delta, **args)


def test_reference_case_is_the_documented_one():
    case = REFERENCE_CASE
    assert (case.n, case.T, case.vocab_size, case.d, case.eta, case.delta, case.seed) == (200, 8, 50, 512, 200.0, 0.0, 0)
    data, model = case.build()
    assert data.satisfies_assumption_1() and data.X.shape == (200, 8)
    assert model.E.dtype == torch.float64 and torch.all(model.p == 0)
    fresh = ts.CLSAttention(50, 512, seed=0, dtype=torch.float64)
    assert torch.equal(model.v, fresh.v)
    assert torch.equal(model.E.detach(), ts.one_step_embeddings(fresh, data.X, data.y, 200.0))
    other = ts.make_synthetic(200, 8, 50, 0.3, seed=1)
    moved = case.model_after_one_step(other.X, other.y)
    assert torch.equal(moved.E.detach(), ts.one_step_embeddings(fresh, other.X, other.y, 200.0))
    with pytest.raises(ValueError, match="both X and y"):
        case.model_after_one_step(other.X)


def test_defaults_are_zipf_one_and_seed_zero():
    default = ts.make_synthetic(40, 6, 30, 0.3)
    assert torch.equal(default.X, ts.make_synthetic(40, 6, 30, 0.3, zipf=1.0, seed=0).X)
    assert not torch.equal(default.X, ts.make_synthetic(40, 6, 30, 0.3, zipf=2.0, seed=0).X)
    assert not torch.equal(default.X, ts.make_synthetic(40, 6, 30, 0.3, zipf=1.0, seed=1).X)


def test_smallest_vocabulary_and_default_number_of_relevant_tokens():
    tiny = ts.make_synthetic(4, 3, 3, 0.5, seed=0)  # m = 1: one token per class and one irrelevant token
    assert tiny.token_class.tolist() == [1, -1, 0] and tiny.token_class.dtype == torch.int64
    assert ts.make_synthetic(4, 3, 19, 0.5).token_class.tolist() == [1, -1] + [0] * 17  # 19 // 10 = 1
    # 2 m = 8 < 10 leaves two irrelevant tokens, both used
    data = ts.make_synthetic(200, 8, 10, 0.2, n_relevant=4, zipf=0.0, seed=0)
    assert data.token_class.tolist() == [1] * 4 + [-1] * 4 + [0, 0]
    assert set(data.X[~data.relevant].tolist()) == {8, 9}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vocab_size": 2}, "vocab_size must be an integer >= 3, got 2"),
        ({"n_relevant": 0}, "n_relevant must be an integer >= 1, got 0"),
        ({"zipf": float("inf")}, "zipf must be a finite exponent >= 0, got inf"),
    ],
)
def test_bad_argument_messages(kwargs, message):
    args = {"n": 10, "T": 4, "vocab_size": 30, "delta": 0.1} | kwargs
    n, T, V, delta = args.pop("n"), args.pop("T"), args.pop("vocab_size"), args.pop("delta")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ts.make_synthetic(n, T, V, delta, **args)


def test_zipf_exponents_zero_and_below_one_are_allowed():
    uniform = ts.make_synthetic(400, 8, 30, 0.0, zipf=0.0, seed=0)
    counts = torch.bincount(uniform.X[~uniform.relevant], minlength=30)[6:]
    assert counts.min() > 0.5 * counts.float().mean()  # 24 irrelevant tokens, ~100 draws each
    assert ts.make_synthetic(10, 4, 30, 0.1, zipf=0.5).X.shape == (10, 4)


def test_zipf_probabilities():
    assert np.allclose(zipf_probabilities(3, 1.0), np.array([1.0, 1 / 2, 1 / 3]) / (11 / 6), rtol=1e-15)
    assert np.allclose(zipf_probabilities(3, 2.0), np.array([1.0, 1 / 4, 1 / 9]) / (49 / 36), rtol=1e-15)
    assert np.allclose(zipf_probabilities(4, 0.0), 0.25)
    # an integer exponent over a long vocabulary: computed in float64, no integer overflow
    p = zipf_probabilities(10_000, 5)
    assert np.all(p > 0) and np.all(np.diff(p) < 0) and p.sum() == pytest.approx(1.0)


def test_relevant_tokens_follow_zipf_too():
    data = ts.make_synthetic(400, 8, 100, 0.3, zipf=1.0, seed=5)
    counts = torch.bincount(data.X[data.relevant], minlength=100)
    # ranks within each class: token 0 (rank 1) about 10 / H_10 ~ 3.4x as frequent as token 9 (rank 10)
    assert counts[0] > 2 * counts[9] and counts[10] > 2 * counts[19]


def test_forced_relevant_position_is_uniform():
    # delta = 0: each sequence gets its one relevant token at a uniform position, including the first
    data = ts.make_synthetic(400, 4, 30, 0.0, seed=6)
    per_position = data.relevant.sum(0)
    assert int(data.relevant.sum()) == 400 and torch.all(per_position > 60)  # ~100 each, sd ~9


def test_unbalanced_labels_and_classes():
    data = ts.make_synthetic(7, 6, 30, 0.3, balanced=False, seed=7)
    assert data.y.dtype == torch.int64 and int((data.y == 1).sum()) == 3 and int((data.y == -1).sum()) == 4
    big = ts.make_synthetic(101, 6, 30, 0.3, balanced=False, seed=8)
    assert int((big.y == 1).sum()) == 50
    cls = big.token_class[big.X]
    assert torch.all(cls[big.relevant] == big.y[:, None].expand_as(big.X)[big.relevant])
    assert torch.all(cls[~big.relevant] == 0) and torch.all(big.relevant.any(1))
    assert big.X.min() >= 0


def test_relevant_per_sequence_counts_distinct_tokens():
    data = ts.SyntheticData(
        X=torch.tensor([[0, 0, 5], [1, 0, 5], [5, 5, 1]]),
        y=torch.tensor([1, 1, 1]),
        relevant=torch.tensor([[True, True, False], [True, True, False], [False, False, True]]),
        token_class=torch.tensor([1, 1, -1, -1, 0, 0]),
    )
    assert data.relevant_per_sequence().tolist() == [1, 2, 1] and not data.satisfies_assumption_1()
    assert data.vocab_size == 6


def test_a_reference_case_uses_its_own_seed():
    case = ReferenceCase(n=20, T=4, vocab_size=12, d=8, eta=5.0, delta=0.2, seed=3)
    data = case.data()
    assert torch.equal(data.X, ts.make_synthetic(20, 4, 12, 0.2, seed=3).X)
    fresh = ts.CLSAttention(12, 8, seed=3, dtype=torch.float64)
    expected = ts.one_step_embeddings(fresh, data.X, data.y, 5.0)
    assert torch.equal(case.model_after_one_step().E.detach(), expected)
    assert torch.equal(case.build()[1].E.detach(), expected)
    with pytest.raises(ValueError, match=r"^pass both X and y, or neither \(then the case's own data are used\)$"):
        case.model_after_one_step(y=data.y)


def test_the_step_factor_is_eta_over_eta_star_at_the_case_s_d_on_its_data_or_the_given():
    case = ReferenceCase(n=40, T=5, vocab_size=12, d=64, eta=30.0, seed=2)
    data = case.data()
    assert case.step_factor() == 30.0 / step_size_threshold(data.X, data.y, 12, 64)
    # d enters through eta* (which falls like 1 / sqrt(d)): four times d, twice the factor
    assert replace(case, d=256).step_factor() == pytest.approx(2 * case.step_factor(), rel=1e-12)
    other = make_synthetic(30, 7, 12, 0.0, balanced=False, seed=5)
    assert case.step_factor(other.X, other.y) == 30.0 / step_size_threshold(other.X, other.y, 12, 64)
    assert case.step_factor(other.X, other.y) != case.step_factor()
    with pytest.raises(ValueError, match=r"^pass both X and y, or neither \(then the case's own data are used\)$"):
        case.step_factor(other.X)
    with pytest.raises(ValueError, match=r"^pass both X and y, or neither"):
        case.step_factor(y=other.y)
