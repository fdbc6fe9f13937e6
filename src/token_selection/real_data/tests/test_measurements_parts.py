"""What a trained model is measured by, on hand-made splits and stand-in models: the posterior gap and counts per
token (padding and unknown words left out, the count threshold on its boundary), the rebuttal's bins at their
edges, and the curves, verdicts and per-class measures a record stores. Small enough to run in milliseconds."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.measurements import (
    binary_metrics,
    class_value_verdicts,
    multiclass_metrics,
    rebuttal_bins,
    rebuttal_edges,
    seen_words,
    token_importance,
    verdict_of,
)
from token_selection.sources import REBUTTAL_BIN_CENTRES
from token_selection.theory.shape import classify_shape


def _hand_split() -> EncodedSplit:
    # token 2: 3 times in positive reviews, once in a negative one; token 3: twice, negative only;
    # token 4: once; <unk> (1) five times, all positive; padding (0) behind the mask
    X = torch.tensor([[2, 2, 1, 0], [2, 1, 1, 1], [3, 2, 0, 0], [3, 4, 1, 0]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 1, 0]], dtype=torch.bool)
    return EncodedSplit(X, mask, torch.tensor([1, 1, 0, 1]), "hand-made")


def test_token_importance_gives_the_gap_and_count_of_every_word_and_nan_for_pad_and_unk():
    split = _hand_split()
    # occurrences (positive, negative): token 2 (3, 1), token 3 (1, 1), token 4 (1, 0), <unk> (5, 0), token 5 none
    gap, count = token_importance(split, 6, min_count=1)
    assert count.tolist() == [0, 5, 4, 2, 1, 0] and count.dtype == torch.int64
    assert gap.dtype == torch.float64
    assert gap[2].item() == pytest.approx((3 - 1) / 4) and gap[3].item() == 0.0 and gap[4].item() == 1.0
    assert math.isnan(gap[0]) and math.isnan(gap[1]) and math.isnan(gap[5])  # pad, unk (seen 5 times), unseen


def test_token_importance_keeps_a_word_seen_exactly_min_count_times():
    split = _hand_split()
    gap, count = token_importance(split, 6, min_count=2)
    assert not math.isnan(gap[3]) and math.isnan(gap[4])  # token 3 seen twice (the boundary), token 4 once
    gap, _ = token_importance(split, 6, min_count=3)
    assert math.isnan(gap[3]) and not math.isnan(gap[2])
    assert torch.isnan(token_importance(split, 6)[0]).all()  # min count 20 by default: nobody qualifies
    assert count.tolist() == [0, 5, 4, 2, 1, 0]  # counts do not depend on min_count


def test_rebuttal_bins_put_a_token_on_an_edge_into_the_bin_to_its_right_and_drop_tokens_outside():
    edges = rebuttal_edges()
    x = np.array([edges[5], np.nextafter(edges[5], -1.0), -1.0, 1.0, np.nextafter(1.0, 2.0), -1.5, np.inf, np.nan])
    binned = rebuttal_bins(x, np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]))
    centres = REBUTTAL_BIN_CENTRES
    assert binned.centres.tolist() == [centres[0], centres[4], centres[5], centres[19]]
    assert binned.mean.tolist() == [3.0, 2.0, 1.0, 4.0] and binned.count.tolist() == [1, 1, 1, 1]
    assert binned.std.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_rebuttal_bins_take_tensors_and_refuse_a_matrix_of_gaps():
    binned = rebuttal_bins(torch.tensor([0.5, 0.5, -0.5]), torch.tensor([1.0, 3.0, 2.0]))
    assert binned.count.tolist() == [1, 2] and binned.mean.tolist() == [2.0, 2.0] and binned.std.tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match=re.escape("x must be 1-D, got shape (2, 2)")):
        rebuttal_bins(np.zeros((2, 2)), np.zeros(4))


def same_verdict(stored: dict, expected: dict) -> bool:
    """Equal verdict dicts, NaN equal to NaN (JSON writes both as NaN)."""
    return json.dumps(stored, sort_keys=True) == json.dumps(expected, sort_keys=True)


def _review_split(V: int = 40, n: int = 240, T: int = 6, seed: int = 0) -> EncodedSplit:
    """Reviews whose labels follow the share of tokens above V / 2: a spread of posterior gaps, uneven counts."""
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(2, V, (n, T), generator=gen)
    lengths = torch.randint(2, T + 1, (n,), generator=gen)
    mask = torch.arange(T)[None, :] < lengths[:, None]
    X = X.masked_fill(~mask, 0)
    share = ((X >= V // 2) & mask).sum(1) / lengths
    y = (torch.rand(n, generator=gen) < share).long()
    return EncodedSplit(X, mask, y, "reviews")


class _StandIn(torch.nn.Module):
    """A model whose per-token values and scores are fixed tables."""

    def __init__(self, values: torch.Tensor, scores: torch.Tensor):
        super().__init__()
        self.values, self.scores = values, scores

    def token_values(self):
        return self.values.float().requires_grad_(True)

    def token_scores(self):
        return self.scores.float().requires_grad_(True)


def test_binary_metrics_measure_values_and_scores_each_against_the_gap():
    V = 40
    split = _review_split(V)
    data = SimpleNamespace(train=split, vocab_size=V)
    tokens = torch.arange(V, dtype=torch.float64)
    values, scores = (tokens - 20) / 10, ((tokens - 21) / 10) ** 2
    metrics = binary_metrics(_StandIn(values, scores), data, min_count=25, n_boot=30, seed=4)
    x, count = token_importance(split, V, min_count=25)
    assert metrics["tokens_with_gap"] == int(torch.isfinite(x).sum()) == int((count[2:] >= 25).sum())
    assert 15 < metrics["tokens_with_gap"] < V - 2  # about half the words reach the threshold
    for name, quantity in (("values", values), ("scores", scores)):
        curve = metrics[name]
        expected = classify_shape(x.numpy(), quantity.float().double().numpy(), n_boot=30, seed=4)
        assert same_verdict(curve["verdict"], expected.as_dict()) and curve["shape"] == expected.shape
        binned = rebuttal_bins(x, quantity.float().double())
        assert curve["bin_centres"] == binned.centres.tolist() and curve["bin_count"] == binned.count.tolist()
        assert curve["bin_mean"] == pytest.approx(binned.mean.tolist()) and curve["bin_std"] == pytest.approx(binned.std.tolist())
        assert curve["mean_bin_std"] == pytest.approx(float(np.average(binned.std, weights=binned.count)))
        assert sum(curve["bin_count"]) == metrics["tokens_with_gap"]
        bins = classify_shape(binned.centres, binned.mean, n_boot=30, seed=4)
        assert curve["bin_shape"] == bins.shape and same_verdict(curve["bin_verdict"], bins.as_dict())
    assert metrics["values"]["verdict"]["n_boot"] == 30
    assert metrics["values"]["shape"] != metrics["scores"]["shape"]  # a rising line and a parabola: told apart
    assert "p_norm" not in metrics, "a model without p states no norm"
    scored = _StandIn(values, scores)
    scored.p = torch.nn.Parameter(torch.tensor([0.3, -0.4]))
    assert binary_metrics(scored, data, min_count=25, n_boot=30, seed=4)["p_norm"] == pytest.approx(0.5)
    # three words are seen exactly 25 times: kept at min_count 25, dropped at 26
    fewer = binary_metrics(_StandIn(values, scores), data, min_count=26, n_boot=30, seed=4)
    assert fewer["tokens_with_gap"] == metrics["tokens_with_gap"] - 3


class _KClass(torch.nn.Module):
    def __init__(self, table: torch.Tensor):
        super().__init__()
        self.num_classes = table.shape[1]
        self.table = table

    def token_class_values(self):
        return self.table.float().requires_grad_(True)


def test_multiclass_metrics_judge_each_class_on_the_words_seen_often_enough():
    V, K = 40, 3
    split = _review_split(V, seed=2)
    y = (split.X[:, 0] * 7 + torch.arange(len(split))) % K  # three classes, uneven
    split = EncodedSplit(split.X, split.mask, y, "three classes")
    counts = torch.bincount(split.X[split.mask], minlength=V)
    min_count = int(counts[2:].float().median())  # about half the words are seen this often; the one at the median is kept
    tokens = torch.arange(V, dtype=torch.float64)
    table = torch.stack([tokens / V, (tokens / V - 0.5) ** 2, -tokens / V], dim=1)
    metrics = multiclass_metrics(
        _KClass(table), SimpleNamespace(train=split, vocab_size=V), min_count=min_count, n_boot=25, seed=1
    )
    seen = counts >= min_count
    seen[:2] = False
    assert metrics["tokens_with_importance"] == int(seen.sum()) and 5 < int(seen.sum()) < V - 2
    assert [c["class"] for c in metrics["classes"]] == [0, 1, 2]
    for k, entry in enumerate(metrics["classes"]):
        # P(k | s) - 1/K over each token's occurrences, by counting
        importance = torch.full((V,), float("nan"), dtype=torch.float64)
        for s in range(2, V):
            if seen[s]:
                labels = y[:, None].expand_as(split.X)[(split.X == s) & split.mask]
                importance[s] = float((labels == k).double().mean()) - 1 / K
        expected = classify_shape(importance.numpy(), table[:, k].float().double().numpy(), n_boot=25, seed=1)
        assert same_verdict(entry["verdict"], expected.as_dict()) and entry["shape"] == expected.shape


def test_seen_words_keeps_the_words_at_the_count_and_never_pad_or_unk():
    split = _hand_split()  # real occurrences: <unk> 5, token 2 four times, token 3 twice, token 4 once; padding masked
    assert seen_words(split, 6, 2).tolist() == [False, False, True, True, False, False]  # token 3: exactly 2, kept
    assert seen_words(split, 6, 3).tolist() == [False, False, True, False, False, False]  # token 3: one short
    assert seen_words(split, 6, 1).tolist() == [False, False, True, True, True, False]  # <unk> seen 5 times, still out


def test_class_value_verdicts_read_each_class_column_and_leave_nan_out():
    V = 40
    tokens = torch.arange(V, dtype=torch.float64)
    table = torch.stack([tokens / V, -tokens / V], dim=1)  # class 0 rises with the token id, class 1 falls
    axis = torch.stack([tokens, tokens], dim=1)
    axis[:5, 1] = float("nan")  # class 1 reads 35 tokens
    verdicts = class_value_verdicts(_KClass(table), axis, n_boot=25, seed=3)
    assert [v.shape for v in verdicts] == ["increasing", "decreasing"]
    assert (verdicts[0].n_points, verdicts[1].n_points) == (V, V - 5)
    expected = classify_shape(axis[:, 1].numpy(), table[:, 1].float().double().numpy(), n_boot=25, seed=3)
    assert same_verdict(verdicts[1].as_dict(), expected.as_dict())


def test_a_stored_verdict_reads_back_as_the_verdict():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 60)
    verdict = classify_shape(x, x**2 + 0.05 * rng.normal(size=60), n_boot=20, seed=0)
    stored = {"verdict": verdict.as_dict(), "shape": verdict.shape}
    assert isinstance(stored["verdict"]["spearman_ci"], list)
    back = verdict_of(stored)
    assert back == verdict and isinstance(back.spearman_ci, tuple) and isinstance(back.left_ci, tuple)


def _garbage_behind_padding(split: EncodedSplit, seed: int = 5) -> EncodedSplit:
    """The same reviews with real word ids (not <pad>) behind the mask: only the mask says what is padding."""
    V = int(split.X.max()) + 1
    garbage = torch.randint(2, V, split.X.shape, generator=torch.Generator().manual_seed(seed))
    return EncodedSplit(torch.where(split.mask, split.X, garbage), split.mask, split.y, split.source)


def test_token_importance_reads_only_the_real_positions():
    split = _hand_split()
    garbage = _garbage_behind_padding(split)
    assert not torch.equal(garbage.X, split.X)
    for got, want in zip(token_importance(garbage, 6, min_count=1), token_importance(split, 6, min_count=1), strict=True):
        torch.testing.assert_close(got, want, equal_nan=True)


def test_the_default_count_threshold_keeps_a_word_seen_exactly_twenty_times():
    X = torch.tensor([[2, 3]] * 20 + [[3, 4]] * 19)  # token 2: 20 times, token 4: 19 times, token 3: 39 times
    split = EncodedSplit(X, torch.ones_like(X, dtype=torch.bool), torch.tensor([1] * 20 + [0] * 19), "twenty")
    gap, _ = token_importance(split, 5)
    assert gap[2].item() == 1.0 and math.isnan(gap[4]) and gap[3].item() == pytest.approx((20 - 19) / 39)


def test_rebuttal_bins_name_the_gap_when_it_is_not_an_array():
    with pytest.raises(ValueError, match="^x must be a torch.Tensor or numpy array, got list$"):
        rebuttal_bins([0.1, 0.2], np.zeros(2))


def test_multiclass_metrics_count_real_positions_only_and_every_word_id_above_unk():
    # words 2..13 at real positions (token 2 the most frequent), the last id 15 never; garbage ids behind the padding
    gen = torch.Generator().manual_seed(3)
    X = torch.randint(2, 14, (60, 5), generator=gen)
    X[:, 0] = 2
    mask = torch.arange(5)[None, :] < torch.randint(2, 6, (60,), generator=gen)[:, None]
    X = X.masked_fill(~mask, 0)
    y = torch.arange(60) % 3
    V = 16
    table = torch.arange(V * 3, dtype=torch.float64).reshape(V, 3).sin()
    clean = multiclass_metrics(
        _KClass(table), SimpleNamespace(train=EncodedSplit(X, mask, y, "c"), vocab_size=V), min_count=7, n_boot=10, seed=0
    )
    garbage = _garbage_behind_padding(EncodedSplit(X, mask, y, "g"))
    noisy = multiclass_metrics(_KClass(table), SimpleNamespace(train=garbage, vocab_size=V), min_count=7, n_boot=10, seed=0)
    counts = Counter(X[mask].tolist())
    assert clean["tokens_with_importance"] == noisy["tokens_with_importance"] == sum(c >= 7 for c in counts.values())
    assert counts[2] >= 60 and clean["tokens_with_importance"] == 11  # token 2 counts; token 11 (6 times) falls short
    assert json.dumps(clean["classes"]) == json.dumps(noisy["classes"])


def test_the_signed_frequency_classifier_reads_real_positions_and_calls_a_tie_positive():
    # alpha: token 2 positive, token 3 negative, token 4 in one review of each (alpha 0), token 5 never seen (0)
    X = torch.tensor([[2, 4, 0], [3, 4, 0], [2, 2, 0]])
    mask = X != 0
    y = torch.tensor([1, 0, 1])
    X_test = torch.tensor([[4, 0, 0], [5, 0, 0], [3, 3, 0], [2, 0, 0]])
    mask_test = X_test != 0
    y_test = torch.tensor([1, 1, 0, 1])  # the first two sum to exactly 0: a tie, called positive
    from token_selection.real_data.measurements import signed_frequency_accuracy

    args = (X, y, mask, X_test, y_test, mask_test, 6)
    assert signed_frequency_accuracy(*args) == 1.0
    garbage_train = torch.where(mask, X, torch.full_like(X, 3))  # a negative word behind the training padding
    garbage_test = torch.where(mask_test, X_test, torch.full_like(X_test, 3))  # and behind the test padding
    assert signed_frequency_accuracy(garbage_train, y, mask, garbage_test, y_test, mask_test, 6) == 1.0


def test_token_spread_over_the_tokens_with_a_gap():
    from token_selection.real_data.measurements import token_spread

    x = torch.tensor([float("nan"), -0.5, 0.0, 0.5, 1.0, float("nan")], dtype=torch.float64)
    values = torch.tensor([100.0, 1.0, 2.0, 3.0, 4.0, -100.0], dtype=torch.float64)
    spread = token_spread(x, values)
    assert spread["token_std"] == pytest.approx(np.std([1.0, 2.0, 3.0, 4.0])), "tokens without a gap are not read"
    low, high = np.percentile([1.0, 2.0, 3.0, 4.0], [1, 99])
    assert spread["token_range"] == pytest.approx(high - low)
    with pytest.raises(ValueError, match="equal length"):
        token_spread(x[:3], values)
    with pytest.raises(ValueError, match="^x must be a torch.Tensor or numpy array, got list$"):
        token_spread([0.1, 0.2], values[:2])
    with pytest.raises(ValueError, match="^quantity must be a torch.Tensor or numpy array, got list$"):
        token_spread(x[:2], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        token_spread(torch.tensor([0.1, float("nan")]), torch.tensor([1.0, 2.0]))
    assert token_spread(torch.tensor([0.1, 0.2]), torch.tensor([1.0, 2.0]))["token_std"] == pytest.approx(0.5)


def test_p_norm_reads_p_or_the_second_layers_p2():
    from torch import nn

    from token_selection.real_data.measurements import p_norm

    one = nn.Module()
    one.p = nn.Parameter(torch.tensor([3.0, 4.0]))
    assert p_norm(one) == pytest.approx(5.0)
    two = nn.Module()
    two.p1, two.p2 = nn.Parameter(torch.tensor([100.0])), nn.Parameter(torch.tensor([0.0, 2.0]))
    assert p_norm(two) == pytest.approx(2.0)
    with pytest.raises(TypeError, match="^Module has no attention vector p \\(or p2\\) to measure$"):
        p_norm(nn.Module())
    plain = nn.Module()
    plain.p = 3.0  # an attribute named p that is no tensor scores nothing
    with pytest.raises(TypeError, match="^Module has no attention vector p"):
        p_norm(plain)


def test_a_curve_is_judged_on_its_bins_once_ten_bins_are_filled():
    from token_selection.real_data.measurements import _curve
    from token_selection.theory.shape import MIN_TOKENS

    centres = torch.tensor(REBUTTAL_BIN_CENTRES, dtype=torch.float64)
    for filled, judged in ((MIN_TOKENS, True), (MIN_TOKENS - 1, False)):
        x = centres[:filled].repeat(2)  # two tokens in each of the first bins
        quantity = x**2 + torch.linspace(0.0, 0.01, x.numel(), dtype=torch.float64)
        curve = _curve(x, quantity, n_boot=30, seed=0)
        assert sum(c > 0 for c in curve["bin_count"]) == filled
        assert ("bin_verdict" in curve) is judged and ("bin_shape" in curve) is judged, filled
