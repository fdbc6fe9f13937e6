import numpy as np
import pytest
import torch

from token_selection.real_data import diagnoses as dg
from token_selection.real_data.encoding import EncodedSplit, build_tokenizer, vocabulary
from token_selection.real_data.settings import REBUTTAL_VOCABULARY


def test_crossing_interpolates_in_log_d_and_is_none_when_never_reached():
    x = np.array([0.01, 0.1, 1.0])
    assert dg._crossing(x, np.array([0.6, 0.7, 0.8]), 0.75) == pytest.approx(10**-0.5)
    assert dg._crossing(x, np.array([0.6, 0.72, 0.8]), 0.72) == pytest.approx(0.1)  # on the boundary: that point
    assert dg._crossing(x, np.array([0.73, 0.74, 0.8]), 0.72) == pytest.approx(0.01)
    assert dg._crossing(x, np.array([0.6, 0.65, 0.7199]), 0.72) is None


def test_ratio_is_none_for_a_zero_or_missing_denominator():
    assert dg._ratio(2.0, 0.5) == 4.0
    assert dg._ratio(2.0, 0.0) is None and dg._ratio(None, 1.0) is None and dg._ratio(1.0, None) is None


def test_spreads_on_an_uneven_curve():
    x = torch.tensor([float("nan"), -0.9, -0.9, -0.9, 0.1, 0.1, 0.95], dtype=torch.float64)
    q = torch.tensor([100.0, 0.0, 2.0, 4.0, 1.0, 1.0, 5.0], dtype=torch.float64)
    s = dg.spreads(x, q)
    # rebuttal bins: {-0.9: std of 0, 2, 4}, {0.1: 0}, {0.95: 0}; weighted by counts 3, 2, 1
    assert s["raw"] == pytest.approx(3 * np.std([0.0, 2.0, 4.0]) / 6)
    assert s["scale_free"] == pytest.approx(s["raw"] / float(q[1:].std()))
    flat = dg.spreads(x, torch.where(torch.isfinite(x), 1.0, 7.0).double())
    assert flat["raw"] == 0 and flat["scale_free"] is None


def test_bag_of_words_counts_unmasked_words_only():
    X = torch.tensor([[2, 3, 3, 0], [1, 4, 2, 2]])
    mask = torch.tensor([[True, True, True, False], [True, True, True, False]])
    counts = dg.bag_of_words(EncodedSplit(X, mask, torch.tensor([0, 1]), "toy"), 5).toarray()
    assert counts.tolist() == [[0, 0, 1, 2, 0], [0, 0, 1, 0, 1]]  # pad (masked) and <unk> (id 1) dropped


def test_every_diagnosis_has_settings_at_both_scales_that_differ_and_a_cost():
    for name, diagnosis in dg.DIAGNOSES.items():
        assert name.startswith("diagnosis-") or name in (dg.ONE_STEP_DIRECT, dg.SELECTION_MASS)
        fast, full = diagnosis.settings("fast"), diagnosis.settings("full")
        assert fast["scale"] == "fast" and full["scale"] == "full" and fast != full
        assert diagnosis.relative_cost("fast") > 0 and "Grids" in diagnosis.protocol(fast)
    grid = dg.DIAGNOSES["diagnosis-frozen_capacity"].settings("full")["d_grid"]
    assert min(grid) <= 16 and max(grid) > REBUTTAL_VOCABULARY["imdb"]  # the sweep crosses d = V


def test_max_vocab_keeps_the_most_frequent_words():
    texts = ["a a a b b c", "a b c d", "d e"]
    assert vocabulary(build_tokenizer(texts, min_count=1))[2:5] == ["a", "b", "c"]
    kept = vocabulary(build_tokenizer(texts, min_count=1, max_vocab=2))
    assert kept == ["<pad>", "<unk>", "a", "b"]
    with pytest.raises(ValueError, match="max_vocab"):
        build_tokenizer(texts, max_vocab=0)
