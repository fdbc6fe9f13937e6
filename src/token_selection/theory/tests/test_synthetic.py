import pytest
import torch

import token_selection as ts


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
