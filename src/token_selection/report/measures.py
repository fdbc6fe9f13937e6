"""How our number for a claim is read from its results records (the ``measure`` of each ``Claim``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .theory_claims import RECORD as THEORY_RECORD

Records = dict[str, dict[str, Any]]
"""Metrics of the records a claim needs, by record name."""


def real_record(kind: str, mode: str = "joint", dataset: str = "imdb") -> str:
    """Name of the real-data pipeline's record for one model kind and training mode."""
    return f"{dataset}-{kind}-{mode}"


def shape_verdict(record: str, quantity: str) -> Callable[[Records], dict]:
    return lambda r: r[record][quantity]["verdict"]


def show_shape(verdict: dict) -> str:
    low, high = verdict["spearman_ci"]
    return f"{verdict['shape']} (Spearman {verdict['spearman']:+.2f} [{low:+.2f}, {high:+.2f}])"


def accuracy_gap(accuracy_a: float, n_a: int, accuracy_b: float, n_b: int) -> np.ndarray:
    """(3,) float64: ``a - b`` in points and its 95% normal interval, from two accuracies on test sets of n_a, n_b.

    The two test sets are treated as independent, which overstates the spread when they
    are the same reviews (a paired comparison would be tighter): the interval is conservative.
    """
    gap = accuracy_a - accuracy_b
    se = np.sqrt(accuracy_a * (1 - accuracy_a) / n_a + accuracy_b * (1 - accuracy_b) / n_b)
    return 100 * np.array([gap, gap - 1.96 * se, gap + 1.96 * se])


def gap(records: Records) -> dict[str, float]:
    """Trained minus frozen test accuracy in points, with its 95% interval."""
    joint, frozen = records[real_record("one_layer")], records[real_record("one_layer", "frozen_random")]
    gap = accuracy_gap(joint["test_accuracy"], joint["n_test"], frozen["test_accuracy"], frozen["n_test"])
    return dict(zip(("value", "low", "high"), gap.tolist(), strict=True))


def std_ratio(quantity: str) -> Callable[[Records], float]:
    joint, one_step = real_record("one_layer"), real_record("one_layer", "one_step_frozen")
    return lambda r: r[joint][quantity]["mean_bin_std"] / r[one_step][quantity]["mean_bin_std"]


def weaker(records: Records) -> dict[str, list[float]]:
    mlp, one_layer = records[real_record("mlp")], records[real_record("one_layer")]
    return {"ours": mlp["values"]["verdict"]["spearman_ci"], "reference": one_layer["values"]["verdict"]["spearman_ci"]}


def worst_class(records: Records) -> dict:
    """The class whose verdict is furthest from 'increasing': a class of another shape first, then the lowest Spearman."""
    classes = records[real_record("multiclass", dataset="yelp_stars")]["classes"]
    return min((c["verdict"] for c in classes), key=lambda v: (v["shape"] == "increasing", v["spearman"]))


def theory(path: str) -> Callable[[Records], Any]:
    def read(records: Records) -> Any:
        value: Any = records[THEORY_RECORD]
        for part in path.split("."):
            value = value[part]
        return value

    return read
