"""The flow seed sweep at T = 32: does a larger dimension at a fixed tau remove the misses of long sequences?

``flow_fixed_tau`` finds that at the reference T = 8 a larger dimension at the reference multiple of eta* removes
every miss. Chapter 5's grid ends one-sided at every T >= 32 up to d = 1024 with a step of 14.3 eta*. This study runs
the reference case with sequences of 32 tokens at d = 512 to 4096, with the step on E at 4 and at 14.3 times the eta* of
each seed's own data (``flow_seed_sweep.run_seed`` with the step rule "tau"), by unit steps and along the flow
(DOP853), so that the length, the dimension and the step each change alone.
"""

from __future__ import annotations

from typing import Any

from ..scale import is_full
from ..theory.thresholds import JUDGED_WORDS
from .fixed_tau import reached_counts
from .flow_seed_sweep import ODE_WORDS, flow_sweep_settings, is_positive_number, run_flow_seed_sweep
from .pool import Track, untracked

RECORD = "flow_long_sequences"
LENGTH = 32
"""The sequence length of the study: the shortest of chapter 5's grid at which every setting ends one-sided."""
TAUS = (4.0, 14.3)
"""The steps on E as multiples of eta*: chapter 10's smallest, where every seed selects at T = 8, and the explorer's
(the reference case's eta = 200, to one decimal)."""


def long_sequence_settings(scale: str) -> dict[str, Any]:
    """The sweep's settings at ``scale`` for sequences of ``LENGTH`` tokens, the step rule "tau" at each of ``TAUS``,
    unit steps and DOP853 only; full: 20 seeds at d = 512, 1024, 2048 and 4096; fast: 2 seeds at d = 1024."""
    base = flow_sweep_settings(scale)
    full = is_full(scale)
    return {
        **base,
        "seeds": list(range(20 if full else 2)),
        "dimensions": [512, 1024, 2048, 4096] if full else [1024],
        "length": LENGTH,
        "taus": list(TAUS),
        "refinements": [1],
        "solvers": ["DOP853"],
        "step_rule": "tau",
    }


def run_long_sequences(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """The sweep's metrics (``run_flow_seed_sweep``) at each tau of ``settings["taus"]``: {"taus": [...],
    f"tau{tau:g}": the sweep's metrics at that tau}; ValueError unless the step rule is "tau" and taus are given."""
    if settings.get("step_rule") != "tau":
        raise ValueError(f"step_rule must be 'tau', got {settings.get('step_rule')!r}")
    taus = settings.get("taus")
    if not taus or not all(is_positive_number(t) for t in taus):
        raise ValueError(f"taus must be a non-empty list of positive numbers, got {taus!r}")
    metrics: dict[str, Any] = {"taus": list(taus)}
    one_sweep = {k: v for k, v in settings.items() if k != "taus"}
    for tau in taus:
        metrics[f"tau{tau:g}"] = run_flow_seed_sweep({**one_sweep, "tau": tau}, track, jobs)
    return metrics


def reached_by_tau(metrics: dict[str, Any]) -> dict[float, dict[int, dict[str, dict[str, Any]]]]:
    """The runs that reach p_mm in the study's ``metrics``: {tau: {d: {way: {"passed", "trials", "ci95"}}}}, taus in
    the record's order, dimensions from the smallest (``fixed_tau.reached_counts`` of each tau's sweep)."""
    return {float(tau): reached_counts(metrics[f"tau{tau:g}"]) for tau in metrics["taus"]}


LONG_SEQUENCES_PROTOCOL = (
    f"The reference case (ours: n = 200 sequences, V = 50, delta = 0) with sequences of T = {LENGTH} tokens, for each "
    "data and initialisation seed at d = 512, 1024, 2048 and 4096 (fast: d = 1024, two seeds), with the one step on E "
    f"of size tau eta*, eta* computed on the seed's own data, at tau = {' and '.join(f'{t:g}' for t in TAUS)}. p "
    "trained from 0 with E and v frozen over chapter 4's arc length, by normalised GD with step 1 and along the "
    f"normalised flow by scipy's DOP853 {ODE_WORDS}, {JUDGED_WORDS}"
)
