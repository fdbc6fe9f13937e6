"""When does selection work? A (d, V) phase diagram of reaching the all-relevant max-margin direction.

Data: the course's generator with uniform frequencies (zipf = 0), ``m`` relevant tokens per class
whatever ``V`` is, so every relevant token has the same signed frequency ``alpha_r`` and a larger
``V`` only adds irrelevant tokens. One GD step of a *fixed* size ``eta`` on ``E`` (the same in every
cell, so ``eta / eta*`` grows like ``sqrt(d)``; each cell records its ratio), then normalised GD on
``p``. A cell's value is the fraction of seeds whose end direction has cosine >= ``DIRECTION_COSINE``
(the course's one threshold) with the all-relevant max-margin direction (0 when that program is
infeasible).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from ..scale import is_full
from ..theory.importance import signed_frequency
from ..theory.max_margin import solve_max_margin
from ..theory.model import CLSAttention
from ..theory.one_step import one_step_embeddings, step_size_from_alpha
from ..theory.synthetic import make_synthetic
from ..theory.thresholds import DIRECTION_COSINE
from ..theory.training import train_cls
from .intervals import wilson_interval
from .pool import Track, untracked


def capacity_settings(scale: str) -> dict[str, Any]:
    """Grid and protocol at ``scale``: 6 x 6 cells (fast, 3 seeds) or 7 x 7 cells (full, 8 seeds)."""
    full = is_full(scale)
    return {
        "dims": [8, 16, 32, 64, 128, 256] + ([512] if full else []),
        "vocab_sizes": [20, 40, 80, 160, 320, 640] + ([1280] if full else []),
        "n": 200,
        "T": 8,
        "n_relevant": 5,
        "eta": 80.0,
        "seeds": list(range(8 if full else 3)),
        "steps": 800,
        "lr": 1.0,
        "cosine_threshold": DIRECTION_COSINE,
    }


def value_signal(eta: float, n_relevant: int, T: int) -> float:
    """``s = (eta / 2) alpha_r`` with ``alpha_r = 1 / (2 m T)``: a relevant token's value after the step (|v| = 1)."""
    return eta / (4.0 * n_relevant * T)


def predicted_dimension(vocab_size: float, signal: float, n_relevant: int, n: int, T: int, failure: float = 0.5) -> float:
    """Union-bound boundary ``d* = 4 ln(K / failure) / s^2``, ``K = min(2 m (V - 2 m), n (T - 1))`` pairs.

    Above ``d*`` the probability that some irrelevant value beats a co-occurring relevant one is below
    ``failure`` (derived on the chapter's page)."""
    pairs = min(2 * n_relevant * (vocab_size - 2 * n_relevant), n * (T - 1))
    return 4.0 * math.log(max(pairs, 1) / failure) / signal**2


def cell_outcome(d: int, vocab_size: int, seed: int, settings: dict[str, Any]) -> tuple[bool, float, bool]:
    """(reached the all-relevant direction, eta / eta*, relevant token had the top label-signed value everywhere)."""
    data = make_synthetic(settings["n"], settings["T"], vocab_size, 0.0, n_relevant=settings["n_relevant"], zipf=0.0, seed=seed)
    X, y, relevant = data.X, data.y, data.relevant
    ratio = settings["eta"] / step_size_from_alpha(signed_frequency(X, y, vocab_size), d)
    model = CLSAttention(vocab_size, d, seed=seed, dtype=torch.float64)
    model.E.data.copy_(one_step_embeddings(model, X, y, settings["eta"]))
    signed = model.token_values().detach()[X] * y[:, None].double()
    values_ordered = bool(relevant.gather(1, signed.argmax(dim=1, keepdim=True)).all())
    try:
        target = solve_max_margin(model.E.detach(), X, relevant).direction
    except ValueError:  # infeasible program: no direction selects every relevant token
        return False, ratio, values_ordered
    history = train_cls(
        model, X, y, steps=settings["steps"], lr=settings["lr"], method="normalized", reference=target, log_points=2
    )
    return history.cosine[-1] >= settings["cosine_threshold"], ratio, values_ordered


def run_capacity(settings: dict[str, Any], track: Track = untracked) -> dict[str, Any]:
    """Fill the grid. Metrics: (len(dims), len(vocab_sizes)) lists of fractions, Wilson bounds, mean eta/eta*,
    the share of seeds whose values were ordered, and the predicted boundary d*(V)."""
    dims, vocabs, seeds = settings["dims"], settings["vocab_sizes"], settings["seeds"]
    shape = (len(dims), len(vocabs))
    reached, ratio, ordered = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    jobs = [(i, j, seed) for i in range(len(dims)) for j in range(len(vocabs)) for seed in seeds]
    for i, j, seed in track(jobs, len(jobs)):
        ok, r, good_values = cell_outcome(dims[i], vocabs[j], seed, settings)
        reached[i, j] += ok
        ratio[i, j] += r / len(seeds)
        ordered[i, j] += good_values / len(seeds)
    bounds = [[wilson_interval(int(reached[i, j]), len(seeds)) for j in range(shape[1])] for i in range(shape[0])]
    signal = value_signal(settings["eta"], settings["n_relevant"], settings["T"])
    return {
        "fraction": (reached / len(seeds)).tolist(),
        "ci95_low": [[b[0] for b in row] for row in bounds],
        "ci95_high": [[b[1] for b in row] for row in bounds],
        "eta_over_eta_star": ratio.tolist(),
        "values_ordered_fraction": ordered.tolist(),
        "value_signal": signal,
        "predicted_dimension": [
            predicted_dimension(V, signal, settings["n_relevant"], settings["n"], settings["T"]) for V in vocabs
        ],
    }


CAPACITY_PROTOCOL = (
    "For each (d, V) cell and seed: course generator with n=200, T=8, delta=0, twins, uniform frequencies (zipf=0), "
    "5 relevant tokens per class; one GD step on E of fixed size eta=80 (eta/eta* recorded per cell, eta* = "
    "2/(sqrt(d) std alpha)); max-margin program for the all-relevant selection (infeasible counts as failure); normalised "
    "GD on p, 800 steps of length 1. Success: cosine with the all-relevant max-margin direction >= "
    f"{DIRECTION_COSINE:g}. Wilson 95% intervals per cell; predicted boundary d* = 4 ln(2K)/s^2 from a union "
    "bound over K co-occurring pairs for the ordering of the values."
)
