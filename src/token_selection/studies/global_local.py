"""The global-versus-local experiment: where GD on ``p`` ends from three kinds of start, with intervals.

Settings and metrics are plain JSON, so the same function fills a chapter's figure and the results
record written by ``scripts/run_records.py``.
"""

from __future__ import annotations

from typing import Any

from ..scale import is_full
from ..theory.synthetic import make_synthetic
from ..theory.thresholds import DIRECTION_COSINE
from .intervals import wilson_interval
from .local_optima import ENDPOINTS, START_KINDS, classify_endpoint, global_local_case, run_start, start_point
from .pool import Track, untracked


def global_local_settings(scale: str) -> dict[str, Any]:
    """The experiment's settings at ``scale`` ("fast" or "full"); step sizes are multiples of eta*."""
    full = is_full(scale)
    return {
        "n": 200,
        "T": 8,
        "vocab_size": 50,
        "delta": 0.0,
        "data_seed": 0,
        "d": 256,
        "eta_ratios": [4.0, 8.0, 16.0, 32.0, 64.0] if full else [8.0, 32.0],
        "seeds": list(range(24 if full else 8)),
        "steps": 3000 if full else 2000,
        "lr": 0.2 if full else 0.3,
        "start_norm": 2.0,
        "start_noise": 0.3,
        "cosine_threshold": DIRECTION_COSINE,
    }


def _summary(labels: list[str], cosines: list[float]) -> dict[str, Any]:
    trials = len(labels)
    out: dict[str, Any] = {"trials": trials, "mean_cosine_all_relevant": sum(cosines) / trials}
    for endpoint in ENDPOINTS:
        hits = labels.count(endpoint)
        out[endpoint] = {"count": hits, "fraction": hits / trials, "ci95": list(wilson_interval(hits, trials))}
    return out


def run_global_local(settings: dict[str, Any], track: Track = untracked) -> dict[str, Any]:
    """Run every (eta ratio, seed, start kind); returns per-ratio endpoint fractions with Wilson 95% intervals.

    "no_step" runs once per seed (it does not depend on the ratio) and is reported under key "no_step".
    """
    data = make_synthetic(settings["n"], settings["T"], settings["vocab_size"], settings["delta"], seed=settings["data_seed"])
    X, y, relevant = data.X, data.y, data.relevant
    ratios, seeds = settings["eta_ratios"], settings["seeds"]
    jobs = [(ratio, seed) for ratio in ratios for seed in seeds] + [(0.0, seed) for seed in seeds]
    results: dict[float, dict[str, list]] = {}
    for ratio, seed in track(jobs, len(jobs)):
        case = global_local_case(X, y, relevant, settings["d"], ratio, seed)
        kinds = ("no_step",) if ratio == 0 else ("random", "near_bad")
        entry = results.setdefault(ratio, {"locally_optimal": []})
        entry["locally_optimal"].append(case.violations == 0)
        for kind in kinds:
            p0 = start_point(case, kind, seed, settings["start_norm"], settings["start_noise"])
            cosines = run_start(case, X, y, p0, steps=settings["steps"], lr=settings["lr"])
            entry.setdefault(kind, []).append((classify_endpoint(cosines, settings["cosine_threshold"]), cosines["all_relevant"]))
    metrics: dict[str, Any] = {"by_ratio": {}, "start_kinds": list(START_KINDS)}
    for ratio, entry in results.items():
        optimal = entry.pop("locally_optimal")
        summary = {kind: _summary([lab for lab, _ in runs], [c for _, c in runs]) for kind, runs in entry.items()}
        summary["bad_direction_locally_optimal"] = {
            "count": sum(optimal),
            "fraction": sum(optimal) / len(optimal),
            "ci95": list(wilson_interval(sum(optimal), len(optimal))),
        }
        if ratio == 0:
            metrics["no_step"] = summary
        else:
            metrics["by_ratio"][f"{ratio:g}"] = summary
    return metrics


GLOBAL_LOCAL_PROTOCOL = (
    "Reference Assumption-1 data (n=200, T=8, V=50, delta=0, twins, data seed 0), d=256. For each seed: E_0, v drawn; "
    "one GD step on E of size eta_ratio * eta* (eta* = 2/(sqrt(d) std alpha)); max-margin directions for the all-relevant "
    "selection and the two one-sided selections (one class keeps its relevant token, the other class selects its "
    "highest-value irrelevant token); normalised GD on p (E, v frozen; fast: 2000 steps of length 0.3, full: 3000 of "
    "0.2) from (a) p of norm 1e-2/sqrt(d) in a random direction, (b) 2/margin along "
    "the keep-negative direction plus 30% random noise, (c) the same random start without the step on E. An end direction "
    "counts as all-relevant or one-sided when its cosine to that max-margin direction is "
    f">= {DIRECTION_COSINE:g}. Wilson 95% intervals."
)
