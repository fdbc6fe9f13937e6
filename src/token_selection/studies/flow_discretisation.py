"""Gradient flow on ``p`` against its discretisation: do the one-sided ends survive much shorter steps?

Chapters 4 and 10 follow the gradient flow of the abstract with normalised gradient descent of a fixed
step length. Normalised gradient flow, ``dp/ds = -grad L / |grad L|``, traces the same curve as gradient
flow ``dp/dt = -grad L`` (only the clock differs: ``s`` is the arc length), so its Euler steps of length
``h`` approximate the curve of the flow with an error that shrinks with ``h``. This study reruns both
chapters' random starts with the step divided by ``refinement`` (and ``refinement`` times as many steps,
so that ``p`` travels the same arc length) and counts where the runs end at each discretisation.

Both integrators compute the gradient exactly as ``theory.training.train_cls`` does (float64, the fast
form, vectorised over sequences and tokens) and stop a run where that function stops it, at the float64
floor, so the coarse discretisation (``refinement`` 1) repeats the chapters' runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..scale import is_full
from ..theory.synthetic import make_synthetic
from ..theory.thresholds import DIRECTION_COSINE, JUDGED_WORDS, SELECTED_ATTENTION
from .flow_solvers import flow_batch, flow_ode
from .global_local import global_local_settings
from .intervals import wilson_interval
from .local_optima import ENDPOINTS, classify_endpoint, global_local_case, start_point
from .pool import Track, untracked


def flow_settings(scale: str) -> dict[str, Any]:
    """The study's settings at ``scale`` ("fast" or "full").

    "ch10": chapter 10's random starts (a) at every step multiple of its sweep (``global_local_settings``);
    "ch4": chapter 4b's seed sweep (``ReferenceCase(seed)``, normalised GD of length 1 from p = 0, 5000 steps);
    "refinements": the factors by which the Euler step is divided (1 = the chapters' discretisation);
    "ode": the adaptive solver's tolerances. Both parts run over the same arc length as the chapters.
    """
    full = is_full(scale)
    sweep = global_local_settings(scale)
    keys = ("n", "T", "vocab_size", "delta", "data_seed", "d", "eta_ratios", "seeds", "steps", "lr")
    return {
        "ch10": {key: sweep[key] for key in keys},
        "ch4": {"seeds": list(range(20)), "steps": 5000, "lr": 1.0},
        "refinements": [1, 10],
        "ode": {"method": "RK45", "rtol": 1e-8 if full else 1e-6, "atol": 1e-10 if full else 1e-8},
        "seeds": sorted(set(sweep["seeds"]) | set(range(20))),
        "cosine_threshold": DIRECTION_COSINE,
        "selected_attention": SELECTED_ATTENTION,
    }


def discretisations(settings: dict[str, Any]) -> list[str]:
    """The names of the discretisations a record holds, coarsest first: "euler_1", "euler_10", ..., "rk45"."""
    return [f"euler_{k}" for k in settings["refinements"]] + ["rk45"]


def _ends(
    E: torch.Tensor, v: torch.Tensor, X: torch.Tensor, y: torch.Tensor, p0: torch.Tensor,
    steps: int, lr: float, settings: dict[str, Any],
) -> dict[str, tuple[torch.Tensor, list[float], list[float]]]:  # fmt: skip
    """End points (B, d), arc lengths and typical step lengths of every discretisation, for a batch of B runs."""
    out = {}
    for k in settings["refinements"]:
        ends, taken = flow_batch(E, v, X, y, p0, steps=steps * k, lr=lr / k)
        out[f"euler_{k}"] = (ends, [float(t) * lr / k for t in taken], [lr / k] * len(ends))
    ode = settings["ode"]
    solved = [
        flow_ode(E[b], v[b], X[b], y[b], p0[b], length=steps * lr, rtol=ode["rtol"], atol=ode["atol"]) for b in range(E.shape[0])
    ]
    out["rk45"] = (
        torch.stack([r["p"] for r in solved]),
        [r["arc_length"] for r in solved],
        [r["median_step"] for r in solved],
    )
    if any(r["stop"] == "budget" for r in solved):
        raise RuntimeError("the adaptive solver ran out of evaluations; raise max_evaluations or loosen rtol")
    return out


def _counts(labels: list[str]) -> dict[str, Any]:
    trials = len(labels)
    out: dict[str, Any] = {"trials": trials}
    for end in ENDPOINTS:
        hits = labels.count(end)
        out[end] = {"count": hits, "ci95": list(wilson_interval(hits, trials))}
    return out


def _chapter10(settings: dict[str, Any], track: Track) -> dict[str, Any]:
    s = settings["ch10"]
    data = make_synthetic(s["n"], s["T"], s["vocab_size"], s["delta"], seed=s["data_seed"])
    X, y, relevant = data.X, data.y, data.relevant
    out: dict[str, Any] = {}
    for ratio in track(s["eta_ratios"], len(s["eta_ratios"])):
        cases = [global_local_case(X, y, relevant, s["d"], ratio, seed) for seed in s["seeds"]]
        E = torch.stack([c.model.E.detach() for c in cases])
        v = torch.stack([c.model.v.detach() for c in cases])
        p0 = torch.stack([start_point(c, "random", seed) for c, seed in zip(cases, s["seeds"], strict=True)])
        Xb, yb = X.expand(len(cases), *X.shape), y.expand(len(cases), *y.shape)
        entry: dict[str, Any] = {}
        for name, (ends, arcs, steps) in _ends(E, v, Xb, yb, p0, s["steps"], s["lr"], settings).items():
            cosines = [{k: float(p @ d / p.norm()) for k, d in c.directions.items()} for p, c in zip(ends, cases, strict=True)]
            labels = [classify_endpoint(c, settings["cosine_threshold"]) for c in cosines]
            entry[name] = {
                "labels": labels,
                "cos_all_relevant": [c["all_relevant"] for c in cosines],
                "arc_length": arcs,
                "median_step": float(np.median(steps)),
                **_counts(labels),
            }
        out[f"{ratio:g}"] = entry
    return out


def selected_classes(mass: torch.Tensor, y: torch.Tensor, selected: float) -> list[int]:
    """The classes, of +1 and -1 in that order, present in ``y`` and whose every sequence puts more than ``selected``
    of its attention on its relevant token. mass: (n,) attention on the relevant token; y: (n,) labels."""
    if mass.shape != y.shape or mass.dim() != 1:
        raise ValueError(f"mass and y must be (n,) of one shape, got {tuple(mass.shape)} and {tuple(y.shape)}")
    return [k for k in (1, -1) if bool((y == k).any()) and bool(mass[y == k].min() > selected)]


def judge_run(cos: float, mass: torch.Tensor, y: torch.Tensor, threshold: float, selected: float) -> dict[str, bool]:
    """Chapter 4's judgement of one run. cos: cos(p, p_mm); mass: (n,) attention on the relevant token;
    y: (n,) labels. "selects": every sequence puts more than ``selected`` on it; "reached": that and
    ``cos >= threshold``; "one_class": every sequence of one class (at least) selects (``selected_classes``)."""
    one_class = bool(selected_classes(mass, y, selected))
    selects = bool(mass.min() > selected)
    return {"reached": bool(cos >= threshold) and selects, "selects": selects, "one_class": one_class}


def _chapter4(settings: dict[str, Any]) -> dict[str, Any]:
    from ..theory.max_margin import solve_max_margin
    from ..theory.synthetic import ReferenceCase

    s = settings["ch4"]
    built = [ReferenceCase(seed=seed).build() for seed in s["seeds"]]
    targets = [solve_max_margin(m.E.detach(), data.X, data.relevant).direction for data, m in built]
    E = torch.stack([m.E.detach() for _, m in built])
    v = torch.stack([m.v.detach() for _, m in built])
    X = torch.stack([data.X for data, _ in built])
    y = torch.stack([data.y for data, _ in built])
    relevant = torch.stack([data.relevant for data, _ in built])
    threshold, selected = settings["cosine_threshold"], settings["selected_attention"]
    out: dict[str, Any] = {}
    for name, (ends, arcs, steps) in _ends(E, v, X, y, torch.zeros_like(v), s["steps"], s["lr"], settings).items():
        scores = torch.einsum("bvd,bd->bv", E, ends).gather(1, X.reshape(len(built), -1)).reshape(X.shape)
        mass = (torch.softmax(scores, dim=-1) * relevant).sum(-1)
        cos = [float(p @ t / p.norm()) for p, t in zip(ends, targets, strict=True)]
        judged = [judge_run(c, m, labels, threshold, selected) for c, m, labels in zip(cos, mass, y, strict=True)]
        reached, selects, one_class = ([j[key] for j in judged] for key in ("reached", "selects", "one_class"))
        out[name] = {
            "cos": cos,
            "selects": selects,
            "one_class": one_class,
            "reached": reached,
            "failed_seeds": [seed for seed, ok in zip(s["seeds"], reached, strict=True) if not ok],
            "one_class_seeds": [seed for seed, ok, one in zip(s["seeds"], reached, one_class, strict=True) if not ok and one],
            "arc_length": arcs,
            "median_step": float(np.median(steps)),
        }
    return out


def run_flow_discretisation(settings: dict[str, Any], track: Track = untracked) -> dict[str, Any]:
    """Every run of both parts at every discretisation; returns per-run ends and per-multiple counts.

    metrics["ch10"][ratio][discretisation]: labels, cosines, counts with Wilson intervals;
    metrics["ch4"][discretisation]: per-seed cosines and selection, the failed seeds;
    metrics["discretisations"]: their names, coarsest first.
    """
    return {
        "discretisations": discretisations(settings),
        "ch10": _chapter10(settings, track),
        "ch4": _chapter4(settings),
    }


FLOW_PROTOCOL = (
    "The gradient flow of p (E, v frozen after the one step) approximated three ways over the same arc length: "
    "normalised GD with the chapters' step (euler_1), with a step 10 times shorter and 10 times as many steps "
    "(euler_10), and the normalised flow dp/ds = -grad L/|grad L| by scipy's "
    "adaptive RK45 (fast: rtol 1e-6, atol 1e-8; full: rtol 1e-8, atol 1e-10). Every run stops at the float64 floor "
    "of train_cls. Chapter 10: its random starts (a) at every step multiple of its sweep, its seeds, its data; ends "
    f"classified by cosine >= {DIRECTION_COSINE:g} to the all-relevant or a one-sided max-margin direction. Chapter 4: "
    f"its 20-seed sweep of ReferenceCase(seed) from p = 0, normalised step 1, 5000 steps, {JUDGED_WORDS}"
)


def end_counts(metrics: dict[str, Any], end: str = "one_sided") -> dict[str, dict[str, int]]:
    """Chapter 10's count of ``end`` ("all_relevant", "one_sided", "other") per step multiple and discretisation."""
    if end not in ENDPOINTS:
        raise ValueError(f"end must be one of {ENDPOINTS}, got {end!r}")
    return {
        ratio: {name: entry[name][end]["count"] for name in metrics["discretisations"]}
        for ratio, entry in sorted(metrics["ch10"].items(), key=lambda item: float(item[0]))
    }


def survival(metrics: dict[str, Any]) -> dict[str, Any]:
    """Do the one-sided ends survive the finest discretisation?

    "one_sided_ratios": the multiples with a one-sided end at the chapters' step; "surviving": those that
    keep one at the finest; "ch4_coarse" / "ch4_finest": chapter 4b's failed seeds at both; "trials": runs
    per multiple; "coarse" / "finest": the names of the two discretisations."""
    names = metrics["discretisations"]
    coarse, finest = names[0], names[-1]
    counts = end_counts(metrics)
    one_sided = [ratio for ratio, c in counts.items() if c[coarse] > 0]
    return {
        "coarse": coarse,
        "finest": finest,
        "one_sided_ratios": one_sided,
        "surviving": [ratio for ratio in one_sided if counts[ratio][finest] > 0],
        "ch4_coarse": metrics["ch4"][coarse]["failed_seeds"],
        "ch4_finest": metrics["ch4"][finest]["failed_seeds"],
        "trials": next(iter(metrics["ch10"].values()))[coarse]["trials"],
    }


DISCRETISATION_LABELS = {"euler_1": "the chapter's step", "euler_10": "10 times shorter steps", "rk45": "adaptive RK45"}
"""How a figure or a table names each discretisation."""


def plot_end_counts(axes, metrics: dict[str, Any]) -> None:
    """Two panels on ``axes`` (a pair of matplotlib Axes): chapter 10's random starts that end one-sided (left)
    and that miss the all-relevant direction (right), against the step multiple, one line per discretisation."""
    one_sided, all_relevant = end_counts(metrics), end_counts(metrics, "all_relevant")
    ratios = list(one_sided)
    trials = next(iter(metrics["ch10"].values()))[metrics["discretisations"][0]]["trials"]
    for k, name in enumerate(metrics["discretisations"]):
        style = {"marker": "os^"[k % 3], "lw": 1.5, "ls": ("-", "--", ":")[k % 3],
                 "label": DISCRETISATION_LABELS.get(name, name)}  # fmt: skip
        axes[0].plot([float(r) for r in ratios], [one_sided[r][name] for r in ratios], **style)
        axes[1].plot([float(r) for r in ratios], [trials - all_relevant[r][name] for r in ratios], **style)
    for ax, title in zip(axes, ("end one-sided", "end off the all-relevant direction"), strict=True):
        ax.set_xscale("log", base=2)
        ax.set_xticks([float(r) for r in ratios], ratios)
        ax.set_xlabel(r"first step $\tau = \eta/\eta^*$")
        ax.set_ylabel(f"random starts (of {trials})")
        ax.set_ylim(-0.5, trials + 0.5)
        ax.set_title(f"Random starts that {title}")
    axes[0].legend(fontsize=8)
