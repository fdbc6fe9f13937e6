"""Selection measured in aggregate on real reviews: the attention mass a trained model puts on the important tokens.

    metrics = run_selection_mass(selection_mass_settings("fast"))
    metrics["imdb"]["arms"]["joint"]["seed_summary"]["lift"]       # share on important tokens / uniform share

Per dataset, per one-layer arm (``joint``, ``one_step_frozen``, ``frozen_random``) and per seed, the trained model is
the pipeline's own (``run_experiment``: the arm's record's model, loaded from its checkpoint, or trained and cached
exactly as ``run_seeds`` trains it). Its attention on a test review is the softmax of its own scores ``E_s . p`` over
the review's real (non-pad) positions. A token is *important* when it is among the ``top_fraction`` (10 %) of the
measured tokens by ``|omega_s|`` (the posterior gap on that seed's training reviews; measured: seen at least
``importance_min_count`` times, ``<pad>`` and ``<unk>`` left out; ties at the threshold kept). Per review:

- ``share``: the attention on the review's important positions; ``uniform``: the same under uniform attention over its
  real positions (the share of its positions that are important: what attention that selects nothing puts there);
- ``top_share`` / ``top_uniform``: the same for the positions of the review's single word of largest ``|omega_s|``
  (among its measured words; the first such position's word when two tie).

Means over the reviews that hold at least one important (or measured) token; the others are left out and counted.
``lift = share / uniform`` (ratio of the means): 1 for attention that ignores the tokens. ``above_uniform``: the fraction
of counted reviews whose share exceeds their uniform share; ``median_ratio``: the median of a review's own ratio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import torch

from ..intervals import seed_interval, show_interval
from ..theory.model import masked_softmax
from ..validation import check_positive_int
from .encoding import EncodedSplit
from .measurements import token_importance
from .pipeline import load_data, preset_seeds, run_experiment
from .settings import real_data_settings

RECORD = "selection_mass"
DATASETS = ("imdb", "yelp_polarity")
ARMS = ("joint", "one_step_frozen", "frozen_random")
"""The one-layer model's training modes (``registry.TRAINING_MODES``), each with its own record."""
KIND = "one_layer"
TOP_FRACTION = 0.1
"""Share of the measured tokens, by largest ``|omega_s|``, called important (our choice)."""
MIN_SEEDS = 3
"""At least this many seeds (the fewest that give an interval): the preset's seeds, more where the preset has fewer
(the fast preset trains one); the extra seeds are trained by the same pipeline, as ``run_seeds`` would."""
TOP_WORDS = 12
"""Important words of the first seed kept in the record, by largest ``|omega_s|``."""
RUN_BOOT = 20
"""Bootstrap resamples of the shape verdicts ``run_experiment`` computes on the way, unused here: ``n_boot`` is not part
of a checkpoint's configuration, so the model loaded (or trained) is the arm record's, and 20 keep it cheap."""
CHUNK = 4096
"""Reviews per block when measuring (bounds memory at O(CHUNK * T))."""
SHARES = ("share", "top_share", "above_uniform")
"""Per-arm shares in [0, 1]; each gets a seed interval clipped to [0, 1]."""
RATIOS = ("lift", "top_lift", "median_ratio")
"""Per-arm ratios to the uniform share, >= 0."""


def important_tokens(omega: torch.Tensor, top_fraction: float = TOP_FRACTION) -> torch.Tensor:
    """(V,) bool: the measured tokens (finite ``omega``, (V,)) among the ``top_fraction`` largest ``|omega|``.

    The ``ceil(top_fraction * measured)``-th largest ``|omega|`` is the threshold; every measured token at or above it
    is important (ties kept)."""
    if not (isinstance(top_fraction, (int, float)) and 0 < top_fraction <= 1):
        raise ValueError(f"top_fraction must lie in (0, 1], got {top_fraction!r}")
    if omega.ndim != 1:
        raise ValueError(f"omega must be 1-D (V,), got shape {tuple(omega.shape)}")
    measured = torch.isfinite(omega)
    count = int(measured.sum())
    if count == 0:
        raise ValueError("omega has no measured (finite) token: nothing can be important")
    size = math.ceil(top_fraction * count)
    magnitude = omega.abs()
    threshold = torch.topk(magnitude[measured], size).values[-1]
    return measured & (magnitude >= threshold)


@dataclass(frozen=True)
class ReviewShares:
    """Per test review (n,), float64: the attention on its important positions (``share``) and the share of its real
    positions that are important (``uniform``), the same for its top-``|omega|`` word (``top_share``,
    ``top_uniform``); ``counted`` (n,) bool: it holds an important token; ``top_counted`` (n,) bool: a measured one."""

    share: torch.Tensor
    uniform: torch.Tensor
    top_share: torch.Tensor
    top_uniform: torch.Tensor
    counted: torch.Tensor
    top_counted: torch.Tensor


def _check_inputs(scores: torch.Tensor, split: EncodedSplit, important: torch.Tensor, omega: torch.Tensor) -> None:
    V = scores.shape[0] if scores.ndim == 1 else -1
    if V < 0 or important.shape != (V,) or omega.shape != (V,):
        raise ValueError(f"scores, important and omega must all be (V,), got shapes {tuple(scores.shape)}, "
                         f"{tuple(important.shape)}, {tuple(omega.shape)}")  # fmt: skip
    if important.dtype != torch.bool:
        raise ValueError(f"important must be a bool tensor, got {important.dtype}")
    if split.X.shape != split.mask.shape or split.X.ndim != 2:
        raise ValueError(f"split X and mask must be (n, T) of one shape, got {tuple(split.X.shape)}, {tuple(split.mask.shape)}")
    if split.X.shape[0] == 0:
        raise ValueError("split holds no review")
    if split.X.numel() and (int(split.X.min()) < 0 or int(split.X.max()) >= V):
        raise ValueError(f"split X holds token ids outside [0, {V}) of the scores")
    if bool((important & ~torch.isfinite(omega)).any()):
        raise ValueError("important marks a token whose omega is not finite (not measured)")


def review_shares(
    scores: torch.Tensor, split: EncodedSplit, important: torch.Tensor, omega: torch.Tensor, *, chunk: int = CHUNK
) -> ReviewShares:
    """Per-review attention shares (``ReviewShares``) under the attention ``softmax(scores[X])`` over real positions.

    scores: (V,) the model's ``E_s . p``; split: X (n, T) ids, mask (n, T) bool; important: (V,) bool; omega: (V,)
    the posterior gap (NaN: not measured). A review with no real position is counted nowhere.
    """
    _check_inputs(scores, split, important, omega)
    chunk = check_positive_int(chunk, "chunk")
    scores, magnitude = scores.detach().double().cpu(), torch.nan_to_num(omega.double().abs(), nan=-1.0)
    parts: list[tuple[torch.Tensor, ...]] = []
    for start in range(0, len(split), chunk):
        X, mask = split.X[start : start + chunk], split.mask[start : start + chunk]
        real = mask.sum(1)
        has_real = real > 0
        weights = masked_softmax(scores[X], mask | ~has_real[:, None])  # an empty review: any weights, never counted
        weights = torch.where(mask, weights, torch.zeros_like(weights))
        hit = important[X] & mask
        length = real.clamp(min=1).double()
        top = torch.where(mask, magnitude[X], torch.full_like(weights, -1.0))
        top_word = X.gather(1, top.argmax(1, keepdim=True))
        top_hit = (X == top_word) & mask
        parts.append((
            (weights * hit).sum(1), hit.sum(1) / length, (weights * top_hit).sum(1), top_hit.sum(1) / length,
            hit.any(1) & has_real, (top.amax(1) >= 0) & has_real,
        ))  # fmt: skip
    return ReviewShares(*(torch.cat(column) for column in zip(*parts, strict=True)))


def summarise(shares: ReviewShares) -> dict[str, float | int]:
    """Means over the counted reviews: ``share``, ``uniform``, ``lift`` (their ratio), ``top_share``, ``top_uniform``,
    ``top_lift``, ``above_uniform``; ``median_ratio``: the median over counted reviews of their own share over uniform
    share (a few reviews with nearly all attention on one word cannot carry it, as they can the ratio of means); and
    the counts ``reviews``, ``counted``, ``left_out``, ``top_counted``."""
    counted, top = shares.counted, shares.top_counted
    if not bool(counted.any()):
        raise ValueError(f"no review of {len(counted)} holds an important token: no share to average")
    mean = {name: float(getattr(shares, name)[counted].mean()) for name in ("share", "uniform")}
    mean |= {name: float(getattr(shares, name)[top].mean()) for name in ("top_share", "top_uniform")}
    share, uniform = shares.share[counted], shares.uniform[counted]
    return {
        **mean,
        "lift": mean["share"] / mean["uniform"],
        "top_lift": mean["top_share"] / mean["top_uniform"],
        "median_ratio": float((share / uniform).median()),
        "above_uniform": float((share > uniform).double().mean()),
        "reviews": len(counted),
        "counted": int(counted.sum()),
        "left_out": int((~counted).sum()),
        "top_counted": int(top.sum()),
    }


def selection_mass_settings(scale: str) -> dict[str, Any]:
    """The record's settings at ``scale``: both datasets' presets, the arms, the seeds and the important fraction."""
    presets = {dataset: real_data_settings(scale, dataset) for dataset in DATASETS}
    counts = {p.importance_min_count for p in presets.values()}
    if len(counts) != 1:
        raise ValueError(f"the presets disagree on importance_min_count {counts}")
    seeds = preset_seeds(KIND, scale)
    return {
        "diagnosis": RECORD,
        "scale": scale,
        "presets": {dataset: preset.as_dict() for dataset, preset in presets.items()},
        "datasets": list(DATASETS),
        "kind": KIND,
        "arms": list(ARMS),
        "seeds": list(range(max(len(seeds), MIN_SEEDS))),
        "top_fraction": TOP_FRACTION,
        "importance_min_count": counts.pop(),
    }


def _intervals(per_seed: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    bounds = {name: (0.0, 1.0) for name in (*SHARES, "uniform", "top_uniform", "test_accuracy")}
    bounds |= {name: (0.0, math.inf) for name in RATIOS}
    return {name: seed_interval(values, bounds=bounds[name]) for name, values in per_seed.items() if name in bounds}


def measure_dataset(dataset: str, settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """One dataset of the record: per seed its important tokens and counted reviews, the uniform shares, and per arm
    the shares, lifts and test accuracy of the pipeline's model, with seed intervals."""
    from tqdm.auto import tqdm

    preset = real_data_settings(settings["scale"], dataset)
    seeds, arms = list(settings["seeds"]), list(settings["arms"])
    if not seeds or not arms:
        raise ValueError(f"seeds and arms must be non-empty, got seeds={seeds}, arms={arms}")
    shared: dict[str, list[float]] = {name: [] for name in ("uniform", "top_uniform", "measured_tokens", "important_tokens",
                                                             "threshold", "counted", "left_out", "top_counted")}  # fmt: skip
    per_arm: dict[str, dict[str, list[float]]] = {arm: {} for arm in arms}
    words: list[dict[str, Any]] = []
    found: dict[str, Any] = {}
    bar = tqdm(total=len(seeds) * len(arms), desc=f"selection mass, {dataset}", disable=not progress, leave=False)
    for seed in seeds:
        seeded = replace(preset, seed=seed)
        data = load_data(seeded, progress=progress)
        omega, counts = token_importance(data.train, data.vocab_size, min_count=settings["importance_min_count"])
        important = important_tokens(omega, settings["top_fraction"])
        for arm in arms:
            run = run_experiment(KIND, arm, replace(seeded, n_boot=RUN_BOOT), data=data, progress=progress)
            with torch.no_grad():
                summary = summarise(review_shares(run.model.token_scores(), data.test, important, omega))
            for name in (*SHARES, *RATIOS):
                per_arm[arm].setdefault(name, []).append(summary[name])
            per_arm[arm].setdefault("test_accuracy", []).append(run.test_accuracy)
            bar.update()
        shared["measured_tokens"].append(int(torch.isfinite(omega).sum()))
        shared["important_tokens"].append(int(important.sum()))
        shared["threshold"].append(float(omega[important].abs().min()))
        for name in ("uniform", "top_uniform", "counted", "left_out", "top_counted"):
            shared[name].append(summary[name])
        if seed == seeds[0]:
            order = torch.argsort(torch.where(important, omega.abs(), torch.full_like(omega, -1.0)), descending=True)
            words = [{"word": data.vocab[i], "omega": float(omega[i]), "count": int(counts[i])}
                     for i in order[: min(TOP_WORDS, int(important.sum()))].tolist()]  # fmt: skip
            found = {"reviews": summary["reviews"], "vocab_size": data.vocab_size, "n_train": len(data.train)}
    bar.close()
    return {
        **found,
        "important_words": words,
        "per_seed": shared,
        "seed_summary": _intervals(shared),
        "arms": {arm: {"per_seed": values, "seed_summary": _intervals(values)} for arm, values in per_arm.items()},
    }


def run_selection_mass(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Every dataset of ``settings`` (``selection_mass_settings``): the shares of each arm's models on its test reviews."""
    result: dict[str, Any] = {"datasets": list(settings["datasets"]), "arms": list(settings["arms"]),
                              "seeds": list(settings["seeds"]), "top_fraction": settings["top_fraction"]}  # fmt: skip
    for dataset in settings["datasets"]:
        result[dataset] = measure_dataset(dataset, settings, progress=progress)
    return result


DESCRIPTION = (
    "Attention mass on the important tokens of each test review. Per dataset, one-layer arm (joint, one_step_frozen, "
    "frozen_random) and seed, the pipeline's trained model (the arm record's checkpoint, or trained and cached as "
    "run_seeds trains it; seeds beyond the preset's trained the same way); attention: softmax of the model's own "
    "scores E_s . p over the review's non-pad positions. Important tokens: the top_fraction of the tokens seen at "
    "least importance_min_count times in that seed's training reviews (<pad>, <unk> left out) by largest |omega_s|, "
    "omega_s = P(1|s) - P(0|s), ties at the threshold kept. Per review, the attention share on its important "
    "positions and on the positions of its single word of largest |omega_s|, against uniform attention over its "
    "non-pad positions (the share of its positions that are important); means over the reviews holding at least one "
    "important (measured) token, the others left out and counted; lift = mean share / mean uniform share; "
    "above_uniform: fraction of counted reviews whose share exceeds their uniform share; median_ratio: median over "
    "counted reviews of share / uniform share; 95% Student-t intervals over seeds."
)


def page_numbers(metrics: dict[str, Any], dataset: str) -> dict[str, Any]:
    """What a chapter states about one dataset of the record: per arm the seed intervals of ``share``, ``lift``,
    ``top_share``, ``top_lift``, ``above_uniform`` and ``test_accuracy``; the uniform shares' intervals; the seeds, the
    important fraction and the first seed's counts (reviews, counted, left out, important tokens). The arms come in the
    record's order (``metrics["arms"]``), whatever the order of its keys."""
    if dataset not in metrics.get("datasets", ()):
        raise ValueError(f"dataset must be one of the record's {metrics.get('datasets')}, got {dataset!r}")
    found = metrics[dataset]
    first = {name: values[0] for name, values in found["per_seed"].items()}
    return {
        "seeds": len(metrics["seeds"]),
        "top_fraction": metrics["top_fraction"],
        "reviews": found["reviews"],
        "counted": first["counted"],
        "left_out": first["left_out"],
        "important_tokens": first["important_tokens"],
        "measured_tokens": first["measured_tokens"],
        "uniform": found["seed_summary"]["uniform"],
        "top_uniform": found["seed_summary"]["top_uniform"],
        "arms": {arm: dict(found["arms"][arm]["seed_summary"]) for arm in metrics["arms"]},
    }


ROW_LABELS = {"joint": "joint", "one_step_frozen": "one step, then E frozen", "frozen_random": "E frozen at random"}
"""How the tables name the arms."""


def selection_frame(metrics: dict[str, Any], dataset: str):
    """One row per arm of ``dataset``, in the record's order: the seed means, with their 95% intervals where there are
    several seeds, of the share on important words (percent), the lift, the median review ratio and the share of
    reviews above uniform (percent); a pandas DataFrame of strings."""
    import pandas as pd

    numbers = page_numbers(metrics, dataset)

    def shown(interval: dict[str, Any], scale: float, digits: int) -> str:
        return show_interval(interval, f"{{:.{digits}f}}", scale, basis="")

    rows = {
        ROW_LABELS.get(arm, arm): {
            "share on important words (%)": shown(summary["share"], 100.0, 1),
            "lift": shown(summary["lift"], 1.0, 2),
            "median review ratio": shown(summary["median_ratio"], 1.0, 2),
            "reviews above uniform (%)": shown(summary["above_uniform"], 100.0, 1),
        }
        for arm, summary in numbers["arms"].items()
    }
    return pd.DataFrame.from_dict(rows, orient="index")
