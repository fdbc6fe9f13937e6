"""Attention strips: each sentence a row of its tokens, each cell shaded by the token's attention weight.

Chapter 4 draws the running example's sentences ("the movie was great", ...) at ``p = 0``, where every
token gets ``1/T``, and after training p, where the weight sits on the relevant token. The word and its
weight are printed in its cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..validation import ArrayLike, as_tensor

if TYPE_CHECKING:  # matplotlib is imported only by the code that draws
    from matplotlib.axes import Axes

STRIP_CMAP = "Oranges"
"""The colour map of the weights, 0 (white) to 1 (dark orange)."""
DARK_CELL = 0.6
"""Above this weight a cell's text is printed white, to stay readable on the dark shade."""


def sentence_attention(E: ArrayLike, p: ArrayLike, sentences: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """The softmax weights ``softmax(E[ids] @ p)`` of each sentence, a (T_k,) float64 array each.

    E: (V, d) embeddings; p: (d,) the ``<cls>`` vector; sentences: token ids, one sequence per sentence
    (lengths may differ, no padding).
    """
    E = as_tensor(E, "E").double()
    p = as_tensor(p, "p").double()
    if E.dim() != 2 or p.shape != (E.shape[1],):
        raise ValueError(f"E must be (V, d) and p (d,), got {tuple(E.shape)} and {tuple(p.shape)}")
    weights = []
    for ids in sentences:
        ids = torch.as_tensor(list(ids), dtype=torch.int64)
        if ids.numel() == 0 or int(ids.min()) < 0 or int(ids.max()) >= E.shape[0]:
            raise ValueError(f"a sentence must hold token ids in [0, {E.shape[0]}), got {ids.tolist()}")
        weights.append(torch.softmax(E[ids] @ p, dim=0).numpy())
    return weights


def plot_attention_strips(
    ax: Axes,
    words: Sequence[Sequence[str]],
    weights: Sequence[ArrayLike],
    *,
    row_labels: Sequence[str] | None = None,
) -> None:
    """One row per sentence, one cell per token, shaded by its weight in [0, 1] with the word and weight printed.

    words: the tokens of each sentence; weights: (T_k,) one weight per token; row_labels: one per
    sentence, written on the y axis (default: none).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if len(words) != len(weights) or not words:
        raise ValueError(f"need one weight array per sentence: {len(words)} sentences, {len(weights)} arrays")
    if row_labels is not None and len(row_labels) != len(words):
        raise ValueError(f"{len(row_labels)} row labels for {len(words)} sentences")
    cmap = plt.get_cmap(STRIP_CMAP)
    for row, (tokens, shares) in enumerate(zip(words, weights, strict=True)):
        shares = np.asarray(shares, dtype=np.float64)
        if shares.shape != (len(tokens),) or (shares < 0).any() or (shares > 1).any():
            raise ValueError(f"sentence {row}: need {len(tokens)} weights in [0, 1], got {shares}")
        for position, (word, share) in enumerate(zip(tokens, shares, strict=True)):
            ax.add_patch(Rectangle((position, -row - 1), 1, 1, facecolor=cmap(share), edgecolor="white", lw=2))
            ax.text(
                position + 0.5,
                -row - 0.5,
                f"{word}\n{share:.2f}",
                ha="center",
                va="center",
                fontsize=9,
                color="white" if share > DARK_CELL else "black",
            )
    longest = max(len(tokens) for tokens in words)
    ax.set_xlim(0, longest)
    ax.set_ylim(-len(words), 0)
    ax.set_xticks(np.arange(longest) + 0.5, [str(i + 1) for i in range(longest)])
    ax.set_xlabel("position in the sentence")
    ax.set_yticks(-np.arange(len(words)) - 0.5, list(row_labels) if row_labels is not None else [])
    ax.set_ylabel("sentence")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
