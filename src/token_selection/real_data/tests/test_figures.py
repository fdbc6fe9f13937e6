import matplotlib
import numpy as np
import pytest
import torch

from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.figures import (
    attention_html,
    importance_profile,
    plot_importance_profiles,
    profile_verdicts,
    selected_tokens_table,
    token_importance,
)

matplotlib.use("Agg")


def toy_split() -> EncodedSplit:
    # token 2 only in positive reviews, 3 only in negative ones, 4 in both, 1 (<unk>) in both
    X = torch.tensor([[2, 4, 1, 0], [2, 4, 0, 0], [3, 4, 1, 0], [3, 3, 4, 0]])
    mask = X != 0
    return EncodedSplit(X, mask, torch.tensor([1, 1, 0, 0]), "toy")


def test_token_importance():
    gap, counts = token_importance(toy_split(), 6, min_count=1)
    assert gap[2] == 1.0 and gap[3] == -1.0 and gap[4] == 0.0
    assert torch.isnan(gap[[0, 1, 5]]).all()  # <pad>, <unk>, unseen
    assert counts.tolist() == [0, 2, 2, 3, 4, 0]
    gap, _ = token_importance(toy_split(), 6, min_count=3)
    assert torch.isnan(gap[2]) and gap[3] == -1.0


def synthetic_curves(u_shaped: bool = True):
    gen = torch.Generator().manual_seed(0)
    x = torch.linspace(-1, 1, 401, dtype=torch.float64)
    values = 3 * x + 0.1 * torch.randn(401, generator=gen, dtype=torch.float64)
    scores = (x**2 if u_shaped else x) + 0.05 * torch.randn(401, generator=gen, dtype=torch.float64)
    return x, values, scores


def synthetic_profile(u_shaped: bool = True):
    return importance_profile(*synthetic_curves(u_shaped))


def test_profile_bins_at_the_rebuttal_centres():
    profile = synthetic_profile()
    assert profile.centres[0] == -0.95 and profile.centres[-1] == 0.89 and len(profile.centres) == 20
    assert profile.values.count.sum() == 401


def test_verdicts_tell_the_two_shapes_apart():
    values, scores = profile_verdicts(*synthetic_curves(), n_boot=100)
    assert values.shape == "increasing" and scores.shape == "U-shaped"
    _, monotone = profile_verdicts(*synthetic_curves(u_shaped=False), n_boot=100)
    assert monotone.shape == "increasing"


def test_plot_has_one_row_per_model():
    fig = plot_importance_profiles({"one-layer": synthetic_profile(), "two-layer": synthetic_profile()}, title="t")
    assert len(fig.axes) == 4
    assert all(ax.get_xlabel().startswith("posterior gap") for ax in fig.axes)
    matplotlib.pyplot.close(fig)


def test_selected_tokens_table():
    vocab = ["<pad>", "<unk>", "great", "awful", "the"]
    gap = torch.tensor([float("nan"), float("nan"), 0.9, -0.8, 0.0], dtype=torch.float64)
    table = selected_tokens_table(vocab, torch.tensor([9.0, 8.0, 2.0, 3.0, -1.0]), gap, torch.tensor([0, 5, 10, 20, 30]), k=2)
    assert table["token"].tolist() == ["awful", "great"]  # <pad>, <unk> have no gap and are skipped
    assert table["count"].tolist() == [20, 10] and table["posterior gap"].tolist() == [-0.8, 0.9]


def test_attention_html_shades_and_escapes():
    text = "Great <b>fun</b> and more"
    offsets = [(0, 5), (6, 9), (9, 12)]
    page = attention_html(text, offsets, np.array([0.5, 0.25, 0.0]), caption="a & b")
    assert "rgba(220, 50, 32, 1.00)" in page and "rgba(220, 50, 32, 0.50)" in page
    assert "<b>" not in page and "&lt;b&gt;" in page and "a &amp; b" in page
    assert 'color: #999">&lt;/b&gt; and more' in page  # truncated text in grey
    assert "<script" not in page
    with pytest.raises(ValueError, match="equal length"):
        attention_html(text, offsets, np.array([1.0]))
