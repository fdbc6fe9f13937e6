"""The numbers the paper and its public rebuttal report, in one place, for the chapters and the reproduction report.

Source: the paper's abstract and figures as described in the public reviews, and the
authors' public rebuttal (see the course's paper notes). Which dataset each rebuttal
number comes from is not stated there.
"""

from __future__ import annotations

import numpy as np


def _row(text: str) -> np.ndarray:
    """A table row as printed in the rebuttal (numbers separated by spaces): (20,) float64."""
    return np.array(text.split(), dtype=np.float64)


REBUTTAL_BIN_CENTRES = np.linspace(-0.95, 0.95, 20)
"""Centres of the rebuttal tables' 20 bins of the posterior gap (the rebuttal prints the last as 0.89)."""

REBUTTAL_KEY_QUERY = {
    "scores": _row(
        "15.47 7.37 7.79 4.64 3.68 1.60 0.68 -0.61 -2.22 -2.80 -3.92 -3.18 -2.23 -1.43 -0.15 0.29 3.21 2.98 7.90 12.44"
    ),
    "values": _row(
        "-1.07 -1.14 -0.82 -0.69 -0.58 -0.65 -0.53 -0.44 -0.18 -0.13 0.01 0.11 0.26 0.39 0.54 0.63 0.81 0.73 0.61 0.93"
    ),
}
"""Rebuttal table, two-layer model with key-query matrices in both layers: bin means of ``p . W2 E_s`` and ``E_s . v``."""

REBUTTAL_MLP = {
    "values": _row("0.13 0.24 0.06 0.09 0.04 0.10 0.01 0.04 -0.01 0.03 0.06 0.11 0.18 0.24 0.34 0.44 0.57 0.72 0.87 1.40"),
    "scores": _row("4.76 4.61 3.26 3.08 2.80 2.06 1.60 1.43 0.89 0.67 0.59 0.71 1.11 1.61 2.02 2.30 3.28 3.39 4.84 6.10"),
}
"""Rebuttal table, one MLP layer (hidden width d) after the attention: bin means of ``E_s . v`` and ``E_s . p``."""

TRAINED_ACCURACY = 0.95
"""Rebuttal: test accuracy with trained embeddings (about 95%)."""
FROZEN_ACCURACY = 0.72
"""Rebuttal: test accuracy with frozen random embeddings, only p and v trained (about 72%)."""
ONE_STEP_STD_RATIO_VALUES = 8.0
"""Rebuttal: per-bin std of ``E.v`` about 8x smaller after one step (then E frozen) than after training E to convergence."""
ONE_STEP_STD_RATIO_SCORES = 6.0
"""Rebuttal: the same for ``E.p``, about 6x."""
EMBEDDING_DIMENSION = 2048
"""Reviews: the real-data experiments use d = 2048."""
VOCABULARY_SIZES = {"imdb": 7766, "yelp_polarity": 5424}
"""Reviews: vocabulary sizes of the real-data experiments (tokens seen in training)."""
