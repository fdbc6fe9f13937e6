import numpy as np
import pytest
import torch

from token_selection.real_data.measurements import mean_bin_std, rebuttal_bins, rebuttal_edges, signed_frequency_accuracy
from token_selection.sources import REBUTTAL_BIN_CENTRES


def test_edges_surround_each_rebuttal_centre():
    edges = rebuttal_edges()
    assert edges[0] == -1.0 and edges[-1] == 1.0 and len(edges) == 21
    assert np.all(edges[:-1] < REBUTTAL_BIN_CENTRES) and np.all(REBUTTAL_BIN_CENTRES < edges[1:])
    assert edges[10] == pytest.approx((-0.08 + 0.01) / 2)


def test_rebuttal_bins_assign_each_token_to_the_nearest_centre():
    x = np.array([-1.0, -0.9, -0.04, -0.03, 0.95, 1.0, np.nan])
    binned = rebuttal_bins(x, np.arange(7.0))
    # -1 and -0.9 lie nearer -0.95 than -0.85; the edge between -0.08 and 0.01 is their midpoint -0.035
    assert binned.centres.tolist() == [-0.95, -0.08, 0.01, 0.89]
    assert binned.count.tolist() == [2, 1, 1, 2] and binned.mean.tolist() == [0.5, 2.0, 3.0, 4.5]
    assert binned.std[0] == pytest.approx(0.5)
    assert mean_bin_std(binned) == pytest.approx((2 * 0.5 + 2 * 0.5) / 6)
    with pytest.raises(ValueError, match="equal length"):
        rebuttal_bins(np.zeros(3), np.zeros(4))


def test_signed_frequency_classifier():
    # token 2 positive, 3 negative; a test review with more 2s than 3s is called positive
    X = torch.tensor([[2, 2, 0], [3, 4, 0]])
    mask = X != 0
    y = torch.tensor([1, 0])
    X_test = torch.tensor([[2, 2, 4], [3, 3, 4], [4, 0, 0]])
    accuracy = signed_frequency_accuracy(X, y, mask, X_test, torch.tensor([1, 0, 0]), X_test != 0, 5)
    # review 3 holds only token 4, whose alpha is negative (it occurs in the negative review): called negative
    assert accuracy == pytest.approx(1.0)
    wrong = signed_frequency_accuracy(X, y, mask, X_test, torch.tensor([0, 1, 1]), X_test != 0, 5)
    assert wrong == pytest.approx(0.0)
