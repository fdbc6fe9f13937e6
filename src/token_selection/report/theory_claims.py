"""Our numbers for the report's synthetic claims, written as the results record ``report-theory``.

    python scripts/run_records.py --scale fast --only report-theory   # or full; `make records` writes it too

Everything is float64 and seeded, on the course's reference case (``ReferenceCase``) and
its variants; the full scale only repeats the seed sweep over more seeds.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from ..results import write_record
from ..studies.synthetic_variants import make_multiclass_synthetic
from ..theory.importance import signed_frequency
from ..theory.max_margin import solve_max_margin
from ..theory.multiclass import class_signed_frequency, multiclass_one_step_embeddings
from ..theory.one_step import predicted_correlation, step_size_threshold
from ..theory.synthetic import ReferenceCase
from ..theory.thresholds import DIRECTION_COSINE, SELECTED_ATTENTION
from ..theory.training import train_cls

RECORD = "report-theory"
SWEEP_SEEDS = {"fast": 5, "full": 20}
"""Seeds of the seed sweep at each scale (the one setting the scale changes)."""
TRAINING = {"steps": 5000, "lr": 1.0, "method": "normalized"}
"""Training of p in every claim: normalised GD (it stops early once the gradient reaches float64 rounding)."""
MULTICLASS = {"K": 4, "vocab_size": 60, "n": 400, "T": 8, "d": 512, "n_relevant": 5, "eta": 200.0}


def _corr(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(np.corrcoef(a.detach().double().numpy(), b.detach().double().numpy())[0, 1])


def one_step_alignment(case: ReferenceCase) -> dict[str, float]:
    """corr(E_s(1) . v, alpha_s) after the case's one step, with r = eta / eta* and the predicted correlation."""
    data, model = case.build()
    alpha = signed_frequency(data.X, data.y, case.vocab_size)
    r = case.eta / step_size_threshold(data.X, data.y, case.vocab_size, case.d)
    return {"corr": _corr(model.E @ model.v, alpha), "r": r, "predicted": float(predicted_correlation(r))}


def selection_after_training(case: ReferenceCase) -> dict[str, float]:
    """Train p (``TRAINING``) after the one step: worst-sequence attention on its relevant tokens, cos(p, p_mm).

    cos is NaN when the max-margin program is infeasible. With several relevant tokens per
    sequence the attention is the total on all of them.
    """
    data, model = case.build()
    try:
        p_mm = solve_max_margin(model.E.detach(), data.X, data.relevant).direction
    except ValueError:
        p_mm = None
    history = train_cls(model, data.X, data.y, reference=p_mm, relevant=data.relevant, **TRAINING)
    cosine = history.cosine[-1] if p_mm is not None else float("nan")
    return {"min_attention": history.min_relevant_attention[-1], "cos": cosine, "steps": history.step[-1]}


def multiclass_alignment() -> float:
    """Worst class: corr(E_s(1) . v_k, class-k signed frequency) after one step with K = 4 (synthetic, ours)."""
    c = MULTICLASS
    data = make_multiclass_synthetic(c["n"], c["T"], c["vocab_size"], c["K"], n_relevant=c["n_relevant"], seed=0)
    gen = torch.Generator().manual_seed(0)
    E0 = torch.randn(c["vocab_size"], c["d"], generator=gen, dtype=torch.float64) / c["d"] ** 0.5
    W = torch.randn(c["K"], c["d"], generator=gen, dtype=torch.float64) / c["d"] ** 0.5
    E1 = multiclass_one_step_embeddings(E0, torch.zeros(c["d"], dtype=torch.float64), W, data.X, data.y, lr=c["eta"])
    beta = class_signed_frequency(data.X, data.y, c["K"], c["vocab_size"])
    return min(_corr((E1 @ W.T)[:, k], beta[:, k]) for k in range(c["K"]))


SWEEP_DIMENSIONS = (512, 2048)
"""Embedding dimensions of the seed sweep: the reference case's, and the paper's real-data one."""


def seed_sweep(d: int, seeds: int) -> dict:
    """The reference case at dimension ``d`` for data and initialisation seeds 0..seeds-1.

    Per seed: cos(p, p_mm) and the worst sequence's attention on its relevant tokens; and the
    counts of seeds that pass by the course's thresholds (``theory.thresholds``): ``selects``
    (worst-sequence attention above ``SELECTED_ATTENTION``), ``reaches`` (cos at least
    ``DIRECTION_COSINE``; NaN, an infeasible program, never reaches) and ``both``.
    ``share_selected``: the share of seeds that do both.
    """
    runs = [selection_after_training(ReferenceCase(seed=seed, d=d)) for seed in range(seeds)]
    selects = [run["min_attention"] > SELECTED_ATTENTION for run in runs]
    reaches = [bool(run["cos"] >= DIRECTION_COSINE) for run in runs]
    both = [a and b for a, b in zip(selects, reaches, strict=True)]
    return {
        "d": d,
        "seeds": seeds,
        "cos": [run["cos"] for run in runs],
        "min_attention": [run["min_attention"] for run in runs],
        "passed": {"selects": sum(selects), "reaches": sum(reaches), "both": sum(both)},
        "share_selected": float(np.mean(both)),
    }


def _seeds(scale: str) -> int:
    if scale not in SWEEP_SEEDS:
        raise ValueError(f"scale must be one of {sorted(SWEEP_SEEDS)}, got {scale!r}")
    return SWEEP_SEEDS[scale]


def theory_metrics(scale: str) -> dict:
    """Every synthetic number of the report at ``scale`` ("fast" or "full")."""
    reference = ReferenceCase()
    several = ReferenceCase(delta=0.3)
    seeds = _seeds(scale)
    return {
        "one_step": one_step_alignment(reference),
        "one_step_several": one_step_alignment(several),
        "selection": selection_after_training(reference),
        "selection_several": selection_after_training(several),
        **{f"seed_sweep_d{d}": seed_sweep(d, seeds) for d in SWEEP_DIMENSIONS},
        "multiclass_corr": multiclass_alignment(),
    }


def protocol(scale: str) -> str:
    """The record's protocol in words, at ``scale``."""
    case = ReferenceCase()
    seeds = _seeds(scale)
    dimensions = " and ".join(map(str, SWEEP_DIMENSIONS))
    return (
        f"Synthetic reference case (ours): n={case.n} sequences, T={case.T}, V={case.vocab_size}, d={case.d}, "
        f"float64, one full-batch GD step on E of size eta={case.eta:g}, then p trained by normalised GD "
        f"(lr {TRAINING['lr']:g}, at most {TRAINING['steps']} steps, stopping at float64 rounding). 'several': the "
        f"same with delta=0.3 (several relevant tokens per sequence). Seed sweep: data and initialisation seeds "
        f"0..{seeds - 1} at d = {dimensions}; a seed selects when its worst sequence puts more than "
        f"{SELECTED_ATTENTION:g} of its attention on its relevant tokens, and reaches p_mm when cos(p, p_mm) >= "
        f"{DIRECTION_COSINE:g} (the course's thresholds). K=4 classes: synthetic, one step of size {MULTICLASS['eta']:g}."
    )


def record_settings(scale: str) -> dict:
    """Every setting the record's numbers depend on at ``scale`` (its hash tells a stale record)."""
    return {
        "reference": asdict(ReferenceCase()),
        "training": TRAINING,
        "multiclass": MULTICLASS,
        "sweep_dimensions": list(SWEEP_DIMENSIONS),
        "selected_attention": SELECTED_ATTENTION,
        "direction_cosine": DIRECTION_COSINE,
        "seeds": _seeds(scale),
    }


def write_theory_record(scale: str) -> Path:
    """Compute ``theory_metrics`` and write the record ``report-theory`` at ``scale``; its path."""
    start = time.perf_counter()
    metrics = theory_metrics(scale)
    seeds = list(range(_seeds(scale)))
    return write_record(
        RECORD,
        scale,
        protocol=protocol(scale),
        settings=record_settings(scale),
        metrics=metrics,
        seeds=seeds,
        seconds=time.perf_counter() - start,
    )
