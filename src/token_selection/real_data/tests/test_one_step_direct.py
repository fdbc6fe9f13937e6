"""The one step on E measured right after it: the step, the law, the data's alpha against omega, the record's layout."""

import numpy as np
import pytest
import torch

from token_selection.real_data import diagnoses as dg
from token_selection.real_data import one_step_direct as osd
from token_selection.real_data.encoding import PAD_ID, UNK_ID, EncodedSplit
from token_selection.real_data.settings import real_data_settings
from token_selection.theory.model import CLSAttention
from token_selection.theory.one_step import predicted_correlation
from token_selection.theory.synthetic import make_synthetic


def padded_split(seed: int = 0, n: int = 30, T: int = 9, V: int = 12, positives: int = 21) -> EncodedSplit:
    """Reviews of uneven lengths (1 to T real tokens, the rest <pad>), unbalanced labels (``positives`` of n), some
    <unk>; the words are ids 2 .. V-1."""
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(2, V, (n, T), generator=gen)
    X[torch.rand(n, T, generator=gen) < 0.1] = UNK_ID
    lengths = torch.randint(1, T + 1, (n,), generator=gen)
    mask = torch.arange(T)[None, :] < lengths[:, None]
    X[~mask] = PAD_ID
    y = (torch.arange(n) < positives).long()[torch.randperm(n, generator=gen)]
    return EncodedSplit(X, mask, y, "test")


def autograd_values(split: EncodedSplit, V: int, d: int, seed: int, eta: float) -> torch.Tensor:
    """E(1) . v from the loss written out in full, (n, T, d) embeddings and all: at p = 0 the attention is uniform over
    a review's real tokens."""
    model = CLSAttention(V, d, seed=seed, dtype=torch.float64)
    E, v = model.E.detach().clone().requires_grad_(True), model.v.detach()
    embedded = E[split.X] * split.mask[..., None]
    logits = (embedded @ v).sum(1) / split.mask.sum(1)
    signed = 2.0 * split.y.double() - 1.0
    loss = torch.nn.functional.softplus(-signed * logits).mean()
    (grad,) = torch.autograd.grad(loss, E)
    return (E - eta * grad).detach() @ v


@pytest.mark.parametrize("d, seed, positives", [(8, 0, 21), (33, 1, 5), (128, 2, 15)])
def test_the_step_is_the_gradient_step_of_the_written_out_loss_and_its_closed_form(d, seed, positives):
    split = padded_split(seed, positives=positives)
    step = osd.step_values(split, 12, d, seed, eta=37.0)
    expected = autograd_values(split, 12, d, seed, 37.0)
    assert torch.allclose(step.after, expected, rtol=0, atol=1e-12)
    assert torch.allclose(step.exact, step.after, rtol=0, atol=1e-12)
    assert float((step.after - step.before).abs().max()) > 1e-3  # the step moved the values
    with torch.no_grad():
        model = CLSAttention(12, d, seed=seed, dtype=torch.float64)
        assert torch.equal(step.before, model.E @ model.v) and step.v_norm_sq == pytest.approx(float(model.v @ model.v))
    # <pad> never occurs in a real position, so its row keeps its draw
    assert float(step.after[PAD_ID] - step.before[PAD_ID]) == 0.0


def synthetic_split(seed: int, n: int = 400, T: int = 8, V: int = 200) -> tuple[EncodedSplit, int]:
    """Chapter 3's kind of data (one relevant token per sequence), ids shifted by 2 so that <pad> and <unk> never
    occur; returns the split and its vocabulary size."""
    data = make_synthetic(n, T, V, 0.0, seed=seed)
    X = data.X + 2
    return EncodedSplit(X, torch.ones_like(X, dtype=torch.bool), (data.y > 0).long(), "synthetic"), V + 2


@pytest.mark.parametrize("step_factor", [0.5, 2.0, 6.0])
def test_on_synthetic_data_the_correlation_with_alpha_follows_the_law(step_factor):
    split, V = synthetic_split(seed=3)
    vocab = [f"w{i}" for i in range(V)]
    found = osd.measure_dataset(split, vocab, d_grid=[128, 512], seeds=[0, 1, 2, 3, 4, 5], step_factor=step_factor,
                                min_count=1, scatter_tokens=50)  # fmt: skip
    for row in found["by_d"]:
        summary = row["seed_summary"]
        assert row["tau"] == pytest.approx(step_factor) and row["predicted"] == pytest.approx(predicted_correlation(step_factor))
        # about 190 tokens: a seed's correlation scatters by about (1 - rho^2) / sqrt(190) < 0.07 around the law, 6 seeds
        # average it to within 0.04
        assert abs(summary["pearson_alpha"]["value"] - summary["predicted_draw"]["value"]) < 0.04
        assert abs(summary["pearson_alpha"]["value"] - row["predicted"]) < 0.1
        assert summary["formula_error"]["high"] < 1e-9
        assert summary["pearson_alpha"]["n"] == 6 and len(row["per_seed"]["spearman_omega"]) == 6
    assert sorted(found["scatter"]["values"]) == ["128", "512"]
    assert len(found["scatter"]["alpha"]) == len(found["scatter"]["values"]["512"]) >= 50


def test_a_larger_step_aligns_more_and_the_law_orders_the_steps():
    split, V = synthetic_split(seed=4)
    vocab = [f"w{i}" for i in range(V)]
    means = []
    for factor in (0.3, 1.0, 4.0):
        row = osd.measure_dataset(split, vocab, d_grid=[256], seeds=[0, 1, 2], step_factor=factor, min_count=1)["by_d"][0]
        means.append(row["seed_summary"]["pearson_alpha"]["value"])
    assert means[0] < means[1] < means[2]
    assert means[0] < 0.45 and means[2] > 0.9


def frequent_filler_split() -> tuple[EncodedSplit, list[str]]:
    """A filler word in every review, 60 % of them positive (word 2), and two rare words that always predict the
    label (3 positive, 4 negative); every review has 6 tokens, no padding."""
    rows, labels = [], []
    for j in range(100):
        label = int(j < 60)
        rare = 3 if label else 4
        rows.append([2, 2, 2, 2, 5, rare if j % 10 == 0 else 5])
        labels.append(label)
    X = torch.tensor(rows)
    vocab = ["<pad>", "<unk>", "filler", "good", "bad", "the"]
    return EncodedSplit(X, torch.ones_like(X, dtype=torch.bool), torch.tensor(labels), "toy"), vocab


def test_frequency_puts_the_filler_on_top_by_alpha_and_the_polar_words_on_top_by_omega():
    split, vocab = frequent_filler_split()
    statistics = osd.token_statistics(split, len(vocab), min_count=1)
    assert statistics.measured.tolist() == [False, False, True, True, True, True]
    assert [w["word"] for w in osd.top_words(vocab, statistics, "alpha", k=2)][0] == "filler"
    assert {w["word"] for w in osd.top_words(vocab, statistics, "omega", k=2)} == {"good", "bad"}
    found = osd.data_correlations(statistics)
    # equal lengths: alpha_s = omega_s * (the token's share of all positions), exactly
    assert found["alpha_omega_share_pearson"] == pytest.approx(1.0, abs=1e-12)
    assert found["count_abs_alpha_spearman"] > 0 > found["count_abs_omega_spearman"]


def test_bad_arguments_are_named():
    split = padded_split()
    with pytest.raises(ValueError, match="eta"):
        osd.step_values(split, 12, 8, 0, eta=-1.0)
    with pytest.raises(ValueError, match="d "):
        osd.step_values(split, 12, 0, 0, eta=1.0)
    with pytest.raises(ValueError, match="min_count"):
        osd.token_statistics(split, 12, 0)
    statistics = osd.token_statistics(split, 12, 1)
    with pytest.raises(ValueError, match="by"):
        osd.top_words([str(i) for i in range(12)], statistics, "count")
    with pytest.raises(ValueError, match="seeds"):
        osd.measure_dataset(split, [str(i) for i in range(12)], d_grid=[8], seeds=[], step_factor=1.0, min_count=1)
    with pytest.raises(ValueError, match="scale"):
        osd.one_step_direct_settings("medium")
    few = osd.TokenStatistics(statistics.alpha, statistics.omega, statistics.counts, torch.zeros(12, dtype=torch.bool))
    with pytest.raises(ValueError, match="measured tokens"):
        osd.correlations(torch.zeros(12, dtype=torch.float64), few)


def test_the_record_is_registered_with_the_paper_s_d_at_both_scales():
    fast, full = osd.one_step_direct_settings("fast"), osd.one_step_direct_settings("full")
    assert fast != full and len(fast["seeds"]) >= 3 and len(full["seeds"]) >= len(fast["seeds"])
    assert real_data_settings("full", "imdb").d in full["d_grid"] and real_data_settings("fast", "imdb").d in fast["d_grid"]
    assert fast["step_factor"] == real_data_settings("fast", "imdb").step_factor
    diagnosis = dg.DIAGNOSES[osd.RECORD]
    assert diagnosis.runner is osd.run_one_step_direct and "Grids" in diagnosis.protocol(fast)
    assert np.all(np.diff(fast["d_grid"]) > 0)


def test_a_word_is_shown_without_escape_sequences():
    from token_selection.real_data.one_step_direct import shown_word

    assert shown_word("great") == "great"
    assert shown_word("\u200b") == "<ZERO WIDTH SPACE>"
    assert shown_word("a\u200bb") == "a<ZERO WIDTH SPACE>b"
    assert "\\u" not in shown_word("\x07") and shown_word("\x07").startswith("<")
