"""Figures of the two one-layer arms trained to the end of the same budgets (``converged_arms``).

fig = plot_converged_arms({"fast": (joint, one_step), "full": (joint, one_step)})   # records' metrics per scale
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ..real_data.converged import FIT_LOSS
from ..sources import ONE_STEP_STD_RATIO_SCORES, ONE_STEP_STD_RATIO_VALUES
from .converged_arms import converged_table, ratio_intervals

ARM_STYLE = {"joint": ("tab:blue", "-", "joint"), "one_step": ("tab:orange", "--", "one step, then p and v")}
QUANTITY_STYLE = {
    "values": (r"$E_s\cdot v$", "o", ONE_STEP_STD_RATIO_VALUES),
    "scores": (r"$E_s\cdot p$", "s", ONE_STEP_STD_RATIO_SCORES),
}


def plot_losses(ax, joint: dict[str, Any], one_step: dict[str, Any], title: str) -> None:
    """Every seed's training loss per epoch over the longest budget, both arms (log scale), ``FIT_LOSS`` dotted."""
    for arm, metrics in (("joint", joint), ("one_step", one_step)):
        color, style, label = ARM_STYLE[arm]
        longest = max(metrics[arm], key=float)
        for k, run in enumerate(metrics[arm][longest]):
            loss = run["train_loss"]
            ax.semilogy(range(1, len(loss) + 1), loss, color=color, ls=style, lw=1, label=label if k == 0 else None)
        for budget in metrics[arm]:
            ax.axvline(float(budget), color="grey", ls=":", lw=0.6)
    ax.axhline(FIT_LOSS, color="k", ls=":", lw=1, label=f"fitted: {FIT_LOSS:g} nats")
    ax.set(xlabel="epoch", ylabel="training loss (log scale)", title=title)
    ax.legend(fontsize=7, loc="lower left")


def plot_ratios(ax, joint: dict[str, Any], one_step: dict[str, Any], title: str) -> None:
    """The joint over the one-step spread ratio against the budget, raw (filled) and scale-free (open), per quantity:
    seed means with their intervals, the rebuttal's factors dashed, 1 in black (log scale)."""
    table = converged_table(joint, one_step)
    for quantity, (name, marker, paper) in QUANTITY_STYLE.items():
        color = "tab:blue" if quantity == "values" else "tab:red"
        for reading, fill in (("raw", color), ("scale_free", "white")):
            found = ratio_intervals(table, quantity, reading)
            budgets = sorted(found)
            means = np.array([found[b]["value"] for b in budgets])
            spread = np.array([[found[b]["value"] - found[b]["low"], found[b]["high"] - found[b]["value"]] for b in budgets])
            ax.errorbar(budgets, means, yerr=spread.T, color=color, marker=marker, mfc=fill, ms=6, capsize=3,
                        ls="-" if reading == "raw" else "--", label=f"{name}, {reading.replace('_', '-')}")  # fmt: skip
        ax.axhline(paper, color=color, ls=":", lw=1)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set(xlabel="training budget (epochs, the last kept)", ylabel="joint / one step", title=title)
    ax.legend(fontsize=7, loc="upper left")


def plot_converged_arms(pairs: dict[str, tuple[dict[str, Any], dict[str, Any]]], *, losses: bool = True):
    """For each scale of ``pairs`` (scale -> (joint metrics, one-step metrics)): the training losses (when ``losses``,
    one row per scale) and the spread ratios against the budget (without losses, the scales side by side).
    Returns the figure."""
    for joint, one_step in pairs.values():
        converged_table(joint, one_step)  # refuses metrics without one point per seed, before anything is drawn
    if losses:
        fig, axes = plt.subplots(len(pairs), 2, figsize=(10.4, 3.6 * len(pairs)), squeeze=False)
        panels = [(axes[row, 0], axes[row, 1]) for row in range(len(pairs))]
    else:
        fig, axes = plt.subplots(1, len(pairs), figsize=(5.2 * len(pairs), 3.8), squeeze=False)
        panels = [(None, axes[0, col]) for col in range(len(pairs))]
    for (scale, (joint, one_step)), (loss_ax, ratio_ax) in zip(pairs.items(), panels, strict=True):
        if loss_ax is not None:
            plot_losses(loss_ax, joint, one_step, f"{scale}: training loss, budgets dotted")
        plot_ratios(ratio_ax, joint, one_step, f"{scale}: spread ratio by budget")
    fig.tight_layout()
    return fig
