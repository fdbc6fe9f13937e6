"""What the real-data figures show a reader, on tiny inputs: which curve is binned and judged, the titles, labels,
legends and colours of the profile plot, the selected-token table's order and rounding, and the shaded review's
HTML at its edges (all-zero weights, no caption, nothing truncated, line breaks)."""

from __future__ import annotations

import json
import re

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib.colors import to_rgba

from token_selection.real_data.figures import (
    LEGEND_ROOM,
    ImportanceProfile,
    attention_html,
    importance_profile,
    plot_importance_profiles,
    profile_verdicts,
    selected_tokens_table,
)
from token_selection.real_data.measurements import rebuttal_bins
from token_selection.theory.importance import BinnedStats
from token_selection.theory.shape import classify_shape

matplotlib.use("Agg")


def _curves():
    x = torch.linspace(-0.98, 0.98, 41, dtype=torch.float64)
    values = 2 * x + 0.1 * torch.cos(7 * x)
    scores = x**2 + 0.05 * torch.sin(5 * x)
    return x, values, scores


def test_a_profile_bins_the_values_and_the_scores_each_by_the_gap():
    x, values, scores = _curves()
    profile = importance_profile(x, values, scores)
    assert profile.values.mean.tolist() == pytest.approx(rebuttal_bins(x, values).mean.tolist())
    assert profile.scores.mean.tolist() == pytest.approx(rebuttal_bins(x, scores).mean.tolist())
    assert profile.centres.tolist() == rebuttal_bins(x, values).centres.tolist()
    one = BinnedStats(np.array([0.1]), np.array([1.0]), np.array([0.0]), np.array([3]))
    two = BinnedStats(np.array([0.5, 0.7]), np.array([1.0, 2.0]), np.array([0.0, 0.0]), np.array([1, 1]))
    assert ImportanceProfile(one, two).centres.tolist() == [0.1]  # the values' bins


def test_profile_verdicts_judge_values_then_scores_with_the_given_resamples_and_seed():
    x, values, scores = _curves()
    value_verdict, score_verdict = profile_verdicts(x, values, scores, n_boot=40, seed=3)
    for verdict, quantity in ((value_verdict, values), (score_verdict, scores)):
        expected = classify_shape(x.numpy(), quantity.numpy(), n_boot=40, seed=3)
        assert json.dumps(verdict.as_dict()) == json.dumps(expected.as_dict())  # NaN written alike
    assert value_verdict.shape == "increasing" and score_verdict.shape == "U-shaped"
    default_value, _ = profile_verdicts(x, values, scores)
    assert default_value.n_boot == 1000
    expected = classify_shape(x.numpy(), values.numpy(), n_boot=1000, seed=0)
    assert json.dumps(default_value.as_dict()) == json.dumps(expected.as_dict())  # seed 0 by default


def _profiles() -> dict[str, ImportanceProfile]:
    x, values, scores = _curves()
    return {"one-layer": importance_profile(x, values, scores), "two-layer": importance_profile(x, -values, 2 * scores)}


def _plot(score_labels=None):
    profiles = _profiles()
    return profiles, plot_importance_profiles(profiles, title="IMDB, fast scale", score_labels=score_labels)


def _inside(box, points) -> int:
    """How many display-space ``points`` fall inside ``box`` (a matplotlib Bbox)."""
    return int(sum(box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1 for x, y in points))


def test_no_legend_covers_its_curve_or_band_and_the_zero_line_stays_in_view():
    profiles, fig = _plot()
    fig.canvas.draw()
    axes = np.array(fig.axes).reshape(2, 2)
    for ax, stats in (
        (a, getattr(p, kind))
        for p, row in zip(profiles.values(), axes, strict=True)
        for a, kind in zip(row, ("values", "scores"), strict=True)
    ):
        legend = ax.get_legend().get_window_extent()
        band = ax.collections[0].get_paths()[0].vertices
        mean = np.column_stack([stats.centres, stats.mean])
        # the band's outline, its corners and every point of the mean, in pixels: none under the legend
        assert _inside(legend, ax.transData.transform(band)) == 0, ax.get_title()
        assert _inside(legend, ax.transData.transform(mean)) == 0, ax.get_title()
        low, high = ax.get_ylim()
        assert low < 0.0 < high and low <= float((stats.mean - stats.std).min()) and high >= float((stats.mean + stats.std).max())
    # the synthetic U's ends rise into the score panel's upper left corner: the room made there is what keeps them clear
    score_axis = axes[0, 1]
    assert score_axis.get_ylim()[1] > float((profiles["one-layer"].scores.mean + profiles["one-layer"].scores.std).max()) * 1.2


def test_the_room_is_made_in_the_legends_corner_only_and_the_zero_line_stays_in_view():
    x = torch.linspace(-0.98, 0.98, 41, dtype=torch.float64)
    positive = importance_profile(x, 0.2 + 0.1 * x, 0.3 + 0.05 * torch.sin(5 * x))  # every value above zero
    profiles = {**_profiles(), "positive": positive}
    fig = plot_importance_profiles(profiles, title="t")
    axes = np.array(fig.axes).reshape(3, 2)
    for row, profile in zip(axes, profiles.values(), strict=True):
        for ax, stats, values in ((row[0], profile.values, True), (row[1], profile.scores, False)):
            low, high = min(float((stats.mean - stats.std).min()), 0.0), max(float((stats.mean + stats.std).max()), 0.0)
            span = high - low
            room = LEGEND_ROOM * span
            expected = (low - 0.05 * span - (room if values else 0.0), high + 0.05 * span + (0.0 if values else room))
            assert ax.get_ylim() == pytest.approx(expected), ax.get_title()
    assert all(ax.get_ylim()[0] < 0.0 for ax in axes[2]), "a curve wholly above zero keeps the zero line in view"
    matplotlib.pyplot.close(fig)


def test_the_profile_plot_draws_mean_and_band_of_each_curve_against_the_gap():
    profiles, fig = _plot()
    axes = np.array(fig.axes).reshape(2, 2)
    for row, profile in enumerate(profiles.values()):
        for ax, stats, colour in ((axes[row, 0], profile.values, "tab:blue"), (axes[row, 1], profile.scores, "tab:red")):
            mean_line, zero_line = ax.get_lines()
            assert np.asarray(mean_line.get_xdata()).tolist() == stats.centres.tolist()
            assert np.asarray(mean_line.get_ydata()).tolist() == pytest.approx(stats.mean.tolist())
            assert mean_line.get_marker() == "o" and mean_line.get_linestyle() == "-"
            assert to_rgba(mean_line.get_color()) == to_rgba(colour)
            assert list(zero_line.get_ydata()) == [0.0, 0.0] and to_rgba(zero_line.get_color())[:3] == to_rgba("grey")[:3]
            [band] = ax.collections
            assert band.get_alpha() == pytest.approx(0.2)  # a light band: the mean line stays visible through it
            assert to_rgba(band.get_facecolor()[0])[:3] == pytest.approx(to_rgba(colour)[:3])
            outline = band.get_paths()[0].vertices
            assert outline[:, 1].min() == pytest.approx(float((stats.mean - stats.std).min()))
            assert outline[:, 1].max() == pytest.approx(float((stats.mean + stats.std).max()))
            assert ax.get_xlabel() == r"posterior gap $\omega_s = P(1\mid s) - P(0\mid s)$ (training reviews)"
    matplotlib.pyplot.close(fig)


def test_the_profile_plot_says_what_each_panel_shows():
    _, fig = _plot(score_labels={"two-layer": r"$E_s \cdot p_2$"})
    axes = np.array(fig.axes).reshape(2, 2)
    assert [ax.get_title() for ax in axes.ravel()] == [
        r"one-layer: $E_s \cdot v$ (rebuttal's bin centres)",
        r"one-layer: $E_s \cdot p$ (rebuttal's bin centres)",
        r"two-layer: $E_s \cdot v$ (rebuttal's bin centres)",
        r"two-layer: $E_s \cdot p_2$ (rebuttal's bin centres)",
    ]
    assert [ax.get_ylabel() for ax in axes.ravel()] == [r"$E_s \cdot v$", r"$E_s \cdot p$", r"$E_s \cdot v$", r"$E_s \cdot p_2$"]
    for ax in axes.ravel():
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == ["mean ± std", "mean over the bin's tokens"]
    # the values rise to the right, so their legend sits bottom right; the scores' top left
    assert axes[0, 0].get_legend()._loc == 4 and axes[0, 1].get_legend()._loc == 2  # matplotlib's codes
    assert fig._suptitle.get_text() == "IMDB, fast scale"
    assert fig.get_size_inches().tolist() == pytest.approx([10.0, 6.6])  # 10 inches wide, a row of 3.3 inches per model
    matplotlib.pyplot.close(fig)
    single = plot_importance_profiles({"m": _profiles()["one-layer"]}, title="one")
    assert len(single.axes) == 2 and single.axes[1].get_ylabel() == r"$E_s \cdot p$"  # no score labels given
    matplotlib.pyplot.close(single)


def test_selected_tokens_are_the_top_scores_among_words_with_a_gap():
    vocab = ["<pad>", "<unk>", "great", "awful", "the", "plot", "superb"]
    nan = float("nan")
    gap = torch.tensor([nan, nan, 0.912, -0.876, 0.004, nan, 0.555], dtype=torch.float64)
    scores = torch.tensor([9.0, 8.0, 2.345, 3.0, -1.0, 50.0, 2.349])
    counts = torch.tensor([0, 5, 10, 20, 30, 1, 7])
    table = selected_tokens_table(vocab, scores, gap, counts, k=3)
    assert list(table.columns) == ["token", "E.p", "posterior gap", "count"]
    assert table["token"].tolist() == ["awful", "superb", "great"]  # "plot" scores highest but has no gap
    assert table["E.p"].tolist() == [3.0, 2.35, 2.35] and table["posterior gap"].tolist() == [-0.88, 0.56, 0.91]
    assert table["count"].tolist() == [20, 7, 10]
    everyone = selected_tokens_table(vocab, scores, gap, counts)  # k = 15 by default: every word with a gap
    assert everyone["token"].tolist() == ["awful", "superb", "great", "the"]
    assert selected_tokens_table(vocab, scores, gap, counts, k=4)["token"].tolist() == everyone["token"].tolist()


def test_all_zero_weights_shade_nothing_and_every_weight_is_in_the_title():
    page = attention_html("ab cd", [(0, 2), (3, 5)], np.array([0.0, 0.0]))
    assert page.count("rgba(220, 50, 32, 0.00)") == 2 and 'title="0.0000"' in page
    assert "color: #999" not in page  # nothing truncated
    assert page == (
        '<div style="line-height: 1.7; font-family: sans-serif; max-width: 60em">'
        '<span style="background-color: rgba(220, 50, 32, 0.00)" title="0.0000">ab</span> '
        '<span style="background-color: rgba(220, 50, 32, 0.00)" title="0.0000">cd</span></div>'
    )


def test_the_shade_is_relative_to_the_largest_weight_and_line_breaks_survive():
    text = "Good.<br /><br />Bad & sad"
    offsets = [(0, 4), (4, 5), (17, 20), (21, 22)]
    page = attention_html(text, offsets, [0.125, 0.0625, 0.5, 0.25], caption="review 3 <test>")
    shades = re.findall(r"rgba\(220, 50, 32, ([0-9.]+)\)", page)
    assert shades == ["0.25", "0.12", "1.00", "0.50"]  # 0.0625 / 0.5 = 0.125, shown to two decimals
    assert re.findall(r'title="([0-9.]+)"', page) == ["0.1250", "0.0625", "0.5000", "0.2500"]
    assert "<br /><br />" in page and "&amp;" in page  # line breaks kept, other markup escaped
    assert page.startswith('<p style="font-size: 0.85em; color: #555">review 3 &lt;test&gt;</p><div')
    assert page.endswith('<span style="color: #999"> sad</span></div>')


def test_no_kept_token_leaves_the_whole_review_grey():
    page = attention_html("all of it", [], np.array([]))
    assert '<span style="color: #999">all of it</span>' in page and "rgba" not in page


def test_the_profile_plot_keeps_the_courses_sizes_of_markers_lines_and_text():
    """Small markers on the mean, a thin zero line, an 8-point legend and a 10-point title: the panels stay readable
    at the book's width with 20 bins a curve."""
    _, fig = _plot()
    for ax in fig.axes:
        mean_line, zero_line = ax.get_lines()
        assert mean_line.get_markersize() == 4 and zero_line.get_linewidth() == pytest.approx(0.6)
        assert {t.get_fontsize() for t in ax.get_legend().get_texts()} == {8.0}
    assert fig._suptitle.get_fontsize() == 10
    matplotlib.pyplot.close(fig)


def test_the_selected_tokens_table_holds_fifteen_words_by_default():
    vocab = [f"w{i}" for i in range(20)]
    scores = torch.arange(20, dtype=torch.float64)
    table = selected_tokens_table(vocab, scores, torch.zeros(20, dtype=torch.float64), torch.ones(20, dtype=torch.int64))
    assert table["token"].tolist() == [f"w{i}" for i in range(19, 4, -1)]  # the 15 highest scores, highest first
