"""The fixed-tau runs that break chapter 4's hypothesis 1, followed past the float64 floor.

``flow_fixed_tau`` judges each run where float64 stops it. Chapter 4's limit theorem speaks for a run past that point
only if every sequence's relevant token is its optimal token after the one step (hypothesis 1). This study finds the
runs of ``flow_fixed_tau``'s settings that break it (``small_step.hypothesis_1_breaks``), follows each along the flow
to the floor (DOP853 at the sweep's tolerances, as ``flow_fixed_tau`` does) and then past it along the direction
computed in the log domain (``past_floor.trajectory``, RK45 at the same tolerances), and records where it stands
every ``every`` units of arc.
"""

from __future__ import annotations

from typing import Any

from ..scale import is_full
from .fixed_tau import FIXED_TAU_PROTOCOL, fixed_tau_settings
from .flow_seed_sweep import count
from .pool import Track, run_tasks, untracked
from .small_step import hypothesis_1_breaks

RECORD = "fixed_tau_past_floor"


def fixed_tau_past_floor_settings(scale: str) -> dict[str, Any]:
    """``flow_fixed_tau``'s settings at ``scale`` (its seeds, dimensions, step rule, tolerances and thresholds), with
    the arc length followed past the floor ("past_length", full 800, fast 200) and the spacing of the recorded states
    ("every", 100 units of arc)."""
    return {**fixed_tau_settings(scale), "past_length": 800 if is_full(scale) else 200, "every": 100}


def follow_run(seed: int, d: int, rows: int, settings: dict[str, Any]) -> dict[str, Any]:
    """One run of ``reference_case(seed, d, settings)`` that breaks hypothesis 1 in ``rows`` sequences: "seed", "d",
    "rows", "floor" (``judge_end`` at the floor: "cos", "reached", "kept", ...; and "arc", the arc length there) and
    "past" (``past_floor.trajectory``'s states from the floor, each with its "arc" past it, "cos" with p_mm, "classes"
    and "log_attention")."""
    import torch

    from ..theory.max_margin import solve_max_margin
    from .flow_seed_sweep import judge_end, reference_case
    from .flow_solvers import flow_ode
    from .past_floor import trajectory

    torch.set_num_threads(1)
    data, model = reference_case(seed, d, settings).build()
    E, v = model.E.detach(), model.v.detach()
    ode = settings["ode"]
    length = float(settings["steps"] * settings["lr"])
    start = torch.zeros(d, dtype=torch.float64)
    flow = flow_ode(E, v, data.X, data.y, start, length=length, method="DOP853", rtol=ode["rtol"], atol=ode["atol"])
    target = solve_max_margin(E, data.X, data.relevant).direction
    floor = judge_end(E, data, target, flow["p"], settings) | {"arc": float(flow["arc_length"])}
    values = (E @ v).numpy()[data.X.numpy()]
    past = trajectory(E.numpy(), values, data.X.numpy(), data.y.double().numpy(), data.relevant.numpy(),
                      flow["p"].numpy(), target.numpy(), length=settings["past_length"], every=settings["every"],
                      way="rk45", ode=ode, selected=settings["selected_attention"])  # fmt: skip
    return {"seed": seed, "d": d, "rows": rows, "floor": floor, "past": past}


def _follow(task: tuple[int, int, int, dict[str, Any]]) -> dict[str, Any]:
    return follow_run(*task)


def summarise(runs: list[dict[str, Any]], checked: int, threshold: float) -> dict[str, Any]:
    """Of ``checked`` runs, the ``runs`` that break hypothesis 1 ("runs"), and counts over them with Wilson 95%
    intervals: "reached" (at the floor), "stays" (of those, cos with p_mm at least ``threshold`` at every recorded
    state past the floor) and "both_classes" (both classes selected at the last state)."""
    if checked < len(runs):
        raise ValueError(f"checked must count every run, got {checked} for {len(runs)} runs that break hypothesis 1")
    reached = [run for run in runs if run["floor"]["reached"]]
    return {
        "checked": checked,
        "runs": runs,
        "counts": {
            "reached": count([run["floor"]["reached"] for run in runs]),
            "stays": count([all(state["cos"] >= threshold for state in run["past"]) for run in reached]),
            "both_classes": count([sorted(run["past"][-1]["classes"]) == [-1, 1] for run in runs]),
        },
    }


def run_fixed_tau_past_floor(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """Every run of the settings checked for hypothesis 1, and each that breaks it followed (``follow_run``), in ``jobs``
    processes: the columns of ``summarise``."""
    runs = [(seed, d) for d in settings["dimensions"] for seed in settings["seeds"]]
    breaking = [(seed, d, rows) for seed, d in track(iter(runs), len(runs))
                if (rows := hypothesis_1_breaks(seed, d, settings))]  # fmt: skip
    followed = run_tasks(_follow, [(*run, settings) for run in breaking], untracked, jobs) if breaking else []
    return summarise(followed, len(runs), settings["cosine_threshold"])


FIXED_TAU_PAST_FLOOR_PROTOCOL = (
    f"{FIXED_TAU_PROTOCOL.removesuffix(' Wilson 95% intervals.')} Of these runs, each whose relevant token is not "
    "the optimal token of every sequence after the step (chapter 4's hypothesis 1) is followed past the float64 "
    "floor along the flow (RK45 at the same tolerances, the direction computed in the log domain) over a further "
    "arc length (full: 800, fast: 200): cos(p, p_mm) and the selected classes every 100 units. Wilson 95% intervals."
)
