"""The input checks: what each accepts, what it returns, and the exact message of each rejection."""

import re

import numpy as np
import pytest
import torch

from token_selection.validation import (
    as_tensor,
    check_delta,
    check_finite,
    check_labels,
    check_mask,
    check_matrix,
    check_positive_int,
    check_tokens,
    check_vector,
)


def raises(message: str):
    """``pytest.raises(ValueError)`` whose message must equal ``message`` exactly."""
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


def test_as_tensor_shares_memory_with_numpy_and_rejects_lists():
    array = np.arange(3.0)
    tensor = as_tensor(array, "a")
    array[0] = 7.0
    assert isinstance(tensor, torch.Tensor) and tensor[0] == 7.0
    t = torch.ones(2)
    assert as_tensor(t, "t") is t
    with raises("a must be a torch.Tensor or numpy array, got list"):
        as_tensor([1, 2], "a")


def test_check_tokens_accepts_int32_numpy_and_returns_int64():
    X = check_tokens(np.array([[0, 4], [3, 1]], dtype=np.int32), 5)
    assert X.dtype == torch.int64 and X.tolist() == [[0, 4], [3, 1]]
    # the ids 0 and vocab_size - 1 are both allowed
    assert check_tokens(torch.tensor([[0], [2]]), 3).tolist() == [[0], [2]]


@pytest.mark.parametrize(
    ("X", "vocab_size", "message"),
    [
        (torch.tensor([0, 1]), 3, "X must have shape (n, T), got shape (2,)"),
        (torch.zeros(1, 2, 1, dtype=torch.long), 3, "X must have shape (n, T), got shape (1, 2, 1)"),
        (torch.zeros(2, 2), 3, "X must hold integer token ids (int64 or int32), got dtype torch.float32"),
        (torch.zeros(2, 2, dtype=torch.bool), 3, "X must hold integer token ids (int64 or int32), got dtype torch.bool"),
        (
            torch.zeros(2, 2, dtype=torch.complex64),
            3,
            "X must hold integer token ids (int64 or int32), got dtype torch.complex64",
        ),
        (torch.zeros(0, 2, dtype=torch.long), 3, "X must hold at least one sequence of at least one token, got shape (0, 2)"),
        (torch.zeros(2, 0, dtype=torch.long), 3, "X must hold at least one sequence of at least one token, got shape (2, 0)"),
        (torch.tensor([[0, 3]]), 3, "X holds token ids in [0, 3], but ids must lie in [0, 3) (vocab_size=3)"),
        (torch.tensor([[-1, 2]]), 3, "X holds token ids in [-1, 2], but ids must lie in [0, 3) (vocab_size=3)"),
    ],
)
def test_check_tokens_rejections(X, vocab_size, message):
    with raises(message):
        check_tokens(X, vocab_size)


def test_check_tokens_names_the_argument():
    with raises("ids must have shape (n, T), got shape (2,)"):
        check_tokens(torch.tensor([0, 1]), 3, name="ids")
    with raises("ids must be a torch.Tensor or numpy array, got tuple"):
        check_tokens((0, 1), 3, name="ids")


def test_check_mask_passes_none_and_a_good_mask():
    X = torch.zeros(2, 3, dtype=torch.long)
    assert check_mask(None, X) is None
    mask = np.array([[True, False, False], [True, True, True]])
    checked = check_mask(mask, X)
    assert checked.dtype == torch.bool and checked.tolist() == mask.tolist()


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        (torch.ones(2, 3), "mask must be a bool tensor (True = real token), got dtype torch.float32"),
        (torch.ones(3, 2, dtype=torch.bool), "mask must have the shape of X (2, 3), got (3, 2)"),
        (
            torch.tensor([[True, False, False], [False, False, False]]),
            "mask marks every position of sequence(s) 1 as padding; each sequence needs at least one real token",
        ),
    ],
)
def test_check_mask_rejections(mask, message):
    with raises(message):
        check_mask(mask, torch.zeros(2, 3, dtype=torch.long))


def test_check_mask_lists_at_most_five_empty_rows():
    mask = torch.zeros(7, 2, dtype=torch.bool)
    mask[3] = True
    with raises("pad marks every position of sequence(s) 0, 1, 2, 4, 5 as padding; each sequence needs at least one real token"):
        check_mask(mask, torch.zeros(7, 2, dtype=torch.long), name="pad")


@pytest.mark.parametrize(
    ("y", "expected"),
    [
        (torch.tensor([0, 1, 1]), [-1.0, 1.0, 1.0]),
        (torch.tensor([-1, 1, -1]), [-1.0, 1.0, -1.0]),
        (np.array([1.0, 0.0, 0.0]), [1.0, -1.0, -1.0]),
        (torch.tensor([True, False, True]), [1.0, -1.0, 1.0]),
    ],
)
def test_check_labels_maps_to_signed_float64(y, expected):
    signed = check_labels(y, 3)
    assert signed.dtype == torch.float64 and signed.tolist() == expected


def test_check_labels_single_class_only_when_allowed():
    assert check_labels(torch.ones(3), 3, require_both=False).tolist() == [1.0, 1.0, 1.0]
    assert check_labels(torch.zeros(2), 2, require_both=False).tolist() == [-1.0, -1.0]
    with raises("y holds a single class; at least one sequence of each class is needed"):
        check_labels(torch.zeros(2), 2)


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (torch.tensor([0, 1]), "y must have shape (3,), one label per sequence, got shape (2,)"),
        (torch.zeros(3, 1), "y must have shape (3,), one label per sequence, got shape (3, 1)"),
        (torch.zeros(3, dtype=torch.complex64), "y must hold real labels, got dtype torch.complex64"),
        (torch.tensor([0, 1, 2]), "y must be all in {0, 1} or all in {-1, +1}, got values [0.0, 1.0, 2.0]"),
        (torch.tensor([-1, 0, 1]), "y must be all in {0, 1} or all in {-1, +1}, got values [-1.0, 0.0, 1.0]"),
        (torch.tensor([0.5, 1.0, 0.0]), "y must be all in {0, 1} or all in {-1, +1}, got values [0.0, 0.5, 1.0]"),
    ],
)
def test_check_labels_rejections(y, message):
    with raises(message):
        check_labels(y, 3)


def test_check_labels_shows_at_most_six_values():
    with raises("labels must be all in {0, 1} or all in {-1, +1}, got values [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]"):
        check_labels(torch.arange(8), 8, name="labels")


@pytest.mark.parametrize("delta", [0.0, 0.5, 1.0, np.float32(0.25), 1])
def test_check_delta_accepts_closed_unit_interval(delta):
    out = check_delta(delta)
    assert isinstance(out, float) and out == float(delta)


@pytest.mark.parametrize("delta", [-1e-12, 1.0 + 1e-12, float("nan"), float("inf")])
def test_check_delta_rejections(delta):
    with raises(f"p must lie in [0, 1], got {float(delta)}"):
        check_delta(delta, name="p")
    with raises(f"delta must lie in [0, 1], got {float(delta)}"):
        check_delta(delta)


def test_check_positive_int():
    assert check_positive_int(3, "k") == 3 and isinstance(check_positive_int(np.int64(3), "k"), int)
    assert check_positive_int(1, "k") == 1  # the default minimum is allowed
    assert check_positive_int(0, "k", minimum=0) == 0
    out = check_positive_int(4.0, "k")
    assert out == 4 and type(out) is int
    with raises("k must be an integer >= 1, got 0"):
        check_positive_int(0, "k")
    with raises("k must be an integer >= 2, got 1"):
        check_positive_int(1, "k", minimum=2)
    with raises("k must be an integer >= 1, got 2.5"):
        check_positive_int(2.5, "k")
    with raises("k must be an integer >= 1, got True"):
        check_positive_int(True, "k")
    with raises("k must be an integer >= 0, got False"):
        check_positive_int(False, "k", minimum=0)


def test_check_vector():
    v = torch.zeros(4, dtype=torch.float64)
    assert check_vector(v, 4, "v") is v
    assert check_vector(np.zeros(2, dtype=np.float32), 2, "v").dtype == torch.float32
    with raises("v must have shape (4,), got (3,)"):
        check_vector(torch.zeros(3), 4, "v")
    with raises("v must have shape (4,), got (1, 4)"):
        check_vector(torch.zeros(1, 4), 4, "v")
    # an integer vector would silently truncate a step: rejected
    with raises("v must be a floating-point tensor, got dtype torch.int64"):
        check_vector(torch.zeros(4, dtype=torch.long), 4, "v")
    with raises("w must be a torch.Tensor or numpy array, got list"):
        check_vector([0.0], 1, "w")


def test_check_matrix():
    E = torch.zeros(3, 2, dtype=torch.float64)
    assert check_matrix(E, "E") is E
    from_numpy = check_matrix(np.full((1, 5), np.nan, dtype=np.float32), "E")  # any size; finiteness is checked apart
    assert from_numpy.dtype == torch.float32 and tuple(from_numpy.shape) == (1, 5)
    with raises("E must have shape (V, d), got (3,)"):
        check_matrix(torch.zeros(3), "E")
    with raises("W must have shape (K, d), got (1, 3, 2)"):
        check_matrix(torch.zeros(1, 3, 2), "W", "(K, d)")
    with raises("E must be a floating-point matrix, got dtype torch.int32"):
        check_matrix(torch.zeros(3, 2, dtype=torch.int32), "E")
    with raises("E must be a torch.Tensor or numpy array, got tuple"):
        check_matrix(((0.0,),), "E")


def test_check_finite():
    x = torch.tensor([0.0, -1e308, 1e308], dtype=torch.float64)
    assert check_finite(x, "x") is x
    for bad in (float("nan"), float("inf"), -float("inf")):
        with raises("x contains NaN or inf"):
            check_finite(torch.tensor([0.0, bad]), "x")


def test_labels_and_mask_must_be_arrays():
    with raises("y must be a torch.Tensor or numpy array, got list"):
        check_labels([0, 1], 2)
    with raises("mask must be a torch.Tensor or numpy array, got list"):
        check_mask([[True]], torch.zeros(1, 1, dtype=torch.long))
