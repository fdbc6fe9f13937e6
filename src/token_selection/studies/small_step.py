"""The flow seed sweep of the reference case at smaller steps on E: does a condition on the first step remove the
misses?

``global_local`` finds no miss at its smallest step (4 eta*) in a setting of its own (d = 256, a tiny random start of
p). This study asks the same of the reference case itself: its seeds at d = 512 and T = 8, with the step on E at
4 and 8 times the eta* of each seed's own data (``flow_seed_sweep.run_seed`` with the step rule "tau"), by unit steps
and along the flow (DOP853). A smaller step also leaves more noise in the values, so for every seed it records
whether chapter 4's hypothesis 1 holds after the step: each sequence's relevant token is its best token (largest
y_j E_s.v), which the limit theorem needs.
"""

from __future__ import annotations

from typing import Any

from ..explorer.compute import optimal_fraction
from ..theory.thresholds import JUDGED_WORDS
from .flow_seed_sweep import ODE_WORDS, REFERENCE_SIZES, flow_sweep_settings, reference_case
from .long_sequences import run_long_sequences
from .pool import Track, untracked

RECORD = "flow_small_step"
TAUS = (4.0, 8.0)
"""The steps on E as multiples of eta*: chapter 10's smallest, and halfway (in log) to the reference 14.3."""


def small_step_settings(scale: str) -> dict[str, Any]:
    """The sweep's settings at ``scale`` at the reference d = 512 and T = 8, the step rule "tau" at each of ``TAUS``,
    unit steps and DOP853 only (seeds: the sweep's, 100 full and 5 fast)."""
    base = flow_sweep_settings(scale)
    return {**base, "dimensions": [512], "taus": list(TAUS), "refinements": [1], "solvers": ["DOP853"],
            "step_rule": "tau"}  # fmt: skip


def hypothesis_1_breaks(seed: int, d: int, settings: dict[str, Any]) -> int:
    """How many sequences of ``reference_case(seed, d, settings)`` break chapter 4's hypothesis 1 after the one step:
    their relevant token is not their optimal token, strictly above every other position by its label-signed value
    (``explorer.compute.optimal_fraction``'s complement, as a count of the n sequences)."""
    data, model = reference_case(seed, d, settings).build()
    share = optimal_fraction(model.token_values().detach(), data.X, data.y, data.relevant)
    return round((1.0 - share) * data.y.numel())


def keeps_hypothesis_1(seed: int, d: int, settings: dict[str, Any]) -> bool:
    """Whether, after the one step of ``reference_case(seed, d, settings)``, every sequence's relevant token is its
    optimal token (``hypothesis_1_breaks`` is 0)."""
    return hypothesis_1_breaks(seed, d, settings) == 0


def run_small_step(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """The sweep's metrics at each tau of ``settings["taus"]`` (``long_sequences.run_long_sequences``), each
    dimension's entry with "hypothesis_1": one bool per seed (``keeps_hypothesis_1``). ValueError as that runner's."""
    metrics = run_long_sequences(settings, track, jobs)
    for tau in metrics["taus"]:
        at_tau = {**settings, "tau": tau}
        for d in settings["dimensions"]:
            metrics[f"tau{tau:g}"][f"d{d}"]["hypothesis_1"] = [keeps_hypothesis_1(seed, d, at_tau) for seed in settings["seeds"]]
    return metrics


def misses_by_hypothesis(metrics: dict[str, Any], way: str = "dop853") -> dict[float, dict[int, dict[str, int]]]:
    """Per tau and d, the seeds of ``way`` ("dop853" or "euler_1"): {"trials", "reached", "missed with hypothesis 1",
    "missed without it", "without hypothesis 1"} (the last: seeds where it fails, reached or not)."""
    out: dict[float, dict[int, dict[str, int]]] = {}
    for tau in metrics["taus"]:
        sweep = metrics[f"tau{tau:g}"]
        out[float(tau)] = {}
        for key in sorted((k for k in sweep if k[0] == "d" and k[1:].isdigit()), key=lambda k: int(k[1:])):
            seeds = list(zip(sweep[key][way]["reached"], sweep[key]["hypothesis_1"], strict=True))  # (reached, h1)
            out[float(tau)][int(key[1:])] = {
                "trials": len(seeds),
                "reached": sum(r for r, _ in seeds),
                "missed with hypothesis 1": sum(not r and h for r, h in seeds),
                "missed without it": sum(not r and not h for r, h in seeds),
                "without hypothesis 1": sum(not h for _, h in seeds),
            }
    return out


SMALL_STEP_PROTOCOL = (
    f"The reference case (ours: {REFERENCE_SIZES}, delta = 0, d = 512) for each data and initialisation "
    "seed (full: 100; fast: 5), with the one step on E of size tau eta*, eta* computed on the seed's own data, at tau "
    f"= {' and '.join(f'{t:g}' for t in TAUS)}; for each seed, whether chapter 4's hypothesis 1 holds after the step "
    "(every sequence's relevant token has the largest y_j E_s.v of its sequence). p trained from 0 with E and v frozen "
    "over chapter 4's arc length, by normalised GD with step 1 and along the normalised flow by scipy's DOP853 "
    f"{ODE_WORDS}, {JUDGED_WORDS}"
)
