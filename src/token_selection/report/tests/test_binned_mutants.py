"""Binned curves in detail: uneven bin counts, the two-bin boundary, the number of bins, record curves, and the band plot."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from token_selection.report.binned import (  # noqa: E402
    binned_from_record,
    compare_spread,
    mean_within_bin_std,
    plot_binned,
    relative_spread,
)
from token_selection.theory.importance import BinnedStats, bin_by_importance  # noqa: E402


def _stats(mean, std, count, centres=None) -> BinnedStats:
    mean = np.asarray(mean, dtype=np.float64)
    centres = np.linspace(-1, 1, mean.size) if centres is None else np.asarray(centres, dtype=np.float64)
    return BinnedStats(centres, mean, np.asarray(std, dtype=np.float64), np.asarray(count))


def test_the_mean_per_bin_std_is_weighted_by_uneven_counts():
    assert mean_within_bin_std(_stats([0.0, 1.0], [0.0, 1.0], [1, 9])) == pytest.approx(0.9)
    assert mean_within_bin_std(_stats([0.0, 1.0, 2.0], [3.0, 1.0, 2.0], [2, 1, 1])) == pytest.approx(9 / 4)


@pytest.mark.filterwarnings("error::DeprecationWarning")
def test_relative_spread_is_noise_over_the_count_weighted_spread_of_the_means():
    binned = _stats([0.0, 2.0, 4.0], [1.0, 1.0, 1.0], [1, 2, 1])
    between = np.sqrt(np.cov([0.0, 2.0, 4.0], aweights=[1, 2, 1]))
    assert relative_spread(binned) == pytest.approx(1.0 / between)
    flat = _stats([1.0, 1.0], [0.5, 0.5], [3, 3])  # no signal: the spread of the means is 0, divided by float64's tiny
    assert relative_spread(flat) == pytest.approx(0.5 / np.finfo(np.float64).tiny)


@pytest.fixture(scope="module")
def skewed():
    """Importance crowded towards +1 (uneven bin counts), two quantities of different noise."""
    rng = np.random.default_rng(4)
    x = 1 - 2 * rng.beta(1, 4, 1500)
    a = x + 0.2 * rng.normal(size=x.size)
    b = 3 * x + (0.5 + x**2) * rng.normal(size=x.size)
    return x, a, b


@pytest.mark.filterwarnings("error::DeprecationWarning")
@pytest.mark.parametrize("bins", [4, 7, 20])
def test_compare_spread_uses_the_given_bins_for_both_quantities(skewed, bins):
    x, a, b = skewed
    spread = compare_spread(x, a, b, bins=bins)
    binned_a, binned_b = bin_by_importance(x, a, bins), bin_by_importance(x, b, bins)
    assert spread.std_a == pytest.approx(mean_within_bin_std(binned_a))
    assert spread.std_b == pytest.approx(mean_within_bin_std(binned_b))
    assert spread.ratio == pytest.approx(spread.std_b / spread.std_a)
    assert spread.relative_a == pytest.approx(relative_spread(binned_a))
    assert spread.relative_b == pytest.approx(relative_spread(binned_b))
    assert spread.relative_ratio == pytest.approx(spread.relative_b / spread.relative_a)
    assert compare_spread(x, a, b) == compare_spread(x, a, b, bins=20)


def test_two_non_empty_bins_are_enough_and_one_is_not():
    x = np.array([-0.95, -0.96, -0.94, 0.92, 0.91, 0.93])  # bins [-1, -0.9) and [0.9, 1]
    values = np.array([0.0, 1.0, 0.5, 2.0, 3.0, 2.5])
    spread = compare_spread(x, values, 2 * values)
    assert spread.ratio == pytest.approx(2.0) and spread.relative_ratio == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"^need at least two non-empty bins to compare spreads$"):
        compare_spread(x[:3], values[:3], values[:3])


def test_record_curves_become_float64_arrays():
    record = {"bin_centres": [-1, 0, 1], "bin_mean": [0, 1, 2], "bin_std": [1, 1, 0], "bin_count": [2, 3, 4]}
    binned = binned_from_record(record)
    assert binned.centres.tolist() == [-1.0, 0.0, 1.0] and binned.mean.tolist() == [0.0, 1.0, 2.0]
    assert binned.std.tolist() == [1.0, 1.0, 0.0] and binned.count.tolist() == [2, 3, 4]
    for array in (binned.centres, binned.mean, binned.std):
        assert array.dtype == np.float64


def _legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_plot_binned_draws_the_band_the_means_the_zero_line_and_labels():
    binned = _stats([0.5, -1.0, 2.0], [0.25, 0.5, 1.0], [1, 2, 3], centres=[-0.5, 0.0, 0.5])
    fig, ax = plt.subplots()
    try:
        plot_binned(ax, binned, label="E.v", color="tab:red")
        (band,) = ax.collections
        vertices = band.get_paths()[0].vertices
        for centre, low, high in ((-0.5, 0.25, 0.75), (0.0, -1.5, -0.5), (0.5, 1.0, 3.0)):  # mean -/+ std
            ys = vertices[np.isclose(vertices[:, 0], centre), 1]
            assert np.isclose(ys, low).any() and np.isclose(ys, high).any()
        assert band.get_alpha() == 0.2 and np.allclose(band.get_facecolor()[0][:3], matplotlib.colors.to_rgb("tab:red"))
        means, zero = ax.lines
        assert means.get_xdata().tolist() == [-0.5, 0.0, 0.5] and means.get_ydata().tolist() == [0.5, -1.0, 2.0]
        assert means.get_marker() == "o" and means.get_linestyle() == "-" and means.get_markersize() == 4
        assert means.get_color() == "tab:red" and means.get_label() == "E.v: bin mean (band: ± std)"
        assert list(zero.get_ydata()) == [0.0, 0.0] and zero.get_color() == "grey" and zero.get_linewidth() == 0.6
        assert ax.get_xlabel() == r"posterior gap $P(1\mid s) - P(0\mid s)$" and ax.get_ylabel() == "E.v"
        assert _legend_texts(ax) == ["E.v: bin mean (band: ± std)"]
        assert ax.get_legend()._loc == 9 and ax.get_legend().get_texts()[0].get_fontsize() == 7  # "upper center"
        assert len(fig.axes) == 1  # no reference: no twin axis
    finally:
        plt.close(fig)


def test_plot_binned_default_colour_is_tab_blue():
    fig, ax = plt.subplots()
    try:
        plot_binned(ax, _stats([0.0, 1.0], [0.1, 0.1], [1, 1]), label="x")
        assert ax.lines[0].get_color() == "tab:blue"
        assert np.allclose(ax.collections[0].get_facecolor()[0][:3], matplotlib.colors.to_rgb("tab:blue"))
    finally:
        plt.close(fig)


@pytest.mark.parametrize("reference_label", [None, "rebuttal, E1M4"])
def test_plot_binned_draws_a_reference_on_its_own_axis(reference_label):
    fig, ax = plt.subplots()
    try:
        kwargs = {} if reference_label is None else {"reference_label": reference_label}
        plot_binned(ax, _stats([0.0, 1.0], [0.1, 0.1], [1, 1]), label="score", reference=([0, 1], [5, 7]), **kwargs)
        label = reference_label or "rebuttal table (right axis)"
        twin = next(other for other in fig.axes if other is not ax)
        (line,) = twin.lines
        assert line.get_xdata().tolist() == [0.0, 1.0] and line.get_ydata().tolist() == [5.0, 7.0]
        assert line.get_xdata().dtype == np.float64
        assert line.get_marker() == "s" and line.get_linestyle() == "--" and line.get_color() == "black"
        assert line.get_markersize() == 3 and line.get_linewidth() == 1
        assert twin.get_ylabel() == label
        assert _legend_texts(ax) == ["score: bin mean (band: ± std)", label]
        means_handle, reference_handle = ax.get_legend().legend_handles  # the twin's line, not an artist of ax
        assert means_handle.get_marker() == "o" and reference_handle.get_marker() == "s"
    finally:
        plt.close(fig)
