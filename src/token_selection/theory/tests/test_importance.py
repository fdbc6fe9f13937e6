import numpy as np
import pytest
import torch

import token_selection as ts

# Three sequences over a vocabulary of 4, written out by hand.
X = torch.tensor([[0, 1, 1, 3], [2, 1, 3, 3], [0, 0, 2, 3]])
MASK = torch.tensor([[True, True, True, False], [True, True, True, True], [True, True, False, False]])
Y01 = torch.tensor([1, 0, 1])


def test_signed_frequency_by_hand_without_mask():
    # y = (+1, -1, +1), T_j = 4: alpha_s = (1/3) sum_j y_j c_js / 4
    expected = torch.tensor([(1 + 2) / 4, (2 - 1) / 4, (-1 + 1) / 4, (1 - 2 + 1) / 4], dtype=torch.float64) / 3
    assert torch.allclose(ts.signed_frequency(X, Y01, 4), expected, atol=1e-15)


def test_signed_frequency_by_hand_with_mask():
    # unpadded lengths 3, 4, 2; masked positions count nowhere
    expected = torch.tensor([1 / 3 + 2 / 2, 2 / 3 - 1 / 4, -1 / 4, -2 / 4], dtype=torch.float64) / 3
    assert torch.allclose(ts.signed_frequency(X, Y01, 4, MASK), expected, atol=1e-15)
    assert torch.equal(ts.signed_frequency(X, Y01, 4, MASK), ts.signed_frequency(X, 2 * Y01 - 1, 4, MASK))


def test_posterior_gap_by_hand_with_mask():
    # occurrences (pos, neg): 0: (3, 0); 1: (2, 1); 2: (0, 1); 3: (0, 2)
    gap = ts.posterior_gap(X, Y01, 4, MASK)
    assert torch.allclose(gap, torch.tensor([1.0, 1 / 3, -1.0, -1.0], dtype=torch.float64))
    rare = ts.posterior_gap(X, Y01, 4, MASK, min_count=3)
    assert torch.isnan(rare[2]) and torch.isnan(rare[3]) and rare[0] == 1.0 and rare[1] == pytest.approx(1 / 3)


def test_unseen_token_gets_nan_gap_and_zero_alpha():
    gap = ts.posterior_gap(X, Y01, 6, MASK)
    assert torch.isnan(gap[4:]).all()
    assert torch.all(ts.signed_frequency(X, Y01, 6, MASK)[4:] == 0)


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (torch.tensor([1, 2, 0]), r"\{0, 1\} or all in \{-1, \+1\}"),
        (torch.tensor([1, -1, 0]), r"\{0, 1\} or all in \{-1, \+1\}"),
        (torch.tensor([0.5, 1.0, 0.0]), r"\{0, 1\}"),
        (torch.tensor([1, 1, 1]), "single class"),
        (torch.tensor([1, 0]), r"shape \(3,\)"),
    ],
)
def test_bad_labels(y, message):
    with pytest.raises(ValueError, match=message):
        ts.signed_frequency(X, y, 4)


def test_all_padding_row_is_rejected():
    mask = MASK.clone()
    mask[1] = False
    with pytest.raises(ValueError, match="mask marks every position of sequence"):
        ts.signed_frequency(X, Y01, 4, mask)


def test_bin_by_importance_by_hand():
    x = np.array([-0.95, -0.9, 0.05, 0.5, 1.0, np.nan])
    values = np.array([1.0, 3.0, 5.0, 7.0, 9.0, 100.0])
    stats = ts.bin_by_importance(x, values, bins=4)
    assert np.allclose(stats.centres, [-0.75, 0.25, 0.75])
    assert np.allclose(stats.mean, [2.0, 5.0, 8.0])
    assert np.allclose(stats.std, [1.0, 0.0, 1.0])
    assert stats.count.tolist() == [2, 1, 2]


def test_bin_by_importance_rejects_bad_arguments():
    with pytest.raises(ValueError, match="equal length"):
        ts.bin_by_importance(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="bins"):
        ts.bin_by_importance(np.zeros(3), np.zeros(3), bins=0)
