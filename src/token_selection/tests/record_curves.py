"""A results record's curve for tests: seed 0's shape verdict and its bins, as the real-data pipeline writes them.

Shared by the tests of ``theory.shape_effect`` (which reads the verdicts) and ``report.shape_readings`` (which
reads the bins); uneven bin counts, 16 printed centres.
"""

from __future__ import annotations

CENTRES = [-0.95, -0.8, -0.6, -0.45, -0.3, -0.2, -0.1, -0.05, 0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9]


def curve(shape="U-shaped", rho=0.1, left=-0.5, right=0.4, means=None, stds=None, counts=None) -> dict:
    """A curve of a record's metrics: its verdict (``shape``, Spearman ``rho``, arms ``left``, ``right``) and bins."""
    means = [abs(c) for c in CENTRES] if means is None else means
    return {
        "shape": shape,
        "verdict": {"shape": shape, "spearman": rho, "left_spearman": left, "right_spearman": right},
        "bin_centres": CENTRES,
        "bin_mean": means,
        "bin_std": stds or [0.1] * len(CENTRES),
        "bin_count": counts or [1, 2, 3, 5, 8, 13, 21, 34, 40, 30, 20, 12, 7, 4, 2, 1],
    }
