import matplotlib
import numpy as np
import pytest
import torch

from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.figures import (
    attention_html,
    importance_profile,
    plot_importance_profiles,
    profile_checks,
    selected_tokens_table,
    spearman,
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


def synthetic_profile(u_shaped: bool = True):
    x = torch.linspace(-1, 1, 401, dtype=torch.float64)
    values = 3 * x + 0.1 * torch.sin(40 * x)
    scores = x**2 if u_shaped else x
    return importance_profile(x, values, scores)


def test_checks_accept_the_two_shapes():
    checks = profile_checks(synthetic_profile())
    assert checks.spearman == pytest.approx(1.0) and checks.monotone
    assert checks.left > checks.middle and checks.right > checks.middle and checks.u_shaped
    assert checks.middle < 0.1


def test_checks_reject_a_monotone_score():
    checks = profile_checks(synthetic_profile(u_shaped=False))
    assert not checks.u_shaped and checks.left < checks.middle < checks.right


def test_spearman():
    assert spearman(np.arange(5), np.array([1, 3, 2, 5, 9])) == pytest.approx(0.9)
    assert spearman(np.arange(4), -np.arange(4)) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="equal length"):
        spearman(np.arange(3), np.arange(4))


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
