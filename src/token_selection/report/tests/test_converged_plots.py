"""The figure of both arms trained to the end of the same budgets draws what the table holds."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from token_selection.real_data.converged import FIT_LOSS  # noqa: E402
from token_selection.report.converged_plots import plot_converged_arms  # noqa: E402


def _point(values, loss):
    return {"train_loss": loss, "test_accuracy": 0.8, "p_norm": 1.0,
            "values": {"raw": values, "scale_free": 0.5}, "scores": {"raw": 2 * values, "scale_free": 0.25}}  # fmt: skip


def _pair():
    joint = {
        "seeds": [0, 1],
        "joint": {
            "4": [_point(4.0, [0.5, 0.3, 0.2, 0.1])] * 2,
            "8": [_point(8.0, [0.5, 0.3, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02])] * 2,
        },
    }
    one_step = {"seeds": [0, 1], "one_step": {"4": [_point(2.0, [0.7, 0.69, 0.68, 0.68])] * 2,
                                              "8": [_point(2.0, [0.7] * 8)] * 2}}  # fmt: skip
    return joint, one_step


def test_each_scale_gets_a_loss_panel_and_a_ratio_panel_with_the_ratios_by_budget():
    fig = plot_converged_arms({"fast": _pair(), "full": _pair()})
    axes = fig.axes
    assert len(axes) == 4
    loss, ratio = axes[0], axes[1]
    assert loss.get_yscale() == "log" and ratio.get_yscale() == "log"
    assert FIT_LOSS in [line.get_ydata()[0] for line in loss.get_lines()]  # the fitted level, drawn
    curves = [line for line in ratio.get_lines() if len(line.get_xdata()) == 2]
    found = {tuple(np.round(line.get_ydata(), 6)) for line in curves}
    assert (2.0, 4.0) in found  # raw E_s . v: 4 / 2 and 8 / 2
    assert (8.0, 8.0) in found and (6.0, 6.0) in found  # the rebuttal's factors, as lines
    assert (1.0, 1.0) in found  # scale-free: 0.5 over 0.5 for both quantities
    labels = ratio.get_legend_handles_labels()[1]
    assert any("scale-free" in label for label in labels) and any("raw" in label for label in labels)


def test_without_losses_one_panel_per_scale():
    fig = plot_converged_arms({"full": _pair()}, losses=False)
    assert len(fig.axes) == 1 and fig.axes[0].get_xlabel().startswith("training budget")
    both = plot_converged_arms({"fast": _pair(), "full": _pair()}, losses=False)
    left, right = both.axes
    assert left.get_position().y0 == right.get_position().y0 and left.get_position().x0 < right.get_position().x0
    assert [ax.get_title() for ax in both.axes] == ["fast: spread ratio by budget", "full: spread ratio by budget"]


def test_a_pair_without_the_one_step_arm_is_refused():
    joint, _ = _pair()
    with pytest.raises(ValueError, match="one_step arm's metrics need"):
        plot_converged_arms({"fast": (joint, {})})
