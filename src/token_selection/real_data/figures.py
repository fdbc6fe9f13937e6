"""The real-data chapters' measurements and figures: importance profiles, selected tokens, shaded reviews.

A token's importance is its label posterior gap ``x = P(1|s) - P(0|s)`` on the
training reviews. Binning ``E_s . v`` and ``E_s . p`` by ``x`` gives the paper's
Figures 1 and 3: ``E_s . v`` rises with ``x`` (monotone) and ``E_s . p`` is high at
both ends (U-shaped). ``profile_checks`` turns both statements into numbers.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import torch

from ..theory.importance import BinnedStats, bin_by_importance, posterior_gap, token_counts
from .encoding import PAD_ID, UNK_ID, EncodedSplit

MIDDLE_HALF_WIDTH = 0.5
"""Bins whose centre lies in (-0.5, 0.5) are the "middle" bins of the U-shape check (ours)."""


def token_importance(split: EncodedSplit, vocab_size: int, *, min_count: int = 20) -> tuple[torch.Tensor, torch.Tensor]:
    """Posterior gap ``x`` (V,) float64 and occurrence count (V,) int64 of every token in ``split``.

    ``x`` is NaN for tokens seen fewer than ``min_count`` times and for ``<pad>`` and
    ``<unk>``, which are not words.
    """
    gap = posterior_gap(split.X, split.y, vocab_size, split.mask, min_count=min_count)
    gap[[PAD_ID, UNK_ID]] = float("nan")
    positive, negative = token_counts(split.X, split.y, vocab_size, split.mask)
    return gap, positive + negative


@dataclass(frozen=True)
class ImportanceProfile:
    """``E_s . v`` and ``E_s . p`` binned by the posterior gap: two ``BinnedStats`` over the same bins."""

    values: BinnedStats
    scores: BinnedStats

    @property
    def centres(self) -> np.ndarray:
        return self.values.centres


def importance_profile(x: torch.Tensor, values: torch.Tensor, scores: torch.Tensor, *, bins: int = 20) -> ImportanceProfile:
    """Bin ``values`` (``E v``) and ``scores`` (``E p``), both (V,), by ``x`` (V,) into ``bins`` bins over [-1, 1]."""
    return ImportanceProfile(bin_by_importance(x, values, bins=bins), bin_by_importance(x, scores, bins=bins))


@dataclass(frozen=True)
class ProfileChecks:
    """The two shapes as numbers.

    spearman: rank correlation of the bin means of ``E_s . v`` with the bin centres;
    left, right: mean ``E_s . p`` of the outermost populated bins; middle: mean of
    the bin means of ``E_s . p`` over the middle bins (centre in (-0.5, 0.5)).
    """

    spearman: float
    left: float
    middle: float
    right: float

    @property
    def monotone(self) -> bool:
        return self.spearman >= 0.8

    @property
    def u_shaped(self) -> bool:
        return self.left > self.middle and self.right > self.middle


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation of two 1-D arrays of equal length (ties get average ranks)."""
    from scipy.stats import spearmanr

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 3:
        raise ValueError(f"a and b must be 1-D of equal length >= 3, got shapes {a.shape} and {b.shape}")
    return float(spearmanr(a, b).statistic)


def profile_checks(profile: ImportanceProfile, *, middle_half_width: float = MIDDLE_HALF_WIDTH) -> ProfileChecks:
    """Spearman of the ``E.v`` bin means and the U-shape means of ``E.p`` (see ``ProfileChecks``)."""
    scores = profile.scores
    middle = np.abs(scores.centres) < middle_half_width
    if not middle.any():
        raise ValueError(f"no populated bin has its centre within {middle_half_width} of 0")
    return ProfileChecks(
        spearman=spearman(profile.values.centres, profile.values.mean),
        left=float(scores.mean[0]),
        middle=float(scores.mean[middle].mean()),
        right=float(scores.mean[-1]),
    )


def plot_importance_profiles(profiles: dict[str, ImportanceProfile], *, title: str, score_label: str = r"$E_s \cdot p$"):
    """One row per model: mean +/- std of ``E_s . v`` (left) and of the score (right) against the posterior gap.

    profiles: model name -> profile. Returns the matplotlib figure.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(profiles), 2, figsize=(10, 3.3 * len(profiles)), squeeze=False)
    for row, (name, profile) in enumerate(profiles.items()):
        for ax, stats, label, colour in (
            (axes[row, 0], profile.values, r"$E_s \cdot v$", "tab:blue"),
            (axes[row, 1], profile.scores, score_label, "tab:red"),
        ):
            low, high = stats.mean - stats.std, stats.mean + stats.std
            ax.fill_between(stats.centres, low, high, color=colour, alpha=0.2, label="mean ± std")
            ax.plot(stats.centres, stats.mean, "o-", color=colour, ms=4, label="mean over the bin's tokens")
            ax.axhline(0.0, color="grey", lw=0.6)
            ax.set_xlabel(r"posterior gap $x = P(1\mid s) - P(0\mid s)$ (training reviews)")
            ax.set_ylabel(label)
            ax.set_title(f"{name}: {label} (20 bins)")
            ax.legend(fontsize=8, loc="upper left" if label != r"$E_s \cdot v$" else "lower right")
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
