import re

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory.multiclass import (
    check_class_labels,
    class_importance,
    class_probabilities,
    class_signed_frequency,
    multiclass_logits,
    multiclass_one_step_embeddings,
    predicted_multiclass_one_step,
)


def _parameters(V: int, d: int, K: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    E = torch.randn(V, d, generator=gen, dtype=torch.float64) / d**0.5
    W = torch.randn(K, d, generator=gen, dtype=torch.float64) / d**0.5
    return E, torch.zeros(d, dtype=torch.float64), W


def _labelled(n: int, T: int, V: int, K: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, V, (n, T), generator=gen), torch.randint(0, K, (n,), generator=gen)


def test_closed_form_is_exact_with_start_probabilities():
    X, y = _labelled(120, 7, 40, 4)
    E, p, W = _parameters(40, 256, 4)
    E1 = multiclass_one_step_embeddings(E, p, W, X, y, 50.0)
    beta = class_signed_frequency(X, y, 4, 40, probabilities=class_probabilities(E, p, W, X))
    predicted = predicted_multiclass_one_step(E, W, beta, 50.0)
    assert float((E1 - predicted).norm() / (E1 - E).norm()) < 1e-10


def test_uniform_probabilities_are_the_leading_order():
    X, y = _labelled(120, 7, 40, 3)
    errors = []
    for d in (32, 2048):
        E, p, W = _parameters(40, d, 3)
        E1 = multiclass_one_step_embeddings(E, p, W, X, y, 50.0)
        predicted = predicted_multiclass_one_step(E, W, class_signed_frequency(X, y, 3, 40), 50.0)
        errors.append(float((E1 - predicted).norm() / (E1 - E).norm()))
    assert errors[0] < 0.3 and errors[1] < errors[0] / 3, errors


def test_two_classes_reduce_to_the_binary_step():
    data = ts.make_synthetic(100, 6, 30, 0.1, seed=4)
    labels = ((data.y + 1) // 2).long()  # +1 -> class 1, -1 -> class 0
    beta = class_signed_frequency(data.X, labels, 2, 30)
    alpha = ts.signed_frequency(data.X, data.y, 30)
    assert torch.allclose(beta[:, 1], alpha / 2, atol=1e-15) and torch.allclose(beta[:, 0], -alpha / 2, atol=1e-15)
    # the binary model with v = w_1 - w_0 takes the same step
    E, p, W = _parameters(30, 64, 2, seed=4)
    model = ts.CLSAttention(30, 64, dtype=torch.float64)
    model.E.data.copy_(E)
    model.v.data.copy_(W[1] - W[0])
    binary = ts.one_step_embeddings(model, data.X, data.y, 10.0)
    assert torch.allclose(multiclass_one_step_embeddings(E, p, W, data.X, labels, 10.0), binary, atol=1e-13)


def test_logits_match_a_loop_and_padding_counts_nowhere():
    X, y = _labelled(5, 4, 12, 3, seed=2)
    E, _, W = _parameters(12, 8, 3, seed=2)
    p = torch.randn(8, dtype=torch.float64)
    logits, weights = multiclass_logits(E, p, W, X)
    for j in range(5):
        q = torch.softmax(E[X[j]] @ p, 0)
        assert torch.allclose(logits[j], (q[:, None] * (E[X[j]] @ W.T)).sum(0), atol=1e-14)
    padded = torch.cat([X, torch.zeros(5, 2, dtype=torch.long)], 1)
    mask = torch.cat([torch.ones(5, 4, dtype=torch.bool), torch.zeros(5, 2, dtype=torch.bool)], 1)
    assert torch.allclose(multiclass_logits(E, p, W, padded, mask)[0], logits, atol=1e-14)
    assert torch.allclose(class_signed_frequency(padded, y, 3, 12, mask), class_signed_frequency(X, y, 3, 12), atol=1e-15)


def test_class_signed_frequency_by_hand():
    X = torch.tensor([[0, 0, 1], [2, 1, 1]])
    y = torch.tensor([0, 2])
    beta = class_signed_frequency(X, y, 3, 3).numpy()
    # token 0: twice in sequence 0 (class 0) -> (2/3) * (1 - 1/3, -1/3, -1/3) / 2
    np.testing.assert_allclose(beta[0], np.array([2 / 3, -1 / 3, -1 / 3]) * (2 / 3) / 2, atol=1e-15)
    # class-k signed frequencies of every token sum to zero over k
    np.testing.assert_allclose(beta.sum(1), 0.0, atol=1e-15)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda E, p, W, X, y: class_signed_frequency(X, y + 5, 3, 10), "labels must lie in"),
        (lambda E, p, W, X, y: class_signed_frequency(X, y.double(), 3, 10), "integer class labels"),
        (lambda E, p, W, X, y: class_signed_frequency(X, y, 1, 10), "num_classes"),
        (lambda E, p, W, X, y: class_signed_frequency(X, y, 3, 10, probabilities=torch.ones(4, 2)), "probabilities"),
        (lambda E, p, W, X, y: multiclass_logits(E, p, W[:1], X), "W must have shape"),
        (lambda E, p, W, X, y: multiclass_logits(E, p[:3], W, X), "p must have shape"),
        (lambda E, p, W, X, y: predicted_multiclass_one_step(E, W, torch.zeros(10, 2), 1.0), "beta must have shape"),
    ],
)
def test_bad_input_raises_value_error(call, message):
    X, y = _labelled(4, 3, 10, 3)
    E, p, W = _parameters(10, 6, 3)
    with pytest.raises(ValueError, match=message):
        call(E, p, W, X, y)


def _exact(message: str):
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


def test_check_class_labels():
    y = check_class_labels(np.array([0, 2, 1], dtype=np.int32), 3, 3)
    assert y.dtype == torch.int64 and y.tolist() == [0, 2, 1]
    with _exact("y holds labels in [0, 3], but labels must lie in [0, 3)"):
        check_class_labels(torch.tensor([0, 3, 1]), 3, 3)
    with _exact("y holds labels in [-1, 1], but labels must lie in [0, 3)"):
        check_class_labels(torch.tensor([0, -1, 1]), 3, 3)
    with _exact("y must have shape (3,), one label per sequence, got shape (3, 1)"):
        check_class_labels(torch.zeros(3, 1, dtype=torch.long), 3, 3)
    with _exact("y must have shape (3,), one label per sequence, got shape (2,)"):
        check_class_labels(torch.zeros(2, dtype=torch.long), 3, 3)
    with _exact("y must hold integer class labels in [0, 3), got dtype torch.bool"):
        check_class_labels(torch.zeros(3, dtype=torch.bool), 3, 3)
    with _exact("y must hold integer class labels in [0, 3), got dtype torch.complex64"):
        check_class_labels(torch.zeros(3, dtype=torch.complex64), 3, 3)
    with _exact("y must be a torch.Tensor or numpy array, got list"):
        check_class_labels([0, 1, 2], 3, 3)
    with _exact("stars must have shape (3,), one label per sequence, got shape (2,)"):
        check_class_labels(torch.zeros(2, dtype=torch.long), 3, 3, name="stars")


def test_parameter_checks():
    X, y = _labelled(4, 3, 10, 3)
    E, p, W = _parameters(10, 6, 3)
    with _exact("E must have shape (V, d), got (6,)"):
        multiclass_logits(E[0], p, W, X)
    with _exact("W must have shape (K, d) with K >= 2 and d = 6, got (3, 7)"):
        multiclass_logits(E, p, torch.zeros(3, 7, dtype=torch.float64), X)
    with _exact("W must have shape (K, d) with K >= 2 and d = 6, got (6,)"):
        multiclass_logits(E, p, W[0], X)
    with _exact("W must be a torch.Tensor or numpy array, got list"):
        multiclass_logits(E, p, W.tolist(), X)
    # K is the number of rows of W (3), not d (6): label 3 is out of range
    with _exact("y holds labels in [0, 3], but labels must lie in [0, 3)"):
        multiclass_one_step_embeddings(E, p, W, X, torch.tensor([0, 1, 2, 3]), 1.0)
    with _exact("num_classes must be an integer >= 2, got 1"):
        class_signed_frequency(X, y, 1, 10)
    with _exact("probabilities must be a torch.Tensor or numpy array, got list"):
        class_signed_frequency(X, y, 3, 10, probabilities=[[1.0, 0.0, 0.0]] * 4)
    with _exact("probabilities must have shape (4, 3), got (4, 2)"):
        class_signed_frequency(X, y, 3, 10, probabilities=torch.ones(4, 2))


def test_padding_counts_nowhere_in_probabilities_and_the_step():
    X, y = _labelled(6, 4, 12, 3, seed=3)
    E, _, W = _parameters(12, 8, 3, seed=3)
    p = torch.randn(8, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    padded = torch.cat([X, torch.full((6, 2), 11)], 1)
    mask = torch.cat([torch.ones(6, 4, dtype=torch.bool), torch.zeros(6, 2, dtype=torch.bool)], 1)
    pi = class_probabilities(E, p, W, X)
    assert torch.allclose(class_probabilities(E, p, W, padded, mask), pi, atol=1e-15)
    assert torch.allclose(pi.sum(1), torch.ones(6, dtype=torch.float64), atol=1e-15) and pi.dtype == torch.float64
    assert class_probabilities(E.float(), p.float(), W.float(), X).dtype == torch.float64
    step = multiclass_one_step_embeddings(E, p, W, X, y, 7.0)
    assert torch.allclose(multiclass_one_step_embeddings(E, p, W, padded, y, 7.0, mask), step, atol=1e-14)
    assert not torch.allclose(multiclass_one_step_embeddings(E, p, W, padded, y, 7.0), step, atol=1e-6)


def test_class_signed_frequency_when_the_last_class_is_absent():
    X = torch.tensor([[0, 1], [1, 1]])
    beta = class_signed_frequency(X, torch.tensor([0, 1]), 3, 2)
    # token 0: once in sequence 0 (class 0): (1/2) (1 - 1/3, -1/3, -1/3) / 2
    assert beta.shape == (2, 3)
    assert torch.allclose(beta[0], torch.tensor([2 / 3, -1 / 3, -1 / 3], dtype=torch.float64) / 4, atol=1e-15)


def test_predicted_multiclass_one_step_checks_and_dtype():
    E0, _, W = _parameters(5, 4, 3)
    beta = torch.ones(5, 3, dtype=torch.float64)
    assert torch.allclose(predicted_multiclass_one_step(E0, W, beta, 2.0), E0 + 2.0 * beta @ W, atol=1e-15)
    assert predicted_multiclass_one_step(E0.float(), W, beta, 2.0).dtype == torch.float32
    assert predicted_multiclass_one_step(E0.float(), W.float(), beta, 2.0).dtype == torch.float32
    assert predicted_multiclass_one_step(E0.float(), W, beta.float(), 2.0).dtype == torch.float32
    with _exact("E0 must have shape (V, d), got (4,)"):
        predicted_multiclass_one_step(E0[0], W, beta, 1.0)
    with _exact("W must have shape (K, d), got (4,)"):
        predicted_multiclass_one_step(E0, W[0], beta, 1.0)
    with _exact("E0 must be (V, d) and W (K, d) with the same d, got (5, 4) and (3, 5)"):
        predicted_multiclass_one_step(E0, torch.zeros(3, 5, dtype=torch.float64), beta, 1.0)
    with _exact("beta must have shape (5, 3), got (3, 5)"):
        predicted_multiclass_one_step(E0, W, beta.T, 1.0)
    with _exact("beta must have shape (V, K), got (5,)"):
        predicted_multiclass_one_step(E0, W, beta[:, 0], 1.0)
    with _exact("beta must be a torch.Tensor or numpy array, got list"):
        predicted_multiclass_one_step(E0, W, beta.tolist(), 1.0)
    with _exact("beta must be a floating-point matrix, got dtype torch.int64"):
        predicted_multiclass_one_step(E0, W, beta.long(), 1.0)
    # numpy arrays are taken as tensors are
    assert torch.equal(predicted_multiclass_one_step(E0.numpy(), W.numpy(), beta.numpy(), 2.0), E0 + 2.0 * beta @ W)


def test_class_importance_respects_the_mask():
    X = torch.tensor([[2, 3, 0], [2, 0, 0]])
    mask = torch.tensor([[True, True, False], [True, False, False]])
    importance = class_importance(X, torch.tensor([0, 1]), 2, 4, mask)
    assert torch.isnan(importance[0]).all() and torch.isnan(importance[1]).all()  # 0 is padding only
    assert importance[2].tolist() == [0.0, 0.0] and importance[3].tolist() == [0.5, -0.5]


def test_class_importance_sums_to_zero_and_halves_the_binary_posterior_gap():
    from token_selection.theory.importance import posterior_gap

    gen = torch.Generator().manual_seed(3)
    X = torch.randint(0, 11, (60, 5), generator=gen)  # token 11 never occurs
    y = torch.randint(0, 2, (60,), generator=gen)
    importance = class_importance(X, y, 2, 12)
    assert importance.shape == (12, 2) and importance.dtype == torch.float64
    assert torch.isnan(importance[11]).all()
    seen = importance[:11]
    assert torch.allclose(seen.sum(1), torch.zeros(11, dtype=torch.float64), atol=1e-12)
    gap = posterior_gap(X, torch.where(y > 0, 1, -1), 12)
    assert torch.allclose(2 * seen[:, 1], gap[:11].double(), atol=1e-12)
