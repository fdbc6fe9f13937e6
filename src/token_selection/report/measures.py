"""How our number for a claim is read from its results records (the ``measure`` of each ``Claim``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..intervals import CONFIDENCE, seed_interval, show_interval, with_test_set_error
from ..real_data.one_step_direct import RECORD as ONE_STEP_DIRECT
from ..results import seed_shapes, seed_table
from ..studies.intervals import wilson_interval
from .shape_readings import (
    MIN_SCORE_STD,
    arms_words,
    bin_verdict,
    curve_at,
    score_std,
    seed_readings,
    selects,
)
from .theory_claims import RECORD as THEORY_RECORD

Records = dict[str, dict[str, Any]]
"""Metrics of the records a claim needs, by record name."""


def real_record(kind: str, mode: str = "joint", dataset: str = "imdb") -> str:
    """Name of the real-data pipeline's record for one model kind and training mode."""
    return f"{dataset}-{kind}-{mode}"


def seeded(metrics: dict[str, Any], path: str) -> dict:
    """The seed interval a record keeps for a scalar metric (``path`` as in ``pipeline.SEEDED_METRICS``).
    KeyError naming the path when the record has none (written before the metric existed)."""
    return metrics.get("seed_summary", {})[path]


def per_seed(metrics: dict[str, Any], path: str) -> list[float]:
    """Every seed's value of a scalar metric, in the record's seed order: a column of ``results.seed_table``.
    KeyError naming the path when the record keeps none (written before the metric existed)."""
    if path not in metrics.get("per_seed", {}):
        raise KeyError(path)
    return seed_table(metrics)[path].astype(float).tolist()


def accuracy_interval(record: str) -> Callable[[Records], dict]:
    """Test accuracy of a record as a seed interval widened by the test set's sampling error
    (``intervals.with_test_set_error``, with the record's ``n_test``; a record without it gives the seed interval)."""

    def read(records: Records) -> dict:
        metrics = records[record]
        return with_test_set_error(seeded(metrics, "test_accuracy"), metrics.get("n_test"))

    return read


def shape_verdict(record: str, quantity: str) -> Callable[[Records], dict]:
    """The first seed's verdict of ``quantity`` with every seed's tested shape (``shapes``), its reading with the
    effect size (``readings``, ``effects``: ``shape_readings.seed_readings``), the verdict on seed 0's 20 bin means
    (``bins``) and, for the scores, every seed's token-score std and whether the model selects (``score_std``,
    ``selects``)."""

    def read(r: Records) -> dict:
        metrics = r[record]
        verdict = dict(curve_at(metrics, quantity)["verdict"])
        readings = seed_readings(metrics, quantity)
        verdict["shapes"] = [reading.tested for reading in readings]
        verdict["readings"] = [reading.shape for reading in readings]
        verdict["effects"] = [reading.effect for reading in readings]
        verdict["bins"] = bin_verdict(metrics, quantity)
        spread = score_std(metrics) if quantity == "scores" else []
        if spread:
            verdict["score_std"] = spread
            verdict["selects"] = [selects(std) for std in spread]
        return verdict

    return read


def show_shape(verdict: dict) -> str:
    """The shape read with its effect size: for one seed its reading and effect; for several, the count of every
    reading (most common first) and seed 0's; then the verdict on seed 0's 20 bin means, and a model whose
    attention is near uniform said so."""
    shapes = verdict.get("shapes") or [verdict["shape"]]
    readings = verdict.get("readings") or shapes
    effects = verdict.get("effects") or [math.nan]
    effect = "" if math.isnan(effects[0]) else f", effect {effects[0]:.2f}"
    first = f"{verdict['shape']}, {arms_words(verdict)}{effect}"
    kept = list(effects) + [math.nan] * (len(readings) - len(effects))
    labels = [r if r == "flat" or not math.isnan(e) else f"{r} (effect not kept)" for r, e in zip(readings, kept, strict=True)]
    if len(shapes) == 1:
        text = f"{readings[0]} ({first}; one seed)"
    else:
        read = "" if readings[0] == shapes[0] else f", read {readings[0]}"
        text = f"{seed_shapes(labels)} (seed 0: {first}{read})"
    if verdict.get("bins") is not None:
        text += f"; on the 20 bins: {verdict['bins']['shape']} ({arms_words(verdict['bins'])})"
    if "selects" in verdict and not all(verdict["selects"]):
        low = sum(not s for s in verdict["selects"])
        text += (
            f"; attention near uniform in {low} of {len(verdict['selects'])} seeds (std of E_s . p over tokens "
            f"{min(verdict['score_std']):.3f} < {MIN_SCORE_STD:g}): no selection to read"
        )
    return text


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


def weaker(mode: str = "joint") -> Callable[[Records], dict[str, Any]]:
    """Spearman intervals of E_s . v: the MLP model's (trained in ``mode``) against the one-layer model's (over seeds
    when there are several, else the first seed's bootstrap interval), and the Spearman of each model's 20 bin means
    (``bins``: ours, reference), the reading the rebuttal's table gets."""
    return lambda records: _weaker(records[real_record("mlp", mode)], records[real_record("one_layer")])


def _weaker(mlp: dict[str, Any], one_layer: dict[str, Any]) -> dict[str, Any]:

    def interval(metrics: dict[str, Any]) -> list[float]:
        summary = seeded(metrics, "values.verdict.spearman")
        return [summary["low"], summary["high"]] if summary["n"] > 1 else list(metrics["values"]["verdict"]["spearman_ci"])

    bins = [bin_verdict(m, "values") for m in (mlp, one_layer)]
    found = {"ours": interval(mlp), "reference": interval(one_layer)}
    return found if None in bins else found | {"bins": [float(b["spearman"]) for b in bins]}


def worst_class(records: Records) -> dict:
    """The class whose verdict is furthest from 'increasing' (read with the effect size): a class of another reading
    first, then the lowest Spearman."""
    record = records[real_record("multiclass", dataset="yelp_stars")]
    verdicts = []
    for k, c in enumerate(record["classes"]):
        readings = seed_readings(record, f"classes.{k}")
        verdicts.append(
            {
                **c["verdict"],
                "shapes": [r.tested for r in readings],
                "readings": [r.shape for r in readings],
                "effects": [r.effect for r in readings],
                "class": k,
            }
        )
    return min(verdicts, key=lambda v: (v["readings"].count("increasing") / len(v["readings"]), v["spearman"]))


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
    """``passed of n seeds: value [low, high] % (Wilson 95%)``, percentages without decimals."""
    return f"{share['passed']} of {share['n']} seeds: " + show_interval(share, "{:.0f}", 100, " %", basis="Wilson 95%")


def one_step_on_reviews(records: Records) -> dict:
    """Right after the one step, at the record's largest d (the paper's), on each dataset: corr(E_s . v, alpha_s) minus
    the alignment law with that draw's quantities (|v| and the spread of alpha over the measured tokens), paired by
    seed, as a seed interval. Returns the dataset whose interval reaches furthest from 0, with ``dataset``, ``d``,
    ``corr`` (the correlation's own seed interval), chapter 3's law at the step (``predicted``), the law with the
    draws' quantities (``predicted_draw``, seed mean) and the Spearman correlation's seed mean."""
    metrics = records[ONE_STEP_DIRECT]
    found = []
    for dataset in metrics["datasets"]:
        row = max(metrics[dataset]["by_d"], key=lambda r: r["d"])
        measured, law = row["per_seed"]["pearson_alpha"], row["per_seed"]["predicted_draw"]
        difference = seed_interval([a - b for a, b in zip(measured, law, strict=True)])
        spearman = float(np.mean(row["per_seed"]["spearman_alpha"]))
        found.append({**{k: difference[k] for k in ("value", "low", "high", "n")}, "dataset": dataset, "d": row["d"],
                      "corr": seed_interval(measured), "predicted": row["predicted"],
                      "predicted_draw": float(np.mean(law)), "spearman": spearman})  # fmt: skip
    return max(found, key=lambda f: max(abs(f["low"]), abs(f["high"])))


DATASET_NAMES = {"imdb": "IMDB", "yelp_polarity": "the Yelp stand-in"}
"""How a table cell names a dataset of the records."""


def show_one_step_on_reviews(value: dict) -> str:
    """The correlation with its interval, the law with the draws' quantities and the difference, the law at the step."""
    name = DATASET_NAMES.get(value["dataset"], value["dataset"])
    return (
        f"corr {show_interval(value['corr'], '{:.3f}')} on {name} at d = {value['d']} (of the two data sets, the one "
        f"further from its law); law with the measured tokens and the |v| of each draw {value['predicted_draw']:.3f}, "
        f"difference {show_interval(value, '{:+.3f}')}; law at the tau of the step {value['predicted']:.3f}; "
        f"Spearman {value['spearman']:.2f}"
    )
