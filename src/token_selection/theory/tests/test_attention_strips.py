"""Tests of the attention strips."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from token_selection.theory.attention_strips import DARK_CELL, plot_attention_strips, sentence_attention  # noqa: E402

E = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], dtype=torch.float64)


def test_weights_sum_to_one_and_are_uniform_at_p_zero():
    sentences = [[0, 1, 2, 3], [2, 0], [3]]
    for p in (torch.zeros(2), torch.tensor([3.0, -1.0])):
        weights = sentence_attention(E, p, sentences)
        assert [len(w) for w in weights] == [4, 2, 1]
        np.testing.assert_allclose([w.sum() for w in weights], 1.0, atol=1e-15)
    np.testing.assert_allclose(sentence_attention(E, torch.zeros(2), sentences)[0], 0.25)


def test_the_weight_follows_the_score():
    weights = sentence_attention(E, torch.tensor([20.0, 0.0]), [[0, 1, 2, 3]])[0]
    assert weights.argmax() == 1 and weights[1] > 0.99  # token 1 scores 20, token 3 10, the others 0
    np.testing.assert_allclose(weights[1] / weights[3], np.exp(10.0))


def test_sentence_attention_checks_its_inputs():
    with pytest.raises(ValueError, match="token ids"):
        sentence_attention(E, torch.zeros(2), [[0, 4]])
    with pytest.raises(ValueError, match="token ids"):
        sentence_attention(E, torch.zeros(2), [[]])
    with pytest.raises(ValueError, match=r"E must be \(V, d\)"):
        sentence_attention(E, torch.zeros(3), [[0]])


def test_strips_print_every_word_and_weight_and_shade_by_weight():
    fig, ax = plt.subplots()
    words = [["the", "movie", "was", "great"], ["the", "plot"]]
    weights = [np.array([0.01, 0.01, 0.01, 0.97]), np.array([0.5, 0.5])]
    plot_attention_strips(ax, words, weights, row_labels=["+1", "-1"])
    assert [t.get_text() for t in ax.texts] == ["the\n0.01", "movie\n0.01", "was\n0.01", "great\n0.97", "the\n0.50", "plot\n0.50"]
    assert [t.get_color() for t in ax.texts][3] == "white" and ax.texts[0].get_color() == "black"
    shades = [patch.get_facecolor() for patch in ax.patches]
    assert len(shades) == 6 and sum(shades[3][:3]) < sum(shades[4][:3]) < sum(shades[0][:3])  # darker = more weight
    assert [t.get_text() for t in ax.get_yticklabels()] == ["+1", "-1"]
    assert ax.get_xlabel() == "position in the sentence" and ax.get_ylabel() == "sentence" and ax.get_xlim() == (0, 4)
    plt.close(fig)
    assert 0 < DARK_CELL < 1


def test_strips_check_their_inputs():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="one weight array per sentence"):
        plot_attention_strips(ax, [["a"]], [])
    with pytest.raises(ValueError, match="row labels"):
        plot_attention_strips(ax, [["a"]], [np.ones(1)], row_labels=["x", "y"])
    with pytest.raises(ValueError, match="weights in"):
        plot_attention_strips(ax, [["a", "b"]], [np.ones(1)])
    with pytest.raises(ValueError, match="weights in"):
        plot_attention_strips(ax, [["a", "b"]], [np.array([1.5, -0.5])])
    plt.close(fig)
