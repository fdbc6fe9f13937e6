"""The figure of both arms trained to the end of the same budgets draws what the table holds, in the styles its caption
names: the joint arm solid blue, the one-step arm dashed orange, raw ratios filled and scale-free ones open."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from token_selection.real_data.converged import FIT_LOSS  # noqa: E402
from token_selection.report.converged_plots import plot_converged_arms, plot_losses, plot_ratios  # noqa: E402


def _point(values, loss, scores_factor=2.0):
    scores = {"raw": scores_factor * values, "scale_free": 0.25}
    return {"train_loss": loss, "test_accuracy": 0.8, "p_norm": 1.0, "values": {"raw": values, "scale_free": 0.5},
            "scores": scores}  # fmt: skip


JOINT_LOSS = [0.5, 0.3, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02, 0.015, 0.01, 0.008, 0.006, 0.005, 0.004, 0.003, 0.002]


def _pair():
    # budgets 8 and 16: as strings "8" sorts after "16", as numbers before
    joint = {"seeds": [0, 1], "joint": {"16": [_point(8.0, JOINT_LOSS), _point(8.0, [x * 1.1 for x in JOINT_LOSS])],
                                        "8": [_point(4.0, JOINT_LOSS[:8])] * 2}}  # fmt: skip
    one_step = {"seeds": [0, 1], "one_step": {"8": [_point(2.0, [0.7] * 8, 1.0)] * 2,
                                              "16": [_point(2.0, [0.69] * 16, 1.0), _point(2.2, [0.68] * 16, 1.0)]}}  # fmt: skip
    return joint, one_step


def _rgb(color):
    return mcolors.to_rgba(color)


def test_the_loss_panel_draws_every_seed_of_the_longest_budget_in_each_arms_style():
    fig, ax = plt.subplots()
    plot_losses(ax, *_pair(), "the title")
    curves = [line for line in ax.get_lines() if len(line.get_xdata()) > 2]
    assert len(curves) == 4  # two seeds of each arm, over the 16-epoch budget
    joint = [c for c in curves if c.get_color() == "tab:blue"]
    step = [c for c in curves if c.get_color() == "tab:orange"]
    assert len(joint) == len(step) == 2
    assert all(c.get_linestyle() == "-" and c.get_linewidth() == 1 for c in joint)
    assert all(c.get_linestyle() == "--" and c.get_linewidth() == 1 for c in step)
    assert list(joint[0].get_xdata()) == list(range(1, 17)) and list(joint[0].get_ydata()) == JOINT_LOSS
    assert [c.get_label() for c in joint] == ["joint", "_child1"] or joint[1].get_label().startswith("_")
    assert step[0].get_label() == "one step, then p and v" and step[1].get_label().startswith("_")
    budgets = [line for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1]]
    assert sorted({float(b.get_xdata()[0]) for b in budgets}) == [8.0, 16.0]
    assert all(_rgb(b.get_color()) == _rgb("grey") and b.get_linestyle() == ":" and b.get_linewidth() == 0.6 for b in budgets)
    (fit,) = [line for line in ax.get_lines() if line.get_label().startswith("fitted")]
    assert fit.get_ydata()[0] == FIT_LOSS and fit.get_label() == f"fitted: {FIT_LOSS:g} nats"
    assert _rgb(fit.get_color()) == _rgb("k") and fit.get_linestyle() == ":" and fit.get_linewidth() == 1
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("epoch", "training loss (log scale)", "the title")
    assert ax.get_yscale() == "log"
    legend = ax.get_legend()
    assert legend._loc == 3 and legend.get_texts()[0].get_fontsize() == 7  # lower left
    plt.close(fig)


def test_the_ratio_panel_draws_raw_filled_and_scale_free_open_with_their_intervals():
    fig, ax = plt.subplots()
    plot_ratios(ax, *_pair(), "ratios")
    bars = {c.get_label(): c for c in ax.containers}
    assert set(bars) == {r"$E_s\cdot v$, raw", r"$E_s\cdot v$, scale-free", r"$E_s\cdot p$, raw", r"$E_s\cdot p$, scale-free"}
    raw_v, free_v = bars[r"$E_s\cdot v$, raw"], bars[r"$E_s\cdot v$, scale-free"]
    line = raw_v.lines[0]
    assert list(line.get_xdata()) == [8, 16]  # budgets as numbers
    assert list(line.get_ydata()) == pytest.approx([2.0, (4 + 8 / 2.2) / 2])  # 4/2, and the mean of 8/2 and 8/2.2
    assert line.get_color() == "tab:blue" and line.get_marker() == "o" and line.get_linestyle() == "-"
    assert line.get_markerfacecolor() == "tab:blue" and line.get_markersize() == 6
    assert free_v.lines[0].get_markerfacecolor() == "white" and free_v.lines[0].get_linestyle() == "--"
    raw_p = bars[r"$E_s\cdot p$, raw"].lines[0]
    assert raw_p.get_color() == "tab:red" and raw_p.get_marker() == "s"
    assert list(raw_p.get_ydata()) == pytest.approx([4.0, (8 + 16 / 2.2) / 2])  # joint scores twice its values
    segments = raw_v.lines[2][0].get_segments()  # the error bar at 16 epochs spans the seed interval
    low, high = segments[1][:, 1]
    mean = (4 + 8 / 2.2) / 2
    assert 0 < low < mean < high and (mean - low) == pytest.approx(high - mean)  # a t-interval, not clipped here
    caps = raw_v.lines[1]
    assert len(caps) == 2 and caps[0].get_markersize() == 3 * 2  # capsize 3 draws caps of twice its size
    flat = [
        l
        for l in ax.get_lines()
        if len(set(l.get_ydata())) == 1 and len(l.get_xdata()) == 2 and l.get_xdata()[0] != l.get_xdata()[1]
    ]
    levels = {float(line.get_ydata()[0]): line for line in flat}
    assert set(levels) >= {1.0, 6.0, 8.0}
    assert _rgb(levels[1.0].get_color()) == _rgb("k") and levels[1.0].get_linewidth() == 0.8
    assert levels[8.0].get_color() == "tab:blue" and levels[8.0].get_linestyle() == ":" and levels[8.0].get_linewidth() == 1
    assert levels[6.0].get_color() == "tab:red"
    assert (ax.get_ylabel(), ax.get_title(), ax.get_yscale()) == ("joint / one step", "ratios", "log")
    assert ax.get_xlabel().startswith("training budget")
    legend = ax.get_legend()
    assert legend._loc == 2 and legend.get_texts()[0].get_fontsize() == 7  # upper left
    plt.close(fig)


def test_the_figure_has_a_row_per_scale_with_losses_and_the_scales_side_by_side_without():
    one = plot_converged_arms({"full": _pair()})
    assert [ax.get_title() for ax in one.axes] == ["full: training loss, budgets dotted", "full: spread ratio by budget"]
    assert tuple(one.get_size_inches()) == pytest.approx((10.4, 3.6))
    two = plot_converged_arms({"fast": _pair(), "full": _pair()})
    assert len(two.axes) == 4 and tuple(two.get_size_inches()) == pytest.approx((10.4, 7.2))
    side = plot_converged_arms({"fast": _pair(), "full": _pair()}, losses=False)
    left, right = side.axes
    assert left.get_position().y0 == right.get_position().y0 and left.get_position().x0 < right.get_position().x0
    assert [ax.get_title() for ax in side.axes] == ["fast: spread ratio by budget", "full: spread ratio by budget"]
    assert tuple(side.get_size_inches()) == pytest.approx((10.4, 3.8))
    alone = plot_converged_arms({"full": _pair()}, losses=False)
    assert len(alone.axes) == 1 and tuple(alone.get_size_inches()) == pytest.approx((5.2, 3.8))
    for fig in (one, two, side, alone):
        plt.close(fig)


@pytest.mark.parametrize("arm", ["joint", "one_step"])
def test_a_pair_missing_an_arms_points_is_refused_before_drawing(arm):
    joint, one_step = _pair()
    broken = (joint, {}) if arm == "one_step" else ({}, one_step)
    with pytest.raises(ValueError, match=f"the {arm} arm's metrics need"):
        plot_converged_arms({"fast": broken})
    assert np.isfinite(1.0)
