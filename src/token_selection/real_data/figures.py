"""The real-data chapters' figures: importance profiles, selected tokens, shaded reviews, the one step right after it.

A token's importance is its label posterior gap ``omega_s = P(1|s) - P(0|s)`` on the
training reviews. ``E_s . v`` and ``E_s . p`` binned by it at the rebuttal's 20 bin
centres are the counterparts of the paper's Figures 1 and 3; ``profile_verdicts`` judges
their shapes over tokens by the course's one shape rule.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import torch

from ..theory.importance import BinnedStats
from ..theory.shape import ShapeVerdict, classify_shape
from .measurements import rebuttal_bins, token_importance

__all__ = [
    "ImportanceProfile",
    "attention_html",
    "importance_profile",
    "plot_importance_profiles",
    "plot_one_step_direct",
    "plot_selection_mass",
    "profile_verdicts",
    "selected_tokens_table",
    "token_importance",
]


@dataclass(frozen=True)
class ImportanceProfile:
    """``E_s . v`` and the per-token score binned by the posterior gap: two ``BinnedStats`` over the rebuttal's bins."""

    values: BinnedStats
    scores: BinnedStats

    @property
    def centres(self) -> np.ndarray:
        return self.values.centres


def importance_profile(x: torch.Tensor, values: torch.Tensor, scores: torch.Tensor) -> ImportanceProfile:
    """Bin ``values`` (``E v``) and ``scores`` (the kind's score), both (V,), by ``x`` (V,) at the rebuttal's bins."""
    return ImportanceProfile(rebuttal_bins(x, values), rebuttal_bins(x, scores))


def profile_verdicts(
    x: torch.Tensor, values: torch.Tensor, scores: torch.Tensor, *, n_boot: int = 1000, seed: int = 0
) -> tuple[ShapeVerdict, ShapeVerdict]:
    """The shape verdicts (``classify_shape``, over tokens) of ``values`` and ``scores`` (V,) against ``x`` (V,)."""
    gap = x.detach().double().cpu().numpy()
    value_verdict, score_verdict = (
        classify_shape(gap, quantity.detach().double().cpu().numpy(), n_boot=n_boot, seed=seed) for quantity in (values, scores)
    )
    return value_verdict, score_verdict


LEGEND_ROOM = 0.35
"""Space made above (score panels) or below (value panels) the band for the legend, as a share of the band's height."""


def plot_importance_profiles(profiles: dict[str, ImportanceProfile], *, title: str, score_labels: dict[str, str] | None = None):
    """One row per model: mean +/- std of ``E_s . v`` (left) and of the score (right) against the posterior gap.

    profiles: model name -> profile; score_labels: model name -> axis label of its score (default ``E_s . p``).
    Returns the matplotlib figure.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(profiles), 2, figsize=(10, 3.3 * len(profiles)), squeeze=False)
    for row, (name, profile) in enumerate(profiles.items()):
        for ax, stats, label, colour, values in (
            (axes[row, 0], profile.values, r"$E_s \cdot v$", "tab:blue", True),
            (axes[row, 1], profile.scores, (score_labels or {}).get(name, r"$E_s \cdot p$"), "tab:red", False),
        ):
            low, high = stats.mean - stats.std, stats.mean + stats.std
            ax.fill_between(stats.centres, low, high, color=colour, alpha=0.2, label="mean ± std")
            ax.plot(stats.centres, stats.mean, "o-", color=colour, ms=4, label="mean over the bin's tokens")
            ax.axhline(0.0, color="grey", lw=0.6)
            ax.set_xlabel(r"posterior gap $\omega_s = P(1\mid s) - P(0\mid s)$ (training reviews)")
            ax.set_ylabel(label)
            ax.set_title(f"{name}: {label} (rebuttal's bin centres)")
            # the legend sits in a corner the curve leaves free (the values' lower right, the score's upper left), with
            # room made for it there: a third of the band's height, so it never covers the band's ends
            bottom, top = min(float(low.min()), 0.0), max(float(high.max()), 0.0)  # the zero line stays in view
            pad, room = 0.05 * (top - bottom), LEGEND_ROOM * (top - bottom)
            ax.set_ylim(bottom - pad - (room if values else 0.0), top + pad + (0.0 if values else room))
            ax.legend(fontsize=8, loc="lower right" if values else "upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def selected_tokens_table(vocab: list[str], scores: torch.Tensor, gap: torch.Tensor, counts: torch.Tensor, *, k: int = 15):
    """The ``k`` tokens with the highest ``E_s . p`` among those with a posterior gap (not NaN).

    Returns a pandas DataFrame with columns token, E.p, posterior gap, count.
    """
    import pandas as pd

    scores = scores.detach().double().cpu()
    eligible = torch.isfinite(gap)
    order = torch.argsort(torch.where(eligible, scores, torch.full_like(scores, -float("inf"))), descending=True)[:k]
    order = order[eligible[order]]
    return pd.DataFrame(
        {
            "token": [vocab[i] for i in order.tolist()],
            "E.p": scores[order].numpy().round(2),
            "posterior gap": gap[order].numpy().round(2),
            "count": counts[order].numpy(),
        }
    )


def attention_html(text: str, offsets: list[tuple[int, int]], weights: np.ndarray, *, caption: str = "") -> str:
    """The review ``text`` as static HTML, each token's span shaded by its attention weight.

    offsets: (start, end) character span of each kept token in ``text``; weights: one
    non-negative weight per offset. The shade is the weight relative to the largest
    one; text after the last kept token is shown in grey (it was truncated away).
    """
    weights = np.asarray(weights, dtype=np.float64)
    if len(offsets) != len(weights):
        raise ValueError(f"offsets and weights must have equal length, got {len(offsets)} and {len(weights)}")
    top = float(weights.max()) if len(weights) else 1.0
    parts, cursor = [], 0
    for (start, end), weight in zip(offsets, weights, strict=True):
        parts.append(html.escape(text[cursor:start]))
        alpha = 0.0 if top <= 0 else weight / top
        style = f"background-color: rgba(220, 50, 32, {alpha:.2f})"
        parts.append(f'<span style="{style}" title="{weight:.4f}">{html.escape(text[start:end])}</span>')
        cursor = end
    if cursor < len(text):
        parts.append(f'<span style="color: #999">{html.escape(text[cursor:])}</span>')
    body = "".join(parts).replace("&lt;br /&gt;", "<br />")
    head = f'<p style="font-size: 0.85em; color: #555">{html.escape(caption)}</p>' if caption else ""
    return f'{head}<div style="line-height: 1.7; font-family: sans-serif; max-width: 60em">{body}</div>'


def plot_one_step_direct(metrics: dict, dataset: str, *, title: str):
    """The one step on real reviews, right after it (``one_step_direct``'s record): three panels.

    Left and middle: seed 0's ``E_s . v`` at the largest ``d`` against ``alpha_s`` (with the signal line
    ``(eta/2) |v|^2 alpha_s``) and against ``omega_s``, on the record's sample of tokens, coloured by log10 count.
    Right: the correlations over seeds (mean and 95% interval) at each ``d`` against chapter 3's law at the step and
    the law with each draw's quantities. metrics: the record's metrics; dataset: one of its datasets.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    found = metrics[dataset]
    scatter, rows = found["scatter"], found["by_d"]
    d = str(max(int(k) for k in scatter["values"]))
    alpha, omega = np.asarray(scatter["alpha"]), np.asarray(scatter["omega"])
    values, counts = np.asarray(scatter["values"][d]), np.log10(np.asarray(scatter["count"], dtype=float))
    fig, grid = plt.subplot_mosaic([["alpha", "omega"], ["dims", "dims"]], figsize=(10, 8.4), layout="constrained")
    axes = [grid["alpha"], grid["omega"], grid["dims"]]  # two scatters above, the correlations over d below
    colour = {"c": counts, "cmap": "viridis", "norm": Normalize(counts.min(), counts.max()), "s": 9, "alpha": 0.75}
    points = axes[0].scatter(alpha, values, **colour)
    line = np.linspace(alpha.min(), alpha.max(), 2)
    axes[0].plot(line, scatter["slope"][d] * line, "k--", lw=1, label=r"signal $\frac{\eta}{2}\|v\|^2\alpha_s$")
    axes[0].set_xlabel(r"signed frequency $\alpha_s$ (training reviews)")
    axes[0].legend(fontsize=8, loc="upper left")
    axes[1].scatter(omega, values, **colour)
    axes[1].set_xlabel(r"posterior gap $\omega_s = P(1\mid s) - P(0\mid s)$")
    for ax, axis in zip(axes[:2], ("alpha", "omega"), strict=True):
        ax.axhline(0.0, color="grey", lw=0.6)
        ax.set_title(rf"against $\{axis}_s$: {len(values)} sampled tokens")
    axes[0].set_ylabel(rf"$E_s(1)\cdot v$ right after the step (d = {d}, seed {scatter['seed']})")
    fig.colorbar(points, ax=axes[:2], label="log10 count in training", shrink=0.85, pad=0.01)
    dims = np.array([row["d"] for row in rows])
    for name, label, colour_name, marker in (
        ("pearson_alpha", r"Pearson with $\alpha_s$", "tab:blue", "o"),
        ("spearman_alpha", r"Spearman with $\alpha_s$", "tab:blue", "s"),
        ("pearson_omega", r"Pearson with $\omega_s$", "tab:orange", "o"),
        ("spearman_omega", r"Spearman with $\omega_s$", "tab:orange", "s"),
    ):
        summary = [row["seed_summary"][name] for row in rows]
        mean = np.array([s["value"] for s in summary])
        error = np.array([[s["value"] - s["low"] for s in summary], [s["high"] - s["value"] for s in summary]])
        face = colour_name if marker == "o" else "none"
        axes[2].errorbar(dims, mean, yerr=error, fmt=marker, color=colour_name, mfc=face, capsize=3, label=label)
    axes[2].plot(dims, [row["predicted"] for row in rows], "k--", lw=1, label=r"law $\tau/\sqrt{1+\tau^2}$ at the step")
    drawn = [row["seed_summary"]["predicted_draw"]["value"] for row in rows]
    axes[2].plot(dims, drawn, ":", color="grey", label="law, each draw's |v| and measured tokens")
    axes[2].plot(dims, [row["predicted_omega"] for row in rows], "--", color="tab:orange", lw=1,
                 label=r"law $\times$ corr($\alpha$, $\omega$)")  # fmt: skip
    axes[2].set_xscale("log", base=2)
    axes[2].set_xticks(dims, [str(x) for x in dims])
    axes[2].set_ylim(0, 1)
    axes[2].set_xlabel("embedding dimension d")
    axes[2].set_ylabel(r"correlation of $E_s(1)\cdot v$ over tokens")
    axes[2].set_title(f"mean and 95% interval over {rows[0]['seed_summary']['pearson_alpha']['n']} draws")
    axes[2].legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 0.55), ncol=2)
    fig.suptitle(title, fontsize=10)
    return fig


def plot_selection_mass(metrics: dict, *, title: str, datasets: list[str] | None = None):
    """Attention on the important tokens of the test reviews (``selection_mass``'s record): one panel per dataset.

    Bars: per one-layer arm, the mean share of a review's attention on its important tokens, with the 95% interval
    over seeds and the lift (share over uniform share) written above; dashed line and band: the share under uniform
    attention (mean and interval over seeds). metrics: the record's metrics; datasets: those to draw (default: all).
    """
    import matplotlib.pyplot as plt

    from .registry import MODE_LABELS

    datasets, arms = list(metrics["datasets"] if datasets is None else datasets), metrics["arms"]
    fig, axes = plt.subplots(1, len(datasets), figsize=(6.4 * len(datasets), 4.2), layout="constrained", squeeze=False)
    colours = {"joint": "tab:blue", "one_step_frozen": "tab:orange", "frozen_random": "tab:grey"}
    for ax, dataset in zip(axes[0], datasets, strict=True):
        found = metrics[dataset]
        uniform = found["seed_summary"]["uniform"]
        ax.axhspan(uniform["low"], uniform["high"], color="k", alpha=0.12, lw=0)
        ax.axhline(uniform["value"], color="k", ls="--", lw=1, label="uniform attention (selects nothing)")
        for i, arm in enumerate(arms):
            share, lift = (found["arms"][arm]["seed_summary"][name] for name in ("share", "lift"))
            error = [[share["value"] - share["low"]], [share["high"] - share["value"]]]
            ax.bar(i, share["value"], 0.6, yerr=error, capsize=4, color=colours.get(arm, "tab:green"), alpha=0.85)
            ax.annotate(f"×{lift['value']:.1f}", (i, share["high"]), xytext=(0, 4), textcoords="offset points",
                        ha="center", fontsize=9)  # fmt: skip
        ax.set_xticks(range(len(arms)), [MODE_LABELS.get(arm, arm) for arm in arms], fontsize=8)
        ax.set_ylim(0, 1.15 * max(found["arms"][arm]["seed_summary"]["share"]["high"] for arm in arms))
        ax.set_ylabel("share of attention on important words")
        seeds = uniform["n"]
        ax.set_title(f"{dataset}: mean over {found['per_seed']['counted'][0]:,} test reviews with an important word; "
                     f"{seeds} seed{'s' * (seeds > 1)}", fontsize=9)  # fmt: skip
        ax.legend(fontsize=8, loc="upper right")
    fig.suptitle(title, fontsize=10)
    return fig
