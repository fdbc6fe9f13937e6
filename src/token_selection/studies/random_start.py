"""The reference case's seed sweep from random starts of ``p``: does the course's p = 0 decide the failures?

The authors' rebuttal speaks of "random initialization"; the course starts ``p`` at 0 (its own choice). This study
trains ``p`` on the same runs as ``flow_seed_sweep`` (``ReferenceCase(seed, d)``: one step on ``E``, then ``p`` with
``E`` and ``v`` frozen) from four starts on one ray, p0 = sd * z with z ~ N(0, I_d) drawn once per seed: sd = 0 (the
course's start), 0.01/sqrt(d) (the model's ``p_init="random"``), 1/sqrt(d) (the law of ``E`` and ``v``) and 1 (a
standard normal, whose initial scores E_s . p0 are of order one). Each start is followed with unit normalised steps
(the report's seed sweep) and along the flow by scipy's RK45 (the flow sweep found RK45 and DOP853 ending every seed
alike), and judged as chapter 4 judges a run (``flow_seed_sweep.judge_end``) on the part of ``p`` that acts on the
scores: its projection on the span of the rows of ``E``. The part of a random start outside that span is never moved by
a gradient and changes no score; at the float64 floor it would still weigh in the cosine with p_mm (which lies in the
span), though it vanishes from the direction of ``p`` as ``|p|`` grows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from ..scale import is_full
from ..theory.thresholds import DIRECTION_COSINE, JUDGED_WORDS, SELECTED_ATTENTION
from .flow_seed_sweep import (
    ARC_WORDS,
    DIMENSIONS,
    ODE_WORDS,
    REFERENCE_WORDS,
    cosine,
    count,
    flow_sweep_settings,
    judge_end,
)
from .flow_solvers import flow_batch, flow_ode
from .pool import Track, run_tasks, untracked

RECORD = "random_start"
STARTS: dict[str, Callable[[int], float]] = {
    "0": lambda d: 0.0,
    "0.01/sqrt(d)": lambda d: 0.01 / math.sqrt(d),
    "1/sqrt(d)": lambda d: 1.0 / math.sqrt(d),
    "1": lambda d: 1.0,
}
"""The starts by the standard deviation of each coordinate of p0, as a function of d; "0" is the course's start."""
START_DRAW_OFFSET = 7_919
"""The direction z of a seed's starts is drawn from a generator seeded with seed + this offset, so it is independent
of the seed's data and embeddings (drawn from the seed itself)."""
JUDGED = ("acting part", "whole")
"""What of an end is judged: its projection on the span of the rows of E (``acting_part``), or p itself."""
DISCRETISATIONS = ("euler_1", "rk45")
"""Unit normalised steps (the report's seed sweep) and the flow by scipy's RK45."""


def random_start_settings(scale: str) -> dict[str, Any]:
    """The study's settings at ``scale`` ("fast" or "full"): seeds, dimensions, starts (keys of ``STARTS``), the part of
    an end that is judged (``JUDGED``), chapter 4's arc length (``steps`` x ``lr``), the solver's tolerances (those of
    the flow sweep), the course's thresholds."""
    full = is_full(scale)
    return {
        "dimensions": list(DIMENSIONS),
        "seeds": list(range(100 if full else 6)),
        "starts": list(STARTS),
        "judged_on": "acting part",
        "steps": 5000,
        "lr": 1.0,
        "ode": flow_sweep_settings(scale)["ode"],
        "cosine_threshold": DIRECTION_COSINE,
        "selected_attention": SELECTED_ATTENTION,
    }


def start_points(seed: int, d: int, starts: list[str]) -> torch.Tensor:
    """The starts of ``seed`` at dimension ``d``: (len(starts), d) float64, row k = STARTS[starts[k]](d) * z with one
    z ~ N(0, I_d) for every row (a ray through 0)."""
    unknown = [name for name in starts if name not in STARTS]
    if unknown:
        raise ValueError(f"unknown start {unknown[0]!r}; known: {list(STARTS)}")
    generator = torch.Generator().manual_seed(seed + START_DRAW_OFFSET)
    z = torch.randn(d, generator=generator, dtype=torch.float64)
    return torch.stack([STARTS[name](d) * z for name in starts])


def run_seed(d: int, seed: int, settings: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """One seed at dimension ``d`` from every start, both ways: {start: {discretisation: chapter 4's judgement of the
    end's acting part ("cos", "min_attention", "selects", "reached", "one_class"), "cos_full" and "arc_length"}}."""
    from ..theory.max_margin import solve_max_margin
    from ..theory.synthetic import ReferenceCase

    torch.set_num_threads(1)
    data, model = ReferenceCase(seed=seed, d=d).build()
    E, v = model.E.detach(), model.v.detach()
    target = solve_max_margin(E, data.X, data.relevant).direction
    starts = start_points(seed, d, settings["starts"])
    k = len(starts)
    steps, lr, ode = settings["steps"], settings["lr"], settings["ode"]
    ends, taken = flow_batch(
        E.expand(k, -1, -1), v.expand(k, -1), data.X.expand(k, -1, -1), data.y.expand(k, -1), starts, steps=steps, lr=lr
    )
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for i, name in enumerate(settings["starts"]):
        solved = flow_ode(E, v, data.X, data.y, starts[i], length=steps * lr, rtol=ode["rtol"], atol=ode["atol"])
        if solved["stop"] == "budget":
            raise RuntimeError(f"RK45 ran out of field evaluations at d = {d}, seed {seed}, start {name}; loosen rtol")
        out[name] = {
            "euler_1": _judged(E, data, target, ends[i], settings) | {"arc_length": float(taken[i]) * lr},
            "rk45": _judged(E, data, target, solved["p"], settings) | {"arc_length": solved["arc_length"]},
        }
    return out


def acting_part(E: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """The projection (d,) of ``p`` (d,) on the span of the rows of ``E`` (V, d), V <= d: the part of ``p`` that the
    scores E p see (E @ acting_part(E, p) equals E @ p). Gradient steps move ``p`` only inside that span, so the part of
    a random start outside it stays as it was, whatever the training."""
    return E.T @ torch.linalg.solve(E @ E.T, E @ p)


def _judged(E: torch.Tensor, data: Any, target: torch.Tensor, p: torch.Tensor, settings: dict[str, Any]) -> dict:
    """Chapter 4's judgement of the acting part of ``p`` ("cos" is its cosine with p_mm, which lies in the span), or of
    ``p`` itself (``settings["judged_on"]``), and "cos_full": the cosine of ``p`` itself."""
    if settings["judged_on"] not in JUDGED:
        raise ValueError(f"judged_on must be one of {JUDGED}, got {settings['judged_on']!r}")
    cos_full = cosine(p, target)
    judged = acting_part(E, p) if settings["judged_on"] == "acting part" else p
    return judge_end(E, data, target, judged, settings) | {"cos_full": cos_full}


def _run_task(task: tuple[int, int, dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    return run_seed(*task)


def summarise(per_seed: list[dict[str, dict[str, dict[str, Any]]]], seeds: list[int], starts: list[str]) -> dict:
    """One dimension's runs (in ``seeds`` order) per start and discretisation: per-seed "reached", "selects",
    "one_class", "cos" and "cos_full"; "counts" of "reached" and "selects" with Wilson 95% intervals; "failed_seeds"; and
    "same_as_zero": how many seeds end with the same verdict ("reached" or not) as from the first start, which must be
    p = 0 ("0")."""
    if len(per_seed) != len(seeds):
        raise ValueError(f"need one run per seed, got {len(per_seed)} runs for {len(seeds)} seeds")
    if not starts or starts[0] != "0":
        raise ValueError(f"the first start must be '0' (the course's), got {starts[:1]}")
    out: dict[str, Any] = {}
    for name in starts:
        out[name] = {}
        for way in DISCRETISATIONS:
            runs = [run[name][way] for run in per_seed]
            keys = ("reached", "selects", "one_class", "cos", "cos_full")
            column: dict[str, Any] = {key: [r[key] for r in runs] for key in keys}
            column["counts"] = {"reached": count(column["reached"]), "selects": count(column["selects"])}
            column["failed_seeds"] = [seed for seed, ok in zip(seeds, column["reached"], strict=True) if not ok]
            zero = [run["0"][way]["reached"] for run in per_seed]
            column["same_as_zero"] = sum(a == b for a, b in zip(column["reached"], zero, strict=True))
            out[name][way] = column
    return out


def run_random_start(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """Every seed at every dimension from every start, in ``jobs`` processes (default: one per CPU core).

    metrics["starts"], metrics["discretisations"]: their names; metrics[f"d{d}"][start][discretisation]: the columns
    of ``summarise``.
    """
    tasks = [(d, seed, settings) for d in settings["dimensions"] for seed in settings["seeds"]]
    runs = run_tasks(_run_task, tasks, track, jobs)
    n = len(settings["seeds"])
    metrics: dict[str, Any] = {"starts": list(settings["starts"]), "discretisations": list(DISCRETISATIONS)}
    for i, d in enumerate(settings["dimensions"]):
        metrics[f"d{d}"] = summarise(runs[i * n : (i + 1) * n], settings["seeds"], settings["starts"])
    return metrics


RANDOM_START_PROTOCOL = (
    f"{REFERENCE_WORDS} for each data and "
    "initialisation seed at d = 512 and d = 2048, as in the flow sweep, with p trained (E and v frozen) from four "
    "starts on one ray, p0 = sd z with z ~ N(0, I_d) drawn once per seed independently of its data: sd = 0 (the "
    "course's start), 0.01/sqrt(d), 1/sqrt(d) (the law of E and v) and 1 (a standard normal). Each start two ways over "
    f"{ARC_WORDS}: normalised GD with step 1 and the normalised flow by scipy's RK45 {ODE_WORDS}, stopping at "
    "the float64 floor of train_cls. Each end, projected on the span of the rows of E, is "
    f"{JUDGED_WORDS}"
)
