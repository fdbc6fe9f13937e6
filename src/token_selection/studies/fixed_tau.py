"""The flow seed sweep at a fixed step relative to eta*: does a larger dimension remove the misses?

``flow_seed_sweep`` keeps the reference step eta = 200 at every dimension. The step that sets the one-step picture is
tau = eta / eta*, and eta* = 2 / (sqrt(d) std_s alpha_s) falls like 1/sqrt(d) on the same data, so at d = 2048 that
sweep's step is twice the reference tau. This study runs the same seeds with eta = 200 sqrt(512 / d), the reference
tau at every d (``flow_seed_sweep.run_seed`` with the step rule "fixed_tau"), by unit steps and along the flow
(DOP853, the sweep's finer solver), so that the dimension changes alone.
"""

from __future__ import annotations

from typing import Any

from ..scale import is_full
from ..theory.thresholds import JUDGED_WORDS
from .flow_seed_sweep import ODE_WORDS, REFERENCE_SIZES, flow_sweep_settings, run_flow_seed_sweep
from .pool import Track, untracked

RECORD = "flow_fixed_tau"


def fixed_tau_settings(scale: str) -> dict[str, Any]:
    """The sweep's settings at ``scale`` with the step rule "fixed_tau", unit steps and DOP853 only, at d = 1024,
    2048 and 4096 (fast: 2048 alone)."""
    base = flow_sweep_settings(scale)
    return {
        **base,
        "dimensions": [1024, 2048, 4096] if is_full(scale) else [2048],
        "refinements": [1],
        "solvers": ["DOP853"],
        "step_rule": "fixed_tau",
    }


def run_fixed_tau(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """The sweep's metrics (``run_flow_seed_sweep``) under ``settings``; ValueError unless its step rule is fixed_tau."""
    if settings.get("step_rule") != "fixed_tau":
        raise ValueError(f"step_rule must be 'fixed_tau', got {settings.get('step_rule')!r}")
    return run_flow_seed_sweep(settings, track, jobs)


def reached_counts(metrics: dict[str, Any]) -> dict[int, dict[str, dict[str, Any]]]:
    """The runs that reach p_mm in the study's ``metrics`` (or in any flow sweep's), for every dimension they hold,
    from the smallest (a record read back from JSON has its keys sorted as strings), and every way:
    {d: {way: {"passed", "trials", "ci95"}}} (ways: ``metrics["discretisations"]``)."""
    ways = metrics["discretisations"]
    dimensions = sorted(int(key[1:]) for key in metrics if key[0] == "d" and key[1:].isdigit())
    return {d: {way: metrics[f"d{d}"][way]["counts"]["reached"] for way in ways} for d in dimensions}


FIXED_TAU_PROTOCOL = (
    f"The reference case (ours: {REFERENCE_SIZES}) for each data and initialisation seed at d = 1024, "
    "2048 and 4096, with the one step on E of size 200 sqrt(512 / d) (the "
    "reference step, 200, at d = 512). p trained from 0 with E and v frozen over chapter "
    f"4's arc length, by normalised GD with step 1 and along the normalised flow by scipy's DOP853 {ODE_WORDS}, {JUDGED_WORDS}"
)
