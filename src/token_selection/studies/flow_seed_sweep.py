"""The reference case's seed sweep under the gradient flow of ``p``, at the reference ``d`` and the paper's.

The abstract's selection and max-margin claims and the global claim (the paper's Theorem 4.3 as the authors' rebuttal
describes it) are statements about gradient flow. The seed sweep of ``report.theory_claims`` follows the flow with
normalised GD of step length 1, a coarse Euler discretisation. This study follows the same runs (``ReferenceCase(seed,
d)``: one step on ``E``, then ``p`` from 0 with ``E`` and ``v`` frozen) four ways, coarsest first: Euler steps of length
1 and 1/10 over the same arc length, and the normalised flow by two adaptive solvers of different order (scipy's RK45
and DOP853) at the same tolerances. Each run is judged as chapter 4 judges it (``flow_discretisation.judge_run``).
Where the two solvers end every seed alike, the count has settled; where they do not, the record says which seeds
differ.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import torch

from ..scale import is_full
from ..theory.synthetic import ReferenceCase
from ..theory.thresholds import DIRECTION_COSINE, JUDGED_WORDS, SELECTED_ATTENTION
from .flow_discretisation import selected_classes
from .flow_solvers import SOLVERS, flow_batch, flow_ode
from .intervals import wilson_interval
from .pool import Track, run_tasks, untracked

RECORD = "flow_seed_sweep"
DIMENSIONS = (512, 2048)
"""The reference case's dimension and the paper's real-data one."""


def flow_sweep_settings(scale: str) -> dict[str, Any]:
    """The study's settings at ``scale`` ("fast" or "full"): seeds, dimensions, the arc length (``steps`` x ``lr``,
    chapter 4's), the Euler refinements, the adaptive solvers and their tolerances, the course's thresholds."""
    full = is_full(scale)
    return {
        "dimensions": list(DIMENSIONS),
        "seeds": list(range(100 if full else 5)),
        "steps": 5000,
        "lr": 1.0,
        "refinements": [1, 10],
        "solvers": list(SOLVERS),
        "ode": {"rtol": 1e-8 if full else 1e-6, "atol": 1e-10 if full else 1e-8},
        "cosine_threshold": DIRECTION_COSINE,
        "selected_attention": SELECTED_ATTENTION,
    }


def discretisations(settings: dict[str, Any]) -> list[str]:
    """The names of the discretisations, coarsest first: "euler_1", "euler_10", ..., then one per solver, lower case."""
    return [f"euler_{k}" for k in settings["refinements"]] + [method.lower() for method in settings["solvers"]]


STEP_RULES = ("fixed_eta", "fixed_tau", "tau")
"""How the step on E depends on d: the reference eta at every d (the default), the reference multiple of eta*, or a
given multiple ``settings["tau"]`` of eta* on each seed's own data."""


def is_positive_number(value: Any) -> bool:
    """Whether ``value`` is a positive int or float (a bool is not a number here): a step's multiple of eta*."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def reference_case(seed: int, d: int, settings: dict[str, Any]) -> Any:
    """The ``ReferenceCase`` of ``seed`` at dimension ``d``, with sequences of ``settings["length"]`` tokens (default:
    the reference T = 8), under ``settings["step_rule"]`` (default "fixed_eta": the reference eta; "fixed_tau": eta
    times sqrt(512 / d), since eta* falls like 1/sqrt(d) on the same data, the same multiple of eta* as the reference
    step at its own d; "tau": ``settings["tau"]`` times the eta* of the seed's own data at d)."""
    from ..theory.one_step import step_size_threshold
    from ..theory.synthetic import ReferenceCase

    rule = settings.get("step_rule", "fixed_eta")
    if rule not in STEP_RULES:
        raise ValueError(f"step_rule must be one of {STEP_RULES}, got {rule!r}")
    case = ReferenceCase(seed=seed, d=d, T=settings.get("length", ReferenceCase.T))
    if rule == "fixed_tau":
        return replace(case, eta=case.eta * math.sqrt(ReferenceCase.d / d))
    if rule == "tau":
        tau = settings.get("tau")
        if not is_positive_number(tau):
            raise ValueError(f"the step rule 'tau' needs settings['tau'], a positive number, got {tau!r}")
        data = case.data()
        return replace(case, eta=tau * step_size_threshold(data.X, data.y, case.vocab_size, d))
    return case


def run_seed(d: int, seed: int, settings: dict[str, Any]) -> dict[str, Any]:
    """One seed of the reference case at dimension ``d`` (built by ``reference_case`` under ``settings``: its length,
    its step rule), every discretisation: cos(p, p_mm) with the all-relevant max-margin direction, the worst
    sequence's attention on its relevant token, chapter 4's judgement, the class a one-sided end keeps
    (``kept_class``), the arc length travelled and the solver's field evaluations (0 for Euler); and, under "lean",
    the seed's initial lean (``initial_lean``: cos(-grad_p L, v) at p = 0)."""
    from ..theory.max_margin import solve_max_margin
    from .local_optima import initial_lean

    torch.set_num_threads(1)
    data, model = reference_case(seed, d, settings).build()
    E, v = model.E.detach(), model.v.detach()
    target = solve_max_margin(E, data.X, data.relevant).direction
    p0 = torch.zeros(d, dtype=torch.float64)
    steps, lr, ode = settings["steps"], settings["lr"], settings["ode"]
    ends: dict[str, tuple[torch.Tensor, float, int]] = {}
    for k in settings["refinements"]:
        end, taken = flow_batch(E[None], v[None], data.X[None], data.y[None], p0[None], steps=steps * k, lr=lr / k)
        ends[f"euler_{k}"] = (end[0], float(taken[0]) * lr / k, 0)
    for method in settings["solvers"]:
        solved = flow_ode(E, v, data.X, data.y, p0, length=steps * lr, rtol=ode["rtol"], atol=ode["atol"], method=method)
        if solved["stop"] == "budget":
            raise RuntimeError(f"{method} ran out of field evaluations at d = {d}, seed {seed}; loosen rtol")
        ends[method.lower()] = (solved["p"], solved["arc_length"], solved["evaluations"])
    runs: dict[str, Any] = {
        name: {**judge_end(E, data, target, p, settings), "arc_length": arc, "evaluations": evaluations}
        for name, (p, arc, evaluations) in ends.items()
    }
    return runs | {"lean": initial_lean(model, data.X, data.y)}


def cosine(p: torch.Tensor, target: torch.Tensor) -> float:
    """cos(p, target) of two (d,) vectors; 0 at p = 0, where a run has not moved."""
    return float(p @ target / (p.norm() * target.norm())) if float(p.norm()) > 0 else 0.0


def judge_end(E: torch.Tensor, data: Any, target: torch.Tensor, p: torch.Tensor, settings: dict[str, Any]) -> dict:
    """Chapter 4's judgement of an end point ``p`` (d,) of the reference case (``E``: (V, d); ``data``: its
    ``SyntheticData``; ``target``: (d,) the all-relevant max-margin direction): cos(p, p_mm) (0 at p = 0), the worst
    sequence's attention on its relevant token, and "selects", "reached", "one_class" (``judge_run``)."""
    from .flow_discretisation import judge_run

    mass = (torch.softmax((E @ p)[data.X], dim=-1) * data.relevant).sum(-1)
    cos = cosine(p, target)
    judged = judge_run(cos, mass, data.y, settings["cosine_threshold"], settings["selected_attention"])
    kept = kept_class(mass, data.y, settings["selected_attention"])
    return {"cos": cos, "min_attention": float(mass.min()), **judged, "kept": kept}


def kept_class(mass: torch.Tensor, y: torch.Tensor, selected: float) -> int:
    """The class a one-sided end keeps: +1 or -1 when every sequence of that class, and not every sequence of the
    other, puts more than ``selected`` of its attention on its relevant token; 0 when both classes or neither do.
    mass: (n,) attention on the relevant token; y: (n,) labels in {-1, +1}, both present. The per-class test is
    ``flow_discretisation.selected_classes``, the one behind ``judge_run``'s "one_class"."""
    kept = selected_classes(mass, y, selected)  # checks the shapes
    if not (bool((y == 1).any()) and bool((y == -1).any())):
        raise ValueError("y must hold both classes, +1 and -1, for a kept class to mean anything")
    return kept[0] if len(kept) == 1 else 0


def _run_task(task: tuple[int, int, dict[str, Any]]) -> dict[str, Any]:
    return run_seed(*task)


def count(passed: list[bool]) -> dict[str, Any]:
    """How many runs pass, of how many, with the Wilson 95% interval of the share (None when there is no run)."""
    hits, trials = sum(bool(ok) for ok in passed), len(passed)
    return {"passed": hits, "trials": trials, "ci95": list(wilson_interval(hits, trials)) if trials else None}


def summarise(per_seed: list[dict[str, Any]], seeds: list[int], names: list[str]) -> dict[str, Any]:
    """One dimension's per-seed runs (in ``seeds`` order) as columns per discretisation, with the counts of runs that
    select, reach p_mm (and select), and reach among those that select; "lean": each seed's initial lean, when the
    runs carry one; "changed_seeds": the seeds whose "reached" differs between the two finest discretisations (empty:
    the count has settled)."""
    if len(per_seed) != len(seeds):
        raise ValueError(f"need one run per seed, got {len(per_seed)} runs for {len(seeds)} seeds")
    out: dict[str, Any] = {}
    for name in names:
        column = {key: [run[name][key] for run in per_seed] for key in per_seed[0][name]}
        given = [r for r, s in zip(column["reached"], column["selects"], strict=True) if s]
        column["counts"] = {
            "selects": count(column["selects"]),
            "reached": count(column["reached"]),
            "reached_given_selects": count(given),
        }
        column["failed_seeds"] = [seed for seed, ok in zip(seeds, column["reached"], strict=True) if not ok]
        out[name] = column
    if all("lean" in run for run in per_seed):
        out["lean"] = [run["lean"] for run in per_seed]
    finer, finest = names[-2], names[-1]
    out["changed_seeds"] = [
        seed for seed, a, b in zip(seeds, out[finer]["reached"], out[finest]["reached"], strict=True) if a != b
    ]
    return out


def run_flow_seed_sweep(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """Every seed at every dimension and discretisation, in ``jobs`` processes (default: one per CPU core).

    metrics["discretisations"]: their names, coarsest first; metrics[f"d{d}"][name]: per-seed columns ("cos",
    "min_attention", "selects", "reached", "one_class", "kept", "arc_length", "evaluations"), "counts" and
    "failed_seeds"; metrics[f"d{d}"]["lean"]: each seed's initial lean; metrics[f"d{d}"]["changed_seeds"]: where the
    two finest disagree.
    """
    names = discretisations(settings)
    tasks = [(d, seed, settings) for d in settings["dimensions"] for seed in settings["seeds"]]
    runs = run_tasks(_run_task, tasks, track, jobs)
    n = len(settings["seeds"])
    metrics: dict[str, Any] = {"discretisations": names}
    for i, d in enumerate(settings["dimensions"]):
        metrics[f"d{d}"] = summarise(runs[i * n : (i + 1) * n], settings["seeds"], names)
    return metrics


REFERENCE_SIZES = f"n = {ReferenceCase.n} sequences, T = {ReferenceCase.T}, V = {ReferenceCase.vocab_size}"
"""The reference case's sizes in the protocols' words, read from ``ReferenceCase``."""
REFERENCE_WORDS = f"The reference case (ours: {REFERENCE_SIZES}, one step of size {ReferenceCase.eta:g} on E)"
"""How the protocols of the studies on the reference case begin."""
_FULL = flow_sweep_settings("full")
ARC_WORDS = f"chapter 4's arc length ({_FULL['steps'] * _FULL['lr']:g})"
"""Chapter 4's arc length, ``steps`` x ``lr`` of the sweep's settings, in words."""


def tolerance_words(scale: str) -> str:
    """The adaptive solvers' tolerances at ``scale`` in the protocols' words: "fast: rtol 1e-6, atol 1e-8"."""
    ode = flow_sweep_settings(scale)["ode"]
    return f"{scale}: rtol {ode['rtol']:.0e}, atol {ode['atol']:.0e}".replace("e-0", "e-")


ODE_WORDS = f"({tolerance_words('fast')}; {tolerance_words('full')})"
"""The adaptive solvers' tolerances at both scales, read from the sweep's settings: "(fast: rtol 1e-6, ...)"."""

FLOW_SWEEP_PROTOCOL = (
    f"{REFERENCE_WORDS} for each data and "
    "initialisation seed at d = 512 and d = 2048; p trained from 0 with E and v frozen along the gradient flow, over "
    f"{ARC_WORDS}, four ways: normalised GD with step 1 (the seed sweep of the report's theory "
    "record) and 1/10, and the normalised flow dp/ds = -grad L/|grad L| by scipy's "
    f"adaptive RK45 and DOP853 at the same tolerances {ODE_WORDS}. Every "
    f"run stops at the float64 floor of train_cls and is {JUDGED_WORDS}"
)


def observed_counts(scale: str) -> dict[int, dict[str, dict[str, Any]]] | None:
    """Per dimension and discretisation, the runs that reach p_mm: {d: {name: {"reached", "trials", "ci95"}}}, read
    from the current record at ``scale``; None when it is missing or stale."""
    from ..results import read_record

    record = read_record(RECORD, scale, settings=flow_sweep_settings(scale))
    if record is None:
        return None
    metrics = record["metrics"]
    out: dict[int, dict[str, dict[str, Any]]] = {}
    for d in record["settings"]["dimensions"]:
        entry = metrics[f"d{d}"]
        out[d] = {}
        for name in metrics["discretisations"]:
            reached = entry[name]["counts"]["reached"]
            out[d][name] = {"reached": reached["passed"], "trials": reached["trials"], "ci95": reached["ci95"]}
    return out
