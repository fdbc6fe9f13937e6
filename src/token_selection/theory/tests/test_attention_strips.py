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


def test_each_cell_sits_at_its_position_and_row_with_its_shade_and_text_style():
    import matplotlib.colors as mcolors

    fig, ax = plt.subplots()
    words = [["a", "b", "c"], ["d"]]
    weights = [np.array([0.2, DARK_CELL, 0.61]), np.array([1.0])]
    plot_attention_strips(ax, words, weights)
    cells = ax.patches
    assert [(c.get_x(), c.get_y(), c.get_width(), c.get_height()) for c in cells] == [
        (0, -1, 1, 1), (1, -1, 1, 1), (2, -1, 1, 1), (0, -2, 1, 1)
    ]  # fmt: skip
    cmap = plt.get_cmap("Oranges")
    assert [c.get_facecolor() for c in cells] == [cmap(w) for w in (0.2, DARK_CELL, 0.61, 1.0)]
    assert all(c.get_edgecolor() == mcolors.to_rgba("white") and c.get_linewidth() == 2 for c in cells)
    texts = ax.texts
    assert [t.get_position() for t in texts] == [(0.5, -0.5), (1.5, -0.5), (2.5, -0.5), (0.5, -1.5)]
    assert [t.get_color() for t in texts] == ["black", "black", "white", "white"]  # white only above DARK_CELL
    assert all(t.get_ha() == "center" and t.get_va() == "center" and t.get_fontsize() == 9 for t in texts)
    assert ax.get_xlim() == (0, 3) and ax.get_ylim() == (-2, 0)  # the longest sentence, every row
    assert list(ax.get_xticks()) == [0.5, 1.5, 2.5] and [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]
    assert list(ax.get_yticks()) == [-0.5, -1.5] and [t.get_text() for t in ax.get_yticklabels()] == ["", ""]
    assert not any(side.get_visible() for side in ax.spines.values())
    assert all(tick.tick1line.get_markersize() == 0 for tick in ax.xaxis.get_major_ticks())
    plt.close(fig)


def test_strip_weights_on_the_bounds_are_allowed():
    fig, ax = plt.subplots()
    plot_attention_strips(ax, [["a", "b"]], [np.array([0.0, 1.0])])
    assert len(ax.patches) == 2
    with pytest.raises(ValueError, match="one weight array per sentence"):
        plot_attention_strips(ax, [], [])
    plt.close(fig)


def test_errors_name_the_argument_and_the_allowed_ids():
    with pytest.raises(ValueError, match="^E must be a torch.Tensor"):
        sentence_attention("E", torch.zeros(2), [[0]])
    with pytest.raises(ValueError, match="^p must be a torch.Tensor"):
        sentence_attention(E, "p", [[0]])
    with pytest.raises(ValueError, match=r"token ids in \[0, 4\), got \[0, 4\]"):
        sentence_attention(E, torch.zeros(2), [[0, 4]])
    assert sentence_attention(E, torch.zeros(2), [(3, 0)])[0].shape == (2,)  # a tuple of ids is a sentence too
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="weights in"):
        plot_attention_strips(ax, [["a", "b"]], [np.array([0.5, 1.5])])  # above 1 alone
    plot_attention_strips(ax, [["a", "b"]], [[0, 1]])  # integer weights are read as numbers
    assert ax.get_xlim() == (0.0, 2.0)
    plt.close(fig)
