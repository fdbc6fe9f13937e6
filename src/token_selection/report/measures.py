"""How our number for a claim is read from its results records (the ``measure`` of each ``Claim``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from ..intervals import CONFIDENCE, seed_interval
from ..studies.intervals import wilson_interval
from .theory_claims import RECORD as THEORY_RECORD

Records = dict[str, dict[str, Any]]
"""Metrics of the records a claim needs, by record name."""


def real_record(kind: str, mode: str = "joint", dataset: str = "imdb") -> str:
    """Name of the real-data pipeline's record for one model kind and training mode."""
    return f"{dataset}-{kind}-{mode}"


def seeded(metrics: dict[str, Any], path: str) -> dict:
    """The seed interval of a scalar metric (``path`` as in ``pipeline.SEEDED_METRICS``); one seed for older records."""
    summary = metrics.get("seed_summary", {}).get(path)
    if summary is not None:
        return summary
    value: Any = metrics
    for part in path.split("."):
        value = value[part]
    return seed_interval([float(value)])


def per_seed(metrics: dict[str, Any], path: str) -> list[float]:
    """Per-seed values of a scalar metric (a list of one for a one-seed record)."""
    return [float(v) for v in (metrics.get("per_seed", {}).get(path) or seeded(metrics, path)["values"])]


def accuracy(record: str) -> Callable[[Records], dict]:
    """Test accuracy of a record, as a seed interval."""
    return lambda r: seeded(r[record], "test_accuracy")


def shape_verdict(record: str, quantity: str) -> Callable[[Records], dict]:
    """The first seed's verdict of ``quantity`` with every seed's shape (``shapes``)."""

    def read(r: Records) -> dict:
        verdict = dict(r[record][quantity]["verdict"])
        verdict["shapes"] = r[record].get("per_seed", {}).get(f"{quantity}.shape") or [verdict["shape"]]
        return verdict

    return read


def show_shape(verdict: dict) -> str:
    """The shape: for one seed with its Spearman interval; for several, the count of every shape (most common
    first), then the first seed's shape and Spearman interval."""
    low, high = verdict["spearman_ci"]
    shapes = verdict.get("shapes") or [verdict["shape"]]
    spearman = f"Spearman {verdict['spearman']:+.2f} [{low:+.2f}, {high:+.2f}]"
    if len(shapes) == 1:
        return f"{verdict['shape']} ({spearman}; one seed)"
    counts = ", ".join(f"{n} {shape}" for shape, n in Counter(shapes).most_common())
    return f"{counts} of {len(shapes)} seeds (seed 0: {verdict['shape']}, {spearman})"


def accuracy_gap(accuracy_a: float, n_a: int, accuracy_b: float, n_b: int) -> np.ndarray:
    """(3,) float64: ``a - b`` in points and its 95% normal interval, from two accuracies on test sets of n_a, n_b.

    The two test sets are treated as independent, which overstates the spread when they
    are the same reviews (a paired comparison would be tighter): the interval is conservative.
    """
    gap = accuracy_a - accuracy_b
    se = np.sqrt(accuracy_a * (1 - accuracy_a) / n_a + accuracy_b * (1 - accuracy_b) / n_b)
    return 100 * np.array([gap, gap - 1.96 * se, gap + 1.96 * se])


def gap(records: Records) -> dict[str, float]:
    """Trained minus frozen test accuracy in points, with its 95% interval: over seeds (paired by seed) when both
    records have several, else from the test-set sizes."""
    joint, frozen = records[real_record("one_layer")], records[real_record("one_layer", "frozen_random")]
    a, b = per_seed(joint, "test_accuracy"), per_seed(frozen, "test_accuracy")
    if len(a) > 1 and len(a) == len(b):
        interval = seed_interval([100 * (x - y) for x, y in zip(a, b, strict=True)])
        return {key: interval[key] for key in ("value", "low", "high", "n")}
    gap = accuracy_gap(joint["test_accuracy"], joint["n_test"], frozen["test_accuracy"], frozen["n_test"])
    return {**dict(zip(("value", "low", "high"), gap.tolist(), strict=True)), "n": 1}


def std_ratio(quantity: str, dataset: str = "imdb") -> Callable[[Records], dict]:
    """Jointly trained over one-step mean per-bin std of ``quantity`` on ``dataset``, paired by seed, as a seed interval."""
    joint = real_record("one_layer", dataset=dataset)
    one_step = real_record("one_layer", "one_step_frozen", dataset)
    path = f"{quantity}.mean_bin_std"

    def read(r: Records) -> dict:
        a, b = per_seed(r[joint], path), per_seed(r[one_step], path)
        n = min(len(a), len(b))
        return seed_interval([x / y for x, y in zip(a[:n], b[:n], strict=True)])

    return read


def weaker(records: Records) -> dict[str, list[float]]:
    """Spearman intervals of E_s . v: the MLP model's against the one-layer model's (over seeds when there are
    several, else the first seed's bootstrap interval)."""
    mlp, one_layer = records[real_record("mlp")], records[real_record("one_layer")]

    def interval(metrics: dict[str, Any]) -> list[float]:
        summary = seeded(metrics, "values.verdict.spearman")
        return [summary["low"], summary["high"]] if summary["n"] > 1 else list(metrics["values"]["verdict"]["spearman_ci"])

    return {"ours": interval(mlp), "reference": interval(one_layer)}


def worst_class(records: Records) -> dict:
    """The class whose verdict is furthest from 'increasing': a class of another shape first, then the lowest Spearman."""
    record = records[real_record("multiclass", dataset="yelp_stars")]
    verdicts = []
    for k, c in enumerate(record["classes"]):
        shapes = record.get("per_seed", {}).get(f"classes.{k}.shape") or [c["shape"]]
        verdicts.append({**c["verdict"], "shapes": shapes, "class": k})
    return min(verdicts, key=lambda v: (v["shapes"].count("increasing") / len(v["shapes"]), v["spearman"]))


def theory(path: str) -> Callable[[Records], Any]:
    def read(records: Records) -> Any:
        value: Any = records[THEORY_RECORD]
        for part in path.split("."):
            value = value[part]
        return value

    return read


def share_interval(passed: int, trials: int, confidence: float = CONFIDENCE) -> dict[str, float | int]:
    """The share of ``trials`` seeds that pass and its Wilson score interval at ``confidence``.

    Returns ``{"value", "low", "high", "n", "passed"}`` (``value = passed / trials``). The Wilson
    interval (``studies.intervals.wilson_interval``) keeps its width where the share sits at 0 or
    1, where a normal interval collapses to a point. Raises ValueError unless passed and trials
    are whole counts with 0 <= passed <= trials and trials >= 1.
    """
    counts = (passed, trials)
    if any(isinstance(c, bool) or not isinstance(c, (int, np.integer)) for c in counts):
        raise ValueError(f"passed and trials must be whole counts, got passed={passed!r}, trials={trials!r}")
    if trials < 1 or not 0 <= passed <= trials:
        raise ValueError(f"need 0 <= passed <= trials and trials >= 1, got passed={passed}, trials={trials}")
    low, high = wilson_interval(int(passed), int(trials), confidence)
    return {"value": passed / trials, "low": low, "high": high, "n": int(trials), "passed": int(passed)}


def show_share(share: dict) -> str:
    """``passed of n seeds (value %, Wilson 95% [low, high] %)``, percentages without decimals."""
    return (
        f"{share['passed']} of {share['n']} seeds ({100 * share['value']:.0f} %, "
        f"Wilson 95% [{100 * share['low']:.0f}, {100 * share['high']:.0f}] %)"
    )
