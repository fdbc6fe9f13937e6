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


def test_outputs_cover_the_whole_vocabulary():
    # tokens 4 and 5 never occur: every per-token output still has one entry per vocabulary id
    assert ts.signed_frequency(X, Y01, 6).shape == (6,)
    assert ts.signed_frequency(X, Y01, 6, sample_weights=torch.ones(3)).shape == (6,)
    pos, neg = ts.token_counts(X, Y01, 6, MASK)
    assert pos.tolist() == [3, 2, 0, 0, 0, 0] and neg.tolist() == [0, 1, 1, 2, 0, 0]


def test_sample_weights_scale_each_sequence():
    # alpha_s = (1/n) sum_j w_j y_j c_js / T_j: weights (2, 1, 0) drop sequence 3 and double sequence 1
    weights = torch.tensor([2.0, 1.0, 0.0], dtype=torch.float64)
    expected = torch.tensor([2 * 1 / 4, 2 * 2 / 4 - 1 / 4, -1 / 4, 2 * 1 / 4 - 2 / 4], dtype=torch.float64) / 3
    assert torch.allclose(ts.signed_frequency(X, Y01, 4, sample_weights=weights), expected, atol=1e-15)
    assert torch.allclose(ts.signed_frequency(X, Y01, 4, sample_weights=weights.numpy()), expected, atol=1e-15)


def test_bad_sample_weights_are_named():
    with pytest.raises(ValueError, match=r"sample_weights must have shape \(3,\)"):
        ts.signed_frequency(X, Y01, 4, sample_weights=torch.ones(4, dtype=torch.float64))
    with pytest.raises(ValueError, match="sample_weights must be a torch.Tensor or numpy array, got list"):
        ts.signed_frequency(X, Y01, 4, sample_weights=[1.0, 1.0, 1.0])


def test_token_counts_and_gap_accept_a_single_class():
    pos, neg = ts.token_counts(X, torch.ones(3, dtype=torch.long), 4)
    assert pos.tolist() == [3, 3, 2, 4] and neg.tolist() == [0, 0, 0, 0]
    assert torch.equal(ts.posterior_gap(X, -torch.ones(3), 4), -torch.ones(4, dtype=torch.float64))


def test_posterior_gap_rejects_a_bad_min_count():
    with pytest.raises(ValueError, match="min_count must be an integer >= 1, got 0"):
        ts.posterior_gap(X, Y01, 4, min_count=0)


def test_bin_by_importance_defaults_to_twenty_bins_over_minus_one_to_one():
    x = np.linspace(-1.0, 1.0, 41)
    stats = ts.bin_by_importance(x, np.ones_like(x))
    assert np.allclose(stats.centres, np.linspace(-0.95, 0.95, 20))
    assert stats.count.sum() == 41 and stats.count[-1] == 3  # 0.9, 0.95 and the right edge 1.0


def test_bin_by_importance_keeps_both_edges_and_drops_what_lies_outside():
    x = np.array([-1.0, -2.0, 0.2, 3.0, 0.7, 0.8])
    values = np.array([1.0, 50.0, 2.0, 60.0, np.nan, np.inf])
    stats = ts.bin_by_importance(x, values, bins=4)
    # -1.0 sits on the left edge (kept); -2.0 and 3.0 lie outside; 0.7 and 0.8 have non-finite values
    assert stats.count.tolist() == [1, 1] and np.allclose(stats.mean, [1.0, 2.0])
    assert np.allclose(stats.centres, [-0.75, 0.25])
    # x NaN alone also drops the pair
    assert ts.bin_by_importance(np.array([np.nan, 0.1]), np.array([5.0, 1.0]), bins=2).count.tolist() == [1]


def test_bin_by_importance_with_empty_last_bins():
    stats = ts.bin_by_importance(torch.tensor([-0.9, -0.8, 0.1]), torch.tensor([1.0, 3.0, 4.0]), bins=4)
    assert stats.count.tolist() == [2, 1] and np.allclose(stats.mean, [2.0, 4.0]) and np.allclose(stats.std, [1.0, 0.0])
    assert np.allclose(stats.centres, [-0.75, 0.25])


def test_bin_by_importance_rejects_an_empty_range():
    with pytest.raises(ValueError, match=r"value_range must be \(low, high\) with low < high, got \(1.0, 1.0\)"):
        ts.bin_by_importance(np.zeros(3), np.zeros(3), value_range=(1.0, 1.0))
    with pytest.raises(ValueError, match="bins must be an integer >= 1"):
        ts.bin_by_importance(np.zeros(3), np.zeros(3), bins=0)
    with pytest.raises(ValueError, match="x must be a torch.Tensor"):
        ts.bin_by_importance([0.0], np.zeros(1))
    with pytest.raises(ValueError, match="values must be a torch.Tensor"):
        ts.bin_by_importance(np.zeros(1), [0.0])
