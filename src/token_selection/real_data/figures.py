"""The real-data chapters' figures: importance profiles, selected tokens, shaded reviews.

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
